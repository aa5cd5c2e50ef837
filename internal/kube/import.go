package kube

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// ImportState accepts "namespace/name" (or "name" for the default namespace, or a
// cluster-scoped kind), or an identity (see IdentitySchema).
func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" && req.Identity != nil && !req.Identity.Raw.IsNull() {
		meta, err := r.metaFromIdentity(req.Identity.Raw)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root(kindrules.IdentityName), "Invalid import identity", err.Error())
			return
		}
		r.setImported(ctx, meta, resp)
		return
	}
	ns, name := "", req.ID
	if r.kind.Namespaced {
		if before, after, found := strings.Cut(req.ID, "/"); found {
			ns, name = before, after
		} else {
			ns = "default"
		}
	} else if strings.Contains(req.ID, "/") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("%s is cluster-scoped: import it by name alone, not %q.", r.kind.GVK.Kind, req.ID))
		return
	}
	if name == "" || strings.Contains(name, "/") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected %s, got %q.", r.importHint(), req.ID))
		return
	}
	r.setImported(ctx, objMeta{name, ns}, resp)
}

// setImported records the object to import: its name and namespace, which the read that
// follows the import fills in from.
func (r *Resource) setImported(ctx context.Context, meta objMeta, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, importNamePath, meta.name)...)
	if r.kind.Namespaced {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, importNamespacePath, meta.namespace)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(kindrules.AttrID), r.importID(meta))...)
	if resp.Identity != nil {
		resp.Identity.Raw = r.IdentityValue(meta.namespace, meta.name)
	}
}

func (r *Resource) importHint() string {
	if r.kind.Namespaced {
		return "namespace/name"
	}
	return "name"
}

func (r *Resource) importID(m objMeta) string {
	if r.kind.Namespaced {
		return m.namespace + "/" + m.name
	}
	return m.name
}

func (r *Resource) describe(m objMeta) string { return r.importID(m) }
