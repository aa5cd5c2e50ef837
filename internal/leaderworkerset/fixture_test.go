package leaderworkerset_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// resourceAttrs parses src, one resource block, and evaluates its attributes.
func resourceAttrs(t *testing.T, src string) map[string]cty.Value {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "x.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags, src)
	}
	blocks := file.Body.(*hclsyntax.Body).Blocks
	if len(blocks) != 1 || blocks[0].Type != "resource" {
		t.Fatalf("not one resource block:\n%s", src)
	}
	out := map[string]cty.Value{}
	for name, a := range blocks[0].Body.Attributes {
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", name, diags)
		}
		out[name] = v
	}
	return out
}

// TestVLLMFixtureHCL: the rendered fixture reads as the vLLM configuration the acceptance tests
// wrote by hand before it was rendered (testdata/vllm.tf): the same attributes, the same values.
func TestVLLMFixtureHCL(t *testing.T) {
	golden, err := os.ReadFile("testdata/vllm.tf")
	if err != nil {
		t.Fatal(err)
	}
	src := vllm(lwsfixture.VLLM("acc-golden", 2, 4))
	got, want := resourceAttrs(t, src), resourceAttrs(t, string(golden))
	if len(got) != len(want) {
		t.Errorf("attributes: got %d, want %d", len(got), len(want))
	}
	for name, w := range want {
		if g, ok := got[name]; !ok || !g.Equals(w).True() {
			t.Errorf("%s differs from testdata/vllm.tf:\n%s", name, src)
		}
	}
}

// TestVLLMVariantsValidate: the rendered fixture and the variants the acceptance tests use are
// valid configurations of the resource (ValidateResourceConfig, as terraform validate asks).
func TestVLLMVariantsValidate(t *testing.T) {
	ctx := context.Background()
	srv := provider.NewServer("test")()
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := sch.ResourceSchemas["kubeinfer_leaderworkerset"].ValueType()
	variants := map[string]string{
		"default":    vllm(lwsfixture.VLLM("v", 2, 4)),
		"smallGPU":   vllm(lwsfixture.VLLM("v", 2, 2, lwsfixture.SmallGPU, lwsfixture.Image("vllm/vllm-openai:v0.11.1")), "force_conflicts = false"),
		"autoscaled": vllm(lwsfixture.VLLM("v", 0, 2, lwsfixture.SmallGPU, unsetReplicas), "manage_replicas = false"),
		"spread": vllm(lwsfixture.VLLM("v", 3, 1, lwsfixture.Resources("16", "1124Gi", "125"), lwsfixture.Spread(corev1.DoNotSchedule), func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.TopologySpreadConstraints[0].MinDomains = ptr.To[int32](3)
		}), `timeouts = { create = "8s", update = "6s" }`),
		"rollout": vllm(lwsfixture.VLLM("v", 4, 2, func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy = lwsv1.RolloutStrategy{Type: lwsv1.RollingUpdateStrategyType, RollingUpdateConfiguration: &lwsv1.RollingUpdateConfiguration{
				MaxSurge: intstr.FromString("1"), MaxUnavailable: intstr.FromString("1")}}
			l.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](2)}
		})),
	}
	for name, src := range variants {
		t.Run(name, func(t *testing.T) {
			raw := map[string]json.RawMessage{}
			for k, v := range resourceAttrs(t, src) {
				b, err := ctyjson.Marshal(v, v.Type())
				if err != nil {
					t.Fatal(err)
				}
				raw[k] = b
			}
			b, _ := json.Marshal(raw)
			v, err := tftypes.ValueFromJSONWithOpts(b, typ, tftypes.ValueFromJSONOpts{})
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			dv, err := tfprotov6.NewDynamicValue(typ, v)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "kubeinfer_leaderworkerset", Config: &dv})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range resp.Diagnostics {
				t.Errorf("%s: %s: %s\n%s", d.Severity, d.Summary, d.Detail, src)
			}
		})
	}
}
