package disaggregatedset_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// TestAccDisaggregatedSet_coOwnedKeyRemoved: a label and an annotation the configuration
// declared on the set, which another apply manager (Helm) also set, are removed from the set
// when the configuration drops them; the plan names Helm and the next plan is empty. (Role
// template labels are compared key by key like the rest of the template: TestPlanHandover.)
func TestAccDisaggregatedSet_coOwnedKeyRemoved(t *testing.T) {
	acctest.SameCLIPathAs(t, "TestAccLeaderWorkerSet_coOwnedKeyRemoved")
	name := "acc-pd-coowned"
	ds := acctest.Cluster(t).Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	cfg := acctest.ProviderConfig(t) + pair(name, "vllm/vllm-openai:v0.11.0", 1)
	withKeys := func(meta string) string {
		return strings.Replace(cfg, "    namespace = \"default\"\n  }", "    namespace = \"default\"\n    "+meta+"\n  }", 1)
	}
	both := withKeys(`labels = { app = "pd", tier = "gpu" }
    annotations = { "example.com/owner" = "team-a" }`)
	appOnly := withKeys(`labels = { app = "pd" }`)
	if both == cfg {
		t.Fatal("the configuration's metadata block was not found")
	}
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             cleanedUp(t, name),
		Steps: kubetest.CoOwnedRemoval(t, &w, ds, kubetest.CoOwners[1], "disaggregatedset.x-k8s.io/v1", "DisaggregatedSet", name, addr,
			both, appOnly, map[string]string{"app": "pd"}),
	})
}
