package flowschema_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
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
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema"
	fsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

func TestMain(m *testing.M) { acctest.Main(m) }

const addr = "kubeinfer_flow_schema.test"

// configSchema is a flow schema sending one group's LeaderWorkerSet reads and /metrics scrapes to
// the priority level plExpr (an HCL expression). spec holds extra spec attributes, top extra
// top-level attributes.
func configSchema(name, plExpr, spec string, top ...string) string {
	return fmt.Sprintf(`
resource "kubeinfer_flow_schema" "test" {
  %[4]s
  metadata = {
    name   = %[1]q
    labels = { team = "inference" }
  }
  spec = {
    priority_level_configuration = { name = %[2]s }
    %[3]s
    rules = [{
      subjects = [{
        kind  = "Group"
        group = { name = "inference-clients" }
      }]
      resource_rules = [{
        verbs      = ["get", "list", "watch"]
        api_groups = ["leaderworkerset.x-k8s.io"]
        resources  = ["leaderworkersets"]
        namespaces = ["*"]
      }]
      non_resource_rules = [{
        verbs             = ["get"]
        non_resource_urls = ["/metrics"]
      }]
    }]
  }
}
`, name, plExpr, spec, strings.Join(top, "\n"))
}

func specPath(p ...string) tfjsonpath.Path {
	out := tfjsonpath.New("spec")
	for _, s := range p {
		out = out.AtMapKey(s)
	}
	return out
}

func TestAccFlowSchema_lifecycle(t *testing.T) {
	c := acctest.Cluster(t)
	name := "acc-fs-lifecycle"
	fss := c.Dynamic().Resource(flowschema.Kind.GVR())
	updated := `matching_precedence  = 500
    distinguisher_method = { type = "ByNamespace" }`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{ // create with every defaulted field left unset: the plan shows the server's default
				Config: acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(addr, specPath("matching_precedence"), knownvalue.Int64Exact(1000)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(addr, specPath("matching_precedence"), knownvalue.Int64Exact(1000)),
					statecheck.ExpectKnownValue(addr, specPath("distinguisher_method"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, specPath("priority_level_configuration", "name"), knownvalue.StringExact("workload-low")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("metadata").AtMapKey("uid"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("metadata").AtMapKey("generation"), knownvalue.Int64Exact(1)),
				},
			},
			{ // a second plan of the same configuration is empty
				Config:   acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, ""),
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
				Config: acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, updated),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, specPath("matching_precedence"), knownvalue.Int64Exact(500)),
					statecheck.ExpectKnownValue(addr, specPath("distinguisher_method", "type"), knownvalue.StringExact("ByNamespace")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("metadata").AtMapKey("generation"), knownvalue.Int64Exact(2)),
				},
			},
			{ // drift: an out-of-band change by another manager shows in the plan; the apply takes the field back
				PreConfig: func() {
					patch := []byte(`{"spec":{"matchingPrecedence":700}}`)
					if _, err := fss.Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "intruder"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, updated),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, specPath("matching_precedence"), knownvalue.Int64Exact(500)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, specPath("matching_precedence"), knownvalue.Int64Exact(500)),
				},
				Check: expectServerPrecedence(fss, name, 500),
			},
			{
				Config:   acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, updated),
				PlanOnly: true,
			},
			{ // deleted out of band: the plan re-creates it
				PreConfig: func() {
					if err := fss.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, updated),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
				}},
				Check: expectServerPrecedence(fss, name, 500),
			},
			{
				Config:   acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, updated),
				PlanOnly: true,
			},
			{ // a name change replaces the schema
				Config: acctest.ProviderConfig(t) + configSchema(name+"-2", `"workload-low"`, updated),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			for _, n := range []string{name, name + "-2"} {
				if _, err := fss.Get(context.Background(), n, metav1.GetOptions{}); err == nil {
					return fmt.Errorf("flow schema %s still exists", n)
				}
			}
			return nil
		},
	})
}

