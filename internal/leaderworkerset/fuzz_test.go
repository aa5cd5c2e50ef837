package leaderworkerset_test

import (
	"context"
	"math/big"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"golang.org/x/text/unicode/norm"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// fuzzValues builds a Terraform value of a node tree from fuzz input (as in the k8sschema
// fuzz test): each byte decides whether a node is null, unknown or set, the length of lists and
// maps and which string or number a leaf holds. Once the input is used up, the rest is null.
type fuzzValues struct{ data []byte }

func (f *fuzzValues) next() (byte, bool) {
	if len(f.data) == 0 {
		return 0, false
	}
	b := f.data[0]
	f.data = f.data[1:]
	return b, true
}

var fuzzStrings = []string{
	"", "x", "vllm", "500m", "16Gi", "8", "1.5", "-1", "0", "10%", "101%", "abc%", "1124 GiB", "2147483648",
	"2020-01-01T00:00:00Z", "30s", "aGVsbG8=", "RollingUpdate", "LeaderReady", "LeaderCreated", "Default", "None",
	"RecreateGroupAfterStart", "Ordinal", "Hash", "Immediate", "PostTermination", "LeaderWorker", "LeaderExcluded",
	"Shared", "UniquePerReplica", "TCP", "Always", "OnFailure", "DoNotSchedule", "ScheduleAnyway", "Exists", "In",
	"nvidia.com/gpu", "memory", "cpu", "topology.kubernetes.io/zone", "HF_TOKEN", "dshm", "/dev/shm",
	lwsv1.ExclusiveKeyAnnotationKey, lwsv1.SubGroupExclusiveKeyAnnotationKey, "${x}", "\xff",
}

var fuzzNumbers = []*big.Float{
	big.NewFloat(0), big.NewFloat(1), big.NewFloat(2), big.NewFloat(3), big.NewFloat(4), big.NewFloat(-1),
	big.NewFloat(0.5), big.NewFloat(2147483647), big.NewFloat(2147483648), big.NewFloat(1000001), big.NewFloat(1e20),
	new(big.Float).SetInt64(-1 << 63),
}

func (f *fuzzValues) value(n *k8sschema.Node, depth int) tftypes.Value {
	typ := n.TFType()
	b, ok := f.next()
	if !ok || depth > 40 {
		return tftypes.NewValue(typ, nil)
	}
	switch b % 8 {
	case 0:
		return tftypes.NewValue(typ, nil)
	case 1:
		return tftypes.NewValue(typ, tftypes.UnknownValue)
	}
	sel := int(b >> 3)
	switch n.Kind {
	case k8sschema.KindString:
		return tftypes.NewValue(typ, fuzzStrings[sel%len(fuzzStrings)])
	case k8sschema.KindBool:
		return tftypes.NewValue(typ, sel%2 == 0)
	case k8sschema.KindInt, k8sschema.KindFloat:
		return tftypes.NewValue(typ, fuzzNumbers[sel%len(fuzzNumbers)])
	case k8sschema.KindList:
		elems := make([]tftypes.Value, sel%3)
		for i := range elems {
			elems[i] = f.value(n.Elem, depth+1)
		}
		return tftypes.NewValue(typ, elems)
	case k8sschema.KindMap:
		m := map[string]tftypes.Value{}
		for i := 0; i < sel%3; i++ {
			m[fuzzStrings[(sel+i)%len(fuzzStrings)]] = f.value(n.Elem, depth+1)
		}
		return tftypes.NewValue(typ, m)
	default:
		attrs := make(map[string]tftypes.Value, len(n.Fields))
		for _, c := range n.Fields {
			attrs[c.TFName] = f.value(c, depth+1)
		}
		return tftypes.NewValue(typ, attrs)
	}
}

// FuzzValidate runs fuzzed LeaderWorkerSet values through everything plan time does with them:
// Decode, the kind's defaults, SetDefaults, ValidateAll, the update rules against the vLLM
// fixture, the configuration checks, Encode, Merge and the resource's ValidateConfig. Nothing
// may panic.
func FuzzValidate(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1})
	f.Add([]byte{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2})
	f.Add([]byte("\x02\x0a\x12\x1a\x22\x2a\x32\x3a\x42\x4a\x52\x5a\x62\x6a\x72\x7a\x82\x8a\x92\x9a\xa2\xaa\xb2\xba\xc2\xca\xd2\xda\xe2\xea\xf2\xfa"))
	f.Add([]byte("\x03\x13\x23\x33\x43\x53\x63\x73\x83\x93\xa3\xb3\xc3\xd3\xe3\xf3\x04\x14\x24\x34\x44\x54\x64\x74\x84\x94\xa4\xb4\xc4\xd4\xe4\xf4"))
	f.Add([]byte("\x05\x0d\x15\x1d\x25\x2d\x35\x3d\x45\x4d\x55\x5d\x65\x6d\x75\x7d\x85\x8d\x95\x9d\xa5\xad\xb5\xbd\xc5\xcd\xd5\xdd\xe5\xed\xf5\xfd"))
	ctx := context.Background()
	node := leaderworkerset.Kind.Node()
	r := leaderworkerset.NewResource()
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	rootType := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	validator := r.(fwresource.ResourceWithValidateConfig)
	fixture := lwsfixture.VLLM("vllm", 2, 4)
	lwsrules.SetDefaults(fixture)

	f.Fuzz(func(t *testing.T, data []byte) {
		v := (&fuzzValues{data: data}).value(node, 0)
		var obj lwsv1.LeaderWorkerSet
		dec := k8sschema.Decode(node, v, &obj, nil)

		if leaderworkerset.Kind.CheckConfig != nil {
			_, _ = leaderworkerset.Kind.CheckConfig(&obj, v)
		}
		defaulted := obj.DeepCopy()
		leaderworkerset.Kind.Defaults(defaulted, v)
		lwsrules.SetDefaults(defaulted)
		errs := lwsrules.ValidateAll(defaulted)
		errs = append(errs, lwsrules.ValidateUpdate(defaulted, fixture)...)
		errs = append(errs, lwsrules.ValidateUpdate(fixture, defaulted)...)
		_ = lwsrules.RequiresReplacement(defaulted, fixture)
		_ = k8sschema.Diagnostics(node, append(errs, dec.Errs...), dec.Unknown)

		bare := obj.DeepCopy()
		_ = lwsrules.Validate(bare) // without defaults: nil pointers everywhere

		enc := k8sschema.Encode(node, defaulted)
		_ = k8sschema.Merge(node, v, enc)
		_ = k8sschema.FillDefaults(node, v, v, enc)
		if got, want := k8sschema.PlanDefaults(node, v, v, defaulted), k8sschema.FillDefaults(node, v, v, k8sschema.ApplyNodeDefaults(node, enc)); !got.Equal(want) {
			t.Fatalf("PlanDefaults differs from FillDefaults(ApplyNodeDefaults(Encode)):\ngot  %s\nwant %s", got, want)
		}

		var nodeAttrs map[string]tftypes.Value
		if v.IsKnown() && !v.IsNull() {
			_ = v.As(&nodeAttrs)
		}
		attrs := make(map[string]tftypes.Value, len(rootType.AttributeTypes))
		for name, at := range rootType.AttributeTypes {
			if x, ok := nodeAttrs[name]; ok {
				attrs[name] = x
			} else {
				attrs[name] = tftypes.NewValue(at, nil)
			}
		}
		var vresp fwresource.ValidateConfigResponse
		validator.ValidateConfig(ctx, fwresource.ValidateConfigRequest{
			Config: tfsdk.Config{Raw: tftypes.NewValue(rootType, attrs), Schema: sresp.Schema},
		}, &vresp)
	})
}

