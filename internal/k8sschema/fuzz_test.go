package k8sschema_test

import (
	"math/big"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/util/validation/field"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// fuzzValues builds a Terraform value of a node tree from fuzz input: each byte decides whether
// a node is null, unknown or set, how many elements a list or map has, and which string or
// number a leaf holds (malformed quantities, times and base64, int32 overflows, fractions).
// Once the input is used up every remaining node is null, so short inputs stay cheap.
type fuzzValues struct {
	data []byte
}

func (f *fuzzValues) next() (byte, bool) {
	if len(f.data) == 0 {
		return 0, false
	}
	b := f.data[0]
	f.data = f.data[1:]
	return b, true
}

var fuzzStrings = []string{
	"", "x", "500m", "16Gi", "8", "1.5", "-1", "1e3", "0.1m", "1124 GiB", "Gi", "10%", "101%", "abc%", "%",
	"2147483648", "-2147483649", "2020-01-01T00:00:00Z", "not a time", "30s", "forever", "aGVsbG8=", "!!base64",
	"RollingUpdate", "LeaderReady", "Default", "None", "Hash", "Immediate", "TCP", "${x}", "%{y}", "a\"b\\c\n",
	"nvidia.com/gpu", "topology.kubernetes.io/zone", "DoNotSchedule", "ScheduleAnyway", "\xff\xfe",
}

var fuzzNumbers = []*big.Float{
	big.NewFloat(0), big.NewFloat(1), big.NewFloat(-1), big.NewFloat(0.5), big.NewFloat(2147483647), big.NewFloat(2147483648),
	big.NewFloat(-2147483649), big.NewFloat(1e20), big.NewFloat(-1e300), new(big.Float).SetInt64(-1 << 63),
	new(big.Float).SetUint64(1 << 63), big.NewFloat(4),
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

var fuzzNode = k8sschema.Build(reflect.TypeOf(lwsv1.LeaderWorkerSet{}), k8sschema.Options{
	Only: map[string][]string{"metadata": {"name", "namespace", "labels", "annotations", "uid", "resourceVersion", "generation"}},
	Modes: map[string]k8sschema.Mode{
		"metadata":                       k8sschema.Required,
		"metadata.uid":                   k8sschema.Computed,
		"spec.replicas":                  k8sschema.OptionalComputed,
		"spec.leaderWorkerTemplate.size": k8sschema.OptionalComputed,
		"spec.rolloutStrategy":           k8sschema.OptionalComputed,
		"status":                         k8sschema.Computed,
	},
	KeysFromPrior: []string{"metadata.annotations", "metadata.labels"},
	Equivalents:   map[string]map[string]string{"spec.leaderWorkerTemplate.restartPolicy": {"Default": "None"}},
})

// FuzzDecodeEncode runs fuzzed values of the LeaderWorkerSet node tree through every
// conversion of the package: Decode, Encode, Merge (both ways), SemanticEqual, FillDefaults,
// MarkComputedUnknown, ValueAt and the error-path mapping. Nothing may
// panic, results keep the node's type, and a decoded object round-trips.
func FuzzDecodeEncode(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2})
	f.Add([]byte{1})
	f.Add([]byte{2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 255, 254, 253, 252})
	f.Add([]byte("\x02\x0a\x12\x1a\x22\x2a\x32\x3a\x42\x4a\x52\x5a\x62\x6a\x72\x7a\x82\x8a\x92\x9a\xa2\xaa\xb2\xba\xc2\xca\xd2\xda\xe2\xea\xf2\xfa"))
	f.Add([]byte("\x03\x13\x23\x33\x43\x53\x63\x73\x83\x93\xa3\xb3\xc3\xd3\xe3\xf3\x04\x14\x24\x34\x44\x54\x64\x74\x84\x94\xa4\xb4\xc4\xd4\xe4\xf4"))
	node := fuzzNode
	typ := node.TFType()
	f.Fuzz(func(t *testing.T, data []byte) {
		v := (&fuzzValues{data: data}).value(node, 0)

		var obj lwsv1.LeaderWorkerSet
		dec := k8sschema.Decode(node, v, &obj, nil)
		_ = k8sschema.Diagnostics(node, append(dec.Errs, field.Invalid(field.NewPath("spec", "leaderWorkerTemplate", "SubGroupPolicy", "x"), 1, "x")), dec.Unknown)
		for _, u := range dec.Unknown {
			_, _ = k8sschema.AttributePath(node, u.String())
			_, _ = k8sschema.ValueAt(node, v, u.String())
		}

		enc := k8sschema.Encode(node, &obj)
		results := map[string]tftypes.Value{
			"Encode":              enc,
			"Merge(v, enc)":       k8sschema.Merge(node, v, enc),
			"FillDefaults":        k8sschema.FillDefaults(node, v, v, enc),
			"MarkComputedUnknown": k8sschema.MarkComputedUnknown(node, v, enc),
		}
		if v.IsFullyKnown() {
			// The server's value is always known (Merge's contract); any known value may be one.
			results["Merge(enc, v)"] = k8sschema.Merge(node, enc, v)
		}
		// The lazy, copy-on-write versions used by plans agree with the straightforward ones.
		if got, want := k8sschema.PlanDefaults(node, v, v, &obj), k8sschema.FillDefaults(node, v, v, k8sschema.ApplyNodeDefaults(node, enc)); !got.Equal(want) {
			t.Fatalf("PlanDefaults differs from FillDefaults(ApplyNodeDefaults(Encode)):\ngot  %s\nwant %s", got, want)
		}
		if got, want := results["MarkComputedUnknown"], markComputedUnknownReference(node, v, enc); !got.Equal(want) {
			t.Fatalf("MarkComputedUnknown differs from the reference:\ngot  %s\nwant %s", got, want)
		}
		for name, got := range results {
			if !got.Type().Equal(typ) {
				t.Fatalf("%s returned a value of another type: %s", name, got.Type())
			}
		}
		_ = k8sschema.SemanticEqual(node, v, enc)
		_ = k8sschema.SemanticEqual(node, enc, v)
		if !k8sschema.SemanticEqual(node, enc, enc) {
			t.Fatalf("an encoded value is not semantically equal to itself")
		}

		if len(dec.Errs) == 0 && !dec.HasUnknown() {
			var back lwsv1.LeaderWorkerSet
			if d := k8sschema.Decode(node, enc, &back, nil); len(d.Errs) > 0 || d.HasUnknown() {
				t.Fatalf("decoding an encoded object: %v", d.Errs)
			}
			if again := k8sschema.Encode(node, &back); !again.Equal(enc) {
				t.Fatalf("round trip changed the value:\nbefore %s\nafter  %s", enc, again)
			}
			if m := k8sschema.Merge(node, enc, enc); !m.Equal(enc) {
				t.Fatalf("merging a value with itself changed it")
			}
		}
	})
}

