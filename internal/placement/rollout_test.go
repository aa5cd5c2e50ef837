package placement

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

// runningGroups are the pods of the LeaderWorkerSet vllm as the snapshot lists them: replicas
// groups of one pod of gpus GPUs, group g on node gpu-g.
func runningGroups(replicas int, gpus int64) []corev1.Pod {
	var pods []corev1.Pod
	for g := 0; g < replicas; g++ {
		pods = append(pods, runningPod(fmt.Sprintf("vllm-%d", g), fmt.Sprintf("gpu-%d", g), gpus, map[string]string{
			lwsv1.SetNameLabelKey: "vllm", lwsv1.GroupIndexLabelKey: strconv.Itoa(g), lwsv1.WorkerIndexLabelKey: "0",
		}))
	}
	return pods
}

// update is vllm going from groups of one pod of oldGPUs to one of newGPUs (a new revision).
func update(replicas int, oldGPUs, newGPUs int64, surge, unavailable, partition int) Workload {
	w := lws(replicas, 1, gpuTemplate(newGPUs))
	w.Leader.Spec.Containers[0].Image = "vllm:new"
	w.Rollout = &Rollout{Current: lws(replicas, 1, gpuTemplate(oldGPUs)), NewRevision: true,
		MaxSurge: surge, MaxUnavailable: unavailable, Partition: partition}
	return w
}

// TestPreviewRollout plays rolling updates of four groups on four 8-GPU nodes, each running one
// group, round by round.
func TestPreviewRollout(t *testing.T) {
	full := Snapshot{Nodes: nodes(4, "gpu", 8), Pods: runningGroups(4, 8)}
	// Each node also runs another 4-GPU pod: a replaced 4-GPU group frees half a node.
	half := Snapshot{Nodes: nodes(4, "gpu", 8), Pods: runningGroups(4, 4)}
	for i := 0; i < 4; i++ {
		half.Pods = append(half.Pods, runningPod(fmt.Sprintf("other-%d", i), fmt.Sprintf("gpu-%d", i), 4, nil))
	}
	insufficient := "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."
	tests := []struct {
		name     string
		snapshot Snapshot
		workload Workload
		placed   int
		updated  int
		stalled  bool
		stallAt  int
		reason   string
	}{
		{name: "surge 0, maxUnavailable 1: each replaced group's room takes its new one",
			snapshot: full, workload: update(4, 8, 8, 0, 1, 0), placed: 4, updated: 4},
		{name: "surge 0, maxUnavailable 2: two at a time", snapshot: full, workload: update(4, 8, 8, 0, 2, 0), placed: 4, updated: 4},
		{name: "surge 1, maxUnavailable 0: the surge group finds no room and nothing is replaced",
			snapshot: full, workload: update(4, 8, 8, 1, 0, 0), placed: 4, updated: 0, stalled: true, stallAt: 4, reason: insufficient},
		{name: "surge 1, maxUnavailable 1: the step replaces a group beside the waiting surge group, whose room rotates down",
			snapshot: full, workload: update(4, 8, 8, 1, 1, 0), placed: 4, updated: 4},
		{name: "8 GPUs where 4 ran: group 3's new pod finds half a node and the update stalls there",
			snapshot: half, workload: update(4, 4, 8, 0, 1, 0), placed: 3, updated: 0, stalled: true, stallAt: 3, reason: insufficient},
		{name: "the same with maxUnavailable 2: groups 3 and 2 wait", snapshot: half, workload: update(4, 4, 8, 0, 2, 0),
			placed: 2, updated: 0, stalled: true, stallAt: 3, reason: insufficient},
		{name: "partition 2: groups 0 and 1 keep the old template", snapshot: full, workload: update(4, 8, 8, 0, 1, 2), placed: 4, updated: 2},
		{name: "no new revision: a scale from 4 to 5 groups only adds one, which finds no room",
			snapshot: full, workload: func() Workload {
				w := update(5, 8, 8, 0, 1, 0)
				w.Rollout.NewRevision = false
				w.Rollout.Current = lws(4, 1, gpuTemplate(8))
				return w
			}(), placed: 4, updated: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Preview(tt.snapshot, tt.workload)
			if got.Placeable != tt.placed || got.Updated != tt.updated || got.Stalled != tt.stalled ||
				(tt.stalled && (got.StallGroup != tt.stallAt || got.Reason != tt.reason)) {
				t.Errorf("got placeable %d updated %d stalled %v at %d reason %q; want %d %d %v at %d %q (%+v)",
					got.Placeable, got.Updated, got.Stalled, got.StallGroup, got.Reason,
					tt.placed, tt.updated, tt.stalled, tt.stallAt, tt.reason, got.Unplaceable)
			}
		})
	}
}

