package prioritylevelconfiguration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	plc "github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
	plcrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration/rules"
)

const bootstrapAddr = "kubeinfer_priority_level_configuration.workload_low"

// ensurerManager is the field manager of the API server's APF bootstrap ensurer
// (pkg/registry/flowcontrol/ensurer/strategy.go).
const ensurerManager = "api-priority-and-fairness-config-producer-v1"

// configWorkloadLow is the suggested level workload-low, taken over (autoupdate-spec "false"),
// with its built-in spec except for the nominal concurrency shares.
func configWorkloadLow(shares int, top ...string) string {
	ann := fmt.Sprintf("annotations = { %q = \"false\" }", plcrules.AutoUpdateAnnotation)
	return fmt.Sprintf(`
resource "kubeinfer_priority_level_configuration" "workload_low" {
  %[3]s
  metadata = {
    name = "workload-low"
    %[2]s
  }
  spec = {
    type = "Limited"
    limited = {
      nominal_concurrency_shares = %[1]d
      lendable_percent           = 90
      limit_response = {
        type = "Queue"
        queuing = {
          queues             = 128
          hand_size          = 6
          queue_length_limit = 50
        }
      }
    }
  }
}
`, shares, ann, strings.Join(top, "\n"))
}

// The generic resource reads the object before creating it: a bootstrap level, which the API
// server created at startup, is reported with the import command instead of being taken over.
func TestAccPriorityLevelConfiguration_bootstrapCreateFails(t *testing.T) {
	acctest.SameCLIPathAs(t, "TestAccLeaderWorkerSet_sameNameOtherConfiguration")
	acctest.Cluster(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      acctest.ProviderConfig(t) + configWorkloadLow(100),
			ExpectError: regexp.MustCompile(`(?s)PriorityLevelConfiguration\s+"workload-low"\s+already\s+exists.*terraform\s+import.\s+/\s+.tofu\s+import.\s+kubeinfer_priority_level_configuration\.<name>\s+workload-low`),
		}},
	})
}

// A level of one's own annotated autoupdate-spec "true" would be deleted by the API server: the
// plan fails.
func TestAccPriorityLevelConfiguration_autoupdateOnUserLevelFails(t *testing.T) {
	acctest.SameCLIPathAs(t, "TestAccPriorityLevelConfiguration_planTimeErrors")
	acctest.Cluster(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "kubeinfer_priority_level_configuration" "mine" {
  metadata = {
    name        = "acc-plc-autoupdate"
    annotations = { %q = "true" }
  }
  spec = {
    type    = "Limited"
    limited = { limit_response = { type = "Reject" } }
  }
}
`, plcrules.AutoUpdateAnnotation),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)metadata.annotations\["apf.kubernetes.io/autoupdate-spec"\].*deletes\s+non-bootstrap\s+priority\s+levels`),
		}},
	})
}

