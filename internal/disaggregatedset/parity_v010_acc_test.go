package disaggregatedset_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	dsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// parityV010Cases is the size of the generated v0.10.0 corpus.
const parityV010Cases = 320

// TestAccDisaggregatedSet_parityV010 compares the provider's CRD rules for the v0.10.0 fields
// (slices bounds, the placement type and scaling mode enums, the replicas rule that leaves External
// roles out) with the API server's validation of the CRD generated from
// internal/apis/disaggregatedset/v1 (NewerFields profile): a dry-run create of each generated
// object. No DisaggregatedSet webhook runs there, so the provider's verdict is that of its CRD
// rules alone (ValidateCRD); the webhook rules are covered by unit tests. Explicit empty enums are
// not generated: the provider refuses them from the configuration (checkConfig), not from the
// object.
func TestAccDisaggregatedSet_parityV010(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.ClusterWith(t, acctest.NewerFields)
	dsRI := c.Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	rng := rand.New(rand.NewSource(acctest.ParitySeed(t, 10)))
	var cases []acctest.ParityCase
	for i := range parityV010Cases {
		obj, desc, want := generateV010(rng, i)
		cases = append(cases, acctest.ParityCase{
			Desc: desc,
			Want: want,
			Provider: func() acctest.Verdict {
				ds := &disaggv1.DisaggregatedSet{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(copyMap(obj), ds); err != nil {
					return acctest.Verdict{Msg: err.Error()}
				}
				dsrules.SetDefaults(ds, k8sschema.NullValue(disaggregatedset.Kind.Node()))
				return acctest.VerdictFromFieldErrors(dsrules.ValidateCRD(ds))
			},
			Server: func(ctx context.Context) (acctest.Verdict, error) {
				_, err := dsRI.Create(ctx, &unstructured.Unstructured{Object: copyMap(obj)}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				return serverVerdict(err)
			},
		})
	}
	acctest.RunParity(t, cases)
}

// generateV010 returns the i-th object of the v0.10.0 corpus, its description and whether the
// generator means it to be valid.
func generateV010(rng *rand.Rand, i int) (map[string]any, string, bool) {
	var desc []string
	want := true
	spec := map[string]any{}
	pick := func(n int) int { return rng.Intn(n) }

	// Invalid values are a minority of each choice, so that most objects break at most one rule.
	switch s := []any{nil, nil, nil, int64(1), int64(1), int64(2), int64(50), int64(100), int64(-1), int64(0), int64(101), int64(1000)}[pick(12)]; s {
	case nil:
	default:
		spec["slices"] = s
		desc = append(desc, fmt.Sprintf("slices %v", s))
		if n := s.(int64); n < 1 || n > 100 {
			want = false
		}
	}
	placements := []map[string]any{
		nil, nil, {}, {"type": "None"}, {"type": "ExclusiveSlice", "topology": "topology.kubernetes.io/zone"},
		{"type": "ExclusiveTopology"}, {"topology": "z"}, {"type": "Packed", "topology": "z"},
	}
	if p := placements[pick(len(placements))]; p != nil {
		spec["placementPolicy"] = p
		desc = append(desc, fmt.Sprintf("placement %v", p))
		if p["type"] == "Packed" {
			want = false
		}
	}
	n := 2 + pick(2)
	names := []string{"prefill", "decode", "router"}
	var roles []any
	allZero, allPositive := true, true
	for k := range n {
		var replicas any
		switch pick(6) {
		case 1:
			replicas = int64(0)
		case 2, 3:
			replicas = int64(1)
		case 4, 5:
			replicas = int64(3)
		}
		role := roleObj(names[k], replicas)
		external := false
		switch pick(10) {
		case 1, 2:
			role["scaling"] = map[string]any{}
		case 3, 4:
			role["scaling"] = map[string]any{"mode": "Static"}
		case 5, 6, 7:
			role["scaling"] = map[string]any{"mode": "External"}
			external = true
		case 8:
			role["scaling"] = map[string]any{"mode": "Auto"}
			want = false
		}
		desc = append(desc, fmt.Sprintf("%s replicas %v scaling %v", names[k], replicas, role["scaling"]))
		if !external {
			r := int64(1)
			if replicas != nil {
				r = replicas.(int64)
			}
			allZero = allZero && r == 0
			allPositive = allPositive && r > 0
		}
		roles = append(roles, role)
	}
	if !allZero && !allPositive {
		want = false
	}
	spec["roles"] = roles
	obj := map[string]any{
		"apiVersion": disaggv1.GroupVersion.String(), "kind": "DisaggregatedSet",
		"metadata": map[string]any{"name": fmt.Sprintf("par10-%d", i), "namespace": "default"},
		"spec":     spec,
	}
	return obj, strings.Join(desc, ", "), want
}
