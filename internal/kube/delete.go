package kube

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var token string
	if req.Private != nil {
		raw, d := req.Private.GetKey(ctx, privateUnconfirmedCreate)
		resp.Diagnostics.Append(d...)
		token = tokenFrom(raw)
	}
	resp.Diagnostics.Append(r.DeleteRaw(ctx, req.State.Raw, token)...)
}

// DeleteRaw deletes the object of state prior and waits until it is gone. unconfirmedCreate is
// the creation token of a create whose answer was lost and that no refresh has confirmed since
// (a destroy with -refresh=false): only an object carrying it is deleted.
func (r *Resource) DeleteRaw(ctx context.Context, prior tftypes.Value, unconfirmedCreate string) diag.Diagnostics {
	var diags diag.Diagnostics
	attrs := ObjectAttrs(prior)
	meta, ok := metaFromAttrs(attrs)
	if !ok {
		return nil
	}
	ri := r.client(&diags, meta.namespace)
	if ri == nil {
		return diags
	}
	timeout := timeoutFrom(attrs[kindrules.AttrTimeouts], "delete", kindrules.DefaultDeleteTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if unconfirmedCreate != "" {
		u, err := ri.Get(ctx, meta.name, getOptions)
		if objectGone(err, meta.name) {
			return diags // never created: nothing to delete
		}
		if err != nil {
			diags.AddError("Cannot read "+r.kind.GVK.Kind, apiErrorDetail(err))
			return diags
		}
		if u.GetAnnotations()[CreationTokenAnnotation] != unconfirmedCreate {
			diags.AddWarning(fmt.Sprintf("%s %q was not created by this resource", r.kind.GVK.Kind, r.describe(meta)),
				"The create of this resource lost the server's answer, and the object of this name does not carry its creation "+
					"token: another configuration made it. It was left alone.")
			return diags
		}
	}
	policy := metav1.DeletePropagationForeground
	if r.kind.Hooks.AfterDelete != nil {
		policy = metav1.DeletePropagationBackground
	}
	err := deleteAndWait(ctx, ri, meta.name, policy)
	if err == nil && r.kind.Hooks.AfterDelete != nil {
		// The client worked for the DELETE just made; an error here is still reported
		// rather than skipping the wait for the dependents.
		dyn, derr := r.data.Client.Dynamic()
		if derr != nil {
			err = derr
		} else {
			err = r.kind.Hooks.AfterDelete(ctx, dyn, meta.namespace, meta.name)
		}
	}
	if isNotFound(err) {
		diags.AddError(fmt.Sprintf("Cannot delete %s %q", r.kind.GVK.Kind, r.describe(meta)), notServedDetail(r.kind.GVR(), r.kind.GVK.Kind, err))
	} else if err != nil {
		diags.AddError(fmt.Sprintf("Cannot delete %s %q", r.kind.GVK.Kind, r.describe(meta)), err.Error())
	}
	return diags
}
