package prioritylevelconfiguration_test

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"math/big"
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	plc "github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
	plcrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration/rules"
)

// fuzzSeeds are JSON objects for the seed corpus: the bootstrap levels, valid levels of one's
// own, objects that break rules, and values of the wrong shape.
func fuzzSeeds(f *testing.F) [][]byte {
	var out [][]byte
	for _, n := range append(append([]string{}, plcrules.MandatoryLevels...), plcrules.SuggestedLevels...) {
		s, _ := plcrules.BootstrapSpec(n)
		b, err := json.Marshal(flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: n,
			Annotations: map[string]string{plcrules.AutoUpdateAnnotation: "true"}}, Spec: s})
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	for _, s := range []string{
		`{}`,
		`null`,
		`[]`,
		`{"metadata":{"name":"x"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{}}}}}`,
		`{"metadata":{"name":"x"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":0,"lendablePercent":100,"borrowingLimitPercent":2147483647,"limitResponse":{"type":"Reject"}}}}`,
		`{"metadata":{"name":"Bad_Name","namespace":"ns","labels":{"bad key":"-"},"annotations":{"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares":""}},"spec":{}}`,
		`{"metadata":{"name":"x"},"spec":{"type":"Exempt","limited":{"limitResponse":{"type":"Queue"}},"exempt":{"nominalConcurrencyShares":-1,"lendablePercent":101}}}`,
		`{"metadata":{"name":"x"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{"queues":-1,"handSize":2147483647,"queueLengthLimit":-2147483648}}}}}`,
		`{"metadata":{"name":"x"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{"queues":10000000,"handSize":3}}}}}`,
		`{"metadata":{"generateName":"gen-","finalizers":["a","b/c"]},"spec":{"type":"","limited":{"limitResponse":{"type":"Drop","queuing":{"queues":1,"handSize":2}}}}}`,
		`{"status":{"conditions":[{"type":"x","status":"True","lastTransitionTime":"2020-01-01T00:00:00Z"},{}]}}`,
		`{"metadata":{"name":""},"spec":{"type":"Limited","limited":null}}`,
		`not json`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// mutate turns some nodes of v into unknown or null values, or numbers into values that do not
// fit the Go type, chosen by a hash of the node's path and the fuzzed mask.
func mutate(t *testing.T, v tftypes.Value, mask uint64) tftypes.Value {
	if mask == 0 {
		return v
	}
	out, err := tftypes.Transform(v, func(p *tftypes.AttributePath, x tftypes.Value) (tftypes.Value, error) {
		if len(p.Steps()) == 0 {
			return x, nil
		}
		h := fnv.New64a()
		_, _ = h.Write([]byte(p.String()))
		r := h.Sum64() ^ mask
		r ^= r >> 29
		r *= 0xbf58476d1ce4e5b9
		r ^= r >> 32
		switch r % 11 {
		case 0:
			return tftypes.NewValue(x.Type(), tftypes.UnknownValue), nil
		case 1:
			return tftypes.NewValue(x.Type(), nil), nil
		case 2:
			if x.Type().Is(tftypes.Number) {
				weird := []*big.Float{big.NewFloat(0.5), big.NewFloat(-1), big.NewFloat(1e20), big.NewFloat(-3e9), big.NewFloat(2147483648)}
				return tftypes.NewValue(tftypes.Number, weird[(r>>8)%uint64(len(weird))]), nil
			}
			if x.Type().Is(tftypes.String) {
				weird := []string{"", "Exempt", "Limited", "Queue", "Reject", "not a time", "exempt", "catch-all"}
				return tftypes.NewValue(tftypes.String, weird[(r>>8)%uint64(len(weird))]), nil
			}
		}
		return x, nil
	})
	if err != nil {
		t.Fatalf("transform: %v", err)
	}
	return out
}

// FuzzConvertAndValidate builds a Terraform value of the PriorityLevelConfiguration node tree
// from fuzzed JSON, replaces some of its nodes with unknown, null or out-of-range values, and
// runs it through everything plan time does with it: Decode, the provider rules, SetObjectDefaults_PriorityLevelConfiguration,
// ValidatePriorityLevelConfiguration, the capacity formulas, Encode, Merge, FillDefaults and the resource's
// ValidateConfig. Nothing may panic.
func FuzzConvertAndValidate(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(s, uint64(0))
		f.Add(s, uint64(i)*0x9e3779b97f4a7c15+1)
	}
	ctx := context.Background()
	node := plc.Kind.Node()
	r := plc.NewResource()
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	rootType, ok := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	validator, ok2 := r.(fwresource.ResourceWithValidateConfig)
	if !ok || !ok2 {
		f.Fatal("the resource schema is not an object, or the resource does not validate configurations")
	}

	f.Fuzz(func(t *testing.T, data []byte, mask uint64) {
		var src flowcontrolv1.PriorityLevelConfiguration
		if err := json.Unmarshal(data, &src); err != nil {
			// Not an object of the type: use the bytes as a name so that every input runs.
			src = flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: string(data)}}
		}
		v := mutate(t, k8sschema.Encode(node, &src), mask)

		var obj flowcontrolv1.PriorityLevelConfiguration
		dec := k8sschema.Decode(node, v, &obj, nil)
		_ = dec.HasUnknown()
		_ = plcrules.ValidateProviderRules(&obj)
		_ = plcrules.ValidateExplicitZeros(&obj)
		_ = plcrules.PlanWarnings(&obj)
		defaulted := obj.DeepCopy()
		plcrules.SetObjectDefaults_PriorityLevelConfiguration(defaulted)
		errs := plcrules.ValidatePriorityLevelConfiguration(defaulted)
		_ = k8sschema.Diagnostics(node, append(errs, dec.Errs...), dec.Unknown)
		in := plcrules.LevelInputFrom(&obj)
		_, _ = plcrules.ComputeCapacity(600, []plcrules.LevelInput{in})

		enc := k8sschema.Encode(node, defaulted)
		_ = k8sschema.Merge(node, v, enc)
		_ = k8sschema.FillDefaults(node, v, v, enc)
		_ = k8sschema.SemanticEqual(node, v, enc)

		// The resource's plan-time entry point, with the non-object attributes null.
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

		// Once fields outside the schema (generateName, ...) are gone, the conversion round-trips:
		// decoding an encoded object and encoding it again gives the same value.
		if len(dec.Errs) == 0 && !dec.HasUnknown() {
			once := k8sschema.Encode(node, &obj)
			var back flowcontrolv1.PriorityLevelConfiguration
			if d := k8sschema.Decode(node, once, &back, nil); len(d.Errs) > 0 {
				t.Fatalf("decoding an encoded object: %v", d.Errs)
			}
			if twice := k8sschema.Encode(node, &back); !twice.Equal(once) {
				t.Errorf("round trip changed the value:\nbefore %s\nafter  %s", once, twice)
			}
		}
	})
}
