package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// applyBody is the server-side apply document: obj, decoded from the configuration, with only
// the fields config sets (k8sschema.ConfiguredOnly), never status or planned defaults, under the
// planned name and namespace.
func (r *Resource) applyBody(obj runtime.Object, config tftypes.Value, meta objMeta, extras map[string]tftypes.Value, creationToken string) ([]byte, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, err
	}
	k8sschema.ConfiguredOnly(r.kind.Node(), config, body)
	body["apiVersion"] = r.kind.GVK.GroupVersion().String()
	body["kind"] = r.kind.GVK.Kind
	m, _ := body["metadata"].(map[string]any)
	if m == nil {
		m = map[string]any{}
		body["metadata"] = m
	}
	m["name"] = meta.name
	if r.kind.Namespaced {
		m["namespace"] = meta.namespace // planned: "default" when the configuration has none
	}
	if r.kind.Hooks.ApplyBody != nil {
		r.kind.Hooks.ApplyBody(body, extras)
	}
	setSettingsAnnotation(body, r.encodeSettings(extras))
	if creationToken != "" {
		setAnnotation(body, CreationTokenAnnotation, creationToken)
	}
	return json.Marshal(body)
}

func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	private := r.ApplyRaw(ctx, req.Plan.Raw, req.Config.Raw, tftypes.NewValue(req.Plan.Raw.Type(), nil), nil, &resp.State.Raw, &resp.Diagnostics)
	if resp.Private != nil {
		setRawPrivate(ctx, resp.Private, private, &resp.Diagnostics)
	}
	if resp.Identity != nil {
		resp.Identity.Raw = r.IdentityOf(resp.State.Raw)
	}
}

func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var private []byte
	if req.Private != nil {
		private = rawPrivate(ctx, req.Private, &resp.Diagnostics)
	}
	private = r.ApplyRaw(ctx, req.Plan.Raw, req.Config.Raw, req.State.Raw, private, &resp.State.Raw, &resp.Diagnostics)
	if resp.Private != nil {
		setRawPrivate(ctx, resp.Private, private, &resp.Diagnostics)
	}
	if resp.Identity != nil {
		resp.Identity.Raw = r.IdentityOf(resp.State.Raw)
	}
}

// ApplyRaw server-side applies the configuration (fully known at apply time) and records the
// object the server returns. plan gives the planned identity and the provider-only settings;
// prior (null on create) tells which planned values of unset attributes change the object
// (k8sschema.Intent). private is the planned private state (the framework's encoding); ApplyRaw
// returns it as the state must remember it (ApplyMarks).
func (r *Resource) ApplyRaw(ctx context.Context, plan, config, prior tftypes.Value, private []byte, state *tftypes.Value, diags *diag.Diagnostics) []byte {
	var marks ApplyMarks
	r.apply(ctx, plan, config, prior, CreationToken(private), state, &marks, diags)
	return WithApplyMarks(private, marks)
}