func expectServerPrecedence(fss dynamic.ResourceInterface, name string, want int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := fss.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got, _, _ := unstructured.NestedInt64(u.Object, "spec", "matchingPrecedence")
		if got != want {
			return fmt.Errorf("server has matchingPrecedence %d, want %d", got, want)
		}
		return nil
	}
}

// expectDangling polls (up to 30 s) until the APF controller of the API server has set the
// schema's "Dangling" condition to want ("True": the level does not exist; "False": requests are
// routed to a configured level).
func expectDangling(fss dynamic.ResourceInterface, name, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		deadline := time.Now().Add(30 * time.Second)
		last := "no Dangling condition"
		for {
			u, err := fss.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Dangling" {
					last = fmt.Sprintf("Dangling=%v (%v: %v)", m["status"], m["reason"], m["message"])
					if m["status"] == want {
						return nil
					}
				}
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("flow schema %s: want Dangling=%s within 30s, last seen %s", name, want, last)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
}

func TestAccFlowSchema_routing(t *testing.T) {
	acctest.FirstCLIOnly(t, "the API server's routing of requests to a priority level")
	c := acctest.Cluster(t)
	name := "acc-fs-routing"
	level := "acc-fs-routing-level"
	fss := c.Dynamic().Resource(flowschema.Kind.GVR())
	levelConfig := fmt.Sprintf(`
resource "kubeinfer_priority_level_configuration" "x" {
  metadata = { name = %q }
  spec = {
    type = "Limited"
    limited = {
      nominal_concurrency_shares = 20
      limit_response = {
        type    = "Queue"
        queuing = {}
      }
    }
  }
}
`, level)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{ // the level does not exist yet: the server accepts the schema and reports it dangling
				Config: acctest.ProviderConfig(t) + configSchema(name, fmt.Sprintf("%q", level), ""),
				Check:  expectDangling(fss, name, "True"),
			},
			{ // the level is configured and referenced by attribute: requests are routed to it
				Config: acctest.ProviderConfig(t) + levelConfig + configSchema(name, "kubeinfer_priority_level_configuration.x.metadata.name", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kubeinfer_priority_level_configuration.x", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
				}},
				Check: expectDangling(fss, name, "False"),
			},
			{ // the refreshed status (with the condition) is not a diff
				Config:   acctest.ProviderConfig(t) + levelConfig + configSchema(name, "kubeinfer_priority_level_configuration.x.metadata.name", ""),
				PlanOnly: true,
			},
		},
	})
}

