package rules

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// Rollout is what the DisaggregatedSet controller does with an in-place update.
type Rollout struct {
	Name string // namespace/name
	// Changed are the fields that change the revision (none: nothing rolls).
	Changed []*field.Path
	// From and To are the revisions the controller labels the LeaderWorkerSets with.
	From, To string
	// Slices is the number of copies of every role (v0.10.0), 1 before.
	Slices int
	Roles  []RoleRollout
}

// RoleRollout is one role's part of a rollout.
type RoleRollout struct {
	Name string
	// Replicas are the role's groups per slice: for an External role, those that run (the
	// state's record of them).
	Replicas int
	External bool
	// Batch is how many groups of the role move per step.
	Batch int
}

// Groups is the number of groups the rollout replaces, over every role and slice.
func (r Rollout) Groups() int {
	total := 0
	for _, role := range r.Roles {
		total += role.Replicas
	}
	return total * r.Slices
}

// PreviewRollout decides, as the controller does, whether an update rolls. The controller
// names every role's LeaderWorkerSet after one revision of the whole set, ComputeRevision
// (revision.go): when it changes, Reconcile
// (pkg/controllers/disaggregatedset/disaggregatedset_controller.go) creates a new
// LeaderWorkerSet for every role (and, on v0.10.0, every slice) and drains the old ones,
// whichever role's template changed. replicas, scaling, slices, placement, rolloutStrategy,
// startupPolicy, networkConfig and metadata are outside the hash.
func PreviewRollout(newObj, oldObj *disaggv1.DisaggregatedSet) Rollout {
	r := Rollout{Name: newObj.Namespace + "/" + newObj.Name, Slices: 1,
		From: ComputeRevision(oldObj.Spec.Roles), To: ComputeRevision(newObj.Spec.Roles)}
	if newObj.Spec.Slices != nil {
		r.Slices = max(int(*newObj.Spec.Slices), 1)
	}
	if r.From == r.To {
		return r
	}
	r.Changed = changedRoleFields(newObj, oldObj)
	if len(r.Changed) == 0 { // a difference the JSON diff does not see: name the roles
		r.Changed = []*field.Path{field.NewPath("spec", "roles")}
	}
	for i := range newObj.Spec.Roles {
		role := &newObj.Spec.Roles[i]
		replicas := int(replicasOrDefault(role))
		r.Roles = append(r.Roles, RoleRollout{Name: role.Name, Replicas: replicas, External: External(role), Batch: roleBatch(*role, replicas)})
	}
	return r
}

// roleBatch is the number of a role's groups moved per step: extractRollingUpdateConfig and
// batchSize (pkg/controllers/disaggregatedset/executor.go and planner.go, v0.9.0): maxSurge
// (rounded up) when positive, else maxUnavailable (rounded down), at least 1; without a
// rollingUpdateConfiguration, a surge of 1.
func roleBatch(role disaggv1.DisaggregatedRoleSpec, replicas int) int {
	surge, unavailable := 1, 0
	if rc := role.Spec.RolloutStrategy.RollingUpdateConfiguration; rc != nil {
		s, _ := intstr.GetScaledValueFromIntOrPercent(&rc.MaxSurge, replicas, true)
		u, _ := intstr.GetScaledValueFromIntOrPercent(&rc.MaxUnavailable, replicas, false)
		if u > 0 {
			surge, unavailable = s, u
		} else if s > 0 {
			surge = s
		}
	}
	if surge > 0 {
		return surge
	}
	return max(1, unavailable)
}

// changedRoleFields lists the role names and template fields that differ.
func changedRoleFields(newObj, oldObj *disaggv1.DisaggregatedSet) []*field.Path {
	roles := field.NewPath("spec", "roles")
	if len(newObj.Spec.Roles) != len(oldObj.Spec.Roles) {
		return []*field.Path{roles}
	}
	lwtNode := k8sschema.NodeAt(node().FieldJSON("spec").FieldJSON("roles").Elem, "spec.leaderWorkerTemplate")
	var out []*field.Path
	for i := range newObj.Spec.Roles {
		n, o := newObj.Spec.Roles[i], oldObj.Spec.Roles[i]
		if n.Name != o.Name {
			out = append(out, roles.Index(i).Child("name"))
		}
		out = append(out, k8sschema.ChangedFields(lwtNode, roles.Index(i).Child("spec", "leaderWorkerTemplate"),
			k8sschema.JSONValue(o.Spec.LeaderWorkerTemplate), k8sschema.JSONValue(n.Spec.LeaderWorkerTemplate))...)
	}
	return out
}