// TestPreviewRolloutKeepsWaitingPods: three groups of a leader and a worker of 8 GPUs on four
// 8-GPU nodes, of which only group 0 is whole; the workers of groups 1 and 2 wait for a node. An
// image change replaces group 2 first, and the room its leader frees goes to group 1's worker,
// which has waited longest, not to the new group 2: group 1 becomes whole on the old template
// and the update stalls at group 2. Without the waiting pods in the snapshot the preview would
// give that room to the new leader.
func TestPreviewRolloutKeepsWaitingPods(t *testing.T) {
	pod := func(g, i int, node string) corev1.Pod {
		return runningPod(fmt.Sprintf("vllm-%d-%d", g, i), node, 8, map[string]string{
			lwsv1.SetNameLabelKey: "vllm", lwsv1.GroupIndexLabelKey: strconv.Itoa(g), lwsv1.WorkerIndexLabelKey: strconv.Itoa(i),
		})
	}
	snapshot := Snapshot{Nodes: nodes(4, "gpu", 8), Pods: []corev1.Pod{
		pod(0, 0, "gpu-0"), pod(1, 0, "gpu-1"), pod(2, 0, "gpu-2"), pod(0, 1, "gpu-3"),
		pod(1, 1, ""), pod(2, 1, ""),
	}}
	w := lws(3, 2, gpuTemplate(8))
	w.Leader.Spec.Containers[0].Image = "vllm:new"
	w.Rollout = &Rollout{Current: lws(3, 2, gpuTemplate(8)), NewRevision: true, MaxUnavailable: 1}
	got := Preview(snapshot, w)
	if got.Placeable != 2 || got.Updated != 0 || !got.Stalled || got.StallGroup != 2 {
		t.Errorf("got placeable %d updated %d stalled %v at %d (%+v); want 2 0 true at 2", got.Placeable, got.Updated, got.Stalled, got.StallGroup, got.Unplaceable)
	}
}

// The round model against the controller's own arithmetic: a fresh rolling update of 4 groups
// with maxSurge 1 bursts to 5 groups and holds the partition at 4 (Case 2), then steps
// maxUnavailable + maxSurge groups (Case 5).
func TestRollingUpdateParameters(t *testing.T) {
	v := controllerView{replicas: 4, maxSurge: 1, maxUnavailable: 1, stsReplicas: 4, annotatedReplicas: 4, updated: true}
	if p, r := rollingUpdateParameters(v, nil); p != 4 || r != 5 {
		t.Errorf("Case 2: partition %d replicas %d, want 4 5", p, r)
	}
	ready := replicaState{ready: true}
	done := replicaState{ready: true, updated: true}
	v = controllerView{replicas: 4, maxSurge: 1, maxUnavailable: 1, stsReplicas: 5, stsPartition: 4, annotatedReplicas: 4}
	if p, r := rollingUpdateParameters(v, []replicaState{ready, ready, ready, ready, done}); p != 2 || r != 5 {
		t.Errorf("Case 5: partition %d replicas %d, want 2 5", p, r)
	}
	v.partition = 3
	if p, _ := rollingUpdateParameters(v, []replicaState{ready, ready, ready, ready, done}); p != 3 {
		t.Errorf("spec partition 3: partition %d, want 3", p)
	}
	// The last unready group within maxUnavailable: the surge group goes.
	v = controllerView{replicas: 4, maxSurge: 1, maxUnavailable: 1, stsReplicas: 5, stsPartition: 0, annotatedReplicas: 4}
	if _, r := rollingUpdateParameters(v, []replicaState{{}, done, done, done, done}); r != 4 {
		t.Errorf("one unready group: replicas %d, want 4", r)
	}
}

