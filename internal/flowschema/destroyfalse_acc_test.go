package flowschema_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema"
)

// lifecycle { destroy = false } (Terraform 1.16): terraform destroy forgets the flow schema and
// leaves it in the cluster; an import block adopts it again with an empty plan.
func TestAccFlowSchema_destroyFalse(t *testing.T) {
	c := acctest.Cluster(t)
	const name = "acc-fs-destroy-false"
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   acctest.SkipBelowTerraform116(),
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: acctest.DestroyFalseSteps(acctest.ProviderConfig(t)+configSchema(name, `"workload-low"`, ""), addr, name,
			c.Dynamic().Resource(flowschema.Kind.GVR()), name),
	})
}
