package disaggregatedset_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	dsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// The v0.10.0 controller-manager cannot be built in make test (the module proxy refuses
// sigs.k8s.io/lws v0.10.0 as a module), but it builds from a git archive of the release commit
// (2161f38: go.mod, go.sum, api, pkg, cmd, config, client-go) with `go build ./cmd/`. These tests run
// only when KUBEINFER_LWS_V010=1 says that the assets folder ($KUBEINFER_TEST_ASSETS) is the
// released one with lws-controller-manager replaced by that build, lws/crds holding the release's
// LeaderWorkerSet CRD and the DisaggregatedSet CRDs generated from internal/apis/disaggregatedset/v1
// (internal/acctest/testdata/crds), and lws/webhook/manifests.yaml the release's
// config/webhook/manifests.yaml.
func skipUnlessV010Controller(t *testing.T) {
	t.Helper()
	if os.Getenv("KUBEINFER_LWS_V010") != "1" {
		t.Skip("set KUBEINFER_LWS_V010=1 with an assets folder running the LeaderWorkerSet v0.10.0 controller-manager")
	}
}

// TestAccDisaggregatedSet_v010Controller: with the v0.10.0 controller and webhook, a set with an
// External role is created and rolled out (the wait), the controller creates the role scaler with
// its selector, an autoscaler scaling through the scale subresource scales the role's
// LeaderWorkerSet, and the set still plans no change; the data source reads the scaler.
func TestAccDisaggregatedSet_v010Controller(t *testing.T) {
	skipUnlessV010Controller(t)
	const name = "probe10"
	c := acctest.Cluster(t)
	pc := acctest.ProviderConfigFor(c)
	lwsRI := c.Dynamic().Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default")
	scRI := c.Dynamic().Resource(disaggregatedset.RoleScalerKind.GVR()).Namespace("default")
	dsRI := c.Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	cfg := pc + strings.Replace(v010Set(name, `scaling = { mode = "External" }`, ""), "wait_for_rollout = false", `timeouts = { create = "2m", update = "2m" }`, 1)
	show := func(tag string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			l, err := lwsRI.List(context.Background(), metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name})
			if err != nil {
				return err
			}
			for _, u := range l.Items {
				r, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
				t.Logf("%s: LeaderWorkerSet %s replicas %d labels %v", tag, u.GetName(), r, u.GetLabels())
			}
			sc, err := scRI.List(context.Background(), metav1.ListOptions{})
			if err != nil {
				return err
			}
			for _, u := range sc.Items {
				t.Logf("%s: scaler %s spec %v status %v", tag, u.GetName(), u.Object["spec"], u.Object["status"])
			}
			d, err := dsRI.Get(context.Background(), name, metav1.GetOptions{})
			if err == nil {
				t.Logf("%s: set status %v", tag, d.Object["status"])
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg, Check: resource.ComposeAggregateTestCheckFunc(show("created"), lwsReplicas(t, lwsRI, name, "decode", 1))},
			{Config: cfg, PlanOnly: true},
			{ // the autoscaler scales the role through the scaler's scale subresource
				PreConfig: func() {
					patch := []byte(`{"spec":{"replicas":3}}`)
					if _, err := scRI.Patch(context.Background(), name+"-decode", types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "hpa"}, "scale"); err != nil {
						t.Fatal(err)
					}
					time.Sleep(10 * time.Second) // the controller scales the LeaderWorkerSet
				},
				Config: cfg + `
data "kubeinfer_disaggregatedset_role_scaler" "decode" {
  metadata = { name = "probe10-decode" }
  depends_on = [kubeinfer_disaggregatedset.test]
}
output "selector" { value = data.kubeinfer_disaggregatedset_role_scaler.decode.status.selector }
`,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubeinfer_disaggregatedset.test", plancheck.ResourceActionNoop)}},
				Check: resource.ComposeAggregateTestCheckFunc(show("scaled"), lwsReplicas(t, lwsRI, name, "decode", 3),
					resource.TestCheckOutput("selector", disaggv1.SetNameLabelKey+"="+name+","+disaggv1.RoleLabelKey+"=decode,leaderworkerset.sigs.k8s.io/worker-index=0")),
			},
		},
	})
}

// lwsReplicas checks the replicas of the role's LeaderWorkerSet (one slice, one revision).
func lwsReplicas(t *testing.T, ri dynamic.ResourceInterface, set, role string, want int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		l, err := ri.List(context.Background(), metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + set + "," + disaggv1.RoleLabelKey + "=" + role})
		if err != nil {
			return err
		}
		if len(l.Items) != 1 {
			return fmt.Errorf("%d LeaderWorkerSets of role %s, want 1", len(l.Items), role)
		}
		if r, _, _ := unstructured.NestedInt64(l.Items[0].Object, "spec", "replicas"); r != want {
			return fmt.Errorf("LeaderWorkerSet %s has %d replicas, want %d", l.Items[0].GetName(), r, want)
		}
		return nil
	}
}

