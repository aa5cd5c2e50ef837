package leaderworkerset_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// An object created with `kubectl apply` carries kubectl's last-applied-configuration
// annotation. Importing it must not plan that annotation's removal (the user never declares
// it), and the first apply after the import adopts the object without conflicts.
func TestAccLeaderWorkerSet_importKubectlApplied(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "kubectl's annotation on an imported object (import under every CLI: TestAccLeaderWorkerSet_migrateFromKubernetesManifest)")
	const name = "acc-kubectl-applied"
	c := lwsClient(t)
	create := func() {
		// As `kubectl apply -f` of this manifest would: only the written fields, with kubectl's
		// record of them; the LWS webhook defaults the rest.
		manifest := map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1",
			"kind":       "LeaderWorkerSet",
			"metadata":   map[string]any{"name": name, "namespace": "default", "labels": map[string]any{"app": "vllm"}},
			"spec": map[string]any{
				"replicas": int64(1),
				"leaderWorkerTemplate": map[string]any{
					"size": int64(2),
					"workerTemplate": map[string]any{"spec": map[string]any{
						"containers": []any{map[string]any{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0"}},
					}},
				},
			},
		}
		lastApplied, err := json.Marshal(manifest)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: manifest}
		u.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(lastApplied)})
		if _, err := c.Create(context.Background(), u, metav1.CreateOptions{FieldManager: "kubectl-client-side-apply"}); err != nil {
			t.Fatal(err)
		}
	}
	config := func(labels string) string {
		return acctest.ProviderConfig(t) + `
resource "kubeinfer_leaderworkerset" "test" {
  metadata = {
    name      = "` + name + `"
    namespace = "default"
    labels    = { ` + labels + ` }
  }
  spec = {
    replicas = 1
    leader_worker_template = {
      size = 2
      worker_template = {
        spec = { containers = [{ name = "vllm", image = "vllm/vllm-openai:v0.11.0" }] }
      }
    }
  }
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:          create,
				Config:             config(`app = "vllm"`),
				ResourceName:       addr,
				ImportState:        true,
				ImportStateId:      "default/" + name,
				ImportStatePersist: true,
			},
			{Config: config(`app = "vllm"`), PlanOnly: true},
			{
				Config: config(`app = "vllm", tier = "serving"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("metadata").AtMapKey("labels"), knownvalue.MapExact(map[string]knownvalue.Check{
						"app": knownvalue.StringExact("vllm"), "tier": knownvalue.StringExact("serving"),
					})),
				},
			},
		},
	})
}
