package placementtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/placement"
)

// The update differential: a LeaderWorkerSet of a generated scenario is created and left to
// settle, then changed (a new image, often a new GPU count per pod, sometimes one group more or
// less) under a generated rolling-update configuration. The preview is taken as a plan takes it:
// from the nodes and pods on the cluster and the object as the server returned it. The LWS
// controller then rolls the change out against the real scheduler, and once nothing moves, the
// groups below replicas whose every pod is bound, and those of them on the new template, are
// compared with the preview's Placeable and Updated.

// updateScenario is a scenario of the create differential with the change made to it.
type updateScenario struct {
	scenario
	maxSurge, maxUnavailable, partition int
	newGPUs                             int64
	newReplicas                         int
}

const (
	oldImage = "registry.k8s.io/pause:3.10"
	newImage = "registry.k8s.io/pause:3.9"
)

// generateUpdate builds update scenario i: the create scenario of the same seed and index, a
// rolling-update configuration (surge 0-2, unavailable 0-2, never both 0, as the LWS webhook
// requires; a partition of 1 now and then) and the change.
func generateUpdate(seed uint64, i int) updateScenario {
	sc := generate(seed, i)
	sc.id = fmt.Sprintf("u%03d", i)
	retag(&sc)
	rng := rand.New(rand.NewPCG(seed^0x5eed, uint64(i)))
	u := updateScenario{scenario: sc}
	pairs := [][2]int{{0, 1}, {1, 0}, {1, 1}, {2, 0}, {0, 2}, {2, 1}}
	pair := pairs[rng.IntN(len(pairs))]
	u.maxSurge, u.maxUnavailable = pair[0], pair[1]
	if sc.workload.Replicas > 1 && rng.IntN(5) == 0 {
		u.partition = 1
	}
	u.newGPUs = sc.workload.Leader.Spec.Containers[0].Resources.Requests.Name(gpu, "").Value()
	if rng.IntN(3) > 0 {
		u.newGPUs = []int64{1, 2, 4, 8}[rng.IntN(4)]
	}
	u.newReplicas = sc.workload.Replicas
	switch rng.IntN(6) {
	case 0:
		u.newReplicas++
	case 1:
		u.newReplicas = max(1, u.newReplicas-1)
	}
	u.summary += fmt.Sprintf("; update: surge %d, unavailable %d, partition %d, %d GPUs per pod, %d groups",
		u.maxSurge, u.maxUnavailable, u.partition, u.newGPUs, u.newReplicas)
	return u
}

// renameCluster renames a scenario's nodes (and their label values) and running pods with
// rename, and puts the pods in the scenario's namespace.
func renameCluster(sc *scenario, rename func(string) string) {
	for i := range sc.nodes {
		n := &sc.nodes[i]
		n.Name = rename(n.Name)
		for k, v := range n.Labels {
			n.Labels[k] = rename(v)
		}
	}
	for i := range sc.running {
		p := &sc.running[i]
		p.Name, p.Namespace, p.Spec.NodeName = rename(p.Name), sc.id, rename(p.Spec.NodeName)
	}
}

// retag renames a create scenario's objects after its new id, so that the update differential's
// namespaces and nodes never meet the create differential's.
func retag(sc *scenario) {
	old := sc.workload.Namespace
	rename := func(s string) string { return strings.ReplaceAll(s, old, sc.id) }
	renameCluster(sc, rename)
	sc.workload.Namespace = sc.id
	sc.summary = rename(sc.summary)
	t := &sc.workload.Leader
	for k, v := range t.Labels {
		t.Labels[k] = rename(v)
	}
	for k, v := range t.Spec.NodeSelector {
		t.Spec.NodeSelector[k] = rename(v)
	}
	for i := range t.Spec.TopologySpreadConstraints {
		c := &t.Spec.TopologySpreadConstraints[i]
		for k, v := range c.LabelSelector.MatchLabels {
			c.LabelSelector.MatchLabels[k] = rename(v)
		}
	}
}