// TestAccDisaggregatedSet_v010WebhookParity: the provider's verdict (Validate) on 320 generated
// sets against a dry-run create with the v0.10.0 webhook and the generated CRD.
func TestAccDisaggregatedSet_v010WebhookParity(t *testing.T) {
	skipUnlessV010Controller(t)
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	dsRI := c.Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	rng := rand.New(rand.NewSource(acctest.ParitySeed(t, 11)))
	var cases []acctest.ParityCase
	for i := range 320 {
		obj, desc, want := generateV010(rng, i)
		spec := obj["spec"].(map[string]any)
		roles := spec["roles"].([]any)
		switch rng.Intn(4) {
		case 0:
			spec["placementPolicy"] = map[string]any{"type": "ExclusiveTopology"}
			desc += ", placement without topology"
			want = false
		case 1:
			r := roles[0].(map[string]any)["spec"].(map[string]any)
			r["rolloutStrategy"] = map[string]any{"type": "RollingUpdate", "rollingUpdateConfiguration": map[string]any{"maxSurge": int64(0), "maxUnavailable": "0%"}}
			desc += ", surge 0 unavailable 0%"
		case 2:
			roles[0].(map[string]any)["metadata"] = map[string]any{"annotations": map[string]any{"leaderworkerset.sigs.k8s.io/exclusive-topology": "zone"}}
			desc += ", exclusive annotation"
		}
		cases = append(cases, acctest.ParityCase{
			Desc: desc, Want: want,
			Provider: func() acctest.Verdict {
				ds := &disaggv1.DisaggregatedSet{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(copyMap(obj), ds); err != nil {
					return acctest.Verdict{Msg: err.Error()}
				}
				dsrules.SetDefaults(ds, k8sschema.NullValue(disaggregatedset.Kind.Node()))
				return acctest.VerdictFromFieldErrors(dsrules.Validate(ds))
			},
			Server: func(ctx context.Context) (acctest.Verdict, error) {
				_, err := dsRI.Create(ctx, &unstructured.Unstructured{Object: copyMap(obj)}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				return serverVerdict(err)
			},
		})
	}
	acctest.RunParity(t, cases)
}

// TestAccDisaggregatedSet_v010ControllerSlices: two slices roll out (the wait counts every slice's
// LeaderWorkerSets), and the set plans no change afterwards.
func TestAccDisaggregatedSet_v010ControllerSlices(t *testing.T) {
	skipUnlessV010Controller(t)
	const name = "probe10s"
	c := acctest.Cluster(t)
	lwsRI := c.Dynamic().Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default")
	cfg := acctest.ProviderConfigFor(c) + strings.Replace(v010Set(name, `scaling = { mode = "Static" }`, "slices = 2", "replicas = 1"),
		"wait_for_rollout = false", `timeouts = { create = "2m", update = "2m" }`, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg, Check: func(*terraform.State) error {
				l, err := lwsRI.List(context.Background(), metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name})
				if err != nil {
					return err
				}
				var names []string
				for _, u := range l.Items {
					names = append(names, u.GetName())
				}
				t.Logf("LeaderWorkerSets: %v", names)
				if len(l.Items) != 4 {
					return fmt.Errorf("%d LeaderWorkerSets, want 2 roles x 2 slices", len(l.Items))
				}
				return nil
			}},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccDisaggregatedSet_v010ControllerSlicesScaleDown: slices 3 -> 2 and 4 -> 2. The controller
// deletes the removed slices' LeaderWorkerSets; the apply waits until they are gone and succeeds,
// and the set plans no change afterwards.
func TestAccDisaggregatedSet_v010ControllerSlicesScaleDown(t *testing.T) {
	skipUnlessV010Controller(t)
	const name = "probe10d"
	c := acctest.Cluster(t)
	lwsRI := c.Dynamic().Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default")
	// Without the exclusive placement per zone: the test cluster has two zones, and 3 or 4
	// slices would not all be placed.
	cfg := func(slices int) string {
		set := strings.NewReplacer("wait_for_rollout = false", `timeouts = { create = "3m", update = "3m" }`,
			`placement_policy = { type = "ExclusiveSlice", topology = "topology.kubernetes.io/zone" }`, "")
		return acctest.ProviderConfigFor(c) + set.Replace(v010Set(name, `scaling = { mode = "Static" }`, fmt.Sprintf("slices = %d", slices), "replicas = 1"))
	}
	// slicesLeft checks that exactly the slices 0..want-1 have LeaderWorkerSets, one per role.
	slicesLeft := func(want int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			l, err := lwsRI.List(context.Background(), metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name})
			if err != nil {
				return err
			}
			var names []string
			for _, u := range l.Items {
				names = append(names, u.GetName())
				slice := u.GetLabels()[disaggv1.SliceLabelKey]
				if n, err := strconv.Atoi(slice); err == nil && n >= want {
					return fmt.Errorf("LeaderWorkerSet %s of slice %s is still there after slices = %d", u.GetName(), slice, want)
				}
			}
			t.Logf("slices = %d: LeaderWorkerSets %v", want, names)
			if len(l.Items) != 2*want {
				return fmt.Errorf("%d LeaderWorkerSets, want 2 roles x %d slices", len(l.Items), want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg(3), Check: slicesLeft(3)},
			{Config: cfg(2), Check: slicesLeft(2)},
			{Config: cfg(2), PlanOnly: true},
			{Config: cfg(4), Check: slicesLeft(4)},
			{Config: cfg(2), Check: slicesLeft(2)},
			{Config: cfg(2), PlanOnly: true},
		},
	})
}
