package placement

import (
	"k8s.io/apimachinery/pkg/util/intstr"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

// WorkloadFromLeaderWorkerSet is the workload a plan previews for a LeaderWorkerSet: update is true
// when the object exists already, so its own pods free their room and the surge needs room.
func WorkloadFromLeaderWorkerSet(lws *lwsv1.LeaderWorkerSet, update bool) Workload {
	spec := lws.Spec
	w := Workload{
		Name:        lws.Name,
		Namespace:   lws.Namespace,
		Replicas:    1,
		Size:        1,
		Annotations: lws.Annotations,
		Update:      update,
	}
	if spec.Replicas != nil {
		w.Replicas = int(*spec.Replicas)
	}
	template := spec.LeaderWorkerTemplate
	if template.Size != nil {
		w.Size = int(*template.Size)
	}
	worker := template.WorkerTemplate
	w.Leader, w.Worker = worker, &worker
	if template.LeaderTemplate != nil {
		w.Leader = *template.LeaderTemplate
	}
	if p := template.SubGroupPolicy; p != nil && p.SubGroupSize != nil {
		w.SubGroupSize = int(*p.SubGroupSize)
	}
	if update && spec.RolloutStrategy.RollingUpdateConfiguration != nil {
		w.MaxSurge = maxSurge(spec.RolloutStrategy.RollingUpdateConfiguration.MaxSurge, w.Replicas)
	}
	return w
}

// maxSurge ports the surge of leaderworkerset_controller.go (lws v0.9.0): a count or a percent of
// the replicas rounded up, at most the replicas.
func maxSurge(value intstr.IntOrString, replicas int) int {
	surge, err := intstr.GetScaledValueFromIntOrPercent(&value, replicas, true)
	if err != nil || surge < 0 {
		return 0
	}
	return min(surge, replicas)
}
