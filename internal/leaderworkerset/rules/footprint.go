package rules

import (
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/footprint"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// Footprint is the set's pods and their requests and limits: replicas groups of one leader
// (leaderTemplate, or workerTemplate without it) and size - 1 workers, and at the peak of a
// rolling update the surge groups as well (maxSurge scaled by replicas, rounded up and at most
// replicas: rollingUpdateParameters, pkg/controllers/leaderworkerset_controller.go,
// sigs.k8s.io/lws v0.9.0).
func Footprint(lws *lwsv1.LeaderWorkerSet) footprint.Group {
	lwt := &lws.Spec.LeaderWorkerTemplate
	replicas := int64(max(ReplicasOf(lws), 0))
	return footprint.NewGroup(lwt.LeaderTemplate, &lwt.WorkerTemplate, lwt.Size, replicas, replicas+int64(scaledMaxSurge(lws)))
}

// footprintAttribute is the computed footprint attribute, built once.
var footprintAttribute = footprint.LeaderWorkerSetAttribute()

func derive(obj runtime.Object, types map[string]tftypes.Type) map[string]tftypes.Value {
	t, ok := types[footprint.AttrFootprint]
	if !ok {
		return nil
	}
	return map[string]tftypes.Value{footprint.AttrFootprint: footprint.LeaderWorkerSetValue(t, Footprint(kindrules.As[*lwsv1.LeaderWorkerSet](obj)))}
}
