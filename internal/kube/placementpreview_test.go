package kube

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/placement"
)

// TestPlacementMessagesOfPartialGroups: the summary and detail the plan shows where groups may
// come up partially (issue 57): the range of whole groups and what partial groups may hold, and
// under exclusive placement the domains where a leader strands its workers.
func TestPlacementMessagesOfPartialGroups(t *testing.T) {
	gpuNode := func(name string, gpus int64, labels map[string]string) corev1.Node {
		labels["kubernetes.io/hostname"] = name
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("512Gi"),
			corev1.ResourcePods: resource.MustParse("110"), "nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI),
		}}}
	}
	template := func(gpus int64) corev1.PodTemplateSpec {
		q := *resource.NewQuantity(gpus, resource.DecimalSI)
		return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "vllm", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), "nvidia.com/gpu": q}, Limits: corev1.ResourceList{"nvidia.com/gpu": q},
		}}}}}
	}
	var racks []corev1.Node
	for r := 0; r < 3; r++ {
		racks = append(racks, gpuNode(fmt.Sprintf("r%d", r), 8, map[string]string{"rack": fmt.Sprintf("r%d", r)}))
	}
	racks = append(racks, gpuNode("r3", 1, map[string]string{"rack": "r3"}))
	tests := []struct {
		name            string
		nodes           []corev1.Node
		workload        placement.Workload
		summary, detail string
	}{
		{
			name:     "4 groups of 2 pods on one 8-GPU node",
			nodes:    []corev1.Node{gpuNode("gpu-0", 8, map[string]string{})},
			workload: placement.Workload{Name: "vllm", Namespace: "default", Replicas: 4, Size: 2, Leader: template(2)},
			summary:  "between 0 and 2 of 4 groups can come up whole; partial groups may hold up to 8 GPUs (4 pods)",
			detail: "between 0 and 2 of the 4 groups of 2 pod(s) of default/vllm can come up whole on the cluster's 1 nodes as they are now: " +
				"kube-scheduler can bind 4 of their 8 pods, and the LeaderWorkerSet controller creates every group's pods at once, which the scheduler binds one by one " +
				"in an order no plan knows, choosing among equally scored nodes at random. Groups that do not come up whole may hold up to 8 GPUs (4 pods) that serve nothing " +
				"until the apply times out. Played with every leader first, then each group's workers, ties going by node name, these groups cannot be placed; " +
				"they would stay Pending and the apply would wait for its timeout:\n  group 0: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu.",
		},
		{
			name:  "exclusive rack with one free GPU",
			nodes: racks,
			workload: placement.Workload{Name: "vllm", Namespace: "default", Replicas: 1, Size: 3, Leader: template(1),
				Annotations: map[string]string{"leaderworkerset.sigs.k8s.io/exclusive-topology": "rack"}},
			summary: "between 0 and 1 of 1 groups can come up whole; partial groups may hold up to 1 GPU (1 pod)",
			detail: "between 0 and 1 of the 1 groups of 3 pod(s) of default/vllm can come up whole on the cluster's 4 nodes as they are now. " +
				"Under exclusive placement (rack) a group's workers follow its leader's rack, and kube-scheduler binds a leader in any rack it fits in " +
				"(its score does not weigh the room the workers need): the leader fits in 4, and in 1 of them its workers would not all fit. " +
				"Groups that do not come up whole may hold up to 1 GPU (1 pod) that serve nothing until the apply times out. " +
				"Played with every leader first, then each group's workers, ties going by node name, every group comes up whole; " +
				"the groups that do not would stay Pending and the apply would wait for its timeout.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, results := PreviewPlacement(placement.Snapshot{Nodes: tt.nodes}, []PlacementWorkload{{Workload: tt.workload}})
			r := results[0]
			if got := partialVerdict(r); got != tt.summary {
				t.Errorf("summary:\n got %q\nwant %q", got, tt.summary)
			}
			if got := placementDetail(ws[0], r, len(tt.nodes)); !strings.HasPrefix(got, tt.detail) {
				t.Errorf("detail:\n got %q\nwant %q", got, tt.detail)
			}
		})
	}
}
