package placementtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/placement"
)

// The placement-policy differential (LeaderWorkerSet v0.10.0 only): DisaggregatedSets of 2 or 3
// slices under a placementPolicy (None, ExclusiveSlice or ExclusiveTopology on the racks or the
// zones), applied to the v0.10.0 controller, which creates one LeaderWorkerSet per role and
// slice with the policy's pod affinity. Each slice's role is compared with its preview.

// policyScenario is a DisaggregatedSet scenario with slices and a placement policy.
type policyScenario struct {
	dsScenario
	slices int
	policy disaggv1.PlacementPolicy
}

func generatePolicy(seed uint64, i int) policyScenario {
	sc := generateDS(seed^0x9011c7, i)
	sc.id = fmt.Sprintf("pp%03d", i)
	for r := range sc.roles {
		// The v0.10.0 webhook refuses a role's exclusive-topology annotation beside a policy.
		delete(sc.roles[r].Annotations, lwsv1.ExclusiveKeyAnnotationKey)
	}
	rename := func(s string) string { return strings.ReplaceAll(s, fmt.Sprintf("d%03d", i), sc.id) }
	retagDS(&sc, rename)
	sc.summary = strings.ReplaceAll(sc.summary, "; exclusive per rack", "")
	rng := rand.New(rand.NewPCG(seed^0x5117ce, uint64(i)))
	p := policyScenario{dsScenario: sc, slices: 2 + rng.IntN(2)}
	p.policy.Type = []disaggv1.PlacementType{disaggv1.PlacementNone, disaggv1.PlacementExclusiveSlice, disaggv1.PlacementExclusiveTopology}[rng.IntN(3)]
	if p.policy.Type != disaggv1.PlacementNone {
		p.policy.Topology = []string{rackLabel, zoneLabel}[rng.IntN(2)]
	}
	p.summary += fmt.Sprintf("; %d slices, policy %s on %s", p.slices, p.policy.Type, p.policy.Topology)
	return p
}

// retagDS renames a DisaggregatedSet scenario's objects with rename (see retag).
func retagDS(sc *dsScenario, rename func(string) string) {
	renameCluster(&sc.scenario, rename)
	sc.summary = rename(sc.summary)
	for r := range sc.roles {
		w := &sc.roles[r]
		w.Namespace = sc.id
		for k, v := range w.Leader.Labels {
			w.Leader.Labels[k] = rename(v)
		}
		for k, v := range w.Leader.Spec.NodeSelector {
			w.Leader.Spec.NodeSelector[k] = rename(v)
		}
	}
}

