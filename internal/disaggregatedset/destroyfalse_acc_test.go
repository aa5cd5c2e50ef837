package disaggregatedset_test

import (
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
)

// lifecycle { destroy = false } (Terraform 1.16): terraform destroy forgets the set and leaves
// it (and its LeaderWorkerSets) in the cluster; an import block adopts it again with an empty plan.
func TestAccDisaggregatedSet_destroyFalse(t *testing.T) {
	const name = "acc-pd-destroy-false"
	acctest.DestroyFalseTest(t, disaggregatedset.Kind, acctest.ProviderConfig(t)+pair(name, "vllm/vllm-openai:v0.11.0", 1), addr, name, cleanedUp(t, name))
}
