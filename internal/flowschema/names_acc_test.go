package flowschema_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// TestAccFlowSchema_adoptByNames: adoption without terraform query (OpenTofu's path in the
// migration guide). Two flow schemas applied by one configuration lose their state (a destroy
// with destroy = false is not available to every CLI: a removed block forgets them); the
// kubeinfer_flow_schemas data source lists them by label selector with their import IDs and
// identities, and one import block with for_each over it adopts both with an empty plan; a
// configuration without them then deletes them.
func TestAccFlowSchema_adoptByNames(t *testing.T) {
	if !acctest.IsFirstCLI() && !acctest.UnderOpenTofu() {
		t.Skip("the path for the CLIs without terraform query: it runs under the first CLI and OpenTofu")
	}
	acctest.Cluster(t)
	pc := acctest.ProviderConfig(t)
	names := []string{"acc-fs-adopt-a", "acc-fs-adopt-b"}
	objects := func(label string) string {
		return fmt.Sprintf(`
resource "kubeinfer_flow_schema" %[1]q {
  for_each = toset([%[2]q, %[3]q])
  metadata = {
    name   = each.key
    labels = { adopt = "names-test" }
  }
  spec = {
    priority_level_configuration = { name = "workload-low" }
    rules = [{
      subjects       = [{ kind = "Group", group = { name = "inference-clients" } }]
      resource_rules = [{ verbs = ["get"], api_groups = ["leaderworkerset.x-k8s.io"], resources = ["leaderworkersets"], namespaces = ["*"] }]
    }]
  }
}
`, label, names[0], names[1])
	}
	listing := `
data "kubeinfer_flow_schemas" "adopt" {
  label_selector = "adopt=names-test"
}
`
	adopt := pc + objects("adopted") + listing + `
import {
  for_each = { for o in data.kubeinfer_flow_schemas.adopt.items : o.name => o }
  to       = kubeinfer_flow_schema.adopted[each.key]
  id       = each.value.import_id
}
`
	forget := pc + `
removed {
  from = kubeinfer_flow_schema.original
  lifecycle {
    destroy = false
  }
}
` + listing
	items := tfjsonpath.New("items")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: pc + objects("original")},
			{
				Config: forget,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.kubeinfer_flow_schemas.adopt", items, knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"name": knownvalue.StringExact(names[0]), "import_id": knownvalue.StringExact(names[0]),
							"identity":   knownvalue.ObjectExact(map[string]knownvalue.Check{"name": knownvalue.StringExact(names[0])}),
							"controller": knownvalue.Null(),
						}),
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"name": knownvalue.StringExact(names[1]), "import_id": knownvalue.StringExact(names[1]),
							"identity":   knownvalue.ObjectExact(map[string]knownvalue.Check{"name": knownvalue.StringExact(names[1])}),
							"controller": knownvalue.Null(),
						}),
					})),
				},
			},
			{
				Config: adopt,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(`kubeinfer_flow_schema.adopted["acc-fs-adopt-a"]`, plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction(`kubeinfer_flow_schema.adopted["acc-fs-adopt-b"]`, plancheck.ResourceActionNoop),
					plancheck.ExpectEmptyPlan(),
				}},
			},
			// The adopted objects are this configuration's: removing them deletes them (and leaves
			// no for_each resource in the state, which terraform-plugin-testing's final state
			// reading does not take).
			{Config: pc + listing},
		},
	})
}
