package provider_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// TestUnknownProviderConfig_planNewResources: when the provider's host is unknown at plan time
// (the cluster is created in the same apply), plans of new resources still succeed: planning
// needs no cluster. No cluster exists in this test at all.
func TestUnknownProviderConfig_planNewResources(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"kubeinfer": func() (tfprotov6.ProviderServer, error) { return provider.NewServer("test")(), nil },
		},
		Steps: []resource.TestStep{{
			Config: acctest.RequiredProviders() + `
resource "terraform_data" "cluster" {
  input = "https://127.0.0.1:9"
}

provider "kubeinfer" {
  host  = terraform_data.cluster.output
  token = "not-used-at-plan-time"
}

resource "kubeinfer_leaderworkerset" "test" {
  metadata = { name = "plan-without-cluster" }
  spec = {
    replicas = 2
    leader_worker_template = {
      size = 4
      worker_template = {
        spec = {
          containers = [{
            name  = "vllm"
            image = "vllm/vllm-openai:v0.11.0"
            resources = {
              limits   = { "nvidia.com/gpu" = "8" }
              requests = { "nvidia.com/gpu" = "8" }
            }
          }]
        }
      }
    }
  }
}

resource "kubeinfer_priority_level_configuration" "test" {
  metadata = { name = "plan-without-cluster" }
  spec = {
    type = "Limited"
    limited = {
      nominal_concurrency_shares = 20
      limit_response = {
        type    = "Queue"
        queuing = { queues = 64, hand_size = 6 }
      }
    }
  }
}
`,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("kubeinfer_leaderworkerset.test", plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction("kubeinfer_priority_level_configuration.test", plancheck.ResourceActionCreate),
			}},
		}},
	})
}
