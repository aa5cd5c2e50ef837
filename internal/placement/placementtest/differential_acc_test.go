// Package placementtest checks the placement preview against the real kube-scheduler: generated
// scenarios of KWOK GPU nodes and LeaderWorkerSets, each applied and watched until the scheduler
// settles, comparing the preview's count of placeable groups (or, where the groups fall short,
// its range over the order the scheduler binds their pods in) with the count of groups whose
// every pod the scheduler bound.
package placementtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/placement"
)

func TestMain(m *testing.M) { acctest.Main(m) }

var lwsGVR = schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}

const gpu corev1.ResourceName = "nvidia.com/gpu"

const (
	scenarioLabel = "placement.kubeinfer.test/scenario"
	poolLabel     = "placement.kubeinfer.test/pool"
	rackLabel     = "placement.kubeinfer.test/rack"
	zoneLabel     = "placement.kubeinfer.test/zone"
	// The taint key is not the resource's name, so the ExtendedResourceToleration admission plugin
	// does not tolerate it for the pods.
	taintKey = "placement.kubeinfer.test/dedicated"
)

// scenario is one generated cluster state and LeaderWorkerSet.
type scenario struct {
	id       string
	nodes    []corev1.Node
	running  []corev1.Pod
	workload placement.Workload
	summary  string
}

// generate builds scenario i from the seeded generator: 1-3 node pools of 1-4 nodes with 4 or 8
// GPUs, zones and racks, some pools tainted or cordoned, some GPUs already taken, and a
// LeaderWorkerSet of 1-4 groups of 1-3 pods with tolerations, selectors, exclusive racks or a
// zone spread.
func generate(seed uint64, i int) scenario {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	sc := generateCluster(rng, fmt.Sprintf("s%03d", i))
	w, desc := generateWorkload(rng, sc.id, "lws", 4, true)
	sc.workload = w
	sc.summary = strings.Join(append([]string{sc.summary}, desc...), "; ")
	return sc
}

// generateCluster draws a scenario's nodes and running pods (the summary says what it drew):
// 1-3 node pools of 1-4 nodes with 4 or 8 GPUs, zones and racks, some pools tainted or cordoned,
// some GPUs already taken.
func generateCluster(rng *rand.Rand, id string) scenario {
	sc := scenario{id: id}
	var desc []string
	pools := 1 + rng.IntN(3)
	for p := 0; p < pools; p++ {
		count, gpus := 1+rng.IntN(4), int64(4*(1+rng.IntN(2)))
		tainted, cordon := rng.IntN(10) < 3, rng.IntN(10) == 0
		desc = append(desc, fmt.Sprintf("pool%d=%dx%dgpu tainted=%v cordoned=%v", p, count, gpus, tainted, cordon))
		for n := 0; n < count; n++ {
			name := fmt.Sprintf("%s-p%d-%d", id, p, n)
			node := corev1.Node{
				ObjectMeta: metav1.ObjectMeta{
					Name: name,
					Labels: map[string]string{
						"kubernetes.io/hostname": name, "type": "kwok", scenarioLabel: id,
						poolLabel: fmt.Sprintf("p%d", p),
						zoneLabel: fmt.Sprintf("%s-z%d", id, n%2),
						rackLabel: fmt.Sprintf("%s-r%d", id, (p+n)%3),
					},
					Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
				},
				Spec: corev1.NodeSpec{Unschedulable: cordon},
				Status: corev1.NodeStatus{
					Capacity: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("512Gi"),
						corev1.ResourcePods: resource.MustParse("110"), gpu: *resource.NewQuantity(gpus, resource.DecimalSI),
					},
					Phase: corev1.NodeRunning,
				},
			}
			node.Status.Allocatable = node.Status.Capacity.DeepCopy()
			if tainted {
				node.Spec.Taints = []corev1.Taint{{Key: taintKey, Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
			}
			sc.nodes = append(sc.nodes, node)
			if rng.IntN(4) == 0 {
				taken := int64(1 + rng.IntN(int(gpus)))
				sc.running = append(sc.running, corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: "running-" + name, Namespace: id},
					Spec: corev1.PodSpec{NodeName: name, Containers: []corev1.Container{{
						Name: "c", Image: "registry.k8s.io/pause:3.10",
						Resources: gpuRequests(taken),
					}}, Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
				})
				desc = append(desc, fmt.Sprintf("%s has %d GPUs taken", name, taken))
			}
		}
	}
	sc.summary = strings.Join(desc, "; ")
	return sc
}

