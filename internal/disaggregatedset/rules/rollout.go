package rules

import (
	"fmt"
	"sort"
	"strconv"
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
	// TotalSteps is the controller's step count, shared by every role: computeTotalSteps, the
	// most any role needs (its groups over its batch, rounded up). ScaleUpSteps are the steps
	// that add groups of the new revision when the planner is played out (TotalSteps unless a
	// surge limit holds a step back).
	TotalSteps, ScaleUpSteps int
}

// RoleRollout is one role's part of a rollout.
type RoleRollout struct {
	Name string
	// Replicas are the role's groups per slice: for an External role, those that run (the
	// state's record of them). A role the change removes has none.
	Replicas int
	External bool
	// Old are the role's groups of the running revision per slice (the prior state's replicas), 0
	// for a role the change adds.
	Old int
	// Config is the role's maxSurge and maxUnavailable as the controller scales them.
	Config rollingUpdateConfig
	// Removed: the role is in the running revision only; the rollout drains it.
	Removed bool
	// ScaleUps are the role's new groups by scale-up step (1 to Rollout.TotalSteps): how many of
	// its groups of the new revision the controller adds at that step.
	ScaleUps map[int]int
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
// startupPolicy, networkConfig and metadata are outside the hash. The pace is the controller's
// planner (pacing.go), played from the prior state's groups to the new ones.
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
	old := map[string]int{}
	for i := range oldObj.Spec.Roles {
		old[oldObj.Spec.Roles[i].Name] = int(replicasOrDefault(&oldObj.Spec.Roles[i]))
	}
	config := defaultRollingUpdateConfig(len(newObj.Spec.Roles))
	for i := range newObj.Spec.Roles {
		role := &newObj.Spec.Roles[i]
		replicas := int(replicasOrDefault(role))
		setRollingUpdateConfig(&config[i], role, replicas)
		r.Roles = append(r.Roles, RoleRollout{Name: role.Name, Replicas: replicas, External: External(role), Old: old[role.Name], Config: config[i]})
		delete(old, role.Name)
	}
	// The roles of the running revision that the change removes drain with the others
	// (ReconcileRollingUpdate appends them to the spec's roles, executor.go), at the default
	// configuration.
	for i := range oldObj.Spec.Roles {
		if n, ok := old[oldObj.Spec.Roles[i].Name]; ok {
			r.Roles = append(r.Roles, RoleRollout{Name: oldObj.Spec.Roles[i].Name, Old: n, Removed: true, Config: defaultRollingUpdateConfig(1)[0]})
		}
	}
	r.pace()
	return r
}

// setRollingUpdateConfig is extractRollingUpdateConfig (pkg/controllers/disaggregatedset/executor.go,
// v0.9.0 and 2161f38) for one role: maxSurge (rounded up) and maxUnavailable (rounded down) scaled
// by the role's target replicas, over the default surge of 1 when the role has a
// rollingUpdateConfiguration with a positive maxUnavailable or maxSurge.
func setRollingUpdateConfig(c *rollingUpdateConfig, role *disaggv1.DisaggregatedRoleSpec, replicas int) {
	rc := role.Spec.RolloutStrategy.RollingUpdateConfiguration
	if rc == nil {
		return
	}
	surge, _ := intstr.GetScaledValueFromIntOrPercent(&rc.MaxSurge, replicas, true)
	unavailable, _ := intstr.GetScaledValueFromIntOrPercent(&rc.MaxUnavailable, replicas, false)
	if unavailable > 0 {
		c.MaxUnavailable, c.MaxSurge = unavailable, surge
	} else if surge > 0 {
		c.MaxSurge = surge
	}
}

// pace plays the controller's planner over the roles (one slice: each slice rolls by itself, the
// same way, reconcileSlice at 2161f38) and records each role's scale-ups by step.
func (r *Rollout) pace() {
	n := len(r.Roles)
	initialOld, target, config := make([]int, n), make([]int, n), make([]rollingUpdateConfig, n)
	for i, role := range r.Roles {
		initialOld[i], target[i], config[i] = role.Old, role.Replicas, role.Config
	}
	r.TotalSteps = computeTotalSteps(initialOld, target, config)
	steps := computeAllSteps(initialOld, target, config)
	up := 0
	for i := 1; i < len(steps); i++ {
		grew := false
		for j := range r.Roles {
			if d := steps[i].New[j] - steps[i-1].New[j]; d > 0 {
				if !grew {
					up++
					grew = true
				}
				if r.Roles[j].ScaleUps == nil {
					r.Roles[j].ScaleUps = map[int]int{}
				}
				r.Roles[j].ScaleUps[up] += d
			}
		}
	}
	r.ScaleUpSteps = up
}

