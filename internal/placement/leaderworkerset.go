package placement

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

// WorkloadFromLeaderWorkerSet is the workload a plan previews for a LeaderWorkerSet. current is
// the object as it is now (the prior state), nil for a create: an update is then played out over
// the groups running now (previewRollout). A rename is a replacement, previewed as a create.
func WorkloadFromLeaderWorkerSet(lws, current *lwsv1.LeaderWorkerSet) Workload {
	w := workloadOf(lws)
	if current == nil || current.Name != lws.Name || current.Namespace != lws.Namespace {
		return w
	}
	ro := &Rollout{Current: workloadOf(current), MaxUnavailable: 1}
	// The revision covers spec.leaderWorkerTemplate and spec.networkConfig (getPatch in
	// pkg/utils/revision/revision_utils.go, lws v0.9.0). The kind's wiring may decide it more
	// precisely (defaults the webhook writes).
	ro.NewRevision = !apiequality.Semantic.DeepEqual(lws.Spec.LeaderWorkerTemplate, current.Spec.LeaderWorkerTemplate) ||
		!apiequality.Semantic.DeepEqual(lws.Spec.NetworkConfig, current.Spec.NetworkConfig)
	if ru := lws.Spec.RolloutStrategy.RollingUpdateConfiguration; ru != nil {
		ro.MaxSurge = maxSurge(ru.MaxSurge, w.Replicas)
		// rollingUpdateParameters (pkg/controllers/leaderworkerset_controller.go, lws v0.9.0):
		// maxUnavailable scaled by the replicas, rounded down.
		if u, err := intstr.GetScaledValueFromIntOrPercent(&ru.MaxUnavailable, w.Replicas, false); err == nil {
			ro.MaxUnavailable = max(u, 0)
		}
		if ru.Partition != nil {
			ro.Partition = int(*ru.Partition)
		}
	}
	if ru := current.Spec.RolloutStrategy.RollingUpdateConfiguration; ru != nil && ru.Partition != nil {
		ro.CurrentPartition = int(*ru.Partition)
	}
	w.Rollout = ro
	return w
}

func workloadOf(lws *lwsv1.LeaderWorkerSet) Workload {
	spec := lws.Spec
	w := Workload{
		Name:        lws.Name,
		Namespace:   lws.Namespace,
		Replicas:    1,
		Size:        1,
		Annotations: lws.Annotations,
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
