package leaderworkerset

import (
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/footprint"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// Footprint is the set's pods and their requests and limits: replicas groups of one leader
// (leaderTemplate, or workerTemplate without it) and size - 1 workers, and at the peak of a
// rolling update the surge groups as well (maxSurge scaled by replicas, rounded up and at most
// replicas: rollingUpdateParameters, pkg/controllers/leaderworkerset_controller.go,
// sigs.k8s.io/lws v0.9.0).
func Footprint(lws *lwsv1.LeaderWorkerSet) footprint.Group {
	lwt := &lws.Spec.LeaderWorkerTemplate
	leader := lwt.LeaderTemplate
	if leader == nil {
		leader = &lwt.WorkerTemplate
	}
	size := int64(1)
	if lwt.Size != nil {
		size = int64(*lwt.Size)
	}
	replicas := replicasOf(lws)
	surge := 0
	if ru := lws.Spec.RolloutStrategy.RollingUpdateConfiguration; ru != nil {
		surge, _ = intstr.GetScaledValueFromIntOrPercent(&ru.MaxSurge, int(replicas), true)
		surge = max(0, min(surge, int(replicas)))
	}
	return footprint.NewGroup(leader, &lwt.WorkerTemplate, max(size, 0), int64(max(replicas, 0)), int64(max(replicas, 0))+int64(surge))
}

// footprintAttribute is the computed footprint attribute, built once.
var footprintAttribute = footprint.LeaderWorkerSetAttribute()

func derive(obj runtime.Object, types map[string]tftypes.Type) map[string]tftypes.Value {
	t, ok := types[footprint.AttrFootprint]
	if !ok {
		return nil
	}
	return map[string]tftypes.Value{footprint.AttrFootprint: footprint.LeaderWorkerSetValue(t, Footprint(kube.As[*lwsv1.LeaderWorkerSet](obj)))}
}
