package prioritylevelconfiguration_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
)

// withMetadata replaces the labels of a configQueued configuration with meta.
func withMetadata(cfg, meta string) string {
	return strings.Replace(cfg, `labels = { team = "inference" }`, meta, 1)
}

// TestAccPriorityLevelConfiguration_coOwnedKeyRemoved: a label and an annotation the
// configuration declared, which another tool (client-side kubectl apply, another apply manager,
// a plain update) also set, are removed from the level when the configuration drops them; the
// plan names the co-owner and the next plan is empty.
func TestAccPriorityLevelConfiguration_coOwnedKeyRemoved(t *testing.T) {
	acctest.SameCLIPathAs(t, "TestAccLeaderWorkerSet_coOwnedKeyRemoved")
	c := acctest.Cluster(t)
	plcs := c.Dynamic().Resource(prioritylevelconfiguration.Kind.GVR())
	name := "acc-plc-coowned"
	cfg := acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 12")
	both := withMetadata(cfg, `labels = { team = "inference", tier = "gpu" }
    annotations = { "example.com/owner" = "team-a" }`)
	var w kubetest.Warnings
	var steps []resource.TestStep
	for _, owner := range kubetest.CoOwners { // one object: each round declares both keys again first
		steps = append(steps, kubetest.CoOwnedRemoval(t, &w, plcs, owner, "flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", name, addr,
			both, cfg, map[string]string{"team": "inference"})...)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps:                    steps,
	})
}

// TestAccPriorityLevelConfiguration_twoConfigurations: another configuration (its own folder
// and state, run by the same CLI) created the level. This configuration's create is refused,
// saying so and what adopting it means, for both CLIs; the level is unchanged. Imported anyway,
// the plan warns that another configuration applied it last; after this configuration's
// apply, the other configuration's plan warns in turn and shows the change it would set back.
func TestAccPriorityLevelConfiguration_twoConfigurations(t *testing.T) {
	acctest.SameCLIPathAs(t, "TestAccLeaderWorkerSet_sameNameOtherConfiguration")
	c := acctest.Cluster(t)
	plcs := c.Dynamic().Resource(prioritylevelconfiguration.Kind.GVR())
	name := "acc-plc-two-configurations"

	other := acctest.NewWorkspace(t)
	other.Configure(c, configQueued(name, "nominal_concurrency_shares = 5"))
	other.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	t.Cleanup(func() { other.Run("destroy", "-auto-approve", "-input=false", "-no-color") })

	cfg := acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 7")
	shares := func(want int64) resource.TestCheckFunc {
		return serverLevel(plcs, name, want, 0, "kubeinfer (Apply)")
	}
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ExpectError: kubetest.Wrapped(`PriorityLevelConfiguration "`+name+`" already exists`, "nothing was changed",
					"created by another Terraform or OpenTofu configuration with this provider",
					`Field managers of its spec: "kubeinfer" (Apply).`,
					"an `import` block, or `terraform import` / `tofu import` kubeinfer_priority_level_configuration.<name> "+name,
					"each apply overwrites the other's changes"),
			},
			{
				PreConfig: func() {
					if err := shares(5)(nil); err != nil {
						t.Fatalf("the refused create changed the other configuration's level: %v", err)
					}
					w.TakePlan()
				},
				Config:             cfg,
				ResourceName:       addr,
				ImportState:        true,
				ImportStateId:      name,
				ImportStatePersist: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, sharesPath, knownvalue.Int64Exact(7)),
				}},
				Check: resource.ComposeTestCheckFunc(
					kubetest.PlanWarning(t, &w, `PriorityLevelConfiguration "`+name+`" is also applied by another configuration`,
						"each apply overwrites the other's changes", "`terraform state rm` / `tofu state rm`",
						"kubectl annotate prioritylevelconfigurations.flowcontrol.apiserver.k8s.io "+name+" terraform.kubeinfer.io/creation-token-"),
					shares(7),
					func(_ *terraform.State) error {
						// The other configuration's plan: it warns, and sets its own value back.
						out, ok := other.Run("plan", "-input=false", "-no-color")
						t.Logf("the other configuration's plan:\n%s", out)
						if !ok || !strings.Contains(out, `is also applied by another configuration`) ||
							!regexp.MustCompile(`nominal_concurrency_shares\s+= 7 -> 5`).MatchString(out) {
							return fmt.Errorf("the other configuration's plan does not warn or does not show 7 -> 5")
						}
						return nil
					},
				),
			},
			{
				PreConfig: func() {
					u, err := plcs.Get(context.Background(), name, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("annotations after this configuration's apply: %v", u.GetAnnotations())
					w.TakePlan()
				},
				Config:   cfg,
				PlanOnly: true, // this configuration applied it last: no change
			},
			{
				PreConfig: func() {
					for _, g := range w.TakePlan() {
						if strings.Contains(g, "another configuration") {
							t.Errorf("this configuration applied the level last, yet its plan warns: %s", g)
						}
					}
				},
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})
}