// pacing says how a role's new groups come: "1 at each of steps 1-8", "1 at steps 1 and 5".
func (role RoleRollout) pacing() string {
	if len(role.ScaleUps) == 0 {
		return "none"
	}
	byCount := map[int][]int{}
	var counts []int
	for step, n := range role.ScaleUps {
		if byCount[n] == nil {
			counts = append(counts, n)
		}
		byCount[n] = append(byCount[n], step)
	}
	sort.Ints(counts)
	var parts []string
	for _, n := range counts {
		steps := byCount[n]
		sort.Ints(steps)
		parts = append(parts, fmt.Sprintf("%d at %s", n, stepList(steps)))
	}
	return strings.Join(parts, ", ")
}

// stepList is "step 3", "steps 1 and 5", "steps 1-8", "steps 1-3, 5 and 7".
func stepList(steps []int) string {
	if len(steps) == 1 {
		return fmt.Sprintf("step %d", steps[0])
	}
	var runs []string
	for i := 0; i < len(steps); {
		j := i
		for j+1 < len(steps) && steps[j+1] == steps[j]+1 {
			j++
		}
		switch j {
		case i:
			runs = append(runs, strconv.Itoa(steps[i]))
		case i + 1:
			runs = append(runs, strconv.Itoa(steps[i]), strconv.Itoa(steps[j]))
		default:
			runs = append(runs, fmt.Sprintf("%d-%d", steps[i], steps[j]))
		}
		i = j + 1
	}
	if len(runs) == 1 {
		if len(steps) == 1 {
			return "step " + runs[0]
		}
		return "each of steps " + runs[0]
	}
	return "steps " + strings.Join(runs[:len(runs)-1], ", ") + " and " + runs[len(runs)-1]
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
	var names, counts, paces, removed []string
	running := false
	for _, role := range r.Roles {
		if role.Removed {
			removed = append(removed, fmt.Sprintf("%s (%d groups)", role.Name, role.Old))
			continue
		}
		names = append(names, role.Name)
		count := fmt.Sprintf("%s %d", role.Name, role.Replicas)
		if role.External {
			count += " running"
			running = true
		}
		counts = append(counts, count)
		paces = append(paces, role.Name+" "+role.pacing())
	}
	groups := fmt.Sprintf("all %d groups (%s) are replaced", r.Groups(), strings.Join(counts, ", "))
	perSlice := ""
	if r.Slices > 1 {
		groups = fmt.Sprintf("%d slices of %d groups (%d) are replaced, per slice %s", r.Slices, r.Groups()/r.Slices, r.Groups(), strings.Join(counts, ", "))
		perSlice = " in each slice"
	}
	if running {
		groups += " (External roles: the groups running now, which the autoscaler may change)"
	}
	if len(removed) > 0 {
		groups += "; the roles removed are drained with them: " + strings.Join(removed, ", ")
	}
	return fmt.Sprintf("Rolling update of EVERY role: %s moves from revision %s to %s, so ALL %d roles (%s) are recreated, "+
		"including roles whose template did not change: the controller creates a new LeaderWorkerSet for each role and scales "+
		"the old ones down in step, until %s; %s, one step count shared by every role (the most any role needs: its groups over "+
		"its max_surge, or max_unavailable without surge), new groups%s: %s; changed: %s",
		r.Name, r.From, r.To, len(names), strings.Join(names, ", "), groups, stepCount(r.ScaleUpSteps), perSlice,
		strings.Join(paces, "; "), k8sschema.FieldList(node(), r.Changed))
}

// stepCount is "1 step" or "n steps".
func stepCount(n int) string {
	if n == 1 {
		return "in 1 step"
	}
	return fmt.Sprintf("in %d steps", n)
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
	warnings := scaleChangePlan(newDS, oldDS)
	warnings = append(warnings, slicesChangePlan(newDS, oldDS)...)
	legacy, errs := legacySlice0Plan(newDS, oldDS, allow)
	warnings = append(warnings, legacy...)
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
