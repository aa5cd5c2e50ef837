package flowschema_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// TestAccFlowSchema_coOwnedKeyRemoved: a label and an annotation the configuration declared,
// which another tool also set, are removed from the flow schema when the configuration drops
// them; the plan names the co-owner and the next plan is empty.
func TestAccFlowSchema_coOwnedKeyRemoved(t *testing.T) {
	acctest.SameCLIPathAs(t, "TestAccLeaderWorkerSet_coOwnedKeyRemoved")
	c := acctest.Cluster(t)
	fss := c.Dynamic().Resource(flowschema.Kind.GVR())
	name := "acc-fs-coowned"
	cfg := acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, "")
	both := strings.Replace(cfg, `labels = { team = "inference" }`, `labels = { team = "inference", tier = "gpu" }
    annotations = { "example.com/owner" = "team-a" }`, 1)
	var w kubetest.Warnings
	var steps []resource.TestStep
	for _, owner := range kubetest.CoOwners { // one object: each round declares both keys again first
		steps = append(steps, kubetest.CoOwnedRemoval(t, &w, fss, owner, "flowcontrol.apiserver.k8s.io/v1", "FlowSchema", name, addr,
			both, cfg, map[string]string{"team": "inference"})...)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps:                    steps,
	})
}
