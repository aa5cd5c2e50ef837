package leaderworkerset_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// The co-owned key tests: a label or annotation the configuration declared and then removes is
// removed from the object even when another tool also set it (server-side apply alone keeps a
// field while any other manager owns it), the plan names that tool, and the next plan is empty.

// TestAccLeaderWorkerSet_coOwnedKeyRemoved: the provider created the object; a client-side
// kubectl apply, another apply manager or a plain update then set the same label and
// annotation. Removing both from the configuration removes them from the object.
func TestAccLeaderWorkerSet_coOwnedKeyRemoved(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstOfEachKindOnly(t, "the API server's field ownership")
	const name = "acc-coowned"
	c := lwsClient(t)
	both := ownedLWS(t, name, `labels = { app = "vllm", tier = "gpu" }
    annotations = { "example.com/owner" = "team-a" }`, ``)
	appOnly := ownedLWS(t, name, `labels = { app = "vllm" }`, ``)
	var w kubetest.Warnings
	var steps []resource.TestStep
	for _, owner := range kubetest.CoOwners { // one object: each round declares both keys again first
		steps = append(steps, kubetest.CoOwnedRemoval(t, &w, c, owner, "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", name, addr,
			both, appOnly, map[string]string{"app": "vllm"})...)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps:                    steps,
	})
}

// TestAccLeaderWorkerSet_coOwnedKeyRemovedAfterImport: kubectl created the object (client-side
// and server-side), the configuration imported it with every label and annotation, then drops
// a label and an annotation. kubectl still co-owns both; the first apply removes them, and
// what the configuration never declared (kubectl's last-applied record) stays.
func TestAccLeaderWorkerSet_coOwnedKeyRemovedAfterImport(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstOfEachKindOnly(t, "the API server's field ownership")
	for _, serverSide := range []bool{false, true} {
		how, manager := "client-side", `"kubectl-client-side-apply" (Update)`
		if serverSide {
			how, manager = "server-side", `"kubectl" (Apply)`
		}
		t.Run(how, func(t *testing.T) {
			name := "acc-coowned-import-" + how
			c := lwsClient(t)
			imported := ownedLWS(t, name, `labels = { app = "vllm", team = "inference" }
    annotations = { "example.com/runbook" = "https://runbooks.example.com/vllm" }`, `, ports = [{ container_port = 8000 }]`)
			dropped := ownedLWS(t, name, `labels = { app = "vllm" }`, `, ports = [{ container_port = 8000 }]`)
			var w kubetest.Warnings
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
				CheckDestroy:             controllerCleanedUp(t, name),
				Steps: []resource.TestStep{
					{
						PreConfig:          func() { createAsKubectl(t, c, name, serverSide) },
						Config:             imported,
						ResourceName:       addr,
						ImportState:        true,
						ImportStateId:      "default/" + name,
						ImportStatePersist: true,
					},
					{Config: imported, PlanOnly: true},
					{
						PreConfig: func() {
							w.TakePlan()
							if err := kubetest.MetadataKeys(t, c, name, "before the apply", map[string]string{"team": "inference"})(nil); err != nil {
								t.Fatal(err)
							}
						},
						Config: dropped,
						Check: resource.ComposeTestCheckFunc(
							kubetest.PlanWarning(t, &w, `label team is also set by `+manager+`; it will be removed`,
								`annotation example.com/runbook is also set by `+manager+`; it will be removed`),
							kubetest.MetadataKeys(t, c, name, "after the apply", map[string]string{"app": "vllm"}, "team", "example.com/runbook"),
							lastAppliedKept(t, c, name, !serverSide),
						),
					}, // and the plan after the apply is empty (terraform-plugin-testing checks it)
				},
			})
		})
	}
}
