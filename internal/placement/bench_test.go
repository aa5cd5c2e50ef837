package placement

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

// benchmarkFleet is 1,000 GPU nodes in 10 zones and 50 racks, a tenth of them tainted, with a pod
// already running on every third node, and 20 LeaderWorkerSets of 4 groups of 4 pods: five exclusive
// per rack first (exclusive placement shuts a rack to every other LeaderWorkerSet pod too, so they
// come before the rest), then plain, tolerating and zone-spread ones.
func benchmarkFleet() (Snapshot, []Workload) {
	var snapshot Snapshot
	for i := 0; i < 1000; i++ {
		opts := []nodeOption{withLabel("zone", fmt.Sprintf("z%d", i/100)), withLabel("rack", fmt.Sprintf("r%d", i%50))}
		if i%10 == 0 {
			opts = append(opts, withTaint("gpu", "true", corev1.TaintEffectNoSchedule))
		}
		n := gpuNode(fmt.Sprintf("node-%04d", i), 8, opts...)
		snapshot.Nodes = append(snapshot.Nodes, n)
		if i%3 == 0 {
			snapshot.Pods = append(snapshot.Pods, runningPod(fmt.Sprintf("running-%d", i), n.Name, 2, map[string]string{"app": "other"}))
		}
	}
	workloads := make([]Workload, 20)
	for i := range workloads {
		template := gpuTemplate(int64(1 + i%4))
		template.Labels = map[string]string{"app": fmt.Sprintf("lws-%d", i)}
		w := Workload{Name: fmt.Sprintf("lws-%d", i), Namespace: "default", Replicas: 4, Size: 4, Leader: template}
		switch {
		case i < 5:
			w.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: "rack"}
		case i%3 == 0:
			w.Leader.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}
		case i%3 == 1:
			w.Leader.Spec.TopologySpreadConstraints = spread.Spec.TopologySpreadConstraints
		}
		workloads[i] = w
	}
	return snapshot, workloads
}

var spread = func() corev1.PodTemplateSpec {
	t := gpuTemplate(1)
	t.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector:  &metav1.LabelSelector{},
		MatchLabelKeys: []string{"app"},
	}}
	return t
}()

// BenchmarkPreview20LWSOver1000Nodes measures one plan's preview: the snapshot is built once per
// operation, as the plan would from its one list of nodes and of pods.
func BenchmarkPreview20LWSOver1000Nodes(b *testing.B) {
	snapshot, workloads := benchmarkFleet()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		results := PreviewAll(snapshot, workloads)
		if len(results) != len(workloads) {
			b.Fatalf("got %d results", len(results))
		}
	}
}

func TestBenchmarkFleetPlacesEveryGroup(t *testing.T) {
	snapshot, workloads := benchmarkFleet()
	for i, r := range PreviewAll(snapshot, workloads) {
		if r.Placeable != workloads[i].Replicas {
			t.Errorf("%s: %d of %d groups placeable: %s", workloads[i].Name, r.Placeable, workloads[i].Replicas, r.Reason)
		}
	}
}

// BenchmarkPreview20LWSUpdatesOver1000Nodes measures one plan of 20 rolling updates: each of the
// fleet's LeaderWorkerSets runs its 4 groups of 4 pods on the snapshot and changes its template
// (one more GPU per pod, maxSurge 1, maxUnavailable 1), played out round by round.
func BenchmarkPreview20LWSUpdatesOver1000Nodes(b *testing.B) {
	snapshot, workloads := benchmarkFleet()
	for i, r := range PreviewAll(snapshot, workloads) {
		w := workloads[i]
		if r.Placeable != w.Replicas {
			b.Fatalf("%s: the fleet does not fit before the update", w.Name)
		}
	}
	// The running pods: the fleet placed as the preview placed it.
	s := newState(snapshot, nil)
	for _, w := range workloads {
		previewOn(s, w, w.Replicas)
	}
	for _, n := range s.nodes {
		for _, p := range n.pods {
			if p.labels[lwsv1.SetNameLabelKey] == "" {
				continue
			}
			snapshot.Pods = append(snapshot.Pods, corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Namespace: p.namespace, Name: fmt.Sprintf("%s-%s-%s", p.labels[lwsv1.SetNameLabelKey],
					p.labels[lwsv1.GroupIndexLabelKey], p.labels[lwsv1.WorkerIndexLabelKey]), Labels: p.labels},
				Spec:   corev1.PodSpec{NodeName: n.node.Name, Containers: []corev1.Container{{Resources: gpuTemplate(p.req.amounts[len(p.req.amounts)-1].value).Spec.Containers[0].Resources}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning},
			})
		}
	}
	updates := make([]Workload, len(workloads))
	for i, w := range workloads {
		u := w
		u.Leader = *w.Leader.DeepCopy()
		u.Leader.Spec.Containers[0].Resources = gpuTemplate(int64(2 + i%4)).Spec.Containers[0].Resources
		u.Rollout = &Rollout{Current: w, NewRevision: true, MaxSurge: 1, MaxUnavailable: 1}
		updates[i] = u
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		results := PreviewAll(snapshot, updates)
		if len(results) != len(updates) {
			b.Fatalf("got %d results", len(results))
		}
	}
}

// BenchmarkPreviewAnyOrder: a DisaggregatedSet's roles (of the fleet's LeaderWorkerSets) over the
// 1,000 nodes, previewed in any order, at the sizes where every order is played (4) and where
// the 3n+2 orders are (8: 2 roles of 4 slices).
func BenchmarkPreviewAnyOrder(b *testing.B) {
	snapshot, workloads := benchmarkFleet()
	for _, n := range []int{2, 4, 5, 8} {
		b.Run(fmt.Sprintf("%d workloads", n), func(b *testing.B) {
			for b.Loop() {
				PreviewAnyOrder(snapshot, workloads[5:5+n])
			}
		})
	}
}
