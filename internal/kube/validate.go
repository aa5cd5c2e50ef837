package kube

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

func (r *Resource) ConfigValidators(context.Context) []resource.ConfigValidator { return nil }

// ValidateConfig runs every plan-time rule on the configuration, offline.
func (r *Resource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(r.ValidateRaw(req.Config.Raw)...)
}

// ValidateRaw runs the plan-time rules of the kind on a configuration value: decoding
// errors, CheckConfig's errors and warnings, and Validate on the defaulted object.
func (r *Resource) ValidateRaw(config tftypes.Value) diag.Diagnostics {
	node := r.kind.Node()
	obj := r.kind.NewObject()
	dec := k8sschema.Decode(node, config, obj, nil)
	var errs field.ErrorList
	var diags diag.Diagnostics
	if r.kind.CheckConfig != nil {
		more, warnings := r.kind.CheckConfig(obj, config)
		errs = append(errs, more...)
		for _, w := range warnings {
			p, _ := k8sschema.AttributePath(node, w.Path.String())
			diags.AddAttributeWarning(p, w.Summary, fmt.Sprintf("%s: %s", p, w.Detail))
		}
	}
	if r.kind.Validate != nil {
		defaulted := obj.DeepCopyObject()
		if r.kind.Defaults != nil {
			r.kind.Defaults(defaulted, config)
		}
		errs = append(errs, r.kind.Validate(defaulted)...)
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