// apply is ApplyRaw. stateToken is the state's creation token, which an update carries on the
// object (a new one when the state has none yet). marks reports what the private state must
// remember: a readiness wait (AfterApply) that did not finish (timed out or interrupted; the
// object is recorded and the next plan carries on the wait), a create whose answer was lost
// (the planned object is recorded with its creation token, and the next refresh confirms it),
// and the token the object now carries.
func (r *Resource) apply(ctx context.Context, plan, config, prior tftypes.Value, stateToken string, state *tftypes.Value, marks *ApplyMarks, diags *diag.Diagnostics) {
	node := r.kind.Node()
	create := prior.IsNull()
	intent := k8sschema.Intent(node, config, plan, prior)
	obj := r.kind.NewObject()
	dec := k8sschema.Decode(node, intent, obj, nil)
	if len(dec.Errs) > 0 {
		diags.Append(k8sschema.Diagnostics(node, dec.Errs, nil)...)
		return
	}
	extras := ObjectAttrs(plan)
	meta, ok := metaFromAttrs(extras)
	if !ok {
		diags.AddError("Cannot apply "+r.kind.GVK.Kind, "The plan has no metadata.name.")
		return
	}
	token := stateToken
	if create || token == "" {
		token = newCreationToken()
	}
	body, err := r.applyBody(obj, intent, meta, extras, token)
	if err != nil {
		diags.AddError("Cannot encode the object", err.Error())
		return
	}
	ri := r.client(diags, meta.namespace)
	if ri == nil {
		return
	}
	op, defaultTimeout := "update", kindrules.DefaultUpdateTimeout
	if create {
		op, defaultTimeout = "create", kindrules.DefaultCreateTimeout
	}
	timeout := timeoutFrom(extras[kindrules.AttrTimeouts], op, defaultTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	force := kindrules.BoolExtra(extras, kindrules.AttrForceConflicts, kindrules.DefaultForceConflicts)
	if create {
		// An object of this name that the state does not hold is another's, whoever made it:
		// even one this provider made in an apply whose answer was lost is adopted only by the
		// refresh that finds this resource's creation token on it (confirmCreate).
		if u, err := ri.Get(ctx, meta.name, getOptions); err == nil {
			diags.AddError(fmt.Sprintf("%s %q already exists", r.kind.GVK.Kind, r.describe(meta)), r.existsDetail(u, meta))
			return
		} else if !objectGone(err, meta.name) {
			if isNotFound(err) {
				diags.AddError(fmt.Sprintf("Cannot apply %s %q", r.kind.GVK.Kind, r.describe(meta)), notServedDetail(r.kind.GVR(), r.kind.GVK.Kind, err))
				return
			}
			diags.AddError("Cannot read "+r.kind.GVK.Kind, apiErrorDetail(err))
			return
		}
	} else if err := r.handOver(ctx, ri, meta.name, body, extras, prior, force); err != nil {
		summary := fmt.Sprintf("Cannot apply %s %q", r.kind.GVK.Kind, r.describe(meta))
		var stray *strayFieldsError
		switch {
		case errors.As(err, &stray):
			diags.AddError(summary, err.Error())
		case errors.Is(err, errObjectGone):
			// Re-creating it would not be the approved in-place update: another object, with
			// another uid (which the plan keeps), and its groups started from scratch.
			diags.AddError(summary, "The object was deleted after the plan was made, so the in-place update the plan "+
				"approved cannot be carried out: nothing was applied. The next plan finds it gone and creates it.")
		case apiNotServed(err):
			diags.AddError(summary, notServedDetail(r.kind.GVR(), r.kind.GVK.Kind, err))
		default:
			diags.AddError(summary, "Cannot read the object before applying: "+apiErrorDetail(err))
		}
		return
	}
	// The body holds only what the configuration sets; it is not logged (it may hold literal
	// secret values of env entries).
	tflog.Trace(ctx, "Server-side apply", map[string]any{
		"kind": r.kind.GVK.Kind, "object": r.describe(meta), "create": create, "force": force,
		"field_manager": r.fieldManager(), "body_bytes": len(body),
	})
	out, err := ri.Patch(ctx, meta.name, applyPatchType, body, patchOptions(r.fieldManager(), force))
	lost := create && answerLost(err)
	if lost && ctx.Err() == nil {
		// The answer was lost, not necessarily the server: the object carrying this create's
		// token settles it. None means the create was not carried out.
		u, gerr := ri.Get(ctx, meta.name, getOptions)
		switch {
		case gerr == nil && u.GetAnnotations()[CreationTokenAnnotation] == token:
			out, err, lost = u, nil, false
		case objectGone(gerr, meta.name):
			lost = false
		}
	}
	if err != nil {
		summary := fmt.Sprintf("Cannot apply %s %q", r.kind.GVK.Kind, r.describe(meta))
		if lost {
			// The object may exist: record it as planned, unconfirmed, with its creation token;
			// the next refresh keeps it if the cluster has it with that token (and the plan
			// carries on its wait), and drops it otherwise. A warning, not an error: Terraform
			// taints an object whose create errs, and the next apply would replace it, for a
			// fleet of inference servers an outage (the same reason an unfinished wait warns).
			*state = unconfirmedState(plan)
			marks.UnconfirmedCreate = token
			marks.CreationToken = token
			marks.WaitPending = r.kind.Hooks.AfterApply != nil
			why := "Terraform was interrupted"
			if !errors.Is(ctx.Err(), context.Canceled) {
				why = "the API server's answer was lost (" + apiErrorDetail(err) + ")"
			}
			diags.AddWarning(fmt.Sprintf("%s %q may not have been created", r.kind.GVK.Kind, r.describe(meta)),
				"The server-side apply that creates it was sent, but "+why+" before the answer came, so the object may or may "+
					"not exist. It is recorded in the state as not yet confirmed: the next plan reads the cluster and keeps it only if "+
					"it carries this resource's creation token (then the plan carries on the wait for it), or plans its creation "+
					"again if it is missing.")
			return
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			diags.AddError(summary, "Interrupted: Terraform was stopped before the API server answered the server-side apply.")
			return
		}
		if undeclared := r.undeclaredFieldDiags(ctx, ri, meta.name, patchOptions(r.fieldManager(), force), summary, err, body); undeclared.HasError() {
			diags.Append(undeclared...)
			return
		}
		if apiNotServed(err) {
			// The CRD was deleted after the plan, or the provider points at another cluster.
			diags.AddError(summary, notServedDetail(r.kind.GVR(), r.kind.GVK.Kind, err))
			return
		}
		diags.AddError(summary, apiErrorDetail(err))
		return
	}
	// From here on the object exists: always record state so a re-run converges.
	marks.CreationToken = token
	if r.kind.Hooks.AfterApply != nil {
		dyn, _ := r.data.Client.Dynamic() // already built: ri came from it
		wctx, notes := WithWaitReport(ctx, nil)
		final, werr := r.kind.Hooks.AfterApply(wctx, dyn, ri, out, extras)
		if final != nil {
			out = final
		}
		for _, note := range notes() {
			diags.AddWarning("The provider lacks a permission its wait uses", "The wait for "+r.kind.GVK.Kind+" "+
				strconv.Quote(r.describe(meta))+" "+note)
		}
		if werr != nil {
			// Whatever ended the wait (its timeout, an interrupt, a refusal, a lost API server),
			// the object was applied as planned: it is recorded, and the next plan carries the
			// wait on. A wait that did not finish is an error, so that a pipeline can tell (the
			// convention of hashicorp/kubernetes' kubernetes_deployment_v1 wait_for_rollout),
			// although on a create Terraform then taints the object and the next apply replaces
			// it. Only an interrupted create is a warning: Terraform reports the interrupt itself,
			// and tainting the object for it would replace it for nothing.
			marks.WaitPending = true
			tflog.Trace(ctx, "The readiness wait did not finish: recording the object and carrying the wait on in the next plan",
				map[string]any{"kind": r.kind.GVK.Kind, "object": r.describe(meta), "error": werr.Error()})
			var unfinished *RolloutUnfinished
			if create && errors.As(werr, &unfinished) && unfinished.Interrupted {
				diags.AddWarning(fmt.Sprintf("%s %q is not ready yet", r.kind.GVK.Kind, r.describe(meta)), werr.Error())
			} else {
				diags.AddError(fmt.Sprintf("%s %q is not ready", r.kind.GVK.Kind, r.describe(meta)), werr.Error())
			}
		}
	}
	newState, err := r.stateFrom(plan, out, false)
	if err != nil {
		diags.AddError("Cannot read back "+r.kind.GVK.Kind, err.Error())
		return
	}
	*state = newState
	marks.ForeignOwned = r.foreignOwnedRecord(out)
}
