package leaderworkerset

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	upstreamlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/placement"
)

// PlacementWorkload is the workload the placement preview places for a LeaderWorkerSet (update:
// it exists already). The provider's type is a superset of the upstream one the engine reads, so
// it converts through JSON; the fields the engine reads are the same in both.
func PlacementWorkload(lws *lwsv1.LeaderWorkerSet, update bool) (placement.Workload, error) {
	data, err := json.Marshal(lws)
	if err != nil {
		return placement.Workload{}, err
	}
	var upstream upstreamlws.LeaderWorkerSet
	if err := json.Unmarshal(data, &upstream); err != nil {
		return placement.Workload{}, err
	}
	return placement.WorkloadFromLeaderWorkerSet(&upstream, update), nil
}

// planPlacement is the kind's Placement: the object's groups, reported on spec.replicas.
func planPlacement(obj runtime.Object, update bool) []kube.PlacementWorkload {
	w, err := PlacementWorkload(kindrules.As[*lwsv1.LeaderWorkerSet](obj), update)
	if err != nil {
		return nil
	}
	return []kube.PlacementWorkload{{Path: field.NewPath("spec", "replicas"), Workload: w}}
}
