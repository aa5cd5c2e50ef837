package protocol

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// stateJSON renders v as Terraform stores it in a state file.
func stateJSON(t *testing.T, v tftypes.Value) []byte {
	t.Helper()
	var render func(v tftypes.Value) any
	render = func(v tftypes.Value) any {
		if v.IsNull() {
			return nil
		}
		switch {
		case v.Type().Is(tftypes.String):
			var s string
			_ = v.As(&s)
			return s
		case v.Type().Is(tftypes.Bool):
			var b bool
			_ = v.As(&b)
			return b
		case v.Type().Is(tftypes.Number):
			var f big.Float
			_ = v.As(&f)
			return json.Number(f.Text('g', -1))
		case v.Type().Is(tftypes.List{}), v.Type().Is(tftypes.Set{}):
			var l []tftypes.Value
			_ = v.As(&l)
			out := []any{}
			for _, x := range l {
				out = append(out, render(x))
			}
			return out
		default:
			var m map[string]tftypes.Value
			_ = v.As(&m)
			out := map[string]any{}
			for k, x := range m {
				out[k] = render(x)
			}
			return out
		}
	}
	b, err := json.Marshal(render(v))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var stateType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"id":     tftypes.String,
	"count":  tftypes.Number,
	"ratio":  tftypes.Number,
	"huge":   tftypes.Number,
	"wait":   tftypes.Bool,
	"labels": tftypes.Map{ElementType: tftypes.String},
	"args":   tftypes.List{ElementType: tftypes.String},
	"tags":   tftypes.Set{ElementType: tftypes.String},
	"spec": tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"containers": tftypes.List{ElementType: tftypes.Object{AttributeTypes: map[string]tftypes.Type{
			"name":  tftypes.String,
			"ports": tftypes.List{ElementType: tftypes.Number},
		}}},
		"unset": tftypes.Object{AttributeTypes: map[string]tftypes.Type{"x": tftypes.String}},
	}},
}}

func TestStateToMsgPackMatchesTFTypes(t *testing.T) {
	huge, _, _ := big.ParseFloat("123456789012345678901234567890", 10, 512, big.ToNearestEven)
	container := stateType.AttributeTypes["spec"].(tftypes.Object).AttributeTypes["containers"].(tftypes.List).ElementType
	value := tftypes.NewValue(stateType, map[string]tftypes.Value{
		"id":     tftypes.NewValue(tftypes.String, "default/vllm"),
		"count":  tftypes.NewValue(tftypes.Number, big.NewFloat(3)),
		"ratio":  tftypes.NewValue(tftypes.Number, big.NewFloat(2.5)),
		"huge":   tftypes.NewValue(tftypes.Number, huge),
		"wait":   tftypes.NewValue(tftypes.Bool, false),
		"labels": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"b": tftypes.NewValue(tftypes.String, "2"), "a": tftypes.NewValue(tftypes.String, "1")}),
		"args":   tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{}),
		"tags":   tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, "gpu")}),
		"spec": tftypes.NewValue(stateType.AttributeTypes["spec"], map[string]tftypes.Value{
			"containers": tftypes.NewValue(tftypes.List{ElementType: container}, []tftypes.Value{
				tftypes.NewValue(container, map[string]tftypes.Value{
					"name":  tftypes.NewValue(tftypes.String, "vllm"),
					"ports": tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, []tftypes.Value{tftypes.NewValue(tftypes.Number, big.NewFloat(8000))}),
				}),
			}),
			"unset": tftypes.NewValue(stateType.AttributeTypes["spec"].(tftypes.Object).AttributeTypes["unset"], nil),
		}),
	})
	raw := stateJSON(t, value)
	// An attribute an older build stored is ignored; one it did not store becomes null.
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	m["removed_attribute"] = "x"
	delete(m, "wait")
	raw, _ = json.Marshal(m)

	mp, err := stateToMsgPack(stateType, raw)
	if err != nil {
		t.Fatal(err)
	}
	got, err := (&tfprotov6.DynamicValue{MsgPack: mp}).Unmarshal(stateType)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tftypes.ValueFromJSONWithOpts(raw, stateType, tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Fatalf("re-encoded state differs from tftypes' decoding:\ngot  %s\nwant %s", got, want)
	}
}

func TestStateToMsgPackRejectsMismatches(t *testing.T) {
	for name, raw := range map[string]string{
		"string for a number": `{"count": "three"}`,
		"number for a string": `{"id": 3}`,
		"object for a list":   `{"args": {}}`,
		"list for an object":  `{"spec": []}`,
		"not JSON":            `{"id": `,
	} {
		if _, err := stateToMsgPack(stateType, []byte(raw)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestStateIdentity(t *testing.T) {
	metaType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name": tftypes.String, "namespace": tftypes.String, "resource_version": tftypes.String,
		"labels": tftypes.Map{ElementType: tftypes.String},
	}}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String, "metadata": metaType, "spec": stateType}}
	encode := func(meta map[string]tftypes.Value) []byte {
		for k, at := range metaType.AttributeTypes {
			if _, ok := meta[k]; !ok {
				meta[k] = tftypes.NewValue(at, nil)
			}
		}
		v := tftypes.NewValue(typ, map[string]tftypes.Value{
			"id":       tftypes.NewValue(tftypes.String, "x"),
			"metadata": tftypes.NewValue(metaType, meta),
			"spec":     tftypes.NewValue(stateType, nil),
		})
		dv, err := tfprotov6NewDynamicValue(typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return dv
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

	ns, name, rv, ok := stateMetadata(encode(map[string]tftypes.Value{"name": str("vllm"), "namespace": str("ml"), "resource_version": str("42"),
		"labels": tftypes.NewValue(metaType.AttributeTypes["labels"], map[string]tftypes.Value{"a": str("b")})}))
	if !ok || name != "vllm" || ns != "ml" || rv != "42" {
		t.Fatalf("got %q %q %q %v", ns, name, rv, ok)
	}
	if _, _, rv, ok := stateMetadata(encode(map[string]tftypes.Value{"name": str("vllm")})); !ok || rv != "" {
		t.Fatalf("null resource_version: got %q %v", rv, ok)
	}
	if _, _, _, ok := stateMetadata(encode(map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)})); ok {
		t.Fatal("an unknown name gave an identity")
	}
	if _, _, _, ok := stateMetadata([]byte{0xc0}); ok {
		t.Fatal("a null state gave an identity")
	}
}

func tfprotov6NewDynamicValue(typ tftypes.Type, v tftypes.Value) ([]byte, error) {
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	return dv.MsgPack, err
}
