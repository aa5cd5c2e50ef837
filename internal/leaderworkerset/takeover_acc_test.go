package leaderworkerset_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// The takeover tests: another field manager changes fields the configuration declares; the
// refresh warns (naming the manager and the attributes), the plan sets them back, and one
// approved apply takes them back (force_conflicts, the default), after which the plan is empty.
// Fields the configuration leaves out stay with their managers.

const (
	image        = "vllm/vllm-openai:v0.11.0"
	imagePath    = "spec.leader_worker_template.worker_template.spec.containers[0].image"
	takenBackTxt = "The plan sets them back to the configuration and the apply takes ownership of them (force_conflicts = true). Set force_conflicts = false to fail instead."
)

var workerImage = tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("worker_template").
	AtMapKey("spec").AtMapKey("containers").AtSliceIndex(0).AtMapKey("image")

// workerImageField is the worker image as a managed fields path.
var workerImageField = []any{"spec", "leaderWorkerTemplate", "workerTemplate", "spec", "containers",
	fieldpath.KeyByFields("name", "vllm-worker"), "image"}

// edit changes the worker image and the startup policy (a planned default) as `kubectl edit`
// does: an Update by the field manager "kubectl-edit", which takes ownership of what it changed.
func edit(t *testing.T, c dynamic.ResourceInterface, name, img string) {
	t.Helper()
	patch := fmt.Appendf(nil, `[
  {"op": "replace", "path": "/spec/leaderWorkerTemplate/workerTemplate/spec/containers/0/image", "value": %q},
  {"op": "replace", "path": "/spec/startupPolicy", "value": "LeaderReady"}]`, img)
	if _, err := c.Patch(context.Background(), name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
}

// editedWarning is the refresh's warning after edit(img).
func editedWarning(img string, tail string) string {
	return "Since the last apply, other field managers changed attributes this resource manages:\n" +
		fmt.Sprintf("  %s = %q (was %q), owned by \"kubectl-edit\" (Update)\n", imagePath, img, image) +
		`  spec.startup_policy = "LeaderReady" (was "LeaderCreated"), owned by "kubectl-edit" (Update)` + "\n" + tail
}

// serverHas checks the live object: its worker image, replicas and the managers of both.
func serverHas(t *testing.T, c dynamic.ResourceInterface, name string, replicas int64, imageOwners, replicaOwners []string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := c.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "leaderWorkerTemplate", "workerTemplate", "spec", "containers")
		if got := containers[0].(map[string]any)["image"]; got != image {
			return fmt.Errorf("worker image %v, want %s", got, image)
		}
		if got, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); got != replicas {
			return fmt.Errorf("replicas %d, want %d", got, replicas)
		}
		for _, c := range []struct {
			parts []any
			want  []string
		}{{workerImageField, imageOwners}, {[]any{"spec", "replicas"}, replicaOwners}} {
			got, err := kubetest.Owners(u, c.parts...)
			if err != nil {
				return err
			}
			if !slices.Equal(got, c.want) {
				return fmt.Errorf("%v is owned by %v, want %v", c.parts, got, c.want)
			}
		}
		return nil
	}
}

func expectWarnings(w *kubetest.Warnings, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error { return w.Expect(want...) }
}