func TestAccFlowSchema_dataSource(t *testing.T) {
	acctest.Cluster(t)
	name := "acc-fs-datasource"
	ds := `
data "kubeinfer_flow_schema" "catch_all" {
  metadata = { name = "catch-all" }
}

data "kubeinfer_flow_schema" "mine" {
  metadata = { name = kubeinfer_flow_schema.test.metadata.name }
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderConfig(t) + configSchema(name, `"workload-low"`, "matching_precedence = 4321") + ds,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kubeinfer_flow_schema.catch_all", tfjsonpath.New("id"), knownvalue.StringExact("catch-all")),
				statecheck.ExpectKnownValue("data.kubeinfer_flow_schema.catch_all", specPath("matching_precedence"), knownvalue.Int64Exact(10000)),
				statecheck.ExpectKnownValue("data.kubeinfer_flow_schema.catch_all", specPath("priority_level_configuration", "name"), knownvalue.StringExact("catch-all")),
				statecheck.ExpectKnownValue("data.kubeinfer_flow_schema.catch_all", specPath("distinguisher_method", "type"), knownvalue.StringExact("ByUser")),
				statecheck.ExpectKnownValue("data.kubeinfer_flow_schema.catch_all",
					tfjsonpath.New("metadata").AtMapKey("annotations").AtMapKey(fsrules.AutoUpdateAnnotation), knownvalue.StringExact("true")),
				statecheck.ExpectKnownValue("data.kubeinfer_flow_schema.mine", specPath("matching_precedence"), knownvalue.Int64Exact(4321)),
				statecheck.ExpectKnownValue("data.kubeinfer_flow_schema.mine",
					specPath("rules").AtSliceIndex(0).AtMapKey("non_resource_rules").AtSliceIndex(0).AtMapKey("non_resource_urls"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("/metrics")})),
			},
		}},
	})
}

func TestAccFlowSchema_planTimeErrors(t *testing.T) {
	acctest.Cluster(t)
	cases := []struct {
		name, spec string
		annotate   bool // set apf.kubernetes.io/autoupdate-spec = "true"
		err        *regexp.Regexp
	}{
		{"precedence 1 is reserved", "matching_precedence = 1", false, regexp.MustCompile(`(?s)spec.matching_precedence.*only\s+the\s+schema\s+named\s+'exempt'`)},
		{"precedence above the maximum", "matching_precedence = 10001", false, regexp.MustCompile(`(?s)spec.matching_precedence.*must\s+not\s+be\s+greater\s+than\s+10000`)},
		{"explicit zero precedence", "matching_precedence = 0", false, regexp.MustCompile(`(?s)spec.matching_precedence.*silently\s+replaces\s+0`)},
		{"unknown distinguisher", `distinguisher_method = { type = "ByGroup" }`, false, regexp.MustCompile(`(?s)spec.distinguisher_method.type.*"ByNamespace",\s+"ByUser"`)},
		{"autoupdate on a schema of one's own", "", true, regexp.MustCompile(`(?s)deletes\s+non-bootstrap\s+flow\s+schemas`)},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			acctest.SampleAfterFirstCLI(t, i, 2)
			cfg := configSchema("acc-fs-invalid", `"workload-low"`, tc.spec)
			if tc.annotate {
				cfg = strings.Replace(cfg,
					`labels = { team = "inference" }`, `annotations = { "apf.kubernetes.io/autoupdate-spec" = "true" }`, 1)
			}
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      acctest.ProviderConfig(t) + cfg,
					PlanOnly:    true,
					ExpectError: tc.err,
				}},
			})
		})
	}
	t.Run("rule errors", func(t *testing.T) {
		resource.ParallelTest(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			Steps: []resource.TestStep{{
				Config: acctest.ProviderConfig(t) + `
resource "kubeinfer_flow_schema" "test" {
  metadata = { name = "acc-fs-invalid-rules" }
  spec = {
    priority_level_configuration = { name = "Not_A_Name" }
    rules = [{
      subjects       = [{ kind = "User", group = { name = "g" } }]
      resource_rules = [{ verbs = ["*", "get"], api_groups = [""], resources = ["pods"] }]
      non_resource_rules = [{ verbs = ["get"], non_resource_urls = ["healthz"] }]
    }]
  }
}
`,
				PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)` + strings.Join([]string{
					`spec.priority_level_configuration.name`,
					`spec.rules\[0\].subjects\[0\].user`,  // required for kind User
					`spec.rules\[0\].subjects\[0\].group`, // forbidden for kind User
					// Terraform 1.16 orders these two the other way round.
					`(spec.rules\[0\].resource_rules\[0\].verbs.*spec.rules\[0\].resource_rules\[0\].namespaces|` +
						`spec.rules\[0\].resource_rules\[0\].namespaces.*spec.rules\[0\].resource_rules\[0\].verbs)`,
					`spec.rules\[0\].non_resource_rules\[0\].non_resource_urls\[0\]`,
				}, ".*")),
			}},
		})
	})
}