// TestPlacementPreviewPlacementPolicyAgreesWithScheduler needs the v0.10.0 controller
// (KUBEINFER_LWS_V010=1, see CONTRIBUTING.md).
func TestPlacementPreviewPlacementPolicyAgreesWithScheduler(t *testing.T) {
	if os.Getenv("KUBEINFER_LWS_V010") != "1" {
		t.Skip("set KUBEINFER_LWS_V010=1 with an assets folder running the LeaderWorkerSet v0.10.0 controller-manager")
	}
	cluster := acctest.Cluster(t)
	acctest.FirstCLIOnly(t, "the v0.10.0 controller's and the scheduler's placement of generated placement policies")
	cs := cluster.Clientset()
	n := scenarioCount(t, "KUBEINFER_PLACEMENT_POLICY_SCENARIOS", 10)
	var tally rangeTally
	var disagreements []string
	for i := 0; i < n; i++ {
		sc := generatePolicy(20261206, i)
		obj, err := dsObject(sc.dsScenario)
		if err != nil {
			t.Fatal(err)
		}
		spec := obj.Object["spec"].(map[string]any)
		spec["slices"] = int64(sc.slices)
		spec["placementPolicy"] = map[string]any{"type": string(sc.policy.Type)}
		if sc.policy.Topology != "" {
			spec["placementPolicy"].(map[string]any)["topology"] = sc.policy.Topology
		}
		ds, err := disaggregatedset.Kind.FromServer(obj.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		workloads := disaggregatedset.Kind.Placement(ds, nil)
		_, results := kube.PreviewPlacement(placement.Snapshot{Nodes: sc.nodes, Pods: sc.running}, workloads)
		bound, pods, err := runPolicyScenario(cs, cluster, sc, obj, workloads)
		if err != nil {
			t.Fatalf("%s (%s): %v", sc.id, sc.summary, err)
		}
		var line []string
		for k, w := range workloads {
			r := results[k]
			got := bound[w.Workload.Name]
			previewed, agree := tally.add(r, got)
			line = append(line, fmt.Sprintf("%s preview %s/%d, scheduler %d", w.Subject, previewed, w.Workload.Replicas, got))
			if !agree {
				disagreements = append(disagreements, fmt.Sprintf("%s %s (LeaderWorkerSet %s): preview %s, scheduler %d (%s) preview reason %q; pods: %s",
					sc.id, w.Subject, w.Workload.Name, previewed, got, sc.summary, r.Reason, pods))
			}
		}
		t.Logf("%s: %s (%s)", sc.id, strings.Join(line, "; "), sc.summary)
	}
	acctest.Report(t, "placement policy differential (v0.10.0): %d scenarios (%d slice roles), %d agreements (%d exact, %d within the range over the order), %d disagreements",
		n, tally.seen, tally.exact+tally.rangedAgreements, tally.exact, tally.rangedAgreements, len(disagreements))
	for _, d := range disagreements {
		t.Errorf("disagreement %s", d)
	}
}

// runPolicyScenario applies the set, waits until every LeaderWorkerSet's pods exist and settle,
// and counts each LeaderWorkerSet's fully bound groups.
func runPolicyScenario(cs kubernetes.Interface, cluster *acctest.TestCluster, sc policyScenario, obj *unstructured.Unstructured,
	workloads []kube.PlacementWorkload) (map[string]int, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	defer removeScenario(cs, cluster, sc.scenario, dsGVR, dsName)
	if err := setUpScenario(ctx, cs, sc.scenario); err != nil {
		return nil, "", err
	}
	if _, err := cluster.Dynamic().Resource(dsGVR).Namespace(sc.id).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return nil, "", err
	}
	byName := map[string]placement.Workload{}
	for _, w := range workloads {
		byName[w.Workload.Name] = w.Workload
	}
	// Every group's leader exists, and its workers once the leader exists (or, with exclusive
	// placement, is bound): PodReconciler.Reconcile, pkg/controllers/pod_controller.go.
	complete := func(pods []corev1.Pod) bool {
		perGroup, leaders := map[string]int{}, map[string]int{}
		for _, p := range pods {
			perGroup[p.Labels[lwsv1.SetNameLabelKey]+"/"+p.Labels[lwsv1.GroupIndexLabelKey]]++
			if p.Labels[lwsv1.WorkerIndexLabelKey] == "0" {
				leaders[p.Labels[lwsv1.SetNameLabelKey]]++
			}
		}
		for name, w := range byName {
			if leaders[name] < w.Replicas {
				return false
			}
		}
		for _, p := range pods {
			w := byName[p.Labels[lwsv1.SetNameLabelKey]]
			if p.Labels[lwsv1.WorkerIndexLabelKey] == "0" && p.Spec.NodeName != "" && perGroup[p.Labels[lwsv1.SetNameLabelKey]+"/"+p.Labels[lwsv1.GroupIndexLabelKey]] < w.Size {
				return false
			}
		}
		return true
	}
	pods, err := waitPodsSettled(ctx, cs, sc.id, disaggv1.SetNameLabelKey+"="+dsName, complete)
	if err != nil {
		return nil, "", err
	}
	return boundGroups(pods, func(p corev1.Pod) int { return byName[p.Labels[lwsv1.SetNameLabelKey]].Size }), podPlaces(pods), nil
}
