package disaggregatedset

import (
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/utils/ptr"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// node is the DisaggregatedSet node tree of the rules.
var node = rules.Kind.Node

// The apply body of an External role carries no replicas; a Static role's stay.
func TestApplyBodyLeavesExternalReplicas(t *testing.T) {
	body := map[string]any{"spec": map[string]any{"roles": []any{
		map[string]any{"name": "prefill", "spec": map[string]any{"replicas": int64(2)}},
		map[string]any{"name": "decode", "scaling": map[string]any{"mode": "External"}, "spec": map[string]any{"replicas": int64(4), "startupPolicy": "LeaderReady"}},
		map[string]any{"name": "router", "scaling": map[string]any{"mode": "Static"}, "spec": map[string]any{"replicas": int64(1)}},
	}}}
	applyBody(body, nil)
	roles := body["spec"].(map[string]any)["roles"].([]any)
	for i, want := range []bool{true, false, true} {
		_, has := roles[i].(map[string]any)["spec"].(map[string]any)["replicas"]
		if has != want {
			t.Errorf("role %d: replicas in body %v, want %v", i, has, want)
		}
	}
	if roles[1].(map[string]any)["spec"].(map[string]any)["startupPolicy"] != "LeaderReady" {
		t.Errorf("other fields of the External role were dropped")
	}
}

func replicasAt(t *testing.T, v tftypes.Value, i int) tftypes.Value {
	t.Helper()
	roles, _ := k8sschema.ValueAt(node(), v, "spec.roles")
	var list []tftypes.Value
	if err := roles.As(&list); err != nil {
		t.Fatal(err)
	}
	r, ok := attrAt(list[i], "spec", "replicas")
	if !ok {
		t.Fatalf("no replicas in role %d", i)
	}
	return r
}

// An External role plans the replicas recorded in state when it was External before (another
// manager's value is no drift), and unknown on a create or when it becomes External; Static roles
// keep the planned value.
func TestPlanObjectExternalReplicas(t *testing.T) {
	planned := dsfixture.Pair()
	dsfixture.External(planned, 1)
	planned.Spec.Roles[1].Spec.Replicas = nil
	config := k8sschema.Encode(node(), planned)            // the External role's replicas not written
	planned.Spec.Roles[1].Spec.Replicas = ptr.To[int32](1) // the planned CRD default
	plan := k8sschema.Encode(node(), planned)

	prior := dsfixture.Pair()
	dsfixture.External(prior, 1)
	prior.Spec.Roles[1].Spec.Replicas = ptr.To[int32](7) // changed by another manager
	state := k8sschema.Encode(node(), prior)

	got := planObject(config, plan, state, nil)
	if r := replicasAt(t, got, 1); !r.Equal(tftypes.NewValue(tftypes.Number, big.NewFloat(7))) {
		t.Errorf("External role planned %v, want the state's 7", r)
	}
	if r := replicasAt(t, got, 0); !r.Equal(tftypes.NewValue(tftypes.Number, big.NewFloat(2))) {
		t.Errorf("Static role planned %v, want 2", r)
	}

	created := planObject(config, plan, k8sschema.NullValue(node()), nil)
	if r := replicasAt(t, created, 1); r.IsKnown() {
		t.Errorf("create: External role planned %v, want unknown", r)
	}

	static := dsfixture.Pair()
	static.Spec.Roles[1].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingStatic}
	switched := planObject(config, plan, k8sschema.Encode(node(), static), nil)
	if r := replicasAt(t, switched, 1); r.IsKnown() {
		t.Errorf("Static -> External: planned %v, want unknown", r)
	}

	// External -> Static: the configured value is planned and sent again.
	staticPlan := k8sschema.Encode(node(), static)
	if got := planObject(staticPlan, staticPlan, state, nil); !got.Equal(staticPlan) {
		t.Errorf("External -> Static changed the plan")
	}

	// A written value (which validation forbids) stays in the plan: Terraform rejects a plan
	// that replaces a configured value.
	if got := planObject(plan, plan, k8sschema.NullValue(node()), nil); !got.Equal(plan) {
		t.Errorf("a written replicas of an External role was replaced in the plan")
	}
}