// The provider-only rules and the warnings, through the resource's ValidateConfig (the call
// Terraform makes at plan time; terraform-plugin-testing does not expose plan warnings).
func TestFlowSchemaValidateConfig(t *testing.T) {
	ctx := context.Background()
	r := flowschema.NewResource()
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	typ, ok := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	validator, ok2 := r.(fwresource.ResourceWithValidateConfig)
	if !ok || !ok2 {
		t.Fatal("the resource schema is not an object, or the resource does not validate configurations")
	}
	validate := func(obj *flowcontrolv1.FlowSchema, edit func(spec map[string]tftypes.Value)) diag.Diagnostics {
		var attrs map[string]tftypes.Value
		if err := k8sschema.Encode(flowschema.Kind.Node(), obj).As(&attrs); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			var spec map[string]tftypes.Value
			_ = attrs["spec"].As(&spec)
			edit(spec)
			attrs["spec"] = tftypes.NewValue(attrs["spec"].Type(), spec)
		}
		for name, at := range typ.AttributeTypes {
			if _, ok := attrs[name]; !ok || name == "status" {
				attrs[name] = tftypes.NewValue(at, nil)
			}
		}
		var resp fwresource.ValidateConfigResponse
		validator.ValidateConfig(ctx, fwresource.ValidateConfigRequest{
			Config: tfsdk.Config{Raw: tftypes.NewValue(typ, attrs), Schema: sresp.Schema},
		}, &resp)
		return resp.Diagnostics
	}
	mine := func(name, level string, ann map[string]string) *flowcontrolv1.FlowSchema {
		o := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann}}
		if s, ok := fsrules.BootstrapSpec(name); ok {
			o.Spec = s
		} else {
			o.Spec = flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level}}
		}
		return o
	}
	setPrecedence := func(v tftypes.Value) func(map[string]tftypes.Value) {
		return func(spec map[string]tftypes.Value) { spec["matching_precedence"] = v }
	}
	cases := []struct {
		name       string
		obj        *flowcontrolv1.FlowSchema
		edit       func(map[string]tftypes.Value)
		warnPath   string // "" means no warning
		warn, errs string
	}{
		{"schema of one's own", mine("mine", "workload-low", nil), nil, "", "", ""},
		{"precedence unset is planned as 1000", mine("mine", "workload-low", nil), setPrecedence(tftypes.NewValue(tftypes.Number, nil)), "", "", ""},
		{"explicit precedence 0", mine("mine", "workload-low", nil), setPrecedence(tftypes.NewValue(tftypes.Number, 0)), "", "", "silently replaces 0 by the default 1000"},
		{"unknown precedence", mine("mine", "workload-low", nil), setPrecedence(tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)), "", "", ""},
		{"precedence 1", mine("mine", "workload-low", nil), setPrecedence(tftypes.NewValue(tftypes.Number, 1)), "", "", "only the schema named 'exempt'"},
		{"routing to exempt", mine("mine", "exempt", nil), nil, `spec.priority_level_configuration.name`, "exempt from API Priority and Fairness", ""},
		{"autoupdate true on one's own", mine("mine", "workload-low", map[string]string{fsrules.AutoUpdateAnnotation: "true"}), nil, "", "", "deletes non-bootstrap flow schemas"},
		{"mandatory schema", mine("exempt", "", nil), nil, `metadata.name`, "mandatory bootstrap flow schema", ""},
		{"suggested schema", mine("probes", "", nil), nil, `metadata.annotations["apf.kubernetes.io/autoupdate-spec"]`, "overwrites the spec", ""},
		{"suggested schema taken over", mine("probes", "", map[string]string{fsrules.AutoUpdateAnnotation: "false"}), nil, `metadata.name`, "suggested bootstrap flow schema", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			diags := validate(tc.obj, tc.edit)
			errs, warnings := diags.Errors(), diags.Warnings()
			if tc.errs == "" && len(errs) > 0 {
				t.Fatalf("unexpected errors: %v", errs)
			}
			if tc.errs != "" && (len(errs) != 1 || !strings.Contains(errs[0].Detail(), tc.errs)) {
				t.Fatalf("want one error containing %q, got %v", tc.errs, errs)
			}
			if tc.warnPath == "" {
				if len(warnings) != 0 {
					t.Fatalf("unexpected warnings: %v", warnings)
				}
				return
			}
			if len(warnings) != 1 {
				t.Fatalf("want one warning, got %v", warnings)
			}
			w, ok := warnings[0].(diag.DiagnosticWithPath)
			if !ok || w.Path().String() != tc.warnPath {
				t.Errorf("warning path: got %v, want %s", warnings[0], tc.warnPath)
			}
			if !strings.Contains(warnings[0].Summary(), tc.warn) {
				t.Errorf("warning %q does not contain %q", warnings[0].Summary(), tc.warn)
			}
		})
	}
}
