package kindrules

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
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
