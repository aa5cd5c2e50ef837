package leaderworkerset_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// lifecycle { destroy = false } (Terraform 1.16): terraform destroy forgets the LeaderWorkerSet
// and leaves it (and its pods) in the cluster; an import block adopts it again with an empty plan.
func TestAccLeaderWorkerSet_destroyFalse(t *testing.T) {
	const name = "acc-lws-destroy-false"
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   acctest.SkipBelowTerraform116(),
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: acctest.DestroyFalseSteps(acctest.ProviderConfig(t)+vllm(lwsfixture.VLLM(name, 1, 1, lwsfixture.SmallGPU)), addr,
			"default/"+name, lwsClient(t), name),
	})
}
