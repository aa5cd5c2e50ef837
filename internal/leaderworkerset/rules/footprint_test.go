package rules

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

func TestFootprint(t *testing.T) {
	gpus := func(g *struct{ groups, peak int64 }, lws *lwsv1.LeaderWorkerSet) (string, string) {
		f := Footprint(lws)
		g.groups, g.peak = f.Groups, f.PeakGroups
		at, peak := f.Total(f.Groups).Requests["nvidia.com/gpu"], f.Total(f.PeakGroups).Requests["nvidia.com/gpu"]
		return at.String(), peak.String()
	}
	cases := []struct {
		name           string
		edit           func(*lwsv1.LeaderWorkerSet)
		groups, peak   int64
		gpus, peakGPUs string
	}{
		{"4 groups of 2 pods with 8 GPUs, no surge", func(*lwsv1.LeaderWorkerSet) {}, 4, 4, "64", "64"},
		{"max_surge 25% of 4 rounds up to 1 group", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{MaxSurge: intstr.FromString("25%"), MaxUnavailable: intstr.FromInt32(1)}
		}, 4, 5, "64", "80"},
		{"a surge above replicas is capped at replicas", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{MaxSurge: intstr.FromInt32(10)}
		}, 4, 8, "64", "128"},
		{"a leader template without GPUs", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.LeaderTemplate = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "router", Image: "r"}}}}
		}, 4, 4, "32", "32"},
		{"no replicas written: the default 1", func(l *lwsv1.LeaderWorkerSet) { l.Spec.Replicas = nil }, 1, 1, "16", "16"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lws := rolloutBase()
			tc.edit(lws)
			var g struct{ groups, peak int64 }
			at, peak := gpus(&g, lws)
			if g.groups != tc.groups || g.peak != tc.peak || at != tc.gpus || peak != tc.peakGPUs {
				t.Errorf("groups %d, peak %d, GPUs %s, peak GPUs %s; want %d, %d, %s, %s", g.groups, g.peak, at, peak, tc.groups, tc.peak, tc.gpus, tc.peakGPUs)
			}
		})
	}
	// size 1: the leader alone.
	lws := rolloutBase()
	lws.Spec.LeaderWorkerTemplate.Size = ptr.To[int32](1)
	lws.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Resources.Limits["memory"] = resource.MustParse("1Gi")
	f := Footprint(lws)
	total := f.Total(f.Groups).Requests
	if mem := total[corev1.ResourceMemory]; f.PodsPerGroup != 1 || mem.String() != "4Gi" {
		t.Errorf("size 1: %d pods per group, memory %s", f.PodsPerGroup, mem.String())
	}
}
