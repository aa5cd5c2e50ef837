package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/footprint"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

type ScaleChange struct {
	Role            string
	Index           int
	Running, Target int64
	// PerGroup is what one group requests (GPUs and pods).
	PerGroup footprint.Group
}

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

func replicasOrDefault(role *disaggv1.DisaggregatedRoleSpec) int32 {
	if role.Spec.Replicas == nil {
		return 1
	}
	return max(*role.Spec.Replicas, 0)
}

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

// scaleChangePlan warns of each role leaving External with another count than the groups that
// run. Removing groups is scaling, not a restart: the guard lets it through, as it lets a lower
// replicas or fewer slices through (the rule of allow_group_restarts, see rules.go), and the
// warning counts the groups and GPUs removed.
func scaleChangePlan(newObj, oldObj *disaggv1.DisaggregatedSet) []kindrules.Warning {
	var warnings []kindrules.Warning
	for _, c := range scaleChanges(newObj, oldObj) {
		msg := fmt.Sprintf("Role %q of %s/%s switches from External to Static scaling: %s (running: the groups the role scaler's status counted at "+
			"the last refresh). The controller deletes the role scaler %q and sizes the role's LeaderWorkerSets to replicas; an "+
			"autoscaler that targets the scaler no longer has a target.",
			c.Role, newObj.Namespace, newObj.Name, c.Message(), ScalerName(newObj.Name, c.Role))
		if c.Target < c.Running {
			msg += " The groups removed stop serving; allow_group_restarts does not hold a scale-down back, as it restarts no group."
		}
		warnings = append(warnings, kindrules.Warning{Summary: "Role " + c.Role + " of DisaggregatedSet " + newObj.Namespace + "/" + newObj.Name + " leaves External scaling", Detail: msg})
	}
	return warnings
}

// legacySlice0Plan is the plan of raising slices from 1 without a new revision. The v0.10.0
// controller then first deletes a slice 0 that the v0.9.0 controller created (LeaderWorkerSets
// named <set>-<revision>-<role> without the slice label, and their Services) and recreates it in
// slice-aware form, every group of slice 0 at once (recreateLegacySlice0,
// pkg/controllers/disaggregatedset/disaggregatedset_controller.go, lws 2161f38; a slice 0 of an
// older revision is left to the rolling update instead). Whether slice 0 is such a one is on the
// cluster only (a set created before the upgrade to v0.10.0 and not rolled out since), not in the
// configuration or the state: the plan warns, and the guard refuses.
func legacySlice0Plan(newObj, oldObj *disaggv1.DisaggregatedSet, allowRestarts bool) ([]kindrules.Warning, field.ErrorList) {
	if SlicesOf(oldObj) != 1 || SlicesOf(newObj) <= 1 || ComputeRevision(newObj.Spec.Roles) != ComputeRevision(oldObj.Spec.Roles) {
		return nil, nil
	}
	groups, counts := int64(0), make([]string, 0, len(oldObj.Spec.Roles))
	for i := range oldObj.Spec.Roles {
		n := int64(replicasOrDefault(&oldObj.Spec.Roles[i]))
		groups += n
		counts = append(counts, fmt.Sprintf("%s %d", oldObj.Spec.Roles[i].Name, n))
	}
	name := newObj.Namespace + "/" + newObj.Name
	what := fmt.Sprintf("if the LeaderWorkerSets of %s were created by the LeaderWorkerSet v0.9.0 controller (named %s-<revision>-<role>, "+
		"without the label %s: a set created before the upgrade to v0.10.0 and not rolled out since), the v0.10.0 controller first deletes "+
		"them and their Services and recreates slice 0 in slice-aware form (recreateLegacySlice0): all %s of slice 0 (%s) restart at once, "+
		"not by a rolling update", name, newObj.Name, disaggv1.SliceLabelKey, groupCount(groups, ""), strings.Join(counts, ", "))
	check := fmt.Sprintf("kubectl get leaderworkersets -n %s -l %s=%s -L %s", newObj.Namespace, disaggv1.SetNameLabelKey, newObj.Name, disaggv1.SliceLabelKey)
	if !allowRestarts {
		return nil, field.ErrorList{field.Forbidden(specPath.Child("slices"), fmt.Sprintf("allow_group_restarts = false, and raising slices from 1: "+
			"%s. The plan cannot tell from the configuration or the state whether they were (`%s` shows the slice label); a set "+
			"whose LeaderWorkerSets carry it restarts nothing. Set allow_group_restarts = true for this apply to raise slices.", what, check))}
	}
	return []kindrules.Warning{{Path: specPath.Child("slices"), Summary: "Slice 0 of DisaggregatedSet " + name + " may restart",
		Detail: "raising slices from 1: " + what + ". A set created or rolled out by v0.10.0 restarts nothing; `" + check + "` shows which."}}, nil
}

func slicesChangePlan(newObj, oldObj *disaggv1.DisaggregatedSet) []kindrules.Warning {
	from, to := SlicesOf(oldObj), SlicesOf(newObj)
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
	if to < from {
		msg += ". The groups removed stop serving; allow_group_restarts does not hold a scale-down back, as it restarts no group"
	}
	return []kindrules.Warning{{Summary: "Slices of DisaggregatedSet " + newObj.Namespace + "/" + newObj.Name + " " + strings.SplitN(verb, " ", 2)[0], Detail: msg}}
}

func SlicesOf(ds *disaggv1.DisaggregatedSet) int {
	if ds.Spec.Slices == nil {
		return 1
	}
	return max(int(*ds.Spec.Slices), 1)
}
