package leaderworkerset_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	apiresource "k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

func TestAccScratchUnknownApply(t *testing.T) {
	lwsClient(t)
	obj := lwsfixture.VLLM("acc-scratch-unknown", 2, 4)
	obj.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Resources.Requests["memory"] = apiresource.MustParse("2000Gi")
	cfg := fullObjectConfig(t, obj)
	cfg = strings.Replace(cfg, `"vllm/vllm-openai:v0.11.0"`, `terraform_data.image.output`, -1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderConfig(t) + `
resource "terraform_data" "image" {
  input = "vllm/vllm-openai:v0.11.0"
}
` + cfg,
		}},
	})
}
