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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// An object created with `kubectl apply` carries kubectl's last-applied-configuration
// annotation. Importing it must not plan that annotation's removal (the user never declares
// it), and the first apply after the import adopts the object without conflicts.
func TestAccLeaderWorkerSet_importKubectlApplied(t *testing.T) {
	const name = "acc-kubectl-applied"
	c := lwsClient(t)
	create := func() {
		obj := &lwsv1.LeaderWorkerSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: "leaderworkerset.x-k8s.io/v1", Kind: "LeaderWorkerSet"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "vllm"}},
			Spec: lwsv1.LeaderWorkerSetSpec{
				Replicas: ptr.To[int32](1),
				LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
					Size: ptr.To[int32](2),
					WorkerTemplate: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
						Containers: []corev1.Container{{Name: "vllm", Image: "vllm/vllm-openai:v0.11.0"}},
					}},
				},
			},
		}
		lastApplied, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		obj.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(lastApplied)}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Create(context.Background(), &unstructured.Unstructured{Object: u}, metav1.CreateOptions{FieldManager: "kubectl-client-side-apply"}); err != nil {
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
