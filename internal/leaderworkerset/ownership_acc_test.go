package leaderworkerset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// The ownership tests: fields that other writers added, or that the manager which created an
// imported object still co-owns, are removed by the apply of a configuration that leaves them
// out, so the next plan is empty; and an object of the same name that another configuration
// created is never taken over.

// ownedLWS is a small LeaderWorkerSet (2 CPU pods a group) whose worker container has the extra
// attributes worker (HCL) and whose metadata has the extra attributes meta (labels, ...).
func ownedLWS(t *testing.T, name, meta, worker string) string {
	return acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "kubeinfer_leaderworkerset" "test" {
  metadata = {
    name      = %q
    namespace = "default"
    %s
  }
  spec = {
    replicas = 1
    leader_worker_template = {
      size = 2
      worker_template = {
        spec = { containers = [{ name = "vllm", image = "vllm/vllm-openai:v0.11.0"%s }] }
      }
    }
  }
}
`, name, meta, worker)
}

var workerContainer = tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("worker_template").
	AtMapKey("spec").AtMapKey("containers").AtSliceIndex(0)

// workerField reads a field of the live object's worker container.
func workerField(t *testing.T, c dynamic.ResourceInterface, name, field string) (any, bool) {
	t.Helper()
	u, err := c.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "leaderWorkerTemplate", "workerTemplate", "spec", "containers")
	v, ok := containers[0].(map[string]any)[field]
	return v, ok
}

// serverLacks checks that the live object's worker container has no field named field.
func serverLacks(t *testing.T, c dynamic.ResourceInterface, name, field string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if v, ok := workerField(t, c, name, field); ok {
			return fmt.Errorf("the worker container still has %s = %v", field, v)
		}
		return nil
	}
}

// serverKeeps checks that the live object still has the label and annotation others own.
func serverKeeps(t *testing.T, c dynamic.ResourceInterface, name string, labels, annotations map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := c.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for k, v := range labels {
			if got := u.GetLabels()[k]; got != v {
				return fmt.Errorf("label %s = %q, want %q (another manager's, outside the configuration)", k, got, v)
			}
		}
		for k, v := range annotations {
			if got := u.GetAnnotations()[k]; got != v {
				return fmt.Errorf("annotation %s = %.40q, want %.40q (another manager's, outside the configuration)", k, got, v)
			}
		}
		return nil
	}
}

func jsonPatch(t *testing.T, c dynamic.ResourceInterface, name, manager, patch string) {
	t.Helper()
	if _, err := c.Patch(context.Background(), name, types.JSONPatchType, []byte(patch), metav1.PatchOptions{FieldManager: manager}); err != nil {
		t.Fatal(err)
	}
}

// TestAccLeaderWorkerSet_foreignAddedField: during an incident someone adds an env var to the
// worker with `kubectl patch --type=json`. The plan removes it and warns, naming the manager; the apply removes it from the cluster (server-side apply alone would leave it, as
// kubectl-patch owns it) and the next plan is empty. A label another manager added stays.
func TestAccLeaderWorkerSet_foreignAddedField(t *testing.T) {
	runsBesideOthers(t)
	const name = "acc-foreign-added"
	c := lwsClient(t)
	cfg := ownedLWS(t, name, `labels = { app = "vllm" }`, ``)
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					w.TakePlan()
					jsonPatch(t, c, name, "kubectl-patch", `[{"op":"add","path":"/spec/leaderWorkerTemplate/workerTemplate/spec/containers/0/env","value":[{"name":"DEBUG","value":"1"}]}]`)
					jsonPatch(t, c, name, "kubectl-label", `[{"op":"add","path":"/metadata/labels/team","value":"oncall"}]`)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, workerContainer.AtMapKey("env"), knownvalue.Null()),
				}},
				Check: resource.ComposeTestCheckFunc(
					kubetest.PlanWarning(t, &w, "Attributes owned by other field managers will be removed",
						`spec.leader_worker_template.worker_template.spec.containers[0].env, owned by "kubectl-patch" (Update)`),
					serverLacks(t, c, name, "env"),
					serverKeeps(t, c, name, map[string]string{"team": "oncall"}, nil),
				),
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccLeaderWorkerSet_foreignAddedFieldKept: with force_conflicts = false, a field another
// manager added is not taken: the plan says the apply cannot remove it, the apply fails naming
// the attribute and the manager (no "inconsistent result"), and the field stays. Declaring it in
// the configuration converges.
func TestAccLeaderWorkerSet_foreignAddedFieldKept(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "the API server's field ownership")
	const name = "acc-foreign-kept"
	c := lwsClient(t)
	cfg := ownedLWS(t, name, `labels = { app = "vllm" }`, ``) + "\n"
	shared := strings.Replace(cfg, `resource "kubeinfer_leaderworkerset" "test" {`,
		"resource \"kubeinfer_leaderworkerset\" \"test\" {\n  force_conflicts = false", 1)
	declared := strings.Replace(shared, `image = "vllm/vllm-openai:v0.11.0"`,
		`image = "vllm/vllm-openai:v0.11.0", env = [{ name = "DEBUG", value = "1" }]`, 1)
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: shared},
			{
				PreConfig: func() {
					w.TakePlan()
					jsonPatch(t, c, name, "kubectl-patch", `[{"op":"add","path":"/spec/leaderWorkerTemplate/workerTemplate/spec/containers/0/env","value":[{"name":"DEBUG","value":"1"}]}]`)
				},
				Config: shared,
				ExpectError: regexp.MustCompile(`(?s)force_conflicts = false leaves them with it.*` +
					`spec\.leader_worker_template\.worker_template\.spec\.containers\[0\]\.env.*"kubectl-patch" \(Update\)`),
			},
			{
				PreConfig: func() {
					if _, ok := workerField(t, c, name, "env"); !ok {
						t.Fatal("the env kubectl-patch owns was removed although force_conflicts = false")
					}
					for _, warning := range w.TakePlan() {
						if strings.Contains(warning, "cannot be removed") && strings.Contains(warning, `"kubectl-patch" (Update)`) {
							return
						}
					}
					t.Error("the plan did not say that the apply cannot remove kubectl-patch's env")
				},
				Config: declared,
			},
			{Config: declared, PlanOnly: true},
		},
	})
}

// createAsKubectl creates the object as kubectl would: client-side (an Update by
// kubectl-client-side-apply with kubectl's last-applied record) or server-side (an Apply by
// the manager "kubectl"), with a container port, a label and an annotation.
func createAsKubectl(t *testing.T, c dynamic.ResourceInterface, name string, serverSide bool) {
	t.Helper()
	manifest := map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1",
		"kind":       "LeaderWorkerSet",
		"metadata": map[string]any{"name": name, "namespace": "default",
			"labels":      map[string]any{"app": "vllm", "team": "inference"},
			"annotations": map[string]any{"example.com/runbook": "https://runbooks.example.com/vllm"}},
		"spec": map[string]any{
			"replicas": int64(1),
			"leaderWorkerTemplate": map[string]any{
				"size": int64(2),
				"workerTemplate": map[string]any{"spec": map[string]any{
					"containers": []any{map[string]any{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
						"ports": []any{map[string]any{"containerPort": int64(8000)}}}},
				}},
			},
		},
	}
	if serverSide {
		body, err := json.Marshal(manifest)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Patch(context.Background(), name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "kubectl", Force: ptr.To(true)}); err != nil {
			t.Fatal(err)
		}
		return
	}
	lastApplied, err := json.Marshal(manifest)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: manifest}
	ann := u.GetAnnotations()
	ann["kubectl.kubernetes.io/last-applied-configuration"] = string(lastApplied)
	u.SetAnnotations(ann)
	if _, err := c.Create(context.Background(), u, metav1.CreateOptions{FieldManager: "kubectl-client-side-apply"}); err != nil {
		t.Fatal(err)
	}
}

// TestAccLeaderWorkerSet_removeFromAdopted: an object made with `kubectl apply` (client-side and
// server-side) is imported, then one attribute (the worker's ports) is deleted from the
// configuration. The apply removes it from the cluster although kubectl still co-owned it, and
// the next plan is empty. What the configuration never declared stays: kubectl's last-applied
// record.
func TestAccLeaderWorkerSet_removeFromAdopted(t *testing.T) {
	runsBesideOthers(t)
	for _, serverSide := range []bool{false, true} {
		how := "client-side"
		if serverSide {
			how = "server-side"
		}
		t.Run(how, func(t *testing.T) {
			name := "acc-adopted-" + how
			c := lwsClient(t)
			// As -generate-config-out writes it after the import: labels and annotations included.
			meta := `labels = { app = "vllm", team = "inference" }
    annotations = { "example.com/runbook" = "https://runbooks.example.com/vllm" }`
			withPorts := ownedLWS(t, name, meta, `, ports = [{ container_port = 8000 }]`)
			withoutPorts := ownedLWS(t, name, meta, ``)
			kept := serverKeeps(t, c, name, map[string]string{"team": "inference"},
				map[string]string{"example.com/runbook": "https://runbooks.example.com/vllm"})
			manager := `"kubectl-client-side-apply" (Update)`
			if serverSide {
				manager = `"kubectl" (Apply)`
			}
			var w kubetest.Warnings
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
				CheckDestroy:             controllerCleanedUp(t, name),
				Steps: []resource.TestStep{
					{
						PreConfig:          func() { createAsKubectl(t, c, name, serverSide) },
						Config:             withPorts,
						ResourceName:       addr,
						ImportState:        true,
						ImportStateId:      "default/" + name,
						ImportStatePersist: true,
					},
					{Config: withPorts, PlanOnly: true},
					{
						Config: withoutPorts,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
							plancheck.ExpectKnownValue(addr, workerContainer.AtMapKey("ports"), knownvalue.Null()),
						}},
						Check: resource.ComposeTestCheckFunc(
							kubetest.PlanWarning(t, &w, "Attributes owned by other field managers will be removed",
								"spec.leader_worker_template.worker_template.spec.containers[0].ports, owned by "+manager),
							serverLacks(t, c, name, "ports"), kept, lastAppliedKept(t, c, name, !serverSide)),
					},
					{Config: withoutPorts, PlanOnly: true},
					{ // and back: the port is added again by this configuration alone
						Config: withPorts,
						Check:  resource.ComposeTestCheckFunc(kept, portsOwnedOnlyByProvider(t, c, name)),
					},
					{Config: withPorts, PlanOnly: true},
				},
			})
		})
	}
}

// lastAppliedKept checks that kubectl's last-applied record is still there when it was.
func lastAppliedKept(t *testing.T, c dynamic.ResourceInterface, name string, want bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := c.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if _, got := u.GetAnnotations()["kubectl.kubernetes.io/last-applied-configuration"]; got != want {
			return fmt.Errorf("kubectl's last-applied annotation present = %v, want %v", got, want)
		}
		return nil
	}
}

// portsOwnedOnlyByProvider checks that the worker's ports now belong to the provider alone.
func portsOwnedOnlyByProvider(t *testing.T, c dynamic.ResourceInterface, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := c.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got, err := kubetest.Owners(u, "spec", "leaderWorkerTemplate", "workerTemplate", "spec", "containers",
			fieldpath.KeyByFields("name", "vllm"), "ports", fieldpath.KeyByFields("containerPort", 8000, "protocol", "TCP"), "containerPort")
		if err != nil {
			return err
		}
		if len(got) != 1 || got[0] != kube.DefaultFieldManager+" (Apply)" {
			return fmt.Errorf("ports are owned by %v, want only %s (Apply)", got, kube.DefaultFieldManager)
		}
		return nil
	}
}

// TestAccLeaderWorkerSet_sameNameOtherConfiguration: another configuration (another folder or
// workspace, with the same default field manager) already created an object of this name. This
// configuration's apply fails with "already exists" and leaves that object as it was: no
// adoption, no change, and the other configuration's object survives this one's destroy.
func TestAccLeaderWorkerSet_sameNameOtherConfiguration(t *testing.T) {
	runsBesideOthers(t)
	const name = "acc-same-name"
	c := lwsClient(t)
	other := map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec": map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{
			"size": int64(2),
			"workerTemplate": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{"name": "vllm", "image": "vllm/vllm-openai:v0.10.0"}}}},
		}},
	}
	body, err := json.Marshal(other)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					// What the other configuration's apply sent: the same field manager as ours.
					if _, err := c.Patch(context.Background(), name, types.ApplyPatchType, body,
						metav1.PatchOptions{FieldManager: kube.DefaultFieldManager, Force: ptr.To(true)}); err != nil {
						t.Fatal(err)
					}
				},
				Config: ownedLWS(t, name, `labels = { app = "vllm" }`, ``),
				ExpectError: kubetest.Wrapped(`LeaderWorkerSet "default/`+name+`" already exists`, "nothing was changed",
					`Its spec was applied with this provider's field manager "kubeinfer": another Terraform or OpenTofu configuration`,
					"`terraform import` / `tofu import` kubeinfer_leaderworkerset.<name> default/"+name),
			},
		},
	})
	// Nothing of this configuration reached the object, and its destroy (nothing in its state)
	// left it alone.
	img, _ := workerField(t, c, name, "image")
	u, err := c.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the other configuration's object is gone: %v", err)
	}
	if img != "vllm/vllm-openai:v0.10.0" || len(u.GetLabels()) != 0 {
		t.Errorf("the other configuration's object changed: image %v, labels %v", img, u.GetLabels())
	}
}