// markComputedUnknownReference is MarkComputedUnknown without its copy-on-write shortcuts.
func markComputedUnknownReference(n *k8sschema.Node, config, plan tftypes.Value) tftypes.Value {
	if (n.Mode == k8sschema.Computed || n.Mode == k8sschema.OptionalComputed) && config.IsNull() {
		return tftypes.NewValue(n.TFType(), tftypes.UnknownValue)
	}
	if !config.IsKnown() || config.IsNull() || !plan.IsKnown() || plan.IsNull() {
		return plan
	}
	switch n.Kind {
	case k8sschema.KindObject:
		var ca, pa map[string]tftypes.Value
		_ = config.As(&ca)
		_ = plan.As(&pa)
		out := make(map[string]tftypes.Value, len(pa))
		for _, f := range n.Fields {
			out[f.TFName] = markComputedUnknownReference(f, ca[f.TFName], pa[f.TFName])
		}
		return tftypes.NewValue(plan.Type(), out)
	case k8sschema.KindList:
		var cl, pl []tftypes.Value
		_ = config.As(&cl)
		_ = plan.As(&pl)
		if len(cl) != len(pl) {
			return plan
		}
		out := make([]tftypes.Value, len(pl))
		for i := range pl {
			out[i] = markComputedUnknownReference(n.Elem, cl[i], pl[i])
		}
		return tftypes.NewValue(plan.Type(), out)
	case k8sschema.KindMap:
		var cm, pm map[string]tftypes.Value
		_ = config.As(&cm)
		_ = plan.As(&pm)
		out := make(map[string]tftypes.Value, len(pm))
		for k, v := range pm {
			out[k] = markComputedUnknownReference(n.Elem, cm[k], v)
		}
		return tftypes.NewValue(plan.Type(), out)
	}
	return plan
}
