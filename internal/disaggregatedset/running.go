package disaggregatedset

import (
	"context"
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
)

// The replicas of an External role (v0.10.0) belong to its DisaggregatedSetRoleScaler: the
// controller sizes the role's LeaderWorkerSets from the scaler's spec.replicas
// (getTargetReplicas, pkg/controllers/disaggregatedset/executor.go, 2161f38), what an autoscaler
// asks for, and ignores the role's own value, which stays whatever was last written. The state
// records instead the groups that run, so the footprint, the rollout preview and a switch back
// to Static count what serves traffic.

// RunningReplicas is the number of groups an External role runs: the role scaler's
// status.replicas, which the controller writes on every reconcile as the sum of the
// status.replicas (groups created) of the role's LeaderWorkerSets of every revision and slice
// (updateScalerStatus and ScalerManager.WriteStatus, disaggregatedset_controller.go and
// scaler_manager.go, 2161f38), not its spec.replicas, which an autoscaler may have raised
// before any group runs. Before the controller has written the status (no observedGeneration,
// no condition), the same sum over the LeaderWorkerSets given. found is false when neither
// says anything (the controller has not reconciled yet).
func RunningReplicas(scaler *unstructured.Unstructured, lwss []unstructured.Unstructured, role string) (n int64, found bool) {
	if scaler != nil {
		_, observed, _ := unstructured.NestedInt64(scaler.Object, "status", "observedGeneration")
		_, conditions, _ := unstructured.NestedSlice(scaler.Object, "status", "conditions")
		if observed || conditions {
			// status.replicas is omitempty: absent once written means 0.
			n, _, _ := unstructured.NestedInt64(scaler.Object, "status", "replicas")
			return n, true
		}
	}
	for i := range lwss {
		if lwss[i].GetLabels()[disaggv1.RoleLabelKey] != role {
			continue
		}
		r, _, _ := unstructured.NestedInt64(lwss[i].Object, "status", "replicas")
		n += r
		found = true
	}
	return n, found
}

// withRunningReplicas is the AfterRead hook: a copy of the set read from the server with each
// External role's spec.replicas replaced by the groups it runs (RunningReplicas). Objects it
// cannot read leave the value as the server has it.
func withRunningReplicas(ctx context.Context, dyn dynamic.Interface, u *unstructured.Unstructured) *unstructured.Unstructured {
	return setRunningReplicas(ctx, dyn, u, nil)
}

// setRunningReplicas sets each External role's spec.replicas in a copy of u: keep[role] when
// given, else the groups it runs.
func setRunningReplicas(ctx context.Context, dyn dynamic.Interface, u *unstructured.Unstructured, keep map[string]int64) *unstructured.Unstructured {
	roles, _, _ := unstructured.NestedSlice(u.Object, "spec", "roles")
	var external []int
	for i, r := range roles {
		role, _ := r.(map[string]any)
		if mode, _, _ := unstructured.NestedString(role, "scaling", "mode"); mode == string(disaggv1.RoleScalingExternal) {
			external = append(external, i)
		}
	}
	if len(external) == 0 {
		return u
	}
	ns, name := u.GetNamespace(), u.GetName()
	var lwss []unstructured.Unstructured
	listed := false
	out := u.DeepCopy()
	for _, i := range external {
		role, _ := roles[i].(map[string]any)
		roleName, _ := role["name"].(string)
		n, found := keep[roleName]
		if !found && dyn != nil {
			scaler, err := dyn.Resource(RoleScalerKind.GVR()).Namespace(ns).Get(ctx, rules.ScalerName(name, roleName), metav1.GetOptions{})
			if err != nil {
				scaler = nil
			}
			if n, found = RunningReplicas(scaler, nil, roleName); !found {
				if !listed {
					listed = true
					if l, err := dyn.Resource(leaderWorkerSetsGVR).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name}); err == nil {
						lwss = l.Items
					}
				}
				n, found = RunningReplicas(nil, lwss, roleName)
			}
		}
		if !found {
			continue
		}
		role = runtime.DeepCopyJSON(role)
		if err := unstructured.SetNestedField(role, n, "spec", "replicas"); err == nil {
			roles[i] = role
		}
	}
	_ = unstructured.SetNestedSlice(out.Object, roles, "spec", "roles")
	return out
}

// afterApply waits for the rollout, then records each External role's replicas: the planned
// value where the plan knows it (the prior state's count: the state must be what was planned),
// else the groups that run.
func afterApply(ctx context.Context, dyn dynamic.Interface, ri dynamic.ResourceInterface, u *unstructured.Unstructured, extras map[string]tftypes.Value) (*unstructured.Unstructured, error) {
	final, err := waitForRollout(ctx, dyn, ri, u, extras)
	if final == nil {
		final = u
	}
	return setRunningReplicas(context.WithoutCancel(ctx), dyn, final, plannedExternalReplicas(extras)), err
}

// plannedExternalReplicas are the known planned replicas of the External roles, by role name.
func plannedExternalReplicas(extras map[string]tftypes.Value) map[string]int64 {
	out := map[string]int64{}
	spec, ok := extras["spec"]
	if !ok {
		return out
	}
	rolesVal, ok := attrAt(spec, "roles")
	if !ok || !rolesVal.IsKnown() || rolesVal.IsNull() {
		return out
	}
	var roles []tftypes.Value
	if rolesVal.As(&roles) != nil {
		return out
	}
	for _, role := range roles {
		name, ok := stringAttr(role, "name")
		if !ok || !roleExternal(role) {
			continue
		}
		v, ok := attrAt(role, "spec", "replicas")
		if !ok || !v.IsKnown() || v.IsNull() {
			continue
		}
		var f big.Float
		if v.As(&f) == nil {
			n, _ := f.Int64()
			out[name] = n
		}
	}
	return out
}

// ScaleChange is a role whose count changes hands: External -> Static, from the groups that run
// to the configured replicas.
// scaleChanges lists the roles that are External in oldObj and Static in newObj, with a count
// that differs from the groups running (oldObj's replicas, the state's record of them), times
// the slices.
// replicasOrDefault is a role's replicas, the CRD default 1 when unset.
// Message says the change in groups and in what they hold: "4 running groups -> 2: 2 groups of 8
// GPUs removed".
// groupContent is what one group holds: its GPUs when it requests any, else its pods.
// scaleChangePlan is the plan's verdict on the roles leaving External: a warning for each, and
// with allow_group_restarts = false an error for each scale-down, as for a restart: groups that
// serve traffic go away.
// slicesChangePlan warns which slices a change of slices adds or removes (v0.10.0: the controller
// creates the LeaderWorkerSets of slices up to slices - 1 and deletes those beyond,
// cleanupRemovedSlices in pkg/controllers/disaggregatedset/disaggregatedset_controller.go,
// 2161f38), with their groups and GPUs: removed slices count the prior replicas, added ones the
// planned.
// slicesOf is the set's slices, the CRD default 1 when unset.
