package prioritylevelconfiguration_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
)

// lifecycle { destroy = false } (Terraform 1.16): terraform destroy forgets the priority level
// and leaves it in the cluster; an import block adopts it again with an empty plan.
func TestAccPriorityLevelConfiguration_destroyFalse(t *testing.T) {
	c := acctest.Cluster(t)
	const name = "acc-plc-destroy-false"
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   acctest.SkipBelowTerraform116(),
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: acctest.DestroyFalseSteps(acctest.ProviderConfig(t)+configQueued(name, ""), addr, name,
			c.Dynamic().Resource(prioritylevelconfiguration.Kind.GVR()), name),
	})
}
