package kindrules

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// ValidateConfig runs the plan-time rules of the kind on a configuration value: decoding
// errors, CheckConfig's errors and warnings, and Validate on the defaulted object.
func ValidateConfig(k *Kind, config tftypes.Value) diag.Diagnostics {
	node := k.Node()
	obj := k.NewObject()
	dec := k8sschema.Decode(node, config, obj, nil)
	var errs field.ErrorList
	var diags diag.Diagnostics
	if k.CheckConfig != nil {
		more, warnings := k.CheckConfig(obj, config)
		errs = append(errs, more...)
		for _, w := range warnings {
			p, _ := k8sschema.AttributePath(node, w.Path.String())
			diags.AddAttributeWarning(p, w.Summary, fmt.Sprintf("%s: %s", p, w.Detail))
		}
	}
	if k.Validate != nil {
		defaulted := obj.DeepCopyObject()
		if k.Defaults != nil {
			k.Defaults(defaulted, config)
		}
		errs = append(errs, k.Validate(defaulted)...)
	}
	// A value that could not be decoded (a number too large, a bad quantity) has its own error;
	// to the rules it is as good as unknown, so they add no second, misleading one about the
	// zero value that stands in for it.
	undecoded := append([]*field.Path{}, dec.Unknown...)
	for _, e := range dec.Errs {
		undecoded = append(undecoded, field.NewPath(e.Field))
	}
	diags.Append(k8sschema.Diagnostics(node, dec.Errs, dec.Unknown)...)
	diags.Append(k8sschema.Diagnostics(node, dedupe(errs), undecoded)...)
	if k.CheckWritten != nil {
		diags.Append(k8sschema.Diagnostics(node, k.CheckWritten(config), nil)...)
	}
	return diags
}

// dedupe drops errors reported twice by overlapping rule sets.
func dedupe(errs field.ErrorList) field.ErrorList {
	seen := map[string]bool{}
	out := errs[:0:0]
	for _, e := range errs {
		key := e.Error()
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, e)
	}
	return out
}

// ValidateTimeouts checks the durations of a resource configuration's timeouts attribute, as
// the timeouts package's validators would.
func ValidateTimeouts(config tftypes.Value) diag.Diagnostics {
	var diags diag.Diagnostics
	t, ok := objectAttrs(config)[AttrTimeouts]
	if !ok || !t.IsKnown() || t.IsNull() {
		return nil
	}
	for op, v := range objectAttrs(t) {
		if !v.IsKnown() || v.IsNull() {
			continue
		}
		var s string
		if v.As(&s) != nil || s == "" {
			continue
		}
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			diags.AddAttributeError(path.Root(AttrTimeouts).AtName(op), "Invalid duration",
				"timeouts."+op+" must be a duration such as \"30s\", \"10m\" or \"2h\": "+err.Error())
		case d <= 0:
			// A zero or negative timeout would end the operation before its first request.
			diags.AddAttributeError(path.Root(AttrTimeouts).AtName(op), "Invalid duration",
				fmt.Sprintf("timeouts.%s must be positive, such as \"30s\", \"10m\" or \"2h\"; got %q", op, s))
		}
	}
	return diags
}

// objectAttrs is the attributes of object value v; empty for a null or unknown value.
func objectAttrs(v tftypes.Value) map[string]tftypes.Value {
	var m map[string]tftypes.Value
	_ = v.As(&m)
	return m
}

// ProtoDiagnostics converts framework diagnostics to the protocol's, their attribute paths
// included.
func ProtoDiagnostics(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Summary: d.Summary(), Detail: d.Detail(), Severity: tfprotov6.DiagnosticSeverityError}
		if d.Severity() == diag.SeverityWarning {
			pd.Severity = tfprotov6.DiagnosticSeverityWarning
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = ProtoPath(wp.Path())
		}
		out = append(out, pd)
	}
	return out
}

// ProtoPath converts a framework attribute path to the protocol's.
func ProtoPath(p path.Path) *tftypes.AttributePath {
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
