package leaderworkerset_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// TestAccLeaderWorkerSet_rolloutPreview: on the released controller, the plan of an image
// change warns which groups the rollout recreates (and keeps metadata.uid known: an update is
// not a replacement); with allow_group_restarts = false the same change fails at plan, naming
// the changed field, while a scale passes; import reads the setting back.
func TestAccLeaderWorkerSet_rolloutPreview(t *testing.T) {
	acctest.FirstCLIOnly(t, "the controller's rollout against the plan's preview (plan warnings and errors under every CLI: TestAccLeaderWorkerSet_planErrors)")
	const name = "acc-rollout-preview"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	v := func(image string, replicas int32) *lwsv1.LeaderWorkerSet {
		return lwsfixture.VLLM(name, replicas, 2, lwsfixture.SmallGPU, lwsfixture.Image(image))
	}
	const v0, v1, v2 = "vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.11.1", "vllm/vllm-openai:v0.11.2"
	const guard = `allow_group_restarts = false`
	uidKnown := plancheck.ExpectKnownValue(addr, tfjsonpath.New("metadata").AtMapKey("uid"), knownvalue.NotNull())
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: pc + vllm(v(v0, 2))},
			{
				PreConfig: func() { w.TakePlan() },
				Config:    pc + vllm(v(v1, 2)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate), uidKnown,
				}},
				Check: resource.ComposeTestCheckFunc(
					kubetest.PlanWarning(t, &w, "Rolling update of LeaderWorkerSet default/"+name,
						"Rolling update: groups 0-1 of default/"+name+" will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0); "+
							"changed: spec.leader_worker_template.leader_template.spec.containers[0].image"),
					podImages(t, name, v1, 4),
				),
			},
			{ // the guard refuses a change that recreates groups
				Config:      pc + vllm(v(v2, 2), guard),
				ExpectError: regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta("allow_group_restarts = false, and this change makes a new revision that recreates groups 0-1 of default/"+name), " ", `\s+`)),
			},
			{ // and lets a scale through (with the guard recorded in the settings annotation)
				PreConfig: func() { w.TakePlan() },
				Config:    pc + vllm(v(v1, 3), guard),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate), uidKnown,
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("ready_replicas"), knownvalue.Int64Exact(3)),
				},
				Check: podImages(t, name, v1, 6),
			},
			{Config: pc + vllm(v(v1, 3), guard), PlanOnly: true},
			{
				ResourceName:                         addr,
				ImportState:                          true,
				ImportStateVerify:                    true,
				ImportStateId:                        "default/" + name,
				ImportStateVerifyIdentifierAttribute: "id",
			},
		},
	})
}