// TestPlacementPreviewUpdateAgreesWithScheduler compares the preview of an update with the rollout
// the LWS controller and the scheduler carry out.
func TestPlacementPreviewUpdateAgreesWithScheduler(t *testing.T) {
	cluster := acctest.Cluster(t)
	acctest.FirstCLIOnly(t, "the LWS controller's and the scheduler's rollout of generated updates")
	cs := cluster.Clientset()
	n := scenarioCount(t, "KUBEINFER_PLACEMENT_UPDATE_SCENARIOS", 3)
	agreements, stalls := 0, 0
	var disagreements []string
	first := scenarioFrom(t, "KUBEINFER_PLACEMENT_UPDATE_FROM", 0)
	for i := first; i < first+n; i++ {
		u := generateUpdate(20261206, i)
		got, err := runUpdateScenario(t, cs, cluster, u)
		if err != nil {
			t.Fatalf("%s (%s): %v", u.id, u.summary, err)
		}
		p := got.preview
		placed := fmt.Sprint(p.Placeable)
		if p.MostPlaceable > p.Placeable {
			placed = fmt.Sprintf("%d-%d", p.Placeable, p.MostPlaceable)
		}
		t.Logf("%s: before the change %d groups placed; preview placed %s, updated %d, stalled %t; cluster placed %d, updated %d (%s)",
			u.id, got.before, placed, p.Updated, p.Stalled, got.placed, got.updated, u.summary)
		if p.Stalled {
			stalls++
		}
		// A scale-up's new groups may come up partially: the preview gives the range of whole ones
		// (Updated is the fewest of them that run the planned template).
		spread := p.MostPlaceable - p.Placeable
		if p.Placeable <= got.placed && got.placed <= p.MostPlaceable && p.Updated <= got.updated && got.updated <= p.Updated+spread {
			agreements++
			continue
		}
		disagreements = append(disagreements, fmt.Sprintf("%s: preview placed %s updated %d, cluster placed %d updated %d (%s) preview reason %q; pods before the change: %s; after: %s",
			u.id, placed, p.Updated, got.placed, got.updated, u.summary, p.Reason, got.podsBefore, got.podsAfter))
	}
	acctest.Report(t, "placement update differential: %d scenarios (%d previewed as stalling), %d agreements, %d disagreements",
		n, stalls, agreements, len(disagreements))
	for _, d := range disagreements {
		t.Errorf("disagreement %s", d)
	}
}

type updateOutcome struct {
	preview                 placement.Result
	before, placed, updated int
	// podsBefore and podsAfter are the LeaderWorkerSet's pods (name@node, @- when waiting), for a
	// disagreement's report.
	podsBefore, podsAfter string
}

// runUpdateScenario creates the scenario, lets it settle, previews the change from what is on the
// cluster, makes the change and counts the groups once the rollout settles.
func runUpdateScenario(t *testing.T, cs kubernetes.Interface, cluster *acctest.TestCluster, u updateScenario) (updateOutcome, error) {
	var out updateOutcome
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sc := u.scenario
	lwses := cluster.Dynamic().Resource(lwsGVR).Namespace(sc.id)
	defer removeScenario(cs, cluster, sc, lwsGVR, sc.workload.Name)
	if err := setUpScenario(ctx, cs, sc); err != nil {
		return out, err
	}
	obj, err := lwsObject(sc.workload)
	if err != nil {
		return out, err
	}
	obj.Object["spec"].(map[string]any)["rolloutStrategy"] = map[string]any{
		"type": "RollingUpdate",
		"rollingUpdateConfiguration": map[string]any{
			"maxSurge": int64(u.maxSurge), "maxUnavailable": int64(u.maxUnavailable), "partition": int64(u.partition),
		},
	}
	if _, err := lwses.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return out, err
	}
	if out.before, err = waitSettled(ctx, cs, sc); err != nil {
		return out, fmt.Errorf("before the change: %w", err)
	}
	// The object as the server has it (defaulted by the webhook), and the change made to it.
	live, err := lwses.Get(ctx, sc.workload.Name, metav1.GetOptions{})
	if err != nil {
		return out, err
	}
	var current lwsv1.LeaderWorkerSet
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, &current); err != nil {
		return out, err
	}
	changed := current.DeepCopy()
	changed.Spec.Replicas = ptrTo(int32(u.newReplicas))
	for _, tpl := range []*corev1.PodTemplateSpec{&changed.Spec.LeaderWorkerTemplate.WorkerTemplate, changed.Spec.LeaderWorkerTemplate.LeaderTemplate} {
		if tpl == nil {
			continue
		}
		c := &tpl.Spec.Containers[0]
		c.Image = newImage
		c.Resources = gpuRequests(u.newGPUs)
	}
	snapshot, err := clusterSnapshot(ctx, cs, sc.id)
	if err != nil {
		return out, err
	}
	out.preview = placement.Preview(snapshot, placement.WorkloadFromLeaderWorkerSet(changed, &current))
	out.podsBefore = podPlaces(snapshot.Pods)

	next, err := runtime.DefaultUnstructuredConverter.ToUnstructured(changed)
	if err != nil {
		return out, err
	}
	live.Object["spec"] = next["spec"]
	if _, err := lwses.Update(ctx, live, metav1.UpdateOptions{}); err != nil {
		return out, fmt.Errorf("the change: %w", err)
	}
	out.placed, out.updated, err = waitRolloutSettled(ctx, cs, u)
	if after, listErr := cs.CoreV1().Pods(sc.id).List(ctx, metav1.ListOptions{}); listErr == nil {
		out.podsAfter = podPlaces(after.Items)
	}
	return out, err
}

