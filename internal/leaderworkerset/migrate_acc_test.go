package leaderworkerset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// The migration from hashicorp/kubernetes' kubernetes_manifest that the guide
// (templates/guides/migrating-from-kubernetes-manifest.md.tmpl) documents, end to end as far as
// this machine allows: that provider cannot be installed here, so the object is created as
// kubernetes_manifest creates it, by a server-side apply with its field manager "Terraform".
// An import block adopts the object in place (same uid, no replacement, no change planned);
// once the old manager's fields are handed to kubeinfer (its managedFields entry renamed),
// removing a label from the configuration removes it from the object.
func TestAccLeaderWorkerSet_migrateFromKubernetesManifest(t *testing.T) {
	runsBesideOthers(t)
	testMigration(t, "acc-migrate-manifest", "Terraform", metav1.ManagedFieldsOperationApply)
}

// The same from `kubectl create` / client-side `kubectl apply`, whose managedFields entry is an
// Update: the hand-over also makes it an Apply entry.
func TestAccLeaderWorkerSet_migrateFromKubectl(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "kubectl's managedFields entry handed over (the same import block under every CLI: TestAccLeaderWorkerSet_migrateFromKubernetesManifest)")
	testMigration(t, "acc-migrate-kubectl", "kubectl-client-side-apply", metav1.ManagedFieldsOperationUpdate)
}

func testMigration(t *testing.T, name, manager string, operation metav1.ManagedFieldsOperationType) {
	c := lwsClient(t)
	ctx := context.Background()
	labels := func(extra string) string {
		return `app = "vllm"` + extra
	}
	config := func(labelAttrs string, importBlock bool) string {
		imp := ""
		if importBlock {
			imp = fmt.Sprintf("import {\n  to = %s\n  id = \"default/%s\"\n}\n", addr, name)
		}
		return acctest.ProviderConfig(t) + imp + `
resource "kubeinfer_leaderworkerset" "test" {
  metadata = {
    name      = "` + name + `"
    namespace = "default"
    labels    = { ` + labelAttrs + ` }
  }
  spec = {
    replicas = 1
    leader_worker_template = {
      size = 1
      worker_template = {
        spec = { containers = [{ name = "vllm", image = "vllm/vllm-openai:v0.11.0" }] }
      }
    }
  }
}
`
	}
	var uid types.UID
	createAsKubernetesManifest := func() {
		manifest := map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1",
			"kind":       "LeaderWorkerSet",
			"metadata":   map[string]any{"name": name, "namespace": "default", "labels": map[string]any{"app": "vllm", "legacy": "yes"}},
			"spec": map[string]any{
				"replicas": int64(1),
				"leaderWorkerTemplate": map[string]any{
					"size": int64(1),
					"workerTemplate": map[string]any{"spec": map[string]any{
						"containers": []any{map[string]any{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0"}},
					}},
				},
			},
		}
		var u *unstructured.Unstructured
		var err error
		if operation == metav1.ManagedFieldsOperationApply {
			body, merr := json.Marshal(manifest)
			if merr != nil {
				t.Fatal(merr)
			}
			u, err = c.Patch(ctx, name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: manager, Force: ptr.To(false)})
		} else {
			u, err = c.Create(ctx, &unstructured.Unstructured{Object: manifest}, metav1.CreateOptions{FieldManager: manager})
		}
		if err != nil {
			t.Fatal(err)
		}
		uid = u.GetUID()
	}
	sameObject := func(*terraform.State) error {
		u, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if u.GetUID() != uid {
			return fmt.Errorf("the object was replaced: uid %s, was %s", u.GetUID(), uid)
		}
		return nil
	}
	objectLabels := func(want map[string]string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			u, err := c.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			got := u.GetLabels()
			if len(got) != len(want) {
				return fmt.Errorf("object labels %v, want %v", got, want)
			}
			for k, v := range want {
				if got[k] != v {
					return fmt.Errorf("object labels %v, want %v", got, want)
				}
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{ // the import block adopts the object: nothing to change, nothing replaced
				PreConfig: createAsKubernetesManifest,
				Config:    config(labels(`, legacy = "yes"`), true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeTestCheckFunc(sameObject, objectLabels(map[string]string{"app": "vllm", "legacy": "yes"})),
			},
			{Config: config(labels(`, legacy = "yes"`), false), PlanOnly: true},
			{ // the guide's second step: the old manager's fields are handed to kubeinfer
				PreConfig: func() {
					u, err := c.Get(ctx, name, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					i := -1
					for j, e := range u.GetManagedFields() {
						if e.Manager == manager && e.Operation == operation {
							i = j
						}
						if e.Manager == "kubeinfer" {
							t.Fatalf("kubeinfer already manages fields before the hand-over: %+v", e)
						}
					}
					if i < 0 {
						t.Fatalf("no managedFields entry of the %s manager: %+v", manager, u.GetManagedFields())
					}
					// As the guide's kubectl patch: the test op makes it fail if the entry moved.
					patch := fmt.Sprintf(`[{"op":"test","path":"/metadata/managedFields/%[1]d/manager","value":%[2]q},`+
						`{"op":"replace","path":"/metadata/managedFields/%[1]d/manager","value":"kubeinfer"}`, i, manager)
					if operation != metav1.ManagedFieldsOperationApply {
						patch += fmt.Sprintf(`,{"op":"replace","path":"/metadata/managedFields/%d/operation","value":"Apply"}`, i)
					}
					patch += "]"
					if _, err := c.Patch(ctx, name, types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:   config(labels(`, legacy = "yes"`), false),
				PlanOnly: true,
			},
			{ // from now on the configuration is the only owner: a label it drops goes away
				Config: config(labels(""), false),
				Check:  resource.ComposeTestCheckFunc(sameObject, objectLabels(map[string]string{"app": "vllm"})),
			},
			{Config: config(labels(""), false), PlanOnly: true},
		},
	})
}