// Adopting a suggested level: import it, set autoupdate-spec "false" and change it. The change
// is applied (taking the fields over from the server's ensurer), survives the ensurer's next
// run, and the next plan is empty. The level is then forgotten, not deleted.
func TestAccPriorityLevelConfiguration_adoptBootstrap(t *testing.T) {
	// Import, plan and apply under every CLI are TestAccPriorityLevelConfiguration_lifecycle's;
	// this is the API server's ensurer handing its fields over.
	acctest.FirstCLIOnly(t, "the APF bootstrap ensurer's field ownership")
	c := acctest.Cluster(t)
	plcs := c.Dynamic().Resource(plc.Kind.GVR())
	builtIn, err := plcs.Get(context.Background(), "workload-low", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Hand the level back to the server with its built-in spec, written as the ensurer writes
		// it (an update by its field manager), so that the level is as the API server made it.
		// The ensurer would restore the spec too, but only at its next run (every minute): until
		// then the tests that follow, such as the apf_capacity example under the next CLI, would
		// see the adopted shares.
		patch, err := json.Marshal(map[string]any{
			"metadata": map[string]any{"annotations": map[string]string{plcrules.AutoUpdateAnnotation: "true"}},
			"spec":     builtIn.Object["spec"],
		})
		if err == nil {
			_, err = plcs.Patch(context.Background(), "workload-low", types.MergePatchType, patch, metav1.PatchOptions{FieldManager: ensurerManager})
		}
		if err != nil {
			t.Errorf("restoring workload-low: %v", err)
		}
	})
	serverShares := func(want int64) resource.TestCheckFunc {
		return func(*terraform.State) error {
			u, err := plcs.Get(context.Background(), "workload-low", metav1.GetOptions{})
			if err != nil {
				return err
			}
			got, _, _ := unstructured.NestedInt64(u.Object, "spec", "limited", "nominalConcurrencyShares")
			ann := u.GetAnnotations()[plcrules.AutoUpdateAnnotation]
			if got != want || ann != "false" {
				return fmt.Errorf("server has nominalConcurrencyShares %d and %s=%q, want %d and \"false\"", got, plcrules.AutoUpdateAnnotation, ann, want)
			}
			return nil
		}
	}
	removed := `
removed {
  from = kubeinfer_priority_level_configuration.workload_low
  lifecycle {
    destroy = false
  }
}
`
	steps := []resource.TestStep{
		{ // import the level the API server created
			Config:             acctest.ProviderConfig(t) + configWorkloadLow(100),
			ResourceName:       bootstrapAddr,
			ImportState:        true,
			ImportStateId:      "workload-low",
			ImportStatePersist: true,
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				if len(states) != 1 || states[0].Attributes["spec.limited.nominal_concurrency_shares"] != "100" {
					return fmt.Errorf("unexpected import: %+v", states)
				}
				return nil
			},
		},
		{ // the ensurer owns the spec and the annotation: with force_conflicts = false the apply names it
			Config: acctest.ProviderConfig(t) + configWorkloadLow(120, "force_conflicts = false"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(bootstrapAddr, plancheck.ResourceActionUpdate),
			}},
			ExpectError: regexp.MustCompile(`(?s)conflicts?\s+with\s+"` + ensurerManager + `".*force_conflicts`),
		},
		{ // take the fields over (force_conflicts defaults to true)
			Config: acctest.ProviderConfig(t) + configWorkloadLow(120),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(bootstrapAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(bootstrapAddr, tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("nominal_concurrency_shares"), knownvalue.Int64Exact(120)),
				statecheck.ExpectKnownValue(bootstrapAddr, tfjsonpath.New("metadata").AtMapKey("annotations").AtMapKey(plcrules.AutoUpdateAnnotation), knownvalue.StringExact("false")),
			},
			Check: serverShares(120),
		},
	}
	steps = append(steps,
		resource.TestStep{ // the ensurer runs every minute: after its next run the change stays and the plan is empty
			PreConfig: func() { time.Sleep(65 * time.Second) },
			Config:    acctest.ProviderConfig(t) + configWorkloadLow(120),
			PlanOnly:  true,
		},
		resource.TestStep{
			Config: acctest.ProviderConfig(t) + configWorkloadLow(120),
			Check:  serverShares(120),
		},
		resource.TestStep{ // forget the level instead of deleting it
			Config: acctest.ProviderConfig(t) + removed,
		},
	)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps:                    steps,
		CheckDestroy: func(*terraform.State) error {
			_, err := plcs.Get(context.Background(), "workload-low", metav1.GetOptions{})
			return err // still there
		},
	})
}

