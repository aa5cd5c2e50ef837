package rules

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
)

func TestFootprint(t *testing.T) {
	type role struct {
		groups, peak   int64
		gpus, peakGPUs string
	}
	cases := []struct {
		name string
		edit func(*disaggv1.DisaggregatedSet)
		want map[string]role
	}{
		// Groups of 2 pods with 8 GPUs each; without a rollingUpdateConfiguration a role rolls
		// with one surge group.
		{"prefill 2 and decode 4 groups", func(*disaggv1.DisaggregatedSet) {},
			map[string]role{"prefill": {2, 3, "32", "48"}, "decode": {4, 5, "64", "80"}}},
		{"max_surge 50% of 4 is 2, max_surge 0 adds none", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxSurge: intstr.FromString("50%")}
			ds.Spec.Roles[0].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxUnavailable: intstr.FromInt32(1)}
		}, map[string]role{"prefill": {2, 2, "32", "32"}, "decode": {4, 6, "64", "96"}}},
		{"3 slices copy every role", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Slices = ptr.To[int32](3) },
			map[string]role{"prefill": {6, 9, "96", "144"}, "decode": {12, 15, "192", "240"}}},
		{"roles at zero roll nothing", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.Replicas = ptr.To[int32](0)
			ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](0)
		}, map[string]role{"prefill": {0, 0, "0", "0"}, "decode": {0, 0, "0", "0"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := dsfixture.Pair()
			tc.edit(ds)
			roles := Footprint(ds)
			if len(roles) != len(tc.want) {
				t.Fatalf("%d roles", len(roles))
			}
			for _, r := range roles {
				at, peak := r.Total(r.Groups).Requests["nvidia.com/gpu"], r.Total(r.PeakGroups).Requests["nvidia.com/gpu"]
				got := role{r.Groups, r.PeakGroups, at.String(), peak.String()}
				if got != tc.want[r.Name] {
					t.Errorf("%s: %+v, want %+v", r.Name, got, tc.want[r.Name])
				}
			}
		})
	}
}
