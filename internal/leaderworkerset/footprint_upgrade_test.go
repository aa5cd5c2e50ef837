package leaderworkerset_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// A state written before the footprint attribute existed holds it null: the plan of an
// unchanged configuration keeps it null (a provider upgrade plans no update), and a real
// change plans it known.
func TestFootprintOfAnOlderStatePlansNoChange(t *testing.T) {
	ctx := context.Background()
	srv := provider.NewServer("test")()
	sch, _ := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	typ := sch.ResourceSchemas["kubeinfer_leaderworkerset"].ValueType().(tftypes.Object)
	obj := lwsfixture.VLLM("upgrade", 2, 4)
	config := resourceConfig(typ, obj)
	plan := func(config, proposed, prior tftypes.Value) tftypes.Value {
		t.Helper()
		dv := func(v tftypes.Value) *tfprotov6.DynamicValue {
			d, err := tfprotov6.NewDynamicValue(typ, v)
			if err != nil {
				t.Fatal(err)
			}
			return &d
		}
		resp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "kubeinfer_leaderworkerset",
			Config: dv(config), ProposedNewState: dv(proposed), PriorState: dv(prior)})
		failed := err != nil
		for _, d := range resp.Diagnostics {
			failed = failed || d.Severity == tfprotov6.DiagnosticSeverityError
		}
		if failed {
			for _, d := range resp.Diagnostics {
				t.Errorf("plan: %s: %s: %s", d.Severity, d.Summary, d.Detail)
			}
			t.Fatalf("plan: %v", err)
		}
		v, err := resp.PlannedState.Unmarshal(typ)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	created := plan(config, config, tftypes.NewValue(typ, nil))
	// The state after the apply: the unknown values the server fills in, here null.
	state, err := tftypes.Transform(created, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	attrs := map[string]tftypes.Value{}
	_ = state.As(&attrs)
	if pods := footprintPods(t, attrs["footprint"]); pods != 8 {
		t.Fatalf("footprint.pods planned at create = %d, want 8", pods)
	}
	attrs["footprint"] = tftypes.NewValue(typ.AttributeTypes["footprint"], nil)
	older := tftypes.NewValue(typ, attrs)

	if got := plan(config, older, older); !got.Equal(older) {
		diff, _ := got.Diff(older)
		t.Errorf("an unchanged configuration over an older state plans a change: %v", diff)
	}
	if got := plan(config, state, state); !got.Equal(state) {
		diff, _ := got.Diff(state)
		t.Errorf("an unchanged configuration plans a change: %v", diff)
	}

	obj.Spec.Replicas = ptr.To[int32](3)
	changed := resourceConfig(typ, obj)
	var cattrs map[string]tftypes.Value
	_ = changed.As(&cattrs)
	attrs["spec"] = cattrs["spec"]
	proposed := tftypes.NewValue(typ, attrs)
	var planned map[string]tftypes.Value
	_ = plan(changed, proposed, older).As(&planned)
	if pods := footprintPods(t, planned["footprint"]); pods != 12 {
		t.Errorf("footprint.pods planned for 3 groups over an older state = %d, want 12", pods)
	}
}

func footprintPods(t *testing.T, v tftypes.Value) int64 {
	t.Helper()
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil || attrs == nil {
		t.Fatalf("footprint %v: %v", v, err)
	}
	var f big.Float
	if err := attrs["pods"].As(&f); err != nil {
		t.Fatal(err)
	}
	n, _ := f.Int64()
	return n
}
