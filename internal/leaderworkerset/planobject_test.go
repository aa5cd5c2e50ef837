package leaderworkerset

import (
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// With manage_replicas = false, the plan takes spec.replicas from state (unknown on a create),
// but never replaces a written value: validation forbids it, and Terraform rejects a plan that
// changes a configured value.
func TestPlanObjectManageReplicasFalse(t *testing.T) {
	node := rules.Kind.Node()
	extras := map[string]tftypes.Value{rules.AttrManageReplicas: tftypes.NewValue(tftypes.Bool, false)}
	obj := lwsfixture.VLLM("vllm", 3, 2)
	written := k8sschema.Encode(node, obj)
	obj.Spec.Replicas = nil
	unwritten := k8sschema.Encode(node, obj)
	live := lwsfixture.VLLM("vllm", 7, 2)
	state := k8sschema.Encode(node, live)
	replicas := func(v tftypes.Value) tftypes.Value {
		r, _ := k8sschema.ValueAt(node, v, "spec.replicas")
		return r
	}
	if r := replicas(planObject(unwritten, written, state, extras)); !r.Equal(tftypes.NewValue(tftypes.Number, big.NewFloat(7))) {
		t.Errorf("update: planned %s, want the state's 7", r)
	}
	if r := replicas(planObject(unwritten, written, k8sschema.NullValue(node), extras)); r.IsKnown() {
		t.Errorf("create: planned %s, want unknown", r)
	}
	if r := replicas(planObject(written, written, state, extras)); !r.Equal(tftypes.NewValue(tftypes.Number, big.NewFloat(3))) {
		t.Errorf("written: planned %s, want the written 3", r)
	}
}
