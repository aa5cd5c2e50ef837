// Package lwsfixture builds realistic LeaderWorkerSets for tests and benchmarks.
package lwsfixture

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// VLLM is a multi-node vLLM deployment as in the LWS examples: groups of size pods, a leader
// serving the OpenAI API and workers joining its Ray cluster, 8 GPUs each, /dev/shm as a memory
// emptyDir, zone spreading, a readiness probe and the Hugging Face token from a Secret.
func VLLM(name string, replicas, size int32) *lwsv1.LeaderWorkerSet {
	resources := corev1.ResourceRequirements{
		Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"), "memory": resource.MustParse("1124Gi"),
			"ephemeral-storage": resource.MustParse("800Gi")},
		Requests: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"), "ephemeral-storage": resource.MustParse("800Gi"),
			"cpu": resource.MustParse("125")},
	}
	hfToken := corev1.EnvVar{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "hf-token"}, Key: "token"}}}
	shm := corev1.Volume{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
		Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(resource.MustParse("15Gi"))}}}
	mount := corev1.VolumeMount{Name: "dshm", MountPath: "/dev/shm"}
	image := "vllm/vllm-openai:v0.11.0"
	return &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "vllm"}},
		Spec: lwsv1.LeaderWorkerSetSpec{
			Replicas: ptr.To(replicas),
			RolloutStrategy: lwsv1.RolloutStrategy{Type: lwsv1.RollingUpdateStrategyType,
				RollingUpdateConfiguration: &lwsv1.RollingUpdateConfiguration{MaxUnavailable: intstr.FromInt32(1), MaxSurge: intstr.FromInt32(0)}},
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				Size:          ptr.To(size),
				RestartPolicy: lwsv1.RecreateGroupOnPodRestart,
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
							Ports:     []corev1.ContainerPort{{ContainerPort: 8080}},
							Resources: resources,
							ReadinessProbe: &corev1.Probe{
								ProbeHandler:        corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
								InitialDelaySeconds: 15, PeriodSeconds: 10,
							},
							VolumeMounts: []corev1.VolumeMount{mount},
						}},
						TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
							MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway,
							LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "vllm"}},
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
							Resources:    resources,
							VolumeMounts: []corev1.VolumeMount{mount},
						}},
						Volumes: []corev1.Volume{shm},
					},
				},
			},
		},
	}
}
