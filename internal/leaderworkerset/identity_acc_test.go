package leaderworkerset_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// Resource identity (Terraform 1.12+): every response carries the object's namespace and
// name, they stay the same across an update with a rollout wait, and an import block that
// names the object by identity instead of an ID imports it with an empty plan.
func TestAccLeaderWorkerSet_identity(t *testing.T) {
	runsBesideOthers(t)
	const name = "acc-vllm-identity"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	identity := statecheck.ExpectIdentity(addr, map[string]knownvalue.Check{
		"namespace": knownvalue.StringExact("default"),
		"name":      knownvalue.StringExact(name),
	})
	cfg := func(image string) string {
		return pc + vllm(lwsfixture.VLLM(name, 1, 2, lwsfixture.SmallGPU, lwsfixture.Image(image)))
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: cfg("vllm/vllm-openai:v0.11.0"), ConfigStateChecks: []statecheck.StateCheck{identity}},
			{Config: cfg("vllm/vllm-openai:v0.11.1"), ConfigStateChecks: []statecheck.StateCheck{identity}},
			{
				Config:          cfg("vllm/vllm-openai:v0.11.1"),
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
			{
				Config:          cfg("vllm/vllm-openai:v0.11.1"),
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   "default/" + name,
			},
			{ // -generate-config-out writes a block that plans no change after the import
				Config:          cfg("vllm/vllm-openai:v0.11.1"),
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
				GenerateConfig:  true,
			},
		},
	})
}