// generateWorkload draws the LeaderWorkerSet (or DisaggregatedSet role) name of namespace id: 1 to
// maxReplicas groups of 1-3 pods of 1-8 GPUs, selecting the scenario's nodes, with tolerations,
// a pool selector, exclusive racks or (when spread) a zone spread. The descriptions say what it
// drew.
func generateWorkload(rng *rand.Rand, id, name string, maxReplicas int, spread bool) (placement.Workload, []string) {
	var desc []string
	podGPUs := []int64{1, 2, 4, 8}[rng.IntN(4)]
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": id}},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{scenarioLabel: id},
			Containers:   []corev1.Container{{Name: "server", Image: "registry.k8s.io/pause:3.10", Resources: gpuRequests(podGPUs)}},
		},
	}
	w := placement.Workload{Name: name, Namespace: id, Replicas: 1 + rng.IntN(maxReplicas), Size: 1 + rng.IntN(3)}
	desc = append(desc, fmt.Sprintf("%s %dx%d pods of %d GPUs", name, w.Replicas, w.Size, podGPUs))
	if rng.IntN(2) == 0 {
		template.Spec.Tolerations = []corev1.Toleration{{Key: taintKey, Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
		desc = append(desc, "tolerates")
	}
	if rng.IntN(5) == 0 {
		pool := fmt.Sprintf("p%d", rng.IntN(4))
		template.Spec.NodeSelector[poolLabel] = pool
		desc = append(desc, "selects "+pool)
	}
	switch rng.IntN(6) {
	case 0, 1:
		w.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: rackLabel}
		desc = append(desc, "exclusive per rack")
	case 2:
		if !spread {
			// A DisaggregatedSet's generated labels replace the template's app label (see
			// dsObject), so the selector would match nothing.
			break
		}
		template.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: zoneLabel, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": id}},
		}}
		desc = append(desc, "spread over zones")
	}
	w.Leader = template
	return w, desc
}

func gpuRequests(gpus int64) corev1.ResourceRequirements {
	q := *resource.NewQuantity(gpus, resource.DecimalSI)
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), gpu: q},
		Limits:   corev1.ResourceList{gpu: q},
	}
}

// scenarioCount is the number of scenarios the environment variable name asks for, or def when
// it is unset (make test's sample; make placement-corpus sets the whole corpus).
func scenarioCount(t *testing.T, name string, def int) int {
	return envInt(t, name, def, 1, "a positive number")
}

// scenarioFrom is the index of the first scenario: the environment variable name's (to rerun
// one scenario: <name>=7 with the count variable at 1), or def when it is unset.
func scenarioFrom(t *testing.T, name string, def int) int {
	return envInt(t, name, def, 0, "a scenario index")
}

// envInt is the integer of the environment variable name, at least least, or def when it is
// unset; anything else fails the test, saying what it wants.
func envInt(t *testing.T, name string, def, least int, want string) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		t.Fatalf("%s=%q: want %s", name, v, want)
	}
	return n
}

