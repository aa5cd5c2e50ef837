package protocol

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// protoIdentity encodes an identity for a protocol response; nil when it cannot be encoded.
func protoIdentity(v tftypes.Value) *tfprotov6.ResourceIdentityData {
	dv, err := tfprotov6.NewDynamicValue(v.Type(), v)
	if err != nil {
		return nil
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}
}

func errorDiag(summary, detail string) *tfprotov6.Diagnostic {
	return &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError, Summary: summary, Detail: detail}
}

func toProtoDiags(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Summary: d.Summary(), Detail: d.Detail(), Severity: tfprotov6.DiagnosticSeverityError}
		if d.Severity() == diag.SeverityWarning {
			pd.Severity = tfprotov6.DiagnosticSeverityWarning
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = toTFPath(wp.Path())
		}
		out = append(out, pd)
	}
	return out
}

func toTFPath(p path.Path) *tftypes.AttributePath {
	tp := tftypes.NewAttributePath()
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case path.PathStepAttributeName:
			tp = tp.WithAttributeName(string(s))
		case path.PathStepElementKeyInt:
			tp = tp.WithElementKeyInt(int(s))
		case path.PathStepElementKeyString:
			tp = tp.WithElementKeyString(string(s))
		}
	}
	return tp
}