// Message is the plan's warning, "" when nothing rolls.
func (r Rollout) Message() string {
	if len(r.Changed) == 0 {
		return ""
	}
	names, counts, batches := make([]string, len(r.Roles)), make([]string, len(r.Roles)), make([]string, len(r.Roles))
	running := false
	for i, role := range r.Roles {
		names[i] = role.Name
		counts[i] = fmt.Sprintf("%s %d", role.Name, role.Replicas)
		if role.External {
			counts[i] += " running"
			running = true
		}
		batches[i] = fmt.Sprintf("%s %d", role.Name, role.Batch)
	}
	groups := fmt.Sprintf("all %d groups (%s) are replaced", r.Groups(), strings.Join(counts, ", "))
	if r.Slices > 1 {
		groups = fmt.Sprintf("%d slices of %d groups (%d) are replaced, per slice %s", r.Slices, r.Groups()/r.Slices, r.Groups(), strings.Join(counts, ", "))
	}
	if running {
		groups += " (External roles: the groups running now, which the autoscaler may change)"
	}
	return fmt.Sprintf("Rolling update of EVERY role: %s moves from revision %s to %s, so ALL %d roles (%s) are recreated, "+
		"including roles whose template did not change: the controller creates a new LeaderWorkerSet for each role and scales "+
		"the old ones down in step, until %s; groups per step: %s; changed: %s",
		r.Name, r.From, r.To, len(r.Roles), strings.Join(names, ", "), groups, strings.Join(batches, ", "),
		k8sschema.FieldList(node(), r.Changed))
}

// rolloutFields are the planned values the preview depends on.
var rolloutFields = []string{"spec.roles", "spec.slices", "spec.placementPolicy", "metadata.name", "metadata.namespace"}

// planUpdate is the kind's PlanUpdate: the rollout preview as a warning on the resource, and
// the guard (allow_group_restarts = false) as an error on the first changed field.
func planUpdate(newObj, oldObj runtime.Object, extras map[string]tftypes.Value, unknown []*field.Path) ([]kindrules.Warning, field.ErrorList) {
	if k8sschema.DependsOnUnknown(unknown, rolloutFields) {
		return nil, nil
	}
	newDS, oldDS := kindrules.As[*disaggv1.DisaggregatedSet](newObj), kindrules.As[*disaggv1.DisaggregatedSet](oldObj)
	allow := kindrules.BoolExtra(extras, lwsrules.AttrAllowGroupRestarts, true)
	warnings, errs := scaleChangePlan(newDS, oldDS, allow)
	warnings = append(warnings, slicesChangePlan(newDS, oldDS)...)
	r := PreviewRollout(newDS, oldDS)
	msg := r.Message()
	if msg == "" {
		if changed := pendingFields(newDS, oldDS); len(changed) > 0 {
			warnings = append(warnings, pendingWarning(newDS, changed, slicesAdded(newDS, oldDS)))
		}
		return warnings, errs
	}
	if r.Groups() == 0 || allow {
		return append(warnings, kindrules.Warning{Summary: "Rolling update of every role of DisaggregatedSet " + r.Name, Detail: msg}), errs
	}
	return warnings, append(errs, field.Forbidden(r.Changed[0], fmt.Sprintf(
		"allow_group_restarts = false, and this change makes a new revision of %s (%s, from %s) that recreates every group of EVERY role, "+
			"not only of the role changed (changed: %s). Revert the change, or set allow_group_restarts = true to roll it out.",
		r.Name, r.To, r.From, k8sschema.FieldList(node(), r.Changed))))
}
