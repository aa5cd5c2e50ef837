package protocol

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
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
	return kindrules.ProtoDiagnostics(diags)
}
