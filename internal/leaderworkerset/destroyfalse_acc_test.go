package leaderworkerset_test

import (
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// lifecycle { destroy = false } (Terraform 1.16): terraform destroy forgets the LeaderWorkerSet
// and leaves it (and its pods) in the cluster; an import block adopts it again with an empty plan.
func TestAccLeaderWorkerSet_destroyFalse(t *testing.T) {
	runsBesideOthers(t)
	const name = "acc-lws-destroy-false"
	acctest.DestroyFalseTest(t, leaderworkerset.Kind, acctest.ProviderConfig(t)+vllm(lwsfixture.VLLM(name, 1, 1, lwsfixture.SmallGPU)), addr, name,
		controllerCleanedUp(t, name))
}
