package kube

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// A `moved` block from hashicorp/kubernetes' kubernetes_manifest to one of this provider's
// resources (Terraform 1.8+, MoveResourceState) keeps the object: the state is built from the
// object kubernetes_manifest recorded, and the read that follows refreshes it from the cluster.
// kubernetes_manifest's state (terraform-provider-kubernetes v2, manifest/provider/resource.go)
// holds the object the server returned in its dynamic attribute "object" (and the configured
// manifest in "manifest"); in the JSON of a state, a dynamic value is {"value": ..., "type": ...}.

const (
	kubernetesManifestType     = "kubernetes_manifest"
	kubernetesProviderSuffixes = "hashicorp/kubernetes"
)

var _ resource.ResourceWithMoveState = (*Resource)(nil)

func (r *Resource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{{StateMover: r.moveFromKubernetesManifest}}
}

func (r *Resource) moveFromKubernetesManifest(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
	if req.SourceTypeName != kubernetesManifestType || !strings.HasSuffix(req.SourceProviderAddress, kubernetesProviderSuffixes) {
		return // not ours to move: the framework reports that no mover took it
	}
	if req.SourceRawState == nil || len(req.SourceRawState.JSON) == 0 {
		resp.Diagnostics.AddError("Cannot move "+kubernetesManifestType, "The source state is empty.")
		return
	}
	var attrs map[string]any
	if err := utiljson.Unmarshal(req.SourceRawState.JSON, &attrs); err != nil {
		resp.Diagnostics.AddError("Cannot move "+kubernetesManifestType, "The source state is not JSON: "+err.Error())
		return
	}
	obj := dynamicValue(attrs["object"])
	if obj == nil {
		obj = dynamicValue(attrs["manifest"])
	}
	if obj == nil {
		resp.Diagnostics.AddError("Cannot move "+kubernetesManifestType, "The source state holds neither an object nor a manifest.")
		return
	}
	clean, _ := withoutNulls(obj).(map[string]any) // a map stays a map
	u := &unstructured.Unstructured{Object: clean}
	if gvk := u.GroupVersionKind(); gvk != r.kind.GVK {
		resp.Diagnostics.AddError("Cannot move "+kubernetesManifestType,
			fmt.Sprintf("The kubernetes_manifest holds a %s %s, not a %s %s.", u.GetAPIVersion(), u.GetKind(), r.kind.GVK.GroupVersion(), r.kind.GVK.Kind))
		return
	}
	if u.GetName() == "" || (r.kind.Namespaced && u.GetNamespace() == "") {
		resp.Diagnostics.AddError("Cannot move "+kubernetesManifestType, "The object in the source state has no metadata.name (or metadata.namespace).")
		return
	}
	typ := resp.TargetState.Schema.Type().TerraformType(ctx)
	st, err := r.stateFrom(nullAttributes(typ), u, true)
	if err != nil {
		resp.Diagnostics.AddError("Cannot move "+kubernetesManifestType, err.Error())
		return
	}
	resp.TargetState.Raw = st
	if resp.TargetIdentity != nil {
		resp.TargetIdentity.Raw = r.IdentityOf(st)
	}
}

// dynamicValue unwraps a dynamic attribute of a JSON state ({"value": v, "type": t}).
func dynamicValue(v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if inner, ok := m["value"].(map[string]any); ok {
		if _, typed := m["type"]; typed {
			return inner
		}
	}
	if _, ok := m["apiVersion"]; ok {
		return m
	}
	return nil
}

// withoutNulls drops null values: kubernetes_manifest's object has every attribute of the
// CRD's schema, null where the server has none.
func withoutNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil {
				out[k] = withoutNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if e != nil {
				out = append(out, withoutNulls(e))
			}
		}
		return out
	}
	return v
}
