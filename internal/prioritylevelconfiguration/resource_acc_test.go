package prioritylevelconfiguration_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
)

func TestMain(m *testing.M) { acctest.Main(m) }

const addr = "kubeinfer_priority_level_configuration.test"

func configQueued(name string, extra string, top ...string) string {
	return fmt.Sprintf(`
resource "kubeinfer_priority_level_configuration" "test" {
  %[3]s
  metadata = {
    name   = %[1]q
    labels = { team = "inference" }
  }
  spec = {
    type = "Limited"
    limited = {
      %[2]s
      limit_response = {
        type    = "Queue"
        queuing = {}
      }
    }
  }
}
`, name, extra, strings.Join(top, "\n"))
}

func TestAccPriorityLevelConfiguration_lifecycle(t *testing.T) {
	c := acctest.Cluster(t)
	name := "acc-plc-lifecycle"
	plcs := c.Dynamic().Resource(prioritylevelconfiguration.Kind.GVR())
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{ // create with every defaulted field left unset: the plan shows the server's defaults
				Config: acctest.ProviderConfig(t) + configQueued(name, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("nominal_concurrency_shares"), knownvalue.Int64Exact(30)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("lendable_percent"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("limit_response").AtMapKey("queuing").AtMapKey("queues"), knownvalue.Int64Exact(64)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("limit_response").AtMapKey("queuing").AtMapKey("hand_size"), knownvalue.Int64Exact(8)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("limit_response").AtMapKey("queuing").AtMapKey("queue_length_limit"), knownvalue.Int64Exact(50)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("metadata").AtMapKey("uid"), knownvalue.NotNull()),
				},
			},
			{ // a second plan of the same configuration is empty
				Config:   acctest.ProviderConfig(t) + configQueued(name, ""),
				PlanOnly: true,
			},
			{ // import with no ignore list
				ResourceName:                         addr,
				ImportState:                          true,
				ImportStateVerify:                    true,
				ImportStateId:                        name,
				ImportStateVerifyIdentifierAttribute: "id",
			},
			{ // update in place
				Config: acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 12\n      borrowing_limit_percent = 150"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("nominal_concurrency_shares"), knownvalue.Int64Exact(12)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("borrowing_limit_percent"), knownvalue.Int64Exact(150)),
				},
			},
			{ // drift: an out-of-band change shows in the plan and the apply takes the field back
				PreConfig: func() {
					patch := []byte(`{"spec":{"limited":{"lendablePercent":40}}}`)
					if _, err := plcs.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "intruder"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 12\n      borrowing_limit_percent = 150"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("lendable_percent"), knownvalue.Int64Exact(0)),
				},
			},
			{
				Config:   acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 12\n      borrowing_limit_percent = 150"),
				PlanOnly: true,
			},
			{ // deleted out of band: the plan re-creates it
				PreConfig: func() {
					if err := plcs.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: acctest.ProviderConfig(t) + configQueued(name, "nominal_concurrency_shares = 12\n      borrowing_limit_percent = 150"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
				}},
			},
			{ // a name change replaces the level
				Config: acctest.ProviderConfig(t) + configQueued(name+"-2", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
		},
	})
}

func TestAccPriorityLevelConfiguration_planTimeErrors(t *testing.T) {
	acctest.Cluster(t)
	cases := []struct {
		name, body string
		err        *regexp.Regexp
	}{
		{"hand size over the shuffle-sharding limit", `queuing = { queues = 64, hand_size = 11 }`, regexp.MustCompile(`(?s)limit_response.queuing.hand_size.*largest\s+legal\s+handSize\s+for\s+queues\s+64\s+is\s+10`)},
		{"hand size above queues", `queuing = { queues = 4, hand_size = 8 }`, regexp.MustCompile(`(?s)hand_size.*greater than queues \(4\)`)},
		{"explicit zero queues", `queuing = { queues = 0 }`, regexp.MustCompile(`(?s)queues.*silently\s+replaces\s+0`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config: acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "kubeinfer_priority_level_configuration" "test" {
  metadata = { name = "acc-plc-invalid" }
  spec = {
    type = "Limited"
    limited = {
      limit_response = {
        type = "Queue"
        %s
      }
    }
  }
}
`, tc.body),
					PlanOnly:    true,
					ExpectError: tc.err,
				}},
			})
		})
	}
}
