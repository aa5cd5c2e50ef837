package placement

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

const gpu corev1.ResourceName = "nvidia.com/gpu"

type nodeOption func(*corev1.Node)

func gpuNode(name string, gpus int64, opts ...nodeOption) corev1.Node {
	n := corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("32"),
			corev1.ResourceMemory: resource.MustParse("256Gi"),
			corev1.ResourcePods:   resource.MustParse("110"),
			gpu:                   *resource.NewQuantity(gpus, resource.DecimalSI),
		}},
	}
	for _, o := range opts {
		o(&n)
	}
	return n
}

func withLabel(key, value string) nodeOption {
	return func(n *corev1.Node) { n.Labels[key] = value }
}

func withTaint(key, value string, effect corev1.TaintEffect) nodeOption {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func cordoned(n *corev1.Node) { n.Spec.Unschedulable = true }

func nodes(count int, prefix string, gpus int64, opts ...nodeOption) []corev1.Node {
	out := make([]corev1.Node, count)
	for i := range out {
		out[i] = gpuNode(fmt.Sprintf("%s-%d", prefix, i), gpus, opts...)
	}
	return out
}

func gpuTemplate(gpus int64) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "server",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("1"),
			gpu:                *resource.NewQuantity(gpus, resource.DecimalSI),
		}, Limits: corev1.ResourceList{gpu: *resource.NewQuantity(gpus, resource.DecimalSI)}},
	}}}}
}

func lws(replicas, size int, template corev1.PodTemplateSpec) Workload {
	return Workload{Name: "vllm", Namespace: "default", Replicas: replicas, Size: size, Leader: template}
}

func runningPod(name, node string, gpus int64, podLabels map[string]string) corev1.Pod {
	t := gpuTemplate(gpus)
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: podLabels},
		Spec:       corev1.PodSpec{NodeName: node, Containers: t.Spec.Containers},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

