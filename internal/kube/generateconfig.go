package kube

import (
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// Terraform writes a resource block from the values a list resource returns
// (`terraform query -generate-config-out`): every attribute that is not computed-only and not
// null. The state an import records is the wrong source for that block: it holds the defaults
// the provider plans, including those of fields the installed CRD does not have (the released
// LeaderWorkerSet has no groupIdentity, and a block setting it fails to apply), and the
// provider-only settings at their defaults. configFrom gives the values a configuration needs
// instead, so the generated block is what a user would write and plans no change after import.

// configFrom returns the node value of a configuration that reproduces u: the object as the
// server returned it, without the values the provider's planned defaults (Kind.Defaults) give
// anyway. Each defaulted attribute (k8sschema.OptionalComputed) is left out only when the plan
// of the configuration without it still equals the state an import records, so a default that
// depends on other fields is never dropped wrongly.
func (k *Kind) configFrom(u *unstructured.Unstructured) (tftypes.Value, error) {
	node := k.Node()
	obj := k.NewObject()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return tftypes.Value{}, err
	}
	imported, err := k.FromServer(u)
	if err != nil {
		return tftypes.Value{}, err
	}
	if k.ClearServerDefaults != nil {
		k.ClearServerDefaults(obj, k8sschema.NullValue(node))
		k.ClearServerDefaults(imported, k8sschema.NullValue(node))
	}
	return k.withoutDefaults(k8sschema.Encode(node, obj), k8sschema.Encode(node, imported)), nil
}

// configFromState is configFrom for a state (the node's part of it), whose planned defaults are
// filled in: what Terraform's GenerateResourceConfig asks for.
func (k *Kind) configFromState(state tftypes.Value) tftypes.Value {
	if k.ClearServerDefaults != nil {
		// A state an earlier version recorded may hold them.
		obj := k.NewObject()
		if dec := k8sschema.Decode(k.Node(), state, obj, nil); len(dec.Errs) == 0 && len(dec.Unknown) == 0 {
			k.ClearServerDefaults(obj, k8sschema.NullValue(k.Node()))
			state = k8sschema.Merge(k.Node(), state, k8sschema.Encode(k.Node(), obj))
		}
	}
	if k.Defaults == nil {
		return state
	}
	want, ok := k.plannedFrom(state)
	if !ok {
		return state
	}
	return k.withoutDefaults(state, want)
}

// withoutDefaults leaves out of config each defaulted attribute whose absence keeps the plan
// equal to want.
func (k *Kind) withoutDefaults(config, want tftypes.Value) tftypes.Value {
	if k.Defaults == nil {
		return config
	}
	node := k.Node()
	var candidates []*tftypes.AttributePath
	collectDefaulted(node, config, tftypes.NewAttributePath(), &candidates)
	for _, p := range candidates {
		trial, changed, err := nullAt(config, p)
		if err != nil || !changed {
			continue // gone with an enclosing attribute left out before
		}
		if planned, ok := k.plannedFrom(trial); ok && planned.Equal(want) {
			config = trial
		}
	}
	return config
}

// plannedFrom is what the plan holds for a configuration: decoded and defaulted.
func (k *Kind) plannedFrom(config tftypes.Value) (tftypes.Value, bool) {
	node := k.Node()
	obj := k.NewObject()
	if dec := k8sschema.Decode(node, config, obj, nil); len(dec.Errs) > 0 {
		return tftypes.Value{}, false
	}
	k.Defaults(obj, config)
	return k8sschema.Encode(node, obj), true
}

// collectDefaulted lists the paths of the non-null OptionalComputed attributes of v, outer
// attributes before the attributes inside them.
func collectDefaulted(n *k8sschema.Node, v tftypes.Value, p *tftypes.AttributePath, out *[]*tftypes.AttributePath) {
	if !v.IsKnown() || v.IsNull() {
		return
	}
	switch n.Kind {
	case k8sschema.KindObject:
		attrs := ObjectAttrs(v)
		for _, f := range n.Fields {
			fv, ok := attrs[f.TFName]
			if !ok || fv.IsNull() {
				continue
			}
			fp := p.WithAttributeName(f.TFName)
			if f.Mode == k8sschema.OptionalComputed {
				*out = append(*out, fp)
			}
			collectDefaulted(f, fv, fp, out)
		}
	case k8sschema.KindList:
		var elems []tftypes.Value
		if v.As(&elems) == nil {
			for i, e := range elems {
				collectDefaulted(n.Elem, e, p.WithElementKeyInt(i), out)
			}
		}
	case k8sschema.KindMap:
		var elems map[string]tftypes.Value
		if v.As(&elems) == nil {
			for key, e := range elems {
				collectDefaulted(n.Elem, e, p.WithElementKeyString(key), out)
			}
		}
	}
}

// nullAt returns v with the attribute at p set to null; changed is false when p holds no
// non-null value.
func nullAt(v tftypes.Value, p *tftypes.AttributePath) (tftypes.Value, bool, error) {
	changed := false
	out, err := tftypes.Transform(v, func(at *tftypes.AttributePath, x tftypes.Value) (tftypes.Value, error) {
		if at.Equal(p) && !x.IsNull() {
			changed = true
			return tftypes.NewValue(x.Type(), nil), nil
		}
		return x, nil
	})
	return out, changed, err
}
