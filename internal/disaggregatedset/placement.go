package disaggregatedset

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// planPlacement is the kind's Placement: the LeaderWorkerSet the controller makes of each role,
// one per slice, each reported on its role's replicas, with the pod affinity a v0.10.0 placement
// policy injects. They are placed on one snapshot in every order (kube.PlacementWorkload.AnyOrder):
// each sees the room the earlier ones took, as the controller creates them together, in no fixed
// order.
//
// The names are the controller's (RoleLeaderWorkerSet: <set>-<revision>-<role>, or
// <set>-<slice>-<revision>-<role> under v0.10.0). A role's slice whose LeaderWorkerSet of the same
// revision is in the prior state runs on: the controller only scales it (reconcileRoleSimple,
// pkg/controllers/disaggregatedset/disaggregatedset_controller.go, lws v0.9.0 and v0.10.0), and
// copies nothing else of the role into it, so it is previewed as that LeaderWorkerSet with the
// new replicas (a change of the role's metadata, startup policy, network configuration, rollout
// strategy or the placement policy replaces no group). A new revision is placed beside the old
// one's pods, which its rollout removes only as the new groups become ready.
func planPlacement(obj, prior runtime.Object) []kube.PlacementWorkload {
	ds := kindrules.As[*disaggv1.DisaggregatedSet](obj)
	current := map[string]*lwsv1.LeaderWorkerSet{}
	if prior != nil {
		for _, lws := range roleLeaderWorkerSets(kindrules.As[*disaggv1.DisaggregatedSet](prior)) {
			current[lws.key] = lws.lws
		}
	}
	var out []kube.PlacementWorkload
	for _, role := range roleLeaderWorkerSets(ds) {
		if role.lws == nil {
			return nil
		}
		lws, running := role.lws, current[role.key]
		if running != nil {
			lws = running.DeepCopy()
			lws.Spec.Replicas = role.lws.Spec.Replicas
		}
		w, err := lwsrules.PlacementWorkload(lws, running)
		if err != nil {
			return nil
		}
		out = append(out, kube.PlacementWorkload{
			Path:     field.NewPath("spec", "roles").Index(role.index).Child("spec", "replicas"),
			Subject:  role.subject,
			Workload: w,
			AnyOrder: rolesAnyOrder,
		})
	}
	return out
}

// rolesAnyOrder says why the roles are previewed in every order: the released controller ranges
// over a map of the roles when it creates or updates their LeaderWorkerSets (reconcileSimple over
// GetRoleConfigs, pkg/controllers/disaggregatedset/disaggregatedset_controller.go, lws v0.9.0),
// and Go's map order changes from one reconcile to the next.
const rolesAnyOrder = "The DisaggregatedSet controller creates the roles' LeaderWorkerSets in no fixed order"

type roleLWS struct {
	index   int
	subject string
	// key is the revision, role and slice ("<revision>/<role>/<slice>"): a v0.9.0 LeaderWorkerSet,
	// which v0.10.0 adopts as slice 0 (GetForRole, lws_manager.go, 2161f38), is slice 0.
	key string
	lws *lwsv1.LeaderWorkerSet // nil when the role cannot be made into one
}

// roleLeaderWorkerSets are the LeaderWorkerSets the controller makes of the set's roles, one per
// slice, each a copy.
func roleLeaderWorkerSets(ds *disaggv1.DisaggregatedSet) []roleLWS {
	newer := rules.UsesNewerAPI(ds)
	slices := 1
	if newer {
		slices = rules.SlicesOf(ds)
	}
	revision := rules.ComputeRevision(ds.Spec.Roles)
	var out []roleLWS
	for i := range ds.Spec.Roles {
		lws, err := rules.RoleLeaderWorkerSet(ds, i)
		if err != nil {
			return append(out, roleLWS{index: i})
		}
		role := ds.Spec.Roles[i].Name
		for slice := range slices {
			subject := "role " + role
			copied := lws.DeepCopy()
			if newer {
				copied.Name = fmt.Sprintf("%s-%d-%s-%s", ds.Name, slice, revision, role)
				if slices > 1 {
					subject = fmt.Sprintf("role %s, slice %d", role, slice)
				}
				ofSlice(copied, ds, role, slice)
			}
			out = append(out, roleLWS{index: i, subject: subject, key: fmt.Sprintf("%s/%s/%d", revision, role, slice), lws: copied})
		}
	}
	return out
}

// ofSlice makes the highest slice's LeaderWorkerSet (rules.RoleLeaderWorkerSet) the one of slice:
// its generated slice and app labels, on the object and the pod templates (GenerateLabels,
// pkg/utils/disaggregatedset/utils.go, lws v0.10.0), and the pod affinity the placement policy
// injects into both templates (rules.SetPlacementAffinities).
func ofSlice(lws *lwsv1.LeaderWorkerSet, ds *disaggv1.DisaggregatedSet, role string, slice int) {
	relabel := func(labels map[string]string) {
		if labels != nil {
			labels[disaggv1.SliceLabelKey] = strconv.Itoa(slice)
			labels["app"] = fmt.Sprintf("%s-%d-%s", ds.Name, slice, role)
		}
	}
	relabel(lws.Labels)
	lwt := &lws.Spec.LeaderWorkerTemplate
	relabel(lwt.WorkerTemplate.Labels)
	rules.SetPlacementAffinities(&lwt.WorkerTemplate.Spec, ds.Name, slice, ds.Spec.PlacementPolicy)
	if lwt.LeaderTemplate != nil {
		relabel(lwt.LeaderTemplate.Labels)
		rules.SetPlacementAffinities(&lwt.LeaderTemplate.Spec, ds.Name, slice, ds.Spec.PlacementPolicy)
	}
}
