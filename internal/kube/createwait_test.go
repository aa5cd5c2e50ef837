package kube_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// withWait is the LeaderWorkerSet kind whose readiness wait (Hooks.AfterApply) ends with err.
func withWait(err error) *kube.Kind {
	k := leaderworkerset.Kind
	hooks := k.Hooks
	hooks.AfterApply = func(_ context.Context, _ dynamic.Interface, _ dynamic.ResourceInterface, obj *unstructured.Unstructured, _ map[string]tftypes.Value) (*unstructured.Unstructured, error) {
		return obj, err
	}
	return &kube.Kind{Kind: k.Kind, Hooks: hooks}
}

// TestCreateWaitEndsOnPermanentWarning: a create whose readiness wait ends on a Warning event
// that will not clear by itself (FailOnWarningEvents' *WarningEventError) or runs out of time
// is an apply error (a pipeline can tell), unlike a wait that was interrupted (a warning:
// Terraform reports the interrupt); either way the state keeps the created object and marks the
// wait pending, so the next run reads and converges on it.
func TestCreateWaitEndsOnPermanentWarning(t *testing.T) {
	permanent := &kube.WarningEventError{Kind: "StatefulSet", Name: "vllm-0", Reason: "FailedCreate", Count: 3,
		Message: `create Pod vllm-0-1 in StatefulSet vllm-0 failed error: Pod "vllm-0-1" is invalid: metadata.labels: Invalid value: "x": must be no more than 63 bytes`}
	unfinished := &kube.RolloutUnfinished{What: "the rollout", Reason: "0 of 1 groups ready"}
	interrupted := &kube.RolloutUnfinished{What: "the rollout", Reason: "0 of 1 groups ready", Interrupted: true}
	for _, tc := range []struct {
		name     string
		err      error
		severity tfprotov6.DiagnosticSeverity
		summary  string
	}{
		{"permanent warning", permanent, tfprotov6.DiagnosticSeverityError, `LeaderWorkerSet "default/vllm" is not ready`},
		{"timed out", unfinished, tfprotov6.DiagnosticSeverityError, `LeaderWorkerSet "default/vllm" is not ready`},
		{"interrupted", interrupted, tfprotov6.DiagnosticSeverityWarning, `LeaderWorkerSet "default/vllm" is not ready yet`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withWait(tc.err), releasedLWSDefaults)
			_, ar := h.create(h.config(vllm(), nil))
			var got []*tfprotov6.Diagnostic
			for _, d := range ar.Diagnostics {
				if d.Severity == tfprotov6.DiagnosticSeverityError || d.Severity == tfprotov6.DiagnosticSeverityWarning {
					got = append(got, d)
				}
			}
			if len(got) != 1 || got[0].Severity != tc.severity || got[0].Summary != tc.summary || got[0].Detail != tc.err.Error() {
				t.Fatalf("diagnostics %+v, want one %v %q with the wait's error", got, tc.severity, tc.summary)
			}
			if tc.err == permanent && !strings.Contains(got[0].Detail, "Warning FailedCreate on StatefulSet vllm-0 (3 times)") {
				t.Errorf("the error does not quote the event: %s", got[0].Detail)
			}
			state := h.value(ar.NewState)
			if state.IsNull() {
				t.Fatal("the created object is not in the state")
			}
			uid := at(t, state, "metadata", "uid")
			if want := tftypes.NewValue(tftypes.String, "6b7e2c1a-0000-4000-8000-000000000001"); !uid.Equal(want) {
				t.Errorf("state metadata.uid = %v, want the created object's %v", uid, want)
			}
			if !kube.HasWaitPending(ar.Private) {
				t.Error("the unfinished wait is not marked in the private state")
			}
			// The next run's refresh finds the object the state recorded.
			if refreshed := h.read(state); !at(t, refreshed, "metadata", "uid").Equal(uid) {
				t.Errorf("refresh after the failed wait: uid %v, want %v", at(t, refreshed, "metadata", "uid"), uid)
			}
		})
	}
}
