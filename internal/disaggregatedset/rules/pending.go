package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// createOnlyRoleFields are the fields of a role, besides its name and leaderWorkerTemplate (the
// revision), that the DisaggregatedSet controller copies into a role's LeaderWorkerSet only when
// it creates one: LeaderWorkerSetManager.Create (pkg/controllers/disaggregatedset/lws_manager.go,
// sigs.k8s.io/lws v0.9.0 and v0.10.0 at 2161f38) builds the object from the role's metadata
// labels and annotations and its spec, while an existing LeaderWorkerSet of the current revision
// is only scaled (reconcileRoleSimple, disaggregatedset_controller.go: LWSManager.Scale patches
// spec.replicas alone). Neither release updates anything else of a running role LeaderWorkerSet.
var createOnlyRoleFields = []string{"metadata", "spec.startupPolicy", "spec.networkConfig", "spec.rolloutStrategy"}

// pendingFields are the fields changed between oldObj and newObj that reach the running groups
// only with the next revision: createOnlyRoleFields of each role (matched by name) and the
// set's placementPolicy, whose pod affinity the v0.10.0 controller injects only into the
// LeaderWorkerSets it creates (SetPlacementAffinities in LeaderWorkerSetManager.Create, 2161f38).
func pendingFields(newObj, oldObj *disaggv1.DisaggregatedSet) []*field.Path {
	roleNode := node().FieldJSON("spec").FieldJSON("roles").Elem
	old := map[string]*disaggv1.DisaggregatedRoleSpec{}
	for i := range oldObj.Spec.Roles {
		old[oldObj.Spec.Roles[i].Name] = &oldObj.Spec.Roles[i]
	}
	var out []*field.Path
	for i := range newObj.Spec.Roles {
		n := &newObj.Spec.Roles[i]
		o, ok := old[n.Name]
		if !ok {
			continue // a new role: a new revision
		}
		base := rolesPath.Index(i)
		nv, _ := k8sschema.JSONValue(n).(map[string]any)
		ov, _ := k8sschema.JSONValue(o).(map[string]any)
		for _, f := range createOnlyRoleFields {
			out = append(out, k8sschema.ChangedFields(k8sschema.NodeAt(roleNode, f), pathOf(base, f), at(nv, f), at(ov, f))...)
		}
	}
	pp := specPath.Child("placementPolicy")
	return append(out, k8sschema.ChangedFields(k8sschema.NodeAt(node(), "spec.placementPolicy"), pp,
		k8sschema.JSONValue(newObj.Spec.PlacementPolicy), k8sschema.JSONValue(oldObj.Spec.PlacementPolicy))...)
}

// pathOf extends base by a dotted JSON path.
func pathOf(base *field.Path, dotted string) *field.Path {
	for _, name := range strings.Split(dotted, ".") {
		base = base.Child(name)
	}
	return base
}

// at is the JSON value at a dotted path, nil when absent.
func at(v map[string]any, dotted string) any {
	var cur any = v
	for _, name := range strings.Split(dotted, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[name]
	}
	return cur
}

// pendingWarning is the plan's warning for a change of pendingFields without a new revision: the
// set stores it (the state and a refresh show it, with no drift), but no running group sees it
// and nothing restarts, so the guard lets it through. slicesAdded are the slices the same apply
// adds, whose LeaderWorkerSets are created with it.
func pendingWarning(ds *disaggv1.DisaggregatedSet, changed []*field.Path, slicesAdded string) kindrules.Warning {
	name := ds.Namespace + "/" + ds.Name
	detail := fmt.Sprintf("No group restarts, and none of the running groups of %s changes now: the DisaggregatedSet controller "+
		"copies a role's metadata, startup_policy, network_config and rollout_strategy (and the pod affinity of placement_policy) into "+
		"a role's LeaderWorkerSet only when it creates one, for a new revision or a new slice, and only scales the LeaderWorkerSets that "+
		"run (v0.9.0 and v0.10.0). The apply stores the change in the DisaggregatedSet; the running LeaderWorkerSets keep the previous "+
		"values until the next change of a role's name or leader_worker_template, which rolls every role out with them", name)
	if slicesAdded != "" {
		detail += "; " + slicesAdded + " added by this apply get them now"
	}
	for _, p := range changed {
		if strings.Contains(p.String(), ".rolloutStrategy") {
			detail += ". rollout_strategy also paces the controller's next rollout of the set (maxSurge and maxUnavailable, read from the set)"
			break
		}
	}
	return kindrules.Warning{Summary: "Change of DisaggregatedSet " + name + " waits for the next rollout",
		Detail: detail + "; changed: " + k8sschema.FieldList(node(), changed)}
}