// noWarnings fails a step's PreConfig when the steps before warned since the last check (the
// refreshes after an apply that took the fields back).
func noWarnings(t *testing.T, w *kubetest.Warnings) func() {
	return func() {
		if err := w.Expect(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAccLeaderWorkerSet_takeoverUpdateManager: a `kubectl edit` of the worker image and of a
// planned default converges with one approved apply: the refresh warns, the plan sets both
// back, the apply takes them over and waits for the rollout back to the declared image, and
// the next plan is empty. A label and an annotation another manager added stay.
func TestAccLeaderWorkerSet_takeoverUpdateManager(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "the API server's field ownership")
	name := "acc-takeover-update"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU))
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					noWarnings(t, &w)()
					edit(t, c, name, "vllm/vllm-openai:v0.11.1")
					patch := []byte(`{"metadata":{"labels":{"team":"other"},"annotations":{"example.com/owner":"someone"}}}`)
					if _, err := c.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-label"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, workerImage, knownvalue.StringExact(image)),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("startup_policy"), knownvalue.StringExact("LeaderCreated")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, workerImage, knownvalue.StringExact(image)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("updated_replicas"), knownvalue.Int64Exact(2)),
				},
				Check: resource.ComposeTestCheckFunc(
					expectWarnings(&w, "Fields changed outside Terraform will be taken back\n"+editedWarning("vllm/vllm-openai:v0.11.1", takenBackTxt)),
					serverHas(t, c, name, 2, []string{"kubeinfer (Apply)"}, []string{"kubeinfer (Apply)"}),
					podImages(t, name, image, 4),
					func(*terraform.State) error {
						u, err := c.Get(context.Background(), name, metav1.GetOptions{})
						if err != nil {
							return err
						}
						if u.GetLabels()["team"] != "other" || u.GetAnnotations()["example.com/owner"] != "someone" {
							return fmt.Errorf("the other manager's label and annotation are gone: %v %v", u.GetLabels(), u.GetAnnotations())
						}
						owners, err := kubetest.Owners(u, "metadata", "labels", "team")
						if err != nil || !slices.Equal(owners, []string{"kubectl-label (Update)"}) {
							return fmt.Errorf("label team owned by %v (%v), want kubectl-label", owners, err)
						}
						return nil
					},
				),
			},
			{PreConfig: noWarnings(t, &w), Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccLeaderWorkerSet_takeoverApplyManager: someone's own server-side apply with force
// (another image, another replica count) converges the same way; the other manager keeps
// nothing of what the configuration declares.
func TestAccLeaderWorkerSet_takeoverApplyManager(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "the API server's field ownership")
	name := "acc-takeover-apply"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU))
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					noWarnings(t, &w)()
					body := fmt.Appendf(nil, `{"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
  "metadata": {"name": %q, "namespace": "default"},
  "spec": {"replicas": 3, "leaderWorkerTemplate": {"workerTemplate": {"spec": {"containers": [
    {"name": "vllm-worker", "image": "vllm/vllm-openai:v0.11.2"}]}}}}}`, name)
					force := true
					if _, err := c.Patch(context.Background(), name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "someone-else", Force: &force}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, workerImage, knownvalue.StringExact(image)),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("replicas"), knownvalue.Int64Exact(2)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("replicas"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("ready_replicas"), knownvalue.Int64Exact(2)),
				},
				Check: resource.ComposeTestCheckFunc(
					expectWarnings(&w, "Fields changed outside Terraform will be taken back\n"+
						"Since the last apply, other field managers changed attributes this resource manages:\n"+
						`  `+imagePath+` = "vllm/vllm-openai:v0.11.2" (was "vllm/vllm-openai:v0.11.0"), owned by "someone-else" (Apply)`+"\n"+
						`  spec.replicas = 3 (was 2), owned by "someone-else" (Apply)`+"\n"+takenBackTxt),
					serverHas(t, c, name, 2, []string{"kubeinfer (Apply)"}, []string{"kubeinfer (Apply)"}),
					podImages(t, name, image, 4),
				),
			},
			{PreConfig: noWarnings(t, &w), Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccLeaderWorkerSet_takeoverOptOut: with force_conflicts = false the refresh still warns,
// and the apply fails with the conflict, naming the manager and the fields; returning to the
// default takes them back.
func TestAccLeaderWorkerSet_takeoverOptOut(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "the API server's field ownership")
	name := "acc-takeover-optout"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	shared := pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU), "force_conflicts = false")
	cfg := pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU))
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: shared},
			{
				PreConfig:   func() { noWarnings(t, &w)(); edit(t, c, name, "vllm/vllm-openai:v0.11.1") },
				Config:      shared,
				ExpectError: regexp.MustCompile(`(?s)Apply\s+failed\s+with\s+2\s+conflicts:\s+conflicts\s+with\s+"kubectl-edit".*\.spec\.startupPolicy.*containers\[name="vllm-worker"\]\.image.*force_conflicts\s+=\s+false\s+keeps\s+them`),
			},
			{ // the refresh of the failed step warned; back to the default, the apply takes them
				PreConfig: func() {
					err := w.Expect("Fields changed outside Terraform are owned by another field manager\n" + editedWarning("vllm/vllm-openai:v0.11.1",
						"The plan sets them back to the configuration, but the apply fails with a conflict (force_conflicts = false). Set force_conflicts = true to take ownership, or change them through that manager."))
					if err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("force_conflicts"), knownvalue.Bool(true)),
				}},
				Check: serverHas(t, c, name, 2, []string{"kubeinfer (Apply)"}, []string{"kubeinfer (Apply)"}),
			},
			{PreConfig: func() { w.Take() }, Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccLeaderWorkerSet_takeoverKeepsAutoscalerReplicas: with manage_replicas = false the
// autoscaler's replicas are never taken, even by an apply that takes back other fields: the
// warning does not name them, the server keeps the autoscaler's count and the provider's field
// manager never owns spec.replicas. An HPA scales through the scale subresource, which records
// no owner for a custom resource (kubernetes/kubernetes#131892); an autoscaler that writes
// spec.replicas itself (an Update) keeps owning it.
func TestAccLeaderWorkerSet_takeoverKeepsAutoscalerReplicas(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "the API server's field ownership")
	name := "acc-takeover-hpa"
	c := lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := pc + vllm(lwsfixture.VLLM(name, 0, 2, lwsfixture.SmallGPU, unsetReplicas), "manage_replicas = false")
	var w kubetest.Warnings
	scaled := func(replicas int64, owners []string, img string) resource.TestStep {
		return resource.TestStep{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("replicas"), knownvalue.Int64Exact(replicas)),
				plancheck.ExpectKnownValue(addr, workerImage, knownvalue.StringExact(image)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtMapKey("replicas"), knownvalue.Int64Exact(replicas)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("ready_replicas"), knownvalue.Int64Exact(replicas)),
			},
			Check: resource.ComposeTestCheckFunc(
				expectWarnings(&w, "Fields changed outside Terraform will be taken back\n"+editedWarning(img, takenBackTxt)),
				serverHas(t, c, name, replicas, []string{"kubeinfer (Apply)"}, owners),
				podImages(t, name, image, int(2*replicas)),
			),
		}
	}
	hpa := scaled(3, nil, "vllm/vllm-openai:v0.11.1")
	hpa.PreConfig = func() {
		noWarnings(t, &w)()
		patch := []byte(`{"spec":{"replicas":3}}`)
		if _, err := c.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "horizontal-pod-autoscaler"}, "scale"); err != nil {
			t.Fatal(err)
		}
		edit(t, c, name, "vllm/vllm-openai:v0.11.1")
	}
	keda := scaled(4, []string{"keda-operator (Update)"}, "vllm/vllm-openai:v0.11.2")
	keda.PreConfig = func() {
		noWarnings(t, &w)()
		patch := []byte(`{"spec":{"replicas":4}}`)
		if _, err := c.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "keda-operator"}); err != nil {
			t.Fatal(err)
		}
		edit(t, c, name, "vllm/vllm-openai:v0.11.2")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: cfg},
			hpa,
			{PreConfig: noWarnings(t, &w), Config: cfg, PlanOnly: true},
			keda,
			{PreConfig: noWarnings(t, &w), Config: cfg, PlanOnly: true},
		},
	})
}
