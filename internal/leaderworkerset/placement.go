package leaderworkerset

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// planPlacement is the kind's Placement: the object's groups, reported on spec.replicas.
func planPlacement(obj, prior runtime.Object) []kube.PlacementWorkload {
	var current *lwsv1.LeaderWorkerSet
	if prior != nil {
		current = kindrules.As[*lwsv1.LeaderWorkerSet](prior)
	}
	w, err := rules.PlacementWorkload(kindrules.As[*lwsv1.LeaderWorkerSet](obj), current)
	if err != nil {
		return nil
	}
	return []kube.PlacementWorkload{{Path: field.NewPath("spec", "replicas"), Workload: w}}
}
