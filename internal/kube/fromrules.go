package kube

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// FromRules is the kind whose offline rules are r (package kindrules: schema, defaults,
// validation), served with hooks that talk to the cluster. The node tree is r's, built once.
func FromRules(r *kindrules.Kind, hooks Hooks) *Kind {
	k := &Kind{
		TypeName:            r.TypeName,
		GVK:                 r.GVK,
		Resource:            r.Resource,
		Namespaced:          r.Namespaced,
		NewObject:           r.NewObject,
		Description:         r.Description,
		BuildNode:           r.Node,
		Defaults:            r.Defaults,
		Validate:            r.Validate,
		ReplaceOn:           r.ReplaceOn,
		ValidateUpdate:      r.ValidateUpdate,
		ClearServerDefaults: r.ClearServerDefaults,
		UndeclaredField:     r.UndeclaredField,
		Extras:              r.Extras,
		ExtraDefaults:       r.ExtraDefaults,
		Derived:             r.Derived,
		Derive:              r.Derive,
		Hooks:               hooks,
	}
	if r.CheckConfig != nil {
		k.CheckConfig = func(obj runtime.Object, config tftypes.Value) (field.ErrorList, []Warning) {
			errs, warnings := r.CheckConfig(obj, config)
			return errs, kubeWarnings(warnings)
		}
	}
	if r.PlanUpdate != nil {
		k.PlanUpdate = func(newObj, oldObj runtime.Object, extras map[string]tftypes.Value, unknown []*field.Path) ([]Warning, field.ErrorList) {
			warnings, errs := r.PlanUpdate(newObj, oldObj, extras, unknown)
			return kubeWarnings(warnings), errs
		}
	}
	return k
}

func kubeWarnings(ws []kindrules.Warning) []Warning {
	if ws == nil {
		return nil
	}
	out := make([]Warning, len(ws))
	for i, w := range ws {
		out[i] = Warning(w)
	}
	return out
}
