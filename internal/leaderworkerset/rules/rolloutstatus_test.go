package rules

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// A rollout with max_surge is not done while the surge group runs, even though the surge group
// makes updatedReplicas and readyReplicas reach spec.replicas before the last old group is
// replaced; it is done once status.replicas is back to spec.replicas.
func TestRolloutDoneWaitsForSurgeGroupsToGo(t *testing.T) {
	obj := &lwsv1.LeaderWorkerSet{}
	obj.Generation = 2
	obj.Spec.Replicas = ptr.To[int32](4)
	obj.Status = lwsv1.LeaderWorkerSetStatus{
		ObservedGeneration: 2, Replicas: 5, ReadyReplicas: 5, UpdatedReplicas: 5,
		Conditions: []metav1.Condition{{Type: string(lwsv1.LeaderWorkerSetAvailable), Status: metav1.ConditionTrue}},
	}
	if done, reason := RolloutDone(obj); done || !strings.Contains(reason, "1 surge groups not yet removed") {
		t.Fatalf("with a surge group left: done=%v, reason %q", done, reason)
	}
	obj.Status.Replicas, obj.Status.ReadyReplicas, obj.Status.UpdatedReplicas = 4, 4, 4
	if done, reason := RolloutDone(obj); !done {
		t.Fatalf("surge group gone, every group updated and ready: not done: %s", reason)
	}
	// A controller that does not report status.replicas (0) is judged by the other fields.
	obj.Status.Replicas = 0
	if done, reason := RolloutDone(obj); !done {
		t.Fatalf("status.replicas unreported: not done: %s", reason)
	}
}