// TestPlacementPreviewAgreesWithScheduler applies each scenario to the test cluster, waits for the
// scheduler to settle, and compares the counts of fully placed groups.
func TestPlacementPreviewAgreesWithScheduler(t *testing.T) {
	cluster := acctest.Cluster(t)
	acctest.FirstCLIOnly(t, "the scheduler's placement of generated scenarios")
	cs := cluster.Clientset()
	n := scenarioCount(t, "KUBEINFER_PLACEMENT_SCENARIOS", 12)
	var tally rangeTally
	var disagreements []string
	for i := 0; i < n; i++ {
		sc := generate(20261206, i)
		preview := placement.Preview(placement.Snapshot{Nodes: sc.nodes, Pods: sc.running}, sc.workload)
		bound, err := runScenario(t, cs, cluster, sc)
		if err != nil {
			t.Fatalf("%s (%s): %v", sc.id, sc.summary, err)
		}
		// Where the groups fall short, which come up whole depends on the order the scheduler
		// binds their pods in: the preview gives the range, and the scheduler's count must be in it.
		previewed, agree := tally.add(preview, bound)
		t.Logf("%s: preview %s/%d, scheduler %d (%s)", sc.id, previewed, sc.workload.Replicas, bound, sc.summary)
		if !agree {
			disagreements = append(disagreements, fmt.Sprintf("%s: preview %s, scheduler %d (%s) preview reason %q",
				sc.id, previewed, bound, sc.summary, preview.Reason))
		}
	}
	acctest.Report(t, "placement differential: %d scenarios (%d previewed as a range), %d agreements (%d exact, %d within the range), %d disagreements",
		n, tally.ranged, tally.exact+tally.rangedAgreements, tally.exact, tally.rangedAgreements, len(disagreements))
	for _, d := range disagreements {
		t.Errorf("disagreement %s", d)
	}
}

// runScenario creates the scenario's nodes, running pods and LeaderWorkerSet, waits until every pod
// is bound or marked Unschedulable and that holds, counts the groups whose every pod is bound, and
// removes what it created.
func runScenario(t *testing.T, cs kubernetes.Interface, cluster *acctest.TestCluster, sc scenario) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	defer removeScenario(cs, cluster, sc, lwsGVR, sc.workload.Name)
	if err := setUpScenario(ctx, cs, sc); err != nil {
		return 0, err
	}
	obj, err := lwsObject(sc.workload)
	if err != nil {
		return 0, err
	}
	if _, err := cluster.Dynamic().Resource(lwsGVR).Namespace(sc.id).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return 0, err
	}
	return waitSettled(ctx, cs, sc)
}

