package disaggregatedset

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/placement"
)

// rackNodes are racks of four 8-GPU nodes, labelled with their rack.
func rackNodes(racks int) []corev1.Node {
	var nodes []corev1.Node
	for r := 0; r < racks; r++ {
		for i := 0; i < 4; i++ {
			name := fmt.Sprintf("rack%d-node%d", r, i)
			capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("512Gi"),
				corev1.ResourcePods: resource.MustParse("110"), "nvidia.com/gpu": resource.MustParse("8")}
			nodes = append(nodes, corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "rack": fmt.Sprintf("r%d", r)}},
				Status:     corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
			})
		}
	}
	return nodes
}

// TestPlacementPolicyExclusiveTopology: a v0.10.0 set of 2 slices, each of a prefill and a decode
// group of two 8-GPU pods (four nodes a slice), with ExclusiveTopology on the rack. The previewed
// LeaderWorkerSets carry the affinity the controller injects (rules.SetPlacementAffinities), so
// with two racks each slice takes one rack whole, and with one rack only one slice fits: which one
// depends on the order the controller creates them in, so each is previewed as 0 to 1 groups.
func TestPlacementPolicyExclusiveTopology(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.Roles = ds.Spec.Roles[:1]
	ds.Spec.Roles = append(ds.Spec.Roles, dsfixture.Role("decode", 1, "vllm/vllm-openai:v0.11.0"))
	ds.Spec.Roles[0].Spec.Replicas = ptr.To[int32](1)
	ds.Spec.Slices = ptr.To[int32](2)
	ds.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{Type: disaggv1.PlacementExclusiveTopology, Topology: "rack"}
	workloads := planPlacement(ds, nil)
	if len(workloads) != 4 {
		t.Fatalf("%d workloads, want 4 (2 roles x 2 slices)", len(workloads))
	}
	for _, w := range workloads {
		a := w.Workload.Leader.Spec.Affinity
		if a == nil || a.PodAffinity == nil || len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
			a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 2 {
			t.Fatalf("%s: the placement policy's affinity is missing: %+v", w.Subject, a)
		}
		if w.Workload.Leader.Labels[disaggv1.SliceLabelKey] == "" {
			t.Fatalf("%s: no slice label on the template", w.Subject)
		}
	}
	for _, tc := range []struct {
		racks           int
		placeable, most int
	}{{racks: 2, placeable: 1, most: 1}, {racks: 1, placeable: 0, most: 1}} {
		_, results := kube.PreviewPlacement(placement.Snapshot{Nodes: rackNodes(tc.racks)}, workloads)
		for i, r := range results {
			if r.Placeable != tc.placeable || r.MostPlaceable != tc.most {
				t.Errorf("%d rack(s), %s: placeable %d to %d, want %d to %d (%q)", tc.racks, workloads[i].Subject,
					r.Placeable, r.MostPlaceable, tc.placeable, tc.most, r.Reason)
			}
		}
	}
	// Without a policy the slices may share the rack.
	ds.Spec.PlacementPolicy = nil
	_, results := kube.PreviewPlacement(placement.Snapshot{Nodes: append(rackNodes(1), rackNodes(2)[4:]...)}, planPlacement(ds, nil))
	for i, r := range results {
		if r.Placeable != 1 {
			t.Errorf("no policy, %d: placeable %d, want 1 (%q)", i, r.Placeable, r.Reason)
		}
	}
}

// TestPlacementOfCreateOnlyFields: a change the controller never writes to a running role
// LeaderWorkerSet (the role's metadata, startup policy, network configuration; reconcileRoleSimple
// only scales it) plays no rollout: each role is previewed as its running LeaderWorkerSet, with
// the new replicas only.
func TestPlacementOfCreateOnlyFields(t *testing.T) {
	prior, ds := dsfixture.Pair(), dsfixture.Pair()
	unique := releasedlws.SubdomainUniquePerReplica
	for i := range ds.Spec.Roles {
		role := &ds.Spec.Roles[i]
		role.Annotations = map[string]string{"leaderworkerset.sigs.k8s.io/exclusive-topology": "topology.kubernetes.io/zone"}
		role.Spec.StartupPolicy = releasedlws.LeaderReadyStartupPolicy
		role.Spec.NetworkConfig = &releasedlws.NetworkConfig{SubdomainPolicy: &unique}
	}
	ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](5)
	workloads := planPlacement(ds, prior)
	if len(workloads) != 2 {
		t.Fatalf("%d workloads, want 2", len(workloads))
	}
	for i, w := range workloads {
		ro := w.Workload.Rollout
		if ro == nil || ro.NewRevision {
			t.Errorf("%s: rollout %+v, want the running LeaderWorkerSet scaled without a new revision", w.Subject, ro)
		}
		if _, ok := w.Workload.Annotations["leaderworkerset.sigs.k8s.io/exclusive-topology"]; ok {
			t.Errorf("%s: previewed with the annotation the running LeaderWorkerSet does not have", w.Subject)
		}
		if want := []int{2, 5}[i]; w.Workload.Replicas != want {
			t.Errorf("%s: %d replicas, want %d", w.Subject, w.Workload.Replicas, want)
		}
	}
	// A template change makes a new revision: the new LeaderWorkerSets are placed as new, with the
	// role's current fields.
	ds.Spec.Roles[0].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "x"
	for _, w := range planPlacement(ds, prior) {
		if w.Workload.Rollout != nil || w.Workload.Annotations["leaderworkerset.sigs.k8s.io/exclusive-topology"] == "" {
			t.Errorf("%s: new revision previewed as %+v", w.Subject, w.Workload)
		}
	}
}