func TestPreview(t *testing.T) {
	tolerateGPU := gpuTemplate(8)
	tolerateGPU.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	h100Selector := gpuTemplate(8)
	h100Selector.Spec.NodeSelector = map[string]string{"accelerator": "h100"}
	spread := gpuTemplate(1)
	spread.Labels = map[string]string{"app": "spread"}
	spread.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
		MinDomains:    ptr(int32(3)),
	}}
	withInit := gpuTemplate(4)
	withInit.Spec.InitContainers = []corev1.Container{{Name: "download", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{gpu: *resource.NewQuantity(8, resource.DecimalSI)},
		Limits:   corev1.ResourceList{gpu: *resource.NewQuantity(8, resource.DecimalSI)},
	}}}

	zoned := append(nodes(2, "a", 8, withLabel("zone", "a")), nodes(2, "b", 8, withLabel("zone", "b"))...)

	tests := []struct {
		name      string
		snapshot  Snapshot
		workload  Workload
		placeable int
		first     int
		reason    string
	}{
		{
			name:      "everything fits",
			snapshot:  Snapshot{Nodes: nodes(4, "gpu", 8)},
			workload:  lws(2, 2, gpuTemplate(8)),
			placeable: 2, first: -1,
		},
		{
			name:      "insufficient gpu and untolerated taint",
			snapshot:  Snapshot{Nodes: append(nodes(4, "small", 4), nodes(4, "tainted", 8, withTaint("gpu", "", corev1.TaintEffectNoSchedule))...)},
			workload:  lws(1, 2, gpuTemplate(8)),
			placeable: 0, first: 0,
			reason: "0/8 nodes are available: 4 Insufficient nvidia.com/gpu, 4 node(s) had untolerated taint(s).",
		},
		{
			// Room for two groups, but the three leaders are scheduled first and take three nodes.
			name:      "tolerated taint, leaders first leave room for one group",
			snapshot:  Snapshot{Nodes: nodes(4, "tainted", 8, withTaint("gpu", "true", corev1.TaintEffectNoSchedule))},
			workload:  lws(3, 2, tolerateGPU),
			placeable: 1, first: 1,
			reason: "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.",
		},
		{
			name:      "NoExecute taint is not tolerated by a NoSchedule toleration",
			snapshot:  Snapshot{Nodes: nodes(2, "evict", 8, withTaint("gpu", "true", corev1.TaintEffectNoExecute))},
			workload:  lws(1, 1, tolerateGPU),
			placeable: 0, first: 0,
			reason: "0/2 nodes are available: 2 node(s) had untolerated taint(s).",
		},
		{
			name:      "nodeSelector with no match",
			snapshot:  Snapshot{Nodes: nodes(3, "a100", 8, withLabel("accelerator", "a100"))},
			workload:  lws(1, 1, h100Selector),
			placeable: 0, first: 0,
			reason: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
		},
		{
			name: "exclusive topology with fewer domains than groups",
			snapshot: Snapshot{Nodes: append(nodes(2, "rack1", 8, withLabel("rack", "r1")),
				nodes(2, "rack2", 8, withLabel("rack", "r2"))...)},
			workload: func() Workload {
				w := lws(3, 1, gpuTemplate(1))
				w.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: "rack"}
				return w
			}(),
			placeable: 2, first: 2,
			reason: "0/4 nodes are available: 4 node(s) didn't match pod anti-affinity rules.",
		},
		{
			name:     "exclusive topology keeps a group's workers in its leader's domain",
			snapshot: Snapshot{Nodes: append(nodes(1, "rack1", 8, withLabel("rack", "r1")), nodes(3, "rack2", 8, withLabel("rack", "r2"))...)},
			workload: func() Workload {
				w := lws(2, 3, gpuTemplate(8))
				w.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: "rack"}
				return w
			}(),
			// Group 0's leader takes rack1 (name order among equal scores); its workers find no room there.
			placeable: 1, first: 0,
			reason: "0/4 nodes are available: 1 Insufficient nvidia.com/gpu, 3 node(s) didn't match Pod's node affinity/selector.",
		},
		{
			name:      "spread unsatisfiable with minDomains above the zones",
			snapshot:  Snapshot{Nodes: zoned},
			workload:  lws(1, 3, spread),
			placeable: 0, first: 0,
			reason: "0/4 nodes are available: 4 node(s) didn't match pod topology spread constraints.",
		},
		{
			name:      "spread node without the zone label",
			snapshot:  Snapshot{Nodes: append(nodes(1, "nozone", 8), zoned[0])},
			workload:  lws(1, 2, spread),
			placeable: 0, first: 0,
			reason: "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) didn't match pod topology spread constraints (missing required label).",
		},
		{
			name:      "unschedulable node",
			snapshot:  Snapshot{Nodes: append(nodes(1, "cordoned", 8, cordoned), nodes(1, "busy", 4)...)},
			workload:  lws(1, 1, gpuTemplate(8)),
			placeable: 0, first: 0,
			reason: "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) were unschedulable.",
		},
		{
			name: "pods already running take their room",
			snapshot: Snapshot{Nodes: nodes(3, "gpu", 8), Pods: []corev1.Pod{
				runningPod("other-0", "gpu-0", 4, nil), runningPod("other-1", "gpu-1", 8, nil),
			}},
			workload:  lws(2, 1, gpuTemplate(8)),
			placeable: 1, first: 1,
			reason: "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
		},
		{
			name:      "an init container's request counts when larger than the containers'",
			snapshot:  Snapshot{Nodes: nodes(1, "small", 4)},
			workload:  lws(1, 1, withInit),
			placeable: 0, first: 0,
			reason: "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.",
		},
		{
			name: "too many pods",
			snapshot: Snapshot{Nodes: func() []corev1.Node {
				n := nodes(1, "full", 8)
				n[0].Status.Allocatable[corev1.ResourcePods] = resource.MustParse("1")
				return n
			}(), Pods: []corev1.Pod{runningPod("other", "full-0", 0, nil)}},
			workload:  lws(1, 1, gpuTemplate(1)),
			placeable: 0, first: 0,
			reason: "0/1 nodes are available: 1 Too many pods.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Preview(tt.snapshot, tt.workload)
			if got.Placeable != tt.placeable || got.FirstUnplaceable != tt.first || got.Reason != tt.reason {
				t.Errorf("Preview() = placeable %d, first %d, reason %q; want %d, %d, %q",
					got.Placeable, got.FirstUnplaceable, got.Reason, tt.placeable, tt.first, tt.reason)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestPreviewAnyOrder: two roles of one 8-GPU group each and room for one. In the given order
// the first role places its group and the second none; a controller that creates them in no
// fixed order may give the room to either, so each role's verdict is its least favourable order
// (0) and MostPlaceable says it may also be 1. Three roles that all fit do not depend on the order.
func TestPreviewAnyOrder(t *testing.T) {
	role := func(name string, gpus int64) Workload {
		w := lws(1, 1, gpuTemplate(gpus))
		w.Name = name
		return w
	}
	snapshot := Snapshot{Nodes: nodes(1, "gpu", 8)}
	ordered := PreviewAll(snapshot, []Workload{role("prefill", 8), role("decode", 8)})
	if ordered[0].Placeable != 1 || ordered[1].Placeable != 0 {
		t.Fatalf("in order: got %d and %d, want 1 and 0", ordered[0].Placeable, ordered[1].Placeable)
	}
	for i, r := range PreviewAnyOrder(snapshot, []Workload{role("prefill", 8), role("decode", 8)}) {
		if r.Placeable != 0 || r.MostPlaceable != 1 || r.FirstUnplaceable != 0 || r.Reason == "" {
			t.Errorf("role %d in any order: got placeable %d, most %d, first unplaceable %d, reason %q; want 0, 1, 0 and the scheduler's reason",
				i, r.Placeable, r.MostPlaceable, r.FirstUnplaceable, r.Reason)
		}
	}
	for i, r := range PreviewAnyOrder(Snapshot{Nodes: nodes(3, "gpu", 8)}, []Workload{role("a", 8), role("b", 8), role("c", 8)}) {
		if r.Placeable != 1 || r.MostPlaceable != 1 {
			t.Errorf("role %d with room for all: got placeable %d, most %d; want 1 and 1", i, r.Placeable, r.MostPlaceable)
		}
	}
}

func TestNextPermutationVisitsEveryOrderOnce(t *testing.T) {
	order := []int{0, 1, 2, 3}
	seen := map[string]bool{fmt.Sprint(order): true}
	for nextPermutation(order) {
		if seen[fmt.Sprint(order)] {
			t.Fatalf("order %v twice", order)
		}
		seen[fmt.Sprint(order)] = true
	}
	if len(seen) != 24 {
		t.Errorf("%d orders, want 24", len(seen))
	}
}

// TestPreviewAnyOrderManyWorkloads: past maxOrdered workloads, each is still played first, so a
// workload that places its group only when it comes first gets that in its range.
func TestPreviewAnyOrderManyWorkloads(t *testing.T) {
	var ws []Workload
	for i := 0; i < maxOrdered+1; i++ {
		w := lws(1, 1, gpuTemplate(8))
		w.Name = fmt.Sprintf("role-%d", i)
		ws = append(ws, w)
	}
	for i, r := range PreviewAnyOrder(Snapshot{Nodes: nodes(1, "gpu", 8)}, ws) {
		if r.Placeable != 0 || r.MostPlaceable != 1 {
			t.Errorf("workload %d: placeable %d to %d, want 0 to 1", i, r.Placeable, r.MostPlaceable)
		}
	}
}
