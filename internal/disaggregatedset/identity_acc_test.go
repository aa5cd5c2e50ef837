package disaggregatedset_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// Resource identity (Terraform 1.12+): the set's namespace and name; an import block by
// identity imports it with an empty plan, and -generate-config-out writes a block that plans
// no change.
func TestAccDisaggregatedSet_identity(t *testing.T) {
	const name = "acc-pd-identity"
	pc := acctest.ProviderConfig(t)
	cfg := pc + pair(name, "vllm/vllm-openai:v0.11.0", 1)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             cleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: cfg, ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectIdentity(addr, map[string]knownvalue.Check{
				"namespace": knownvalue.StringExact("default"),
				"name":      knownvalue.StringExact(name),
			})}},
			{Config: cfg, ResourceName: addr, ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity},
			{Config: cfg, ResourceName: addr, ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity, GenerateConfig: true},
		},
	})
}
