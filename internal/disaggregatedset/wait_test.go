package disaggregatedset

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	disaggv1 "sigs.k8s.io/lws/api/disaggregatedset/v1"
	disaggutils "sigs.k8s.io/lws/pkg/utils/disaggregatedset"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// lwsOf is a LeaderWorkerSet of the set's role at revision rev, as the controller labels it,
// with replicas groups of which ready are ready and updated.
func lwsOf(ds *disaggv1.DisaggregatedSet, role, rev string, replicas, ready int64) *unstructured.Unstructured {
	labels := map[string]any{}
	for k, v := range disaggutils.GenerateLabels(ds.Name, role, rev) {
		labels[k] = v
	}
	available := "False"
	if ready == replicas {
		available = "True"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": disaggutils.GenerateName(ds.Name, role, rev), "labels": labels, "generation": int64(1)},
		"spec":     map[string]any{"replicas": replicas},
		"status": map[string]any{"replicas": replicas, "readyReplicas": ready, "updatedReplicas": ready, "observedGeneration": int64(1),
			"conditions": []any{map[string]any{"type": "Available", "status": available}}},
	}}
}

func TestRolloutDone(t *testing.T) {
	ds := pair()
	SetDefaults(ds, k8sschema.NullValue(node()))
	rev := disaggutils.ComputeRevision(ds.Spec.Roles)
	cases := []struct {
		name   string
		sets   []*unstructured.Unstructured
		status func(*disaggv1.DisaggregatedSet)
		done   bool
		reason string
	}{
		{name: "both roles rolled out", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 4, 4)}, done: true},
		{name: "a role not created yet", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2)},
			reason: "role decode: the LeaderWorkerSet llama-" + rev + "-decode of revision " + rev + " is not created yet"},
		{name: "new revision still scaling up", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 3, 3)},
			reason: "role decode: the new revision is at 3 of 4 groups"},
		{name: "groups not ready", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 1), lwsOf(ds, "decode", rev, 4, 4)},
			reason: "role prefill: 1 of 2 groups updated; 1 of 2 groups ready; condition Available is not True"},
		{name: "old revision left", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 4, 4), lwsOf(ds, "decode", "0ld0ld00", 0, 0)},
			reason: "role decode: 1 LeaderWorkerSets of earlier revisions remain (0 groups)"},
		{name: "a status that says not ready", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 4, 4)},
			status: func(ds *disaggv1.DisaggregatedSet) {
				ds.Status.RoleStatuses = []disaggv1.RoleStatus{{Name: "prefill", Replicas: 2, ReadyReplicas: 2, UpdatedReplicas: 2}, {Name: "decode", Replicas: 4, ReadyReplicas: 3, UpdatedReplicas: 4}}
			},
			reason: "role decode: status reports 4 groups, 4 updated, 3 ready, of 4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := ds.DeepCopy()
			if tc.status != nil {
				tc.status(obj)
			}
			done, reason := RolloutDone(obj, tc.sets)
			if done != tc.done || !strings.HasPrefix(reason, tc.reason) {
				t.Errorf("RolloutDone = %v, %q; want %v, %q", done, reason, tc.done, tc.reason)
			}
		})
	}
}