// podPlaces lists the LeaderWorkerSet's pods as name@node (@- when waiting) with their GPUs.
func podPlaces(pods []corev1.Pod) string {
	var out []string
	for _, p := range pods {
		if p.Labels[lwsv1.SetNameLabelKey] == "" {
			continue
		}
		node := p.Spec.NodeName
		if node == "" {
			node = "-"
		}
		out = append(out, fmt.Sprintf("%s@%s/%dgpu", p.Name, node, p.Spec.Containers[0].Resources.Requests.Name(gpu, "").Value()))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func ptrTo[T any](v T) *T { return &v }

// clusterSnapshot reads what a plan reads: the nodes, and the pods bound to them (of the
// scenario's namespace: the other namespaces' pods are on other nodes).
func clusterSnapshot(ctx context.Context, cs kubernetes.Interface, id string) (placement.Snapshot, error) {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: scenarioLabel + "=" + id})
	if err != nil {
		return placement.Snapshot{}, err
	}
	pods, err := cs.CoreV1().Pods(id).List(ctx, metav1.ListOptions{})
	if err != nil {
		return placement.Snapshot{}, err
	}
	return placement.Snapshot{Nodes: nodes.Items, Pods: pods.Items}, nil
}

// waitRolloutSettled polls the LeaderWorkerSet's pods until none is terminating or waiting to be
// scheduled and nothing has changed for six seconds (the controller's rounds follow each other
// within a second or two once a group is Ready), then counts the groups below the new replicas
// whose every pod is bound, and those of them on the new template.
func waitRolloutSettled(ctx context.Context, cs kubernetes.Interface, u updateScenario) (placed, updated int, err error) {
	var last string
	stableSince := time.Now()
	for {
		pods, err := cs.CoreV1().Pods(u.id).List(ctx, metav1.ListOptions{LabelSelector: lwsv1.SetNameLabelKey + "=" + u.workload.Name})
		if err != nil {
			return 0, 0, err
		}
		type group struct{ bound, onNew int }
		groups := map[int]*group{}
		settled := true
		var state []string
		for _, p := range pods.Items {
			g, err := strconv.Atoi(p.Labels[lwsv1.GroupIndexLabelKey])
			if err != nil {
				continue
			}
			if groups[g] == nil {
				groups[g] = &group{}
			}
			switch {
			case p.DeletionTimestamp != nil:
				settled = false
				state = append(state, p.Name+"@deleting")
			case p.Spec.NodeName != "":
				groups[g].bound++
				if p.Spec.Containers[0].Image == newImage {
					groups[g].onNew++
				}
				state = append(state, p.Name+"@"+p.Spec.NodeName+"/"+p.Spec.Containers[0].Image)
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
		if settled && time.Since(stableSince) > 6*time.Second {
			size := u.workload.Size
			for g, grp := range groups {
				if g >= u.newReplicas || grp.bound != size {
					continue
				}
				placed++
				if grp.onNew == size {
					updated++
				}
			}
			return placed, updated, nil
		}
		select {
		case <-ctx.Done():
			return 0, 0, fmt.Errorf("the rollout never settled: %s: %w", last, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}
