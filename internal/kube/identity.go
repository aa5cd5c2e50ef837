package kube

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// Resource identity (Terraform 1.12+): the attributes that name the object in the cluster,
// kept by Terraform beside the state and accepted by import blocks
// (`import { to = ..., identity = { namespace = "inference", name = "vllm" } }`). For a
// Kubernetes object that is its name, and its namespace for a namespaced kind: the same two
// values as the import ID "namespace/name". Both paths (the framework's resource methods and
// the protocol server of package protocol) compute it from the state with IdentityOf.

var _ resource.ResourceWithIdentity = (*Resource)(nil)

func (r *Resource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = r.kind.IdentitySchema()
}

// identityType is the Terraform type of the kind's identity.
func (r *Resource) identityType() tftypes.Object {
	attrs := map[string]tftypes.Type{kindrules.IdentityName: tftypes.String}
	if r.kind.Namespaced {
		attrs[kindrules.IdentityNamespace] = tftypes.String
	}
	return tftypes.Object{AttributeTypes: attrs}
}

// IdentityOf returns the identity of the object a state describes: null for a null state or
// one whose name is not known yet.
func (r *Resource) IdentityOf(state tftypes.Value) tftypes.Value {
	typ := r.identityType()
	if !state.IsKnown() || state.IsNull() {
		return tftypes.NewValue(typ, nil)
	}
	meta, ok := metaFromAttrs(ObjectAttrs(state))
	if !ok {
		return tftypes.NewValue(typ, nil)
	}
	return r.IdentityValue(meta.namespace, meta.name)
}

// IdentityValue is the identity of the object named namespace/name (the namespace is ignored
// for a cluster-scoped kind).
func (r *Resource) IdentityValue(namespace, name string) tftypes.Value {
	attrs := map[string]tftypes.Value{kindrules.IdentityName: tftypes.NewValue(tftypes.String, name)}
	if r.kind.Namespaced {
		attrs[kindrules.IdentityNamespace] = tftypes.NewValue(tftypes.String, namespace)
	}
	return tftypes.NewValue(r.identityType(), attrs)
}

// metaFromIdentity reads an identity given at import; the namespace defaults to "default".
func (r *Resource) metaFromIdentity(identity tftypes.Value) (objMeta, error) {
	var m objMeta
	attrs := ObjectAttrs(identity)
	name, ok := KnownString(attrs[kindrules.IdentityName])
	if !ok || name == "" || strings.Contains(name, "/") {
		return m, fmt.Errorf("identity.%s must be the object's metadata.name, got %q", kindrules.IdentityName, name)
	}
	m.name = name
	if r.kind.Namespaced {
		m.namespace = "default"
		if ns, ok := KnownString(attrs[kindrules.IdentityNamespace]); ok && ns != "" {
			m.namespace = ns
		}
		if strings.Contains(m.namespace, "/") {
			return m, fmt.Errorf("identity.%s must be the object's metadata.namespace, got %q", kindrules.IdentityNamespace, m.namespace)
		}
	}
	return m, nil
}

// importPath is where import stores the name and namespace in the state.
var (
	importNamePath      = path.Root("metadata").AtName("name")
	importNamespacePath = path.Root("metadata").AtName("namespace")
)
