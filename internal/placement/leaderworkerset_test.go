package placement

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

func TestWorkloadFromLeaderWorkerSet(t *testing.T) {
	leader := gpuTemplate(0)
	lws := &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: "vllm", Namespace: "serving", Annotations: map[string]string{lwsv1.ExclusiveKeyAnnotationKey: "rack"}},
		Spec: lwsv1.LeaderWorkerSetSpec{
			Replicas: ptr(int32(5)),
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				Size: ptr(int32(4)), LeaderTemplate: &leader, WorkerTemplate: gpuTemplate(8),
				SubGroupPolicy: &lwsv1.SubGroupPolicy{SubGroupSize: ptr(int32(2))},
			},
			RolloutStrategy: lwsv1.RolloutStrategy{RollingUpdateConfiguration: &lwsv1.RollingUpdateConfiguration{MaxSurge: intstr.FromString("30%")}},
		},
	}
	current := lws.DeepCopy()
	current.Spec.LeaderWorkerTemplate.WorkerTemplate = gpuTemplate(4)
	w := WorkloadFromLeaderWorkerSet(lws, current)
	if w.Replicas != 5 || w.Size != 4 || w.SubGroupSize != 2 || w.Rollout == nil || w.Rollout.MaxSurge != 2 || !w.Rollout.NewRevision {
		t.Errorf("got replicas %d size %d subgroup %d rollout %+v; want 5 4 2, surge 2, a new revision", w.Replicas, w.Size, w.SubGroupSize, w.Rollout)
	}
	if w.Leader.Spec.Containers[0].Resources.Requests.Name(gpu, "").Value() != 0 || w.Worker.Spec.Containers[0].Resources.Requests.Name(gpu, "").Value() != 8 {
		t.Errorf("leader and worker templates swapped: %+v", w)
	}
	if w.Annotations[lwsv1.ExclusiveKeyAnnotationKey] != "rack" {
		t.Errorf("annotations lost: %v", w.Annotations)
	}
	if created := WorkloadFromLeaderWorkerSet(lws, nil); created.Rollout != nil {
		t.Errorf("a new object has no rollout, got %+v", created.Rollout)
	}
	var nothing corev1.PodTemplateSpec
	if d := WorkloadFromLeaderWorkerSet(&lwsv1.LeaderWorkerSet{Spec: lwsv1.LeaderWorkerSetSpec{LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{WorkerTemplate: nothing}}}, nil); d.Replicas != 1 || d.Size != 1 {
		t.Errorf("defaults: got %d x %d, want 1 x 1", d.Replicas, d.Size)
	}
}

func TestMaxSurgeIsAtMostReplicas(t *testing.T) {
	if got := maxSurge(intstr.FromInt32(9), 3); got != 3 {
		t.Errorf("maxSurge(9, 3) = %d, want 3", got)
	}
}

// The subgroup variant: each subgroup of a group takes its own rack.
func TestPreviewSubGroupExclusive(t *testing.T) {
	nodesByRack := append(nodes(1, "r1", 8, withLabel("rack", "r1")), nodes(1, "r2", 8, withLabel("rack", "r2"))...)
	w := lws(1, 4, gpuTemplate(4))
	w.SubGroupSize = 2
	w.Annotations = map[string]string{lwsv1.SubGroupExclusiveKeyAnnotationKey: "rack"}
	if got := Preview(Snapshot{Nodes: nodesByRack}, w); got.Placeable != 1 {
		t.Errorf("two subgroups of two 4-GPU pods on two 8-GPU racks: placeable %d, reason %q", got.Placeable, got.Reason)
	}
	// Room for more pods, but both leaders are scheduled first and take a rack each, so the second
	// subgroup of group 0 finds every rack taken by another subgroup.
	roomy := append(nodes(1, "r1", 16, withLabel("rack", "r1")), nodes(1, "r2", 16, withLabel("rack", "r2"))...)
	w.Replicas = 2
	got := Preview(Snapshot{Nodes: roomy}, w)
	want := "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."
	if got.Placeable != 0 || got.FirstUnplaceable != 0 || got.Reason != want {
		t.Errorf("two groups: placeable %d first %d reason %q; want 0 0 %q", got.Placeable, got.FirstUnplaceable, got.Reason, want)
	}
}
