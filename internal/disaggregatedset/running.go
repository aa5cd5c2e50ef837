package disaggregatedset

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/footprint"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// The replicas of an External role (v0.10.0) belong to its DisaggregatedSetRoleScaler: the
// controller sizes the role's LeaderWorkerSets from the scaler's spec.replicas
// (getTargetReplicas, pkg/controllers/disaggregatedset/executor.go, 2161f38) and ignores the
// role's own value, which stays whatever was last written. The state records instead the groups
// the controller runs, so the footprint, the rollout preview and a switch back to Static count
// what serves traffic.

// RunningReplicas is the number of groups an External role runs: the role scaler's
// spec.replicas when the scaler exists, else the summed replicas of the role's LeaderWorkerSets
// of the given revision (every slice; a LeaderWorkerSet without replicas has the CRD's default
// of 1). found is false when neither says anything (the controller has not reconciled yet).
func RunningReplicas(scaler *unstructured.Unstructured, lwss []unstructured.Unstructured, role, revision string) (n int64, found bool) {
	if scaler != nil {
		if n, ok, _ := unstructured.NestedInt64(scaler.Object, "spec", "replicas"); ok {
			return n, true
		}
	}
	for i := range lwss {
		labels := lwss[i].GetLabels()
		if labels[disaggv1.RoleLabelKey] != role || labels[disaggv1.RevisionLabelKey] != revision || lwss[i].GetDeletionTimestamp() != nil {
			continue
		}
		r, ok, _ := unstructured.NestedInt64(lwss[i].Object, "spec", "replicas")
		if !ok {
			r = 1
		}
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
	revision := ""
	out := u.DeepCopy()
	for _, i := range external {
		role, _ := roles[i].(map[string]any)
		roleName, _ := role["name"].(string)
		n, found := keep[roleName]
		if !found && dyn != nil {
			scaler, err := dyn.Resource(RoleScalerKind.GVR()).Namespace(ns).Get(ctx, ScalerName(name, roleName), metav1.GetOptions{})
			if err != nil {
				scaler = nil
			}
			if scaler == nil && !listed {
				listed = true
				if l, err := dyn.Resource(leaderWorkerSetsGVR).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name}); err == nil {
					lwss = l.Items
				}
				// The controller hashes the object as the server has it (its CRD defaults applied).
				ds := &disaggv1.DisaggregatedSet{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, ds); err == nil {
					revision = ComputeRevision(ds.Spec.Roles)
				}
			}
			n, found = RunningReplicas(scaler, lwss, roleName, revision)
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
type ScaleChange struct {
	Role            string
	Index           int
	Running, Target int64
	// PerGroup is what one group requests (GPUs and pods).
	PerGroup footprint.Group
}

// scaleChanges lists the roles that are External in oldObj and Static in newObj, with a count
// that differs from the groups running (oldObj's replicas, the state's record of them), times
// the slices.
func scaleChanges(newObj, oldObj *disaggv1.DisaggregatedSet) []ScaleChange {
	slices := int64(1)
	if newObj.Spec.Slices != nil {
		slices = max(int64(*newObj.Spec.Slices), 1)
	}
	old := map[string]*disaggv1.DisaggregatedRoleSpec{}
	for i := range oldObj.Spec.Roles {
		old[oldObj.Spec.Roles[i].Name] = &oldObj.Spec.Roles[i]
	}
	var out []ScaleChange
	for i := range newObj.Spec.Roles {
		role := &newObj.Spec.Roles[i]
		prior, ok := old[role.Name]
		if !ok || !External(prior) || External(role) {
			continue
		}
		running, target := int64(replicasOrDefault(prior)), int64(replicasOrDefault(role))*slices
		if running == target {
			continue
		}
		lwt := &role.Spec.LeaderWorkerTemplate
		out = append(out, ScaleChange{Role: role.Name, Index: i, Running: running, Target: target,
			PerGroup: footprint.NewGroup(lwt.LeaderTemplate, &lwt.WorkerTemplate, lwt.Size, 1, 1)})
	}
	return out
}

// replicasOrDefault is a role's replicas, the CRD default 1 when unset.
func replicasOrDefault(role *disaggv1.DisaggregatedRoleSpec) int32 {
	if role.Spec.Replicas == nil {
		return 1
	}
	return max(*role.Spec.Replicas, 0)
}

// Message says the change in groups and in what they hold: "4 running groups -> 2: 2 groups of 8
// GPUs removed".
func (c ScaleChange) Message() string {
	verb, n := "added", c.Target-c.Running
	if n < 0 {
		verb, n = "removed", -n
	}
	return fmt.Sprintf("%s -> %d: %s of %s %s", groupCount(c.Running, "running "), c.Target, groupCount(n, ""), groupContent(c.PerGroup), verb)
}

// groupCount is "1 group" or "n groups", with adjective before the noun.
func groupCount(n int64, adjective string) string {
	if n == 1 {
		return "1 " + adjective + "group"
	}
	return fmt.Sprintf("%d %sgroups", n, adjective)
}

// groupContent is what one group holds: its GPUs when it requests any, else its pods.
func groupContent(g footprint.Group) string {
	gpus := resource.Quantity{}
	for name, q := range g.PerGroup.Requests {
		if strings.HasSuffix(string(name), "/gpu") { // nvidia.com/gpu, amd.com/gpu
			gpus.Add(q)
		}
	}
	if gpus.IsZero() {
		return fmt.Sprintf("%d pods", g.PodsPerGroup)
	}
	return gpus.String() + " GPUs"
}

// scaleChangePlan is the plan's verdict on the roles leaving External: a warning for each, and
// with allow_group_restarts = false an error for each scale-down, as for a restart: groups that
// serve traffic go away.
func scaleChangePlan(newObj, oldObj *disaggv1.DisaggregatedSet, allowRestarts bool) ([]kube.Warning, field.ErrorList) {
	var warnings []kube.Warning
	var errs field.ErrorList
	for _, c := range scaleChanges(newObj, oldObj) {
		p := field.NewPath("spec", "roles").Index(c.Index).Child("spec", "replicas")
		if c.Target < c.Running && !allowRestarts {
			errs = append(errs, field.Forbidden(p, fmt.Sprintf("allow_group_restarts = false, and switching role %q of %s/%s from External "+
				"to Static removes groups that serve: %s (running: the role scaler's count at the last refresh). Set replicas to "+
				"at least %d, or set allow_group_restarts = true to scale the role down.",
				c.Role, newObj.Namespace, newObj.Name, c.Message(), c.Running)))
			continue
		}
		msg := fmt.Sprintf("Role %q of %s/%s switches from External to Static scaling: %s (running: the role scaler's count at "+
			"the last refresh). The controller deletes the role scaler %q and sizes the role's LeaderWorkerSets to replicas; an "+
			"autoscaler that targets the scaler no longer has a target.",
			c.Role, newObj.Namespace, newObj.Name, c.Message(), ScalerName(newObj.Name, c.Role))
		warnings = append(warnings, kube.Warning{Summary: "Role " + c.Role + " of DisaggregatedSet " + newObj.Namespace + "/" + newObj.Name + " leaves External scaling", Detail: msg})
	}
	return warnings, errs
}

// slicesChangePlan warns which slices a change of slices adds or removes (v0.10.0: the controller
// creates the LeaderWorkerSets of slices up to slices - 1 and deletes those beyond,
// cleanupRemovedSlices in pkg/controllers/disaggregatedset/disaggregatedset_controller.go,
// 2161f38), with their groups and GPUs: removed slices count the prior replicas, added ones the
// planned.
func slicesChangePlan(newObj, oldObj *disaggv1.DisaggregatedSet) []kube.Warning {
	from, to := slicesOf(oldObj), slicesOf(newObj)
	if from == to {
		return nil
	}
	verb, first, last, ds := "added", from, to-1, newObj
	if to < from {
		verb, first, last, ds = "removed (their LeaderWorkerSets and pods are deleted)", to, from-1, oldObj
	}
	n := last - first + 1
	which := fmt.Sprintf("slice %d is", first)
	if n > 1 {
		which = fmt.Sprintf("slices %d-%d are", first, last)
	}
	groups, counts := int64(0), make([]string, 0, len(ds.Spec.Roles))
	gpus := resource.Quantity{}
	for i := range ds.Spec.Roles {
		role := &ds.Spec.Roles[i]
		replicas := int64(replicasOrDefault(role))
		groups += replicas
		counts = append(counts, fmt.Sprintf("%s %d", role.Name, replicas))
		lwt := &role.Spec.LeaderWorkerTemplate
		g := footprint.NewGroup(lwt.LeaderTemplate, &lwt.WorkerTemplate, lwt.Size, replicas, replicas)
		for name, q := range g.Total(replicas * int64(n)).Requests {
			if strings.HasSuffix(string(name), "/gpu") {
				gpus.Add(q)
			}
		}
	}
	msg := fmt.Sprintf("slices %d -> %d: %s %s: %d groups (%d per slice: %s)", from, to, which, verb, groups*int64(n), groups, strings.Join(counts, ", "))
	if !gpus.IsZero() {
		msg += fmt.Sprintf(", %s GPUs", gpus.String())
	}
	return []kube.Warning{{Summary: "Slices of DisaggregatedSet " + newObj.Namespace + "/" + newObj.Name + " " + strings.SplitN(verb, " ", 2)[0], Detail: msg}}
}

// slicesOf is the set's slices, the CRD default 1 when unset.
func slicesOf(ds *disaggv1.DisaggregatedSet) int {
	if ds.Spec.Slices == nil {
		return 1
	}
	return max(int(*ds.Spec.Slices), 1)
}
