package disaggregatedset_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
)

// lifecycle { destroy = false } (Terraform 1.16): terraform destroy forgets the set and leaves
// it (and its LeaderWorkerSets) in the cluster; an import block adopts it again with an empty plan.
func TestAccDisaggregatedSet_destroyFalse(t *testing.T) {
	const name = "acc-pd-destroy-false"
	ds := acctest.Cluster(t).Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   acctest.SkipBelowTerraform116(),
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             cleanedUp(t, name),
		Steps:                    acctest.DestroyFalseSteps(acctest.ProviderConfig(t)+pair(name, "vllm/vllm-openai:v0.11.0", 1), addr, "default/"+name, ds, name),
	})
}
