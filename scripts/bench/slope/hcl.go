package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/scripts/bench/internal/tfbench"
)

// dims add the i-th item to one of the lists of the worker template that a case grows, as in
// BenchmarkPlanCreateScale (internal/leaderworkerset/bench_test.go): containers, env entries of
// the main container, volumes and tolerations.
var dims = map[string]func(spec *corev1.PodSpec, i int){
	// A sidecar: name, image and a small resources request.
	"containers": func(spec *corev1.PodSpec, i int) {
		spec.Containers = append(spec.Containers, corev1.Container{Name: fmt.Sprintf("sidecar-%d", i), Image: "busybox:1.37",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("10m"), "memory": resource.MustParse("16Mi")}}})
	},
	"env": func(spec *corev1.PodSpec, i int) {
		spec.Containers[0].Env = append(spec.Containers[0].Env, corev1.EnvVar{Name: fmt.Sprintf("VAR_%d", i), Value: "x"})
	},
	"volumes": func(spec *corev1.PodSpec, i int) {
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: fmt.Sprintf("vol-%d", i), VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	},
	"tolerations": func(spec *corev1.PodSpec, i int) {
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: fmt.Sprintf("example.com/t-%d", i),
			Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	},
}

// configFor is a whole configuration: the provider pointed at a port where nothing listens
// (validate and a plan of a new object never contact the cluster) and one
// kubeinfer_leaderworkerset, lwsfixture.VLLM("bench-slope", 2, 4) as in scripts/bench
// (tfbench.VLLMLeaderWorkerSet), whose worker template has n more items of dim.
func configFor(dim string, n int) string {
	obj := lwsfixture.VLLM("bench-slope", 2, 4, func(l *lwsv1.LeaderWorkerSet) {
		for i := range n {
			dims[dim](&l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec, i)
		}
	})
	return tfbench.RequiredProviders + "\n" + tfbench.OfflineProvider + "\n" + tfbench.VLLMLeaderWorkerSet("slope", obj)
}