func TestRolloutReasonIsSaidPlainly(t *testing.T) {
	got := Preview(Snapshot{Nodes: nodes(4, "gpu", 8), Pods: runningGroups(4, 8)}, update(4, 8, 8, 1, 0, 0))
	if !got.Stalled || !strings.HasPrefix(got.Reason, "0/4 nodes are available") {
		t.Errorf("want a stall with the scheduler's message, got %+v", got)
	}
}

// TestPreviewRolloutLowersPartition: an earlier change held back by partition 2 left groups 0 and
// 1 on the older revision (4 GPUs a pod) and moved groups 2 and 3 to the current one (8 GPUs).
// Lowering only the partition to 0 makes no new revision, but replaces groups 1 and 0 with the
// current template; on nodes where another 4-GPU pod runs, a replaced group's half node cannot
// hold its 8-GPU pod, so the rollout stalls at group 1. Raising nothing but the partition, or
// groups all on one revision, replace nothing.
func TestPreviewRolloutLowersPartition(t *testing.T) {
	pod := func(g int, gpus int64, rev string) corev1.Pod {
		return runningPod(fmt.Sprintf("vllm-%d", g), fmt.Sprintf("gpu-%d", g), gpus, map[string]string{
			lwsv1.SetNameLabelKey: "vllm", lwsv1.GroupIndexLabelKey: strconv.Itoa(g), lwsv1.WorkerIndexLabelKey: "0",
			lwsv1.RevisionKey: rev,
		})
	}
	mixed := Snapshot{Nodes: nodes(4, "gpu", 8), Pods: []corev1.Pod{pod(0, 4, "old"), pod(1, 4, "old"), pod(2, 8, "new"), pod(3, 8, "new")}}
	for i := 0; i < 2; i++ {
		mixed.Pods = append(mixed.Pods, runningPod(fmt.Sprintf("other-%d", i), fmt.Sprintf("gpu-%d", i), 4, nil))
	}
	lowered := func(from, to int) Workload {
		w := lws(4, 1, gpuTemplate(8))
		w.Rollout = &Rollout{Current: lws(4, 1, gpuTemplate(8)), MaxUnavailable: 1, Partition: to, CurrentPartition: from}
		return w
	}
	got := Preview(mixed, lowered(2, 0))
	if got.Placeable != 3 || got.Updated != 2 || !got.Stalled || got.StallGroup != 1 {
		t.Errorf("partition 2 -> 0: got placeable %d updated %d stalled %v at %d (%+v); want 3 2 true at 1",
			got.Placeable, got.Updated, got.Stalled, got.StallGroup, got.Unplaceable)
	}
	if got := Preview(mixed, lowered(2, 2)); got.Placeable != 4 || got.Updated != 2 || got.Stalled {
		t.Errorf("partition kept at 2: got placeable %d updated %d stalled %v; want 4 2 false", got.Placeable, got.Updated, got.Stalled)
	}
	same := Snapshot{Nodes: nodes(4, "gpu", 8), Pods: []corev1.Pod{pod(0, 8, "new"), pod(1, 8, "new"), pod(2, 8, "new"), pod(3, 8, "new")}}
	if got := Preview(same, lowered(2, 0)); got.Placeable != 4 || got.Updated != 4 || got.Stalled {
		t.Errorf("one revision, partition 2 -> 0: got placeable %d updated %d stalled %v; want 4 4 false", got.Placeable, got.Updated, got.Stalled)
	}
}
