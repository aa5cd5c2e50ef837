package rules

import (
	"encoding/json"

	upstreamlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/placement"
)

// PlacementWorkload is the workload the placement preview places for a LeaderWorkerSet; current
// is the object as it is now (nil for a create). The provider's type is a superset of the
// upstream one the engine reads, so it converts through JSON; the fields the engine reads are the
// same in both. Whether the update makes a new revision is the rollout preview's verdict
// (PreviewRollout), which knows the webhook's defaults.
func PlacementWorkload(lws, current *lwsv1.LeaderWorkerSet) (placement.Workload, error) {
	upstream, err := toUpstream(lws)
	if err != nil {
		return placement.Workload{}, err
	}
	var upstreamCurrent *upstreamlws.LeaderWorkerSet
	if current != nil {
		if upstreamCurrent, err = toUpstream(current); err != nil {
			return placement.Workload{}, err
		}
	}
	w := placement.WorkloadFromLeaderWorkerSet(upstream, upstreamCurrent)
	if w.Rollout != nil {
		r := PreviewRollout(lws, current)
		w.Rollout.NewRevision = len(r.Changed) > 0 && !r.PartitionOnly // groups are recreated, with or without a new revision
		if w.Rollout.NewRevision && !r.NewRevision() {
			// Only copied annotations changed: the StatefulSet controller replaces the leader
			// pods max_unavailable + max_surge at a time, with no surge group (copiedMessage).
			w.Rollout.MaxUnavailable, w.Rollout.MaxSurge = w.Rollout.MaxUnavailable+w.Rollout.MaxSurge, 0
		}
	}
	return w, nil
}

func toUpstream(lws *lwsv1.LeaderWorkerSet) (*upstreamlws.LeaderWorkerSet, error) {
	data, err := json.Marshal(lws)
	if err != nil {
		return nil, err
	}
	var upstream upstreamlws.LeaderWorkerSet
	if err := json.Unmarshal(data, &upstream); err != nil {
		return nil, err
	}
	return &upstream, nil
}
