package kube

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Resource identity (Terraform 1.12+): the attributes that name the object in the cluster,
// kept by Terraform beside the state and accepted by import blocks
// (`import { to = ..., identity = { namespace = "inference", name = "vllm" } }`). For a
// Kubernetes object that is its name, and its namespace for a namespaced kind: the same two
// values as the import ID "namespace/name". Both paths (the framework's resource methods and
// the fast path) compute it from the state with identityOf.

const (
	identityName      = "name"
	identityNamespace = "namespace"
)

var _ resource.ResourceWithIdentity = (*Resource)(nil)

func (r *Resource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	attrs := map[string]identityschema.Attribute{
		identityName: identityschema.StringAttribute{RequiredForImport: true,
			Description: "metadata.name of the " + r.kind.GVK.Kind + "."},
	}
	if r.kind.Namespaced {
		attrs[identityNamespace] = identityschema.StringAttribute{OptionalForImport: true,
			Description: "metadata.namespace of the " + r.kind.GVK.Kind + "; \"default\" when left out at import."}
	}
	resp.IdentitySchema = identityschema.Schema{Attributes: attrs}
}

// identityType is the Terraform type of the kind's identity.
func (r *Resource) identityType() tftypes.Object {
	attrs := map[string]tftypes.Type{identityName: tftypes.String}
	if r.kind.Namespaced {
		attrs[identityNamespace] = tftypes.String
	}
	return tftypes.Object{AttributeTypes: attrs}
}

// identityOf returns the identity of the object a state describes: null for a null state or
// one whose name is not known yet.
func (r *Resource) identityOf(state tftypes.Value) tftypes.Value {
	typ := r.identityType()
	if !state.IsKnown() || state.IsNull() {
		return tftypes.NewValue(typ, nil)
	}
	meta, ok := metaFromAttrs(objectAttrs(state))
	if !ok {
		return tftypes.NewValue(typ, nil)
	}
	return r.identityValue(meta)
}

func (r *Resource) identityValue(meta objMeta) tftypes.Value {
	attrs := map[string]tftypes.Value{identityName: tftypes.NewValue(tftypes.String, meta.name)}
	if r.kind.Namespaced {
		attrs[identityNamespace] = tftypes.NewValue(tftypes.String, meta.namespace)
	}
	return tftypes.NewValue(r.identityType(), attrs)
}

// metaFromIdentity reads an identity given at import; the namespace defaults to "default".
func (r *Resource) metaFromIdentity(identity tftypes.Value) (objMeta, error) {
	var m objMeta
	attrs := objectAttrs(identity)
	name, ok := knownString(attrs[identityName])
	if !ok || name == "" || strings.Contains(name, "/") {
		return m, fmt.Errorf("identity.%s must be the object's metadata.name, got %q", identityName, name)
	}
	m.name = name
	if r.kind.Namespaced {
		m.namespace = "default"
		if ns, ok := knownString(attrs[identityNamespace]); ok && ns != "" {
			m.namespace = ns
		}
		if strings.Contains(m.namespace, "/") {
			return m, fmt.Errorf("identity.%s must be the object's metadata.namespace, got %q", identityNamespace, m.namespace)
		}
	}
	return m, nil
}

// protoIdentity encodes an identity for a protocol response; nil when it cannot be encoded.
func protoIdentity(v tftypes.Value) *tfprotov6.ResourceIdentityData {
	dv, err := tfprotov6.NewDynamicValue(v.Type(), v)
	if err != nil {
		return nil
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}
}

// importPath is where import stores the name and namespace in the state.
var (
	importNamePath      = path.Root("metadata").AtName("name")
	importNamespacePath = path.Root("metadata").AtName("namespace")
)
