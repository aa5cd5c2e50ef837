package flowschema_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
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

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

const (
	takenBack = "The plan sets them back to the configuration and the apply takes ownership of them (force_conflicts = true). Set force_conflicts = false to fail instead."
	keptBack  = "The plan sets them back to the configuration, but the apply fails with a conflict (force_conflicts = false). Set force_conflicts = true to take ownership, or change them through that manager."
	changed   = "Since the last apply, other field managers changed attributes this resource manages:\n"
	declared  = `matching_precedence  = 500
    distinguisher_method = { type = "ByNamespace" }`
)

// serverSchema checks the live schema's precedence, distinguisher and first subject group, and
// who owns the precedence and the (atomic) rules.
func serverSchema(fss dynamic.ResourceInterface, name string, owners ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := fss.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		p, _, _ := unstructured.NestedInt64(u.Object, "spec", "matchingPrecedence")
		d, _, _ := unstructured.NestedString(u.Object, "spec", "distinguisherMethod", "type")
		rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
		g, _, _ := unstructured.NestedString(rules[0].(map[string]any)["subjects"].([]any)[0].(map[string]any), "group", "name")
		if p != 500 || d != "ByNamespace" || g != "inference-clients" {
			return fmt.Errorf("server has matchingPrecedence %d, distinguisherMethod %s, group %s; want 500, ByNamespace, inference-clients", p, d, g)
		}
		for _, f := range [][]any{{"spec", "matchingPrecedence"}, {"spec", "rules"}} {
			got, err := kubetest.Owners(u, f...)
			if err != nil {
				return err
			}
			if !slices.Equal(got, owners) {
				return fmt.Errorf("%v is owned by %v, want %v", f, got, owners)
			}
		}
		return nil
	}
}

func noWarnings(t *testing.T, w *kubetest.Warnings) func() {
	return func() {
		if err := w.Expect(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAccFlowSchema_takeover: an Update manager's edit (of the precedence and, inside the
// atomic rules list, of a subject) and another manager's forced server-side apply each converge
// with one approved apply: the refresh warns, the apply takes the fields back (the whole rules
// list included), the next plan is empty.
func TestAccFlowSchema_takeover(t *testing.T) {
	acctest.FirstCLIOnly(t, "the API server's field ownership")
	c := acctest.Cluster(t)
	name := "acc-fs-takeover"
	fss := c.Dynamic().Resource(flowschema.Kind.GVR())
	cfg := acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, declared)
	var w kubetest.Warnings
	converges := func(preConfig func(), warning string) []resource.TestStep {
		return []resource.TestStep{{
			PreConfig: func() { noWarnings(t, &w)(); preConfig() },
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(addr, specPath("matching_precedence"), knownvalue.Int64Exact(500)),
			}},
			Check: resource.ComposeTestCheckFunc(
				func(*terraform.State) error { return w.Expect(warning) },
				serverSchema(fss, name, "kubeinfer (Apply)"),
			),
		}, {PreConfig: noWarnings(t, &w), Config: cfg, PlanOnly: true}}
	}
	steps := []resource.TestStep{{Config: cfg}}
	steps = append(steps, converges(func() {
		patch := []byte(`[{"op": "replace", "path": "/spec/matchingPrecedence", "value": 700},
  {"op": "replace", "path": "/spec/rules/0/subjects/0/group/name", "value": "everyone"}]`)
		if _, err := fss.Patch(context.Background(), name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
			t.Fatal(err)
		}
	}, "Fields changed outside Terraform will be taken back\n"+changed+
		`  spec.matching_precedence = 700 (was 500), owned by "kubectl-edit" (Update)`+"\n"+
		`  spec.rules[0].subjects[0].group.name = "everyone" (was "inference-clients"), owned by "kubectl-edit" (Update)`+"\n"+takenBack)...)
	steps = append(steps, converges(func() {
		body := fmt.Appendf(nil, `{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
  "metadata": {"name": %q}, "spec": {"matchingPrecedence": 800, "distinguisherMethod": {"type": "ByUser"}}}`, name)
		force := true
		if _, err := fss.Patch(context.Background(), name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "someone-else", Force: &force}); err != nil {
			t.Fatal(err)
		}
	}, "Fields changed outside Terraform will be taken back\n"+changed+
		`  spec.distinguisher_method.type = "ByUser" (was "ByNamespace"), owned by "someone-else" (Apply)`+"\n"+
		`  spec.matching_precedence = 800 (was 500), owned by "someone-else" (Apply)`+"\n"+takenBack)...)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps:                    steps,
	})
}

// TestAccFlowSchema_takeoverOptOut: with force_conflicts = false the refresh warns and the apply
// fails with the conflict, naming the manager and the field; back to the default, the apply
// takes it.
func TestAccFlowSchema_takeoverOptOut(t *testing.T) {
	acctest.FirstCLIOnly(t, "the API server's field ownership")
	c := acctest.Cluster(t)
	name := "acc-fs-takeover-optout"
	fss := c.Dynamic().Resource(flowschema.Kind.GVR())
	shared := acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, declared, "force_conflicts = false")
	cfg := acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, declared)
	var w kubetest.Warnings
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{Config: shared},
			{
				PreConfig: func() {
					patch := []byte(`{"spec":{"matchingPrecedence":700}}`)
					if _, err := fss.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      shared,
				ExpectError: regexp.MustCompile(`(?s)Apply\s+failed\s+with\s+1\s+conflict:\s+conflict\s+with\s+"kubectl-edit".*\.spec\.matchingPrecedence.*force_conflicts\s+=\s+false\s+keeps\s+them`),
			},
			{
				PreConfig: func() {
					if err := w.Expect("Fields changed outside Terraform are owned by another field manager\n" + changed +
						`  spec.matching_precedence = 700 (was 500), owned by "kubectl-edit" (Update)` + "\n" + keptBack); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("force_conflicts"), knownvalue.Bool(true)),
					plancheck.ExpectKnownValue(addr, specPath("matching_precedence"), knownvalue.Int64Exact(500)),
				}},
				Check: serverSchema(fss, name, "kubeinfer (Apply)"),
			},
			{PreConfig: func() { w.Take() }, Config: cfg, PlanOnly: true},
		},
	})
}
