// Package lwsfixture builds realistic LeaderWorkerSets for tests and benchmarks: the one
// definition of the vLLM LeaderWorkerSet, which tests render as HCL (acctest.ObjectHCL) or as
// manifests.
package lwsfixture

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// Option changes the fixture.
type Option func(*lwsv1.LeaderWorkerSet)

// VLLM is a multi-node vLLM deployment as in the LWS examples: groups of size pods, a leader
// serving the OpenAI API (and metrics) and workers joining its Ray cluster, 8 GPUs each,
// /dev/shm as a memory emptyDir, the leaders spread over zones, a readiness probe and the
// Hugging Face token from a Secret. What a user leaves to the defaults stays unset: rollout
// strategy, restart policy, startup policy. opts change it further.
func VLLM(name string, replicas, size int32, opts ...Option) *lwsv1.LeaderWorkerSet {
	hfToken := corev1.EnvVar{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "hf-token"}, Key: "token"}}}
	shm := corev1.Volume{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
		Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(resource.MustParse("15Gi"))}}}
	mount := corev1.VolumeMount{Name: "dshm", MountPath: "/dev/shm"}
	resources := func(cpu string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{
			Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"), "memory": resource.MustParse("1124Gi"),
				"ephemeral-storage": resource.MustParse("800Gi")},
			Requests: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"), "ephemeral-storage": resource.MustParse("800Gi"),
				"cpu": resource.MustParse(cpu)},
		}
	}
	image := "vllm/vllm-openai:v0.11.0"
	obj := &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "vllm"}},
		Spec: lwsv1.LeaderWorkerSetSpec{
			Replicas: ptr.To(replicas),
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				Size: ptr.To(size),
				LeaderTemplate: &corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"role": "leader"}},
					Spec: corev1.PodSpec{
						Containers: []corev1.Container{{
							Name:  "vllm-leader",
							Image: image,
							Command: []string{"sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader " +
								"--ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server --port 8080 " +
								"--model meta-llama/Meta-Llama-3.1-405B-Instruct --tensor-parallel-size 8 --pipeline_parallel_size 2"},
							Env:       []corev1.EnvVar{hfToken},
							Ports:     []corev1.ContainerPort{{ContainerPort: 8080}, {Name: "metrics", ContainerPort: 8081, Protocol: corev1.ProtocolTCP}},
							Resources: resources("125"),
							ReadinessProbe: &corev1.Probe{
								ProbeHandler:        corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
								InitialDelaySeconds: 15, PeriodSeconds: 10,
							},
							VolumeMounts: []corev1.VolumeMount{mount},
						}},
						TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
							MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway,
							LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
								"role": "leader", "leaderworkerset.sigs.k8s.io/name": name}},
						}},
						Volumes: []corev1.Volume{shm},
					},
				},
				WorkerTemplate: corev1.PodTemplateSpec{
					Spec: corev1.PodSpec{
						Containers: []corev1.Container{{
							Name:  "vllm-worker",
							Image: image,
							Command: []string{"sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker " +
								"--ray_address=$(LWS_LEADER_ADDRESS)"},
							Env:          []corev1.EnvVar{hfToken},
							Resources:    resources("500m"),
							VolumeMounts: []corev1.VolumeMount{mount},
						}},
						Volumes: []corev1.Volume{*shm.DeepCopy()},
					},
				},
			},
		},
	}
	for _, o := range opts {
		o(obj)
	}
	return obj
}

// Leader and Worker are the fixture's two containers.
func Leader(l *lwsv1.LeaderWorkerSet) *corev1.Container {
	return &l.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.Containers[0]
}

// Worker: see Leader.
func Worker(l *lwsv1.LeaderWorkerSet) *corev1.Container {
	return &l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0]
}

// Image sets the image of the leader and the workers.
func Image(image string) Option {
	return func(l *lwsv1.LeaderWorkerSet) { Leader(l).Image, Worker(l).Image = image, image }
}

// Resources sets the GPUs and the memory limit of every pod and the leader's CPU request.
func Resources(gpus, memory, leaderCPU string) Option {
	return func(l *lwsv1.LeaderWorkerSet) {
		for _, c := range []*corev1.Container{Leader(l), Worker(l)} {
			c.Resources.Limits["nvidia.com/gpu"] = resource.MustParse(gpus)
			c.Resources.Limits["memory"] = resource.MustParse(memory)
			c.Resources.Requests["nvidia.com/gpu"] = resource.MustParse(gpus)
		}
		Leader(l).Resources.Requests["cpu"] = resource.MustParse(leaderCPU)
	}
}

// SmallGPU sizes the pods so that several fit a node of the test cluster: 2 GPUs, 128Gi and
// (leader) 16 CPUs.
var SmallGPU = Resources("2", "128Gi", "16")

// Spread sets what the leaders' zone spread does when it cannot be satisfied.
func Spread(when corev1.UnsatisfiableConstraintAction) Option {
	return func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.TopologySpreadConstraints[0].WhenUnsatisfiable = when
	}
}
