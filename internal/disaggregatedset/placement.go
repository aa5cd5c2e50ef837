package disaggregatedset

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// planPlacement is the kind's Placement: the LeaderWorkerSet the controller makes of each role,
// one per slice, each reported on its role's replicas. They are placed in role order, then slice
// order, on one snapshot: each sees the room the earlier ones took, as the controller creates
// them together.
//
// The names are the controller's (RoleLeaderWorkerSet: <set>-<revision>-<role>, or
// <set>-<slice>-<revision>-<role> under v0.10.0), so that on an update whose revision is
// unchanged the role's own pods free their room. A new revision is placed beside the old one's
// pods, which its rollout removes only as the new groups become ready.
func planPlacement(obj runtime.Object, update bool) []kube.PlacementWorkload {
	ds := kindrules.As[*disaggv1.DisaggregatedSet](obj)
	newer := rules.UsesNewerAPI(ds)
	slices := 1
	if newer {
		slices = rules.SlicesOf(ds)
	}
	revision := rules.ComputeRevision(ds.Spec.Roles)
	var out []kube.PlacementWorkload
	for i := range ds.Spec.Roles {
		lws, err := rules.RoleLeaderWorkerSet(ds, i)
		if err != nil {
			return nil
		}
		role := ds.Spec.Roles[i].Name
		for slice := range slices {
			subject := "role " + role
			if newer {
				lws.Name = fmt.Sprintf("%s-%d-%s-%s", ds.Name, slice, revision, role)
				if slices > 1 {
					subject = fmt.Sprintf("role %s, slice %d", role, slice)
				}
			}
			w, err := leaderworkerset.PlacementWorkload(lws, update)
			if err != nil {
				return nil
			}
			out = append(out, kube.PlacementWorkload{
				Path:     field.NewPath("spec", "roles").Index(i).Child("spec", "replicas"),
				Subject:  subject,
				Workload: w,
			})
		}
	}
	return out
}
