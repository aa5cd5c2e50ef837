package rules

import (
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/footprint"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// Footprint is each role's pods and their requests and limits, for all slices: replicas
// groups of one leader (leaderTemplate, or workerTemplate without it) and size - 1 workers per
// slice and role, and at the peak of a rollout the role's surge groups as well. A rollout moves
// maxSurge groups (scaled by replicas, rounded up) of the new revision in next to the old
// ones, one surge group without a rollingUpdateConfiguration (extractRollingUpdateConfig,
// pkg/controllers/disaggregatedset/executor.go, sigs.k8s.io/lws v0.9.0); every role rolls at
// once, so the set's peak is the sum of the roles' peaks.
func Footprint(ds *disaggv1.DisaggregatedSet) []footprint.Role {
	slices := int64(1)
	if ds.Spec.Slices != nil {
		slices = max(int64(*ds.Spec.Slices), 0)
	}
	roles := make([]footprint.Role, 0, len(ds.Spec.Roles))
	for _, role := range ds.Spec.Roles {
		lwt := &role.Spec.LeaderWorkerTemplate
		replicas := 1
		if role.Spec.Replicas != nil {
			replicas = max(int(*role.Spec.Replicas), 0)
		}
		surge := 1
		if rc := role.Spec.RolloutStrategy.RollingUpdateConfiguration; rc != nil {
			surge, _ = intstr.GetScaledValueFromIntOrPercent(&rc.MaxSurge, replicas, true)
			surge = max(surge, 0)
		}
		if replicas == 0 { // nothing to roll
			surge = 0
		}
		g := footprint.NewGroup(lwt.LeaderTemplate, &lwt.WorkerTemplate, lwt.Size, int64(replicas)*slices, int64(replicas+surge)*slices)
		roles = append(roles, footprint.Role{Name: role.Name, Group: g})
	}
	return roles
}

// footprintAttribute is the computed footprint attribute, built once.
var footprintAttribute = footprint.DisaggregatedSetAttribute()

func derive(obj runtime.Object, types map[string]tftypes.Type) map[string]tftypes.Value {
	t, ok := types[footprint.AttrFootprint]
	if !ok {
		return nil
	}
	return map[string]tftypes.Value{footprint.AttrFootprint: footprint.DisaggregatedSetValue(t, Footprint(kindrules.As[*disaggv1.DisaggregatedSet](obj)))}
}