// setUpScenario creates the scenario's namespace, its nodes (and waits until they are Ready) and
// the pods already running on them.
func setUpScenario(ctx context.Context, cs kubernetes.Interface, sc scenario) error {
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sc.id}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	for i := range sc.nodes {
		if _, err := cs.CoreV1().Nodes().Create(ctx, &sc.nodes[i], metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	if err := waitNodesReady(ctx, cs, sc.id); err != nil {
		return err
	}
	for i := range sc.running {
		if _, err := cs.CoreV1().Pods(sc.id).Create(ctx, &sc.running[i], metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// removeScenario deletes what a scenario created: its object (name of gvr), namespace and nodes.
func removeScenario(cs kubernetes.Interface, cluster *acctest.TestCluster, sc scenario, gvr schema.GroupVersionResource, name string) {
	ctx := context.Background()
	_ = cluster.Dynamic().Resource(gvr).Namespace(sc.id).Delete(ctx, name, metav1.DeleteOptions{})
	_ = cs.CoreV1().Namespaces().Delete(ctx, sc.id, metav1.DeleteOptions{})
	for _, node := range sc.nodes {
		_ = cs.CoreV1().Nodes().Delete(ctx, node.Name, metav1.DeleteOptions{})
	}
}

// lwsObject is the LeaderWorkerSet as a map, so fields left out stay out and the API server
// defaults them (a converted typed object would send empty strings).
func lwsObject(w placement.Workload) (*unstructured.Unstructured, error) {
	metadata, spec, err := lwsTemplate(w)
	if err != nil {
		return nil, err
	}
	metadata["name"], metadata["namespace"] = w.Name, w.Namespace
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1",
		"kind":       "LeaderWorkerSet",
		"metadata":   metadata,
		"spec":       spec,
	}}, nil
}

// lwsTemplate is the metadata (the annotations) and spec of w's LeaderWorkerSet, as maps.
func lwsTemplate(w placement.Workload) (metadata, spec map[string]any, err error) {
	template, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&w.Leader)
	if err != nil {
		return nil, nil, err
	}
	metadata = map[string]any{}
	if len(w.Annotations) > 0 {
		annotations := map[string]any{}
		for k, v := range w.Annotations {
			annotations[k] = v
		}
		metadata["annotations"] = annotations
	}
	return metadata, map[string]any{
		"replicas": int64(w.Replicas),
		"leaderWorkerTemplate": map[string]any{
			"size":           int64(w.Size),
			"workerTemplate": template,
		},
	}, nil
}

func waitNodesReady(ctx context.Context, cs kubernetes.Interface, id string) error {
	for {
		list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: scenarioLabel + "=" + id})
		if err != nil {
			return err
		}
		ready := len(list.Items) > 0
		for _, n := range list.Items {
			nodeReady := false
			for _, c := range n.Status.Conditions {
				nodeReady = nodeReady || (c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue)
			}
			for _, taint := range n.Spec.Taints {
				// The node lifecycle controller's not-ready taint, gone once the node is Ready.
				if strings.HasPrefix(taint.Key, "node.kubernetes.io/") && taint.Key != "node.kubernetes.io/unschedulable" {
					nodeReady = false
				}
			}
			ready = ready && nodeReady
		}
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("nodes of %s not Ready: %w", id, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// waitSettled waits until the LeaderWorkerSet's pods settle (waitPodsSettled) and counts its
// fully bound groups.
func waitSettled(ctx context.Context, cs kubernetes.Interface, sc scenario) (int, error) {
	pods, err := waitPodsSettled(ctx, cs, sc.id, lwsv1.SetNameLabelKey+"="+sc.workload.Name,
		func(pods []corev1.Pod) bool { return len(pods) > 0 })
	if err != nil {
		return 0, err
	}
	return boundGroups(pods, func(corev1.Pod) int { return sc.workload.Size })[sc.workload.Name], nil
}

// waitPodsSettled polls the pods of namespace that selector selects until they are complete
// (every pod the controllers are to create exists), each is bound or Unschedulable, and none has
// changed for three seconds.
func waitPodsSettled(ctx context.Context, cs kubernetes.Interface, namespace, selector string, complete func([]corev1.Pod) bool) ([]corev1.Pod, error) {
	var last string
	stableSince := time.Now()
	for {
		pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return nil, err
		}
		settled := complete(pods.Items)
		var state []string
		for _, p := range pods.Items {
			switch {
			case p.Spec.NodeName != "":
				state = append(state, p.Name+"@"+p.Spec.NodeName)
			case unschedulable(p):
				state = append(state, p.Name+"@-")
			default:
				settled = false
			}
		}
		key := fmt.Sprint(len(pods.Items), state)
		if key != last {
			last, stableSince = key, time.Now()
		}
		if settled && time.Since(stableSince) > 3*time.Second {
			return pods.Items, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("pods never settled: %s: %w", last, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// boundGroups counts, per LeaderWorkerSet, the groups whose every pod is bound: size(pod) of
// them, size being the group size of the pod's LeaderWorkerSet.
func boundGroups(pods []corev1.Pod, size func(corev1.Pod) int) map[string]int {
	type group struct{ lws, index string }
	bound := map[group]int{}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			bound[group{p.Labels[lwsv1.SetNameLabelKey], p.Labels[lwsv1.GroupIndexLabelKey]}]++
		}
	}
	full := map[string]int{}
	for _, p := range pods {
		g := group{p.Labels[lwsv1.SetNameLabelKey], p.Labels[lwsv1.GroupIndexLabelKey]}
		if p.Labels[lwsv1.WorkerIndexLabelKey] == "0" && bound[g] == size(p) {
			full[g.lws]++
		}
	}
	return full
}

func unschedulable(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}