func TestAccPriorityLevelConfiguration_dataSource(t *testing.T) {
	acctest.Cluster(t)
	const ds = "data.kubeinfer_priority_level_configuration."
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderConfig(t) + `
data "kubeinfer_priority_level_configuration" "workload_high" {
  metadata = { name = "workload-high" }
}

data "kubeinfer_priority_level_configuration" "exempt" {
  metadata = { name = "exempt" }
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds+"workload_high", tfjsonpath.New("id"), knownvalue.StringExact("workload-high")),
				statecheck.ExpectKnownValue(ds+"workload_high", tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("nominal_concurrency_shares"), knownvalue.Int64Exact(40)),
				statecheck.ExpectKnownValue(ds+"workload_high", tfjsonpath.New("spec").AtMapKey("limited").AtMapKey("limit_response").AtMapKey("queuing").AtMapKey("queues"), knownvalue.Int64Exact(128)),
				statecheck.ExpectKnownValue(ds+"exempt", tfjsonpath.New("spec").AtMapKey("type"), knownvalue.StringExact("Exempt")),
				statecheck.ExpectKnownValue(ds+"exempt", tfjsonpath.New("spec").AtMapKey("limited"), knownvalue.Null()),
			},
		}},
	})
}

// terraform-plugin-testing does not expose plan warnings, so the bootstrap warnings are checked
// through the resource's ValidateConfig, the call Terraform makes at plan time.
func TestBootstrapWarningsThroughValidateConfig(t *testing.T) {
	ctx := context.Background()
	r := plc.NewResource()
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	if sresp.Diagnostics.HasError() {
		t.Fatal(sresp.Diagnostics)
	}
	typ, ok := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	validator, ok2 := r.(fwresource.ResourceWithValidateConfig)
	if !ok || !ok2 {
		t.Fatal("the resource schema is not an object, or the resource does not validate configurations")
	}
	config := func(obj *flowcontrolv1.PriorityLevelConfiguration) tfsdk.Config {
		var nodeAttrs map[string]tftypes.Value
		if err := k8sschema.Encode(plc.Kind.Node(), obj).As(&nodeAttrs); err != nil {
			t.Fatal(err)
		}
		attrs := map[string]tftypes.Value{}
		for name, at := range typ.AttributeTypes {
			v, ok := nodeAttrs[name]
			if !ok || name == "status" {
				v = tftypes.NewValue(at, nil)
			}
			attrs[name] = v
		}
		return tfsdk.Config{Raw: tftypes.NewValue(typ, attrs), Schema: sresp.Schema}
	}
	validate := func(obj *flowcontrolv1.PriorityLevelConfiguration) diag.Diagnostics {
		var resp fwresource.ValidateConfigResponse
		validator.ValidateConfig(ctx, fwresource.ValidateConfigRequest{Config: config(obj)}, &resp)
		return resp.Diagnostics
	}
	level := func(name string, ann map[string]string) *flowcontrolv1.PriorityLevelConfiguration {
		o := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann}}
		if s, ok := plcrules.BootstrapSpec(name); ok {
			o.Spec = s
		} else {
			o.Spec = flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
				Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}
		}
		return o
	}
	annPath := path.Root("metadata").AtName("annotations").AtMapKey(plcrules.AutoUpdateAnnotation)
	namePath := path.Root("metadata").AtName("name")
	cases := []struct {
		name     string
		obj      *flowcontrolv1.PriorityLevelConfiguration
		warnPath *path.Path // nil: no warning
		warn     string
		err      string
	}{
		{"suggested level, no annotation", level("workload-low", nil), &annPath, "overwrites the spec of the suggested priority level", ""},
		{"suggested level, autoupdate true", level("workload-low", map[string]string{plcrules.AutoUpdateAnnotation: "true"}), &annPath, "overwrites", ""},
		{"suggested level, autoupdate false", level("workload-low", map[string]string{plcrules.AutoUpdateAnnotation: "false"}), &namePath, "is a suggested bootstrap priority level", ""},
		{"mandatory level", level("catch-all", nil), &namePath, "is a mandatory bootstrap priority level", ""},
		{"mandatory exempt", level("exempt", nil), &namePath, "is a mandatory bootstrap priority level", ""},
		{"level of one's own", level("mine", nil), nil, "", ""},
		{"level of one's own, autoupdate true", level("mine", map[string]string{plcrules.AutoUpdateAnnotation: "true"}), nil, "", "deletes non-bootstrap priority levels"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			diags := validate(tc.obj)
			warnings, errs := diags.Warnings(), diags.Errors()
			if tc.err == "" && len(errs) > 0 {
				t.Fatalf("unexpected errors: %v", errs)
			}
			if tc.err != "" && (len(errs) != 1 || !strings.Contains(errs[0].Detail(), tc.err)) {
				t.Fatalf("want one error containing %q, got %v", tc.err, errs)
			}
			if tc.warnPath == nil {
				if len(warnings) != 0 {
					t.Fatalf("unexpected warnings: %v", warnings)
				}
				return
			}
			if len(warnings) != 1 {
				t.Fatalf("want one warning, got %v", warnings)
			}
			w, ok := warnings[0].(diag.DiagnosticWithPath)
			if !ok || !w.Path().Equal(*tc.warnPath) {
				t.Errorf("warning path: got %v, want %s", warnings[0], tc.warnPath)
			}
			if !strings.Contains(warnings[0].Summary(), tc.warn) {
				t.Errorf("warning %q does not contain %q", warnings[0].Summary(), tc.warn)
			}
			if !strings.Contains(warnings[0].Detail(), "terraform import") {
				t.Errorf("warning detail does not explain the import: %q", warnings[0].Detail())
			}
		})
	}
}
