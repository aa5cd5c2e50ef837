package kube

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// ErrWaitUnfinished is wrapped by the errors of readiness waits (Hooks.AfterApply) that ended
// before the object was ready: timed out or interrupted. The object was applied, so it is
// recorded; a create reports a warning instead of an error (Terraform would taint the object and
// replace it on the next apply), and the next plan carries on the wait.
var ErrWaitUnfinished = errors.New("the wait for readiness did not finish")

// RolloutUnfinished is the error of a readiness wait that ran out of time or was interrupted.
// The object was applied: it unwraps to ErrWaitUnfinished, so the apply records it without
// tainting it and the next plan carries on the wait.
type RolloutUnfinished struct {
	What        string // what was awaited, e.g. "the rollout"
	Reason      string // the last state seen, e.g. "1 of 2 groups ready"
	Detail      string // what is not ready (lines), when it could be listed
	Interrupted bool   // Ctrl-C or Terraform stopping the provider, not the timeout
	// Advice replaces the resource's closing advice (the state and the next plan, the
	// timeouts to raise) for a wait that is not part of an apply, such as an action's.
	Advice string
	// Events are the Warning events on the objects the wait followed, the latest of each
	// reason (FailOnWarningEvents); EventsUnread says why they could not be read, if so.
	Events       []WarningEvent
	EventsUnread string
}

func (e *RolloutUnfinished) Error() string {
	msg := "timed out waiting for " + e.What + ": " + e.Reason + "."
	if e.Interrupted {
		msg = "interrupted while waiting for " + e.What + ": " + e.Reason + "."
	}
	if e.Detail != "" {
		msg += "\n" + e.Detail
	}
	if len(e.Events) > 0 {
		msg += "\n\n" + quoteEvents(e.Events)
	}
	if e.EventsUnread != "" {
		msg += "\n\nWarning events: " + e.EventsUnread
	}
	if e.Advice != "" {
		return msg + "\n\n" + e.Advice
	}
	if e.Interrupted {
		return msg + "\n\nThe object was applied and is recorded in the state; the next plan shows an update that only waits " +
			"for the rollout to finish."
	}
	msg += "\n\nThe object was applied and is recorded in the state. A create that times out is an error, as for " +
		"kubernetes_deployment_v1's wait_for_rollout, so Terraform marks the object tainted and the next apply replaces it " +
		"(its groups start again); `terraform untaint` keeps it, and the next plan then shows an update that only waits for " +
		"the rollout to finish (as after an update that times out). Raise timeouts.create / timeouts.update, or set " +
		"wait_for_rollout = false to return without waiting."
	return msg
}

func (e *RolloutUnfinished) Unwrap() error { return ErrWaitUnfinished }

// privateWaitPending is the key, in the resource's private state, that marks an unfinished wait.
// Private state travels with the state without being shown; the framework stores it as a JSON
// object of keys to JSON values, which package protocol reads and writes the same way with
// HasWaitPending and WithWaitPending.
const privateWaitPending = "wait_pending"

// waitPendingValue is the private-state value of the marker: JSON true, or nothing (removes it).
func waitPendingValue(pending bool) []byte {
	if pending {
		return []byte("true")
	}
	return nil
}

// WithWaitPending returns private (the framework's encoding) with the marker set or removed.
func WithWaitPending(private []byte, pending bool) []byte {
	return editPrivate(private, func(m map[string][]byte) {
		if pending {
			m[privateWaitPending] = waitPendingValue(true)
		} else {
			delete(m, privateWaitPending)
		}
	})
}

// WithoutPrivateKey returns private (the framework's encoding) without key.
func WithoutPrivateKey(private []byte, key string) []byte {
	if len(private) == 0 {
		return private
	}
	return editPrivate(private, func(m map[string][]byte) { delete(m, key) })
}

// editPrivate decodes private, lets edit change it and encodes it again; an empty result is
// no private state at all.
func editPrivate(private []byte, edit func(map[string][]byte)) []byte {
	m := map[string][]byte{}
	if len(private) > 0 {
		if err := json.Unmarshal(private, &m); err != nil {
			return private // not ours to rewrite
		}
	}
	edit(m)
	if len(m) == 0 {
		return nil
	}
	out, err := json.Marshal(m)
	if err != nil {
		return private
	}
	return out
}

// HasWaitPending reports whether private marks an unfinished wait.
func HasWaitPending(private []byte) bool {
	if len(private) == 0 {
		return false
	}
	var m map[string][]byte
	if json.Unmarshal(private, &m) != nil {
		return false
	}
	return string(m[privateWaitPending]) == "true"
}

// warnCarryOnWait tells, on the plan of an update that only waits, why there is one: the last
// apply recorded the object but its wait did not finish. The plan marks the server's computed
// attributes unknown (Resource.PlanChange), the apply finds nothing to change and waits.
func warnCarryOnWait(diags *diag.Diagnostics) {
	diags.AddAttributeWarning(path.Root("status"), "The last apply did not see the rollout finish",
		"status: the object was applied, but the wait for it to become ready timed out or was interrupted. "+
			"This plan updates it in place to carry on the wait; nothing else changes unless the configuration does.")
}

// privateKeys are the keys of the resource's private state.
var privateKeys = []string{privateWaitPending, privateUnconfirmedCreate, privateForeignOwned, privateCreationToken, privateOtherConfiguration}

// privateGetter and privateSetter are the framework's private state of a request and of a
// response (its type is internal to the framework).
type (
	privateGetter interface {
		GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	}
	privateSetter interface {
		SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
	}
)

// rawPrivate encodes the framework's private state of a request as package protocol receives
// it, so that both paths share the methods that read it.
func rawPrivate(ctx context.Context, p privateGetter, diags *diag.Diagnostics) []byte {
	return editPrivate(nil, func(m map[string][]byte) {
		for _, key := range privateKeys {
			v, d := p.GetKey(ctx, key)
			diags.Append(d...)
			if len(v) > 0 {
				m[key] = v
			}
		}
	})
}

// setRawPrivate sets the framework's private state of a response to raw, key by key.
func setRawPrivate(ctx context.Context, p privateSetter, raw []byte, diags *diag.Diagnostics) {
	for _, key := range privateKeys {
		diags.Append(p.SetKey(ctx, key, privateValue(raw, key))...)
	}
}
