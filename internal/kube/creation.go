package kube

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A create whose answer is lost (Terraform interrupted, the connection cut, the API server
// restarting) may or may not have made the object. Adopting whatever object of that name exists
// on the next apply would take over another configuration's object (two folders or workspaces
// that declare the same name, with the same field manager). So each create carries a creation
// token: a random value that the create request records in an annotation of the object, and
// that only this resource instance keeps, in its private state. When the answer is lost, the
// next refresh reads the object: it is ours only if it carries that token. A plain name
// collision still fails with "already exists".
//
// Every later apply carries the same token, so the object always says which state applied it
// last (otherconfiguration.go). The annotation is never shown in state.

// CreationTokenAnnotation holds the creation token of an object the provider created.
const CreationTokenAnnotation = "terraform.kubeinfer.io/creation-token"

// privateUnconfirmedCreate is the private-state key of the token of a create whose answer was
// lost: the state holds the planned object, not yet confirmed by the cluster.
const privateUnconfirmedCreate = "unconfirmed_create"

// ApplyMarks are what an apply leaves in the resource's private state.
type ApplyMarks struct {
	// WaitPending: the object was applied but its readiness wait did not finish.
	WaitPending bool
	// UnconfirmedCreate is the creation token of a create whose answer was lost.
	UnconfirmedCreate string
	// ForeignOwned records the attributes other field managers own after the apply
	// (foreignowned.go).
	ForeignOwned []byte
	// CreationToken is the state's token, which the apply carried on the object
	// (otherconfiguration.go); empty when the apply did not reach the object.
	CreationToken string
}

// WithApplyMarks returns private (the framework's encoding) with the marks set, or removed
// where unset.
func WithApplyMarks(private []byte, m ApplyMarks) []byte {
	return editPrivate(private, func(p map[string][]byte) {
		if m.WaitPending {
			p[privateWaitPending] = waitPendingValue(true)
		} else {
			delete(p, privateWaitPending)
		}
		if m.UnconfirmedCreate != "" {
			p[privateUnconfirmedCreate] = tokenValue(m.UnconfirmedCreate)
		} else {
			delete(p, privateUnconfirmedCreate)
		}
		if len(m.ForeignOwned) > 0 {
			p[privateForeignOwned] = m.ForeignOwned
		} else {
			delete(p, privateForeignOwned)
		}
		if m.CreationToken != "" {
			// The object carries this state's token again: another configuration's is gone.
			p[privateCreationToken] = tokenValue(m.CreationToken)
			delete(p, privateOtherConfiguration)
		}
	})
}

// WithoutUnconfirmedCreate returns private without the creation token: a read confirmed the
// create or dropped the object from the state.
func WithoutUnconfirmedCreate(private []byte) []byte {
	return WithoutPrivateKey(private, privateUnconfirmedCreate)
}

// tokenValue is the private-state value of a token: a JSON string.
func tokenValue(token string) []byte {
	if token == "" {
		return nil
	}
	b, _ := json.Marshal(token)
	return b
}

// UnconfirmedCreate is the creation token that private (the framework's encoding) records for a
// create whose answer was lost; empty when none.
func UnconfirmedCreate(private []byte) string {
	return privateString(private, privateUnconfirmedCreate)
}

// privateValue is the value of key in private (the framework's encoding), nil when absent.
func privateValue(private []byte, key string) []byte {
	if len(private) == 0 {
		return nil
	}
	var m map[string][]byte
	if json.Unmarshal(private, &m) != nil {
		return nil
	}
	return m[key]
}

// tokenFrom decodes a private-state token value.
func tokenFrom(raw []byte) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// newCreationToken returns a fresh random token (128 bits).
func newCreationToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// setAnnotation sets one annotation in an apply body.
func setAnnotation(body map[string]any, name, value string) {
	meta, _ := body["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		body["metadata"] = meta
	}
	ann, _ := meta["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
		meta["annotations"] = ann
	}
	ann[name] = value
}

// answerLost reports whether a failed request may still have been carried out: no answer came
// (an interrupt, a deadline, a transport error), or the server timed out while handling it.
// An answer with any other status means the request was not applied.
func answerLost(err error) bool {
	if err == nil {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	return apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err)
}

// unconfirmedState is the state recorded for a create whose answer was lost: the planned object,
// with the values only the server knows (uid, status) null until the next refresh reads them.
func unconfirmedState(plan tftypes.Value) tftypes.Value {
	v, err := tftypes.Transform(plan, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		return plan
	}
	return v
}

// confirmCreate decides, on the refresh of a state whose create was not confirmed, whether the
// object found is the one this resource created: it carries the creation token. Another
// object of the same name is left alone and the resource leaves the state (the next plan
// creates it, which fails with "already exists" while that object is there).
func (r *Resource) confirmCreate(u *unstructured.Unstructured, token string, diags *diag.Diagnostics) bool {
	meta := objMeta{name: u.GetName(), namespace: u.GetNamespace()}
	if u.GetAnnotations()[CreationTokenAnnotation] == token {
		diags.AddWarning(fmt.Sprintf("Adopted %s %q", r.kind.GVK.Kind, r.describe(meta)),
			"The last apply created this object but lost the server's answer. The object carries this resource's creation "+
				"token, so it is the one that apply created: it is now recorded in the state.")
		return true
	}
	diags.AddWarning(fmt.Sprintf("%s %q was not created by this resource", r.kind.GVK.Kind, r.describe(meta)),
		"The last apply lost the server's answer to its create. An object of this name exists, but it does not carry this "+
			"resource's creation token: another configuration (or someone else) created it. It is left alone and removed from "+
			"this state; the next plan creates the object again, which fails while that one exists. Import it only if this "+
			"configuration should manage it.")
	return false
}
