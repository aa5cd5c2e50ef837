package prioritylevelconfiguration_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// The identity of a cluster-scoped kind is its name alone; an import block by identity
// imports the object with an empty plan.
func TestAccPriorityLevelConfiguration_identity(t *testing.T) {
	acctest.Cluster(t)
	const name = "acc-plc-identity"
	identity := statecheck.ExpectIdentity(addr, map[string]knownvalue.Check{"name": knownvalue.StringExact(name)})
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: acctest.ProviderConfig(t) + configQueued(name, ""), ConfigStateChecks: []statecheck.StateCheck{identity}},
			{Config: acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 12"), ConfigStateChecks: []statecheck.StateCheck{identity}},
			{
				Config:          acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 12"),
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
		},
	})
}