// FuzzHCLString: acctest.HCL writes any string as an HCL literal that reads back as the same
// string (quotes, backslashes, control characters and template sequences escaped).
func FuzzHCLString(f *testing.F) {
	for _, s := range []string{"", "plain", `a"b\c`, "line\nbreak\ttab\r", "${var.x}", "%{ if x }", "$${", "%%{", "$", "%",
		"{}", "\x00\x01\x7f", "ünïcödé ✓", "$$${x}", "trailing $", "100%{", "n\u0323\u0304"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // Terraform strings are Unicode
		}
		lit := acctest.HCL(tftypes.NewValue(tftypes.String, s))
		expr, diags := hclsyntax.ParseExpression([]byte(lit), "x.tf", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("HCL(%q) = %s does not parse: %s", s, lit, diags)
		}
		val, diags := expr.Value(nil)
		if diags.HasErrors() {
			t.Fatalf("HCL(%q) = %s does not evaluate: %s", s, lit, diags)
		}
		// HCL, like Terraform, reads strings in Unicode normal form C.
		if got := val.AsString(); got != norm.NFC.String(s) {
			t.Fatalf("HCL(%q) = %s reads back as %q", s, lit, got)
		}
	})
}

// TestHCLFullObjects: the HCL of every full object parses, and each string reads back as written.
func TestHCLFullObjects(t *testing.T) {
	for _, obj := range fullObjects() {
		v := k8sschema.Encode(leaderworkerset.Kind.Node(), obj)
		src := acctest.ResourceHCL("kubeinfer_leaderworkerset", obj.Name, v)
		file, diags := hclsyntax.ParseConfig([]byte(src), "x.tf", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %s\n%s", obj.Name, diags, src)
		}
		body := file.Body.(*hclsyntax.Body)
		if len(body.Blocks) != 1 || body.Blocks[0].Type != "resource" || body.Blocks[0].Labels[1] != obj.Name {
			t.Fatalf("%s: not one resource block:\n%s", obj.Name, src)
		}
		spec, diags := body.Blocks[0].Body.Attributes["spec"].Expr.Value(nil)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", obj.Name, diags)
		}
		lwt := spec.GetAttr("leader_worker_template")
		if got := lwt.GetAttr("size"); !got.AsBigFloat().IsInt() {
			t.Errorf("%s: size = %v", obj.Name, got)
		}
		ann := lwt.GetAttr("worker_template").GetAttr("metadata").GetAttr("annotations").AsValueMap()["note"].AsString()
		if ann != "uses ${literal} and %{literal} text" {
			t.Errorf("%s: annotation reads back as %q", obj.Name, ann)
		}
	}
}
