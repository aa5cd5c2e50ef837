package prioritylevelconfiguration_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
)

const (
	takenBack = "The plan sets them back to the configuration and the apply takes ownership of them (force_conflicts = true). Set force_conflicts = false to fail instead."
	keptBack  = "The plan sets them back to the configuration, but the apply fails with a conflict (force_conflicts = false). Set force_conflicts = true to take ownership, or change them through that manager."
	changed   = "Since the last apply, other field managers changed attributes this resource manages:\n"
)

var (
	sharesPath   = tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("nominal_concurrency_shares")
	lendablePath = tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("lendable_percent")
)

// serverLevel checks the live level's shares and lendable percent, and who owns the shares.
func serverLevel(plcs dynamic.ResourceInterface, name string, shares, lendable int64, owners ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := plcs.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s, _, _ := unstructured.NestedInt64(u.Object, "spec", "limited", "nominalConcurrencyShares")
		l, _, _ := unstructured.NestedInt64(u.Object, "spec", "limited", "lendablePercent")
		if s != shares || l != lendable {
			return fmt.Errorf("server has nominalConcurrencyShares %d and lendablePercent %d, want %d and %d", s, l, shares, lendable)
		}
		got, err := kubetest.Owners(u, "spec", "limited", "nominalConcurrencyShares")
		if err != nil {
			return err
		}
		if !slices.Equal(got, owners) {
			return fmt.Errorf("nominalConcurrencyShares is owned by %v, want %v", got, owners)
		}
		return nil
	}
}

func warned(w *kubetest.Warnings, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error { return w.Expect(want...) }
}

func noWarnings(t *testing.T, w *kubetest.Warnings) func() {
	return func() {
		if err := w.Expect(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAccPriorityLevelConfiguration_takeover: a change by an Update manager (kubectl edit, of a
// declared field and of a planned default) and one by another manager's forced server-side
// apply each converge with one approved apply: the refresh warns, the apply takes the fields
// back, the next plan is empty.
func TestAccPriorityLevelConfiguration_takeover(t *testing.T) {
	acctest.FirstCLIOnly(t, "the API server's field ownership")
	c := acctest.Cluster(t)
	name := "acc-plc-takeover"
	plcs := c.Dynamic().Resource(prioritylevelconfiguration.Kind.GVR())
	cfg := acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 12")
	var w kubetest.Warnings
	converges := func(preConfig func(), warning string) []resource.TestStep {
		return []resource.TestStep{{
			PreConfig: func() { noWarnings(t, &w)(); preConfig() },
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(addr, sharesPath, knownvalue.Int64Exact(12)),
				plancheck.ExpectKnownValue(addr, lendablePath, knownvalue.Int64Exact(0)),
			}},
			Check: resource.ComposeTestCheckFunc(warned(&w, warning), serverLevel(plcs, name, 12, 0, "kubeinfer (Apply)")),
		}, {PreConfig: noWarnings(t, &w), Config: cfg, PlanOnly: true}}
	}
	steps := []resource.TestStep{{Config: cfg}}
	steps = append(steps, converges(func() {
		patch := []byte(`{"spec":{"limited":{"nominalConcurrencyShares":20,"lendablePercent":40}}}`)
		if _, err := plcs.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
			t.Fatal(err)
		}
	}, "Fields changed outside Terraform will be taken back\n"+changed+
		`  spec.limited.lendable_percent = 40 (was 0), owned by "kubectl-edit" (Update)`+"\n"+
		`  spec.limited.nominal_concurrency_shares = 20 (was 12), owned by "kubectl-edit" (Update)`+"\n"+takenBack)...)
	steps = append(steps, converges(func() {
		body := fmt.Appendf(nil, `{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
  "metadata": {"name": %q}, "spec": {"limited": {"nominalConcurrencyShares": 25}}}`, name)
		force := true
		if _, err := plcs.Patch(context.Background(), name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "someone-else", Force: &force}); err != nil {
			t.Fatal(err)
		}
	}, "Fields changed outside Terraform will be taken back\n"+changed+
		`  spec.limited.nominal_concurrency_shares = 25 (was 12), owned by "someone-else" (Apply)`+"\n"+takenBack)...)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps:                    steps,
	})
}

// TestAccPriorityLevelConfiguration_takeoverOptOut: with force_conflicts = false (a level
// deliberately shared with another manager) the refresh warns and the apply fails with the
// conflict, naming the manager and the field; back to the default, the apply takes it.
func TestAccPriorityLevelConfiguration_takeoverOptOut(t *testing.T) {
	acctest.FirstCLIOnly(t, "the API server's field ownership")
	c := acctest.Cluster(t)
	name := "acc-plc-takeover-optout"
	plcs := c.Dynamic().Resource(prioritylevelconfiguration.Kind.GVR())
	shared := acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 12", "force_conflicts = false")
	cfg := acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 12")
	var w kubetest.Warnings
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{Config: shared},
			{
				PreConfig: func() {
					patch := []byte(`{"spec":{"limited":{"nominalConcurrencyShares":20}}}`)
					if _, err := plcs.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      shared,
				ExpectError: regexp.MustCompile(`(?s)Apply\s+failed\s+with\s+1\s+conflict:\s+conflict\s+with\s+"kubectl-edit".*\.spec\.limited\.nominalConcurrencyShares.*force_conflicts\s+=\s+false\s+keeps\s+them`),
			},
			{
				PreConfig: func() {
					if err := w.Expect("Fields changed outside Terraform are owned by another field manager\n" + changed +
						`  spec.limited.nominal_concurrency_shares = 20 (was 12), owned by "kubectl-edit" (Update)` + "\n" + keptBack); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("force_conflicts"), knownvalue.Bool(true)),
					plancheck.ExpectKnownValue(addr, sharesPath, knownvalue.Int64Exact(12)),
				}},
				Check: serverLevel(plcs, name, 12, 0, "kubeinfer (Apply)"),
			},
			{PreConfig: func() { w.Take() }, Config: cfg, PlanOnly: true},
		},
	})
}
