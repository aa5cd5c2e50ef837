package podtemplate

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// vllmTemplates returns a realistic LWS vLLM leader/worker pair (multi-node, Ray).
func vllmTemplates() (leader, worker *corev1.PodTemplateSpec) {
	gpu := corev1.ResourceList{"nvidia.com/gpu": q("8"), "memory": q("1124Gi"), "ephemeral-storage": q("800Gi")}
	shm := corev1.Volume{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(q("15Gi"))}}}
	env := []corev1.EnvVar{
		{Name: "HUGGING_FACE_HUB_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "hf-secret"}, Key: "hf_api_token"}}},
		{Name: "LWS_WORKER_INDEX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['leaderworkerset.sigs.k8s.io/worker-index']"}}},
		{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
		{Name: "NCCL_DEBUG", Value: "INFO"},
	}
	spread := []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"app": "vllm"}},
		MatchLabelKeys: []string{"leaderworkerset.sigs.k8s.io/group-index"},
	}}
	tol := []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	affinity := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "nvidia.com/gpu.product", Operator: corev1.NodeSelectorOpIn, Values: []string{"NVIDIA-H100-80GB-HBM3"}}}}}}},
		PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100,
			PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
				LabelSelector:  &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"vllm"}}}},
				MatchLabelKeys: []string{"leaderworkerset.sigs.k8s.io/group-key"}}}}}}

	leader = &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "vllm", "role": "leader"},
			Annotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "8080"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:      "vllm-leader",
				Image:     "vllm/vllm-openai:v0.11.0",
				Command:   []string{"sh", "-c"},
				Args:      []string{"bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta-llama/Meta-Llama-3.1-405B-Instruct --tensor-parallel-size 8 --pipeline_parallel_size 2"},
				Env:       env,
				Resources: corev1.ResourceRequirements{Limits: gpu, Requests: corev1.ResourceList{"cpu": q("125"), "memory": q("1124Gi"), "ephemeral-storage": q("800Gi")}},
				Ports:     []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "ray", ContainerPort: 6379}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
					InitialDelaySeconds: 15, PeriodSeconds: 10},
				LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString("http")}},
					InitialDelaySeconds: 600},
				StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8080)}},
					FailureThreshold: 120, PeriodSeconds: 10},
				Lifecycle:       &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 5}}},
				VolumeMounts:    []corev1.VolumeMount{{Name: "dshm", MountPath: "/dev/shm"}, {Name: "model-cache", MountPath: "/root/.cache/huggingface"}},
				SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"IPC_LOCK"}}},
			}},
			InitContainers: []corev1.Container{{Name: "log-shipper", Image: "fluent/fluent-bit:3.1", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("100m"), "memory": q("64Mi")}}}},
			Volumes:                   []corev1.Volume{shm},
			Tolerations:               tol,
			Affinity:                  affinity,
			TopologySpreadConstraints: spread,
			ServiceAccountName:        "vllm",
			PriorityClassName:         "inference-high",
			NodeSelector:              map[string]string{"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
			SchedulingGates:           nil,
			ImagePullSecrets:          []corev1.LocalObjectReference{{Name: "regcred"}},
		},
	}
	worker = leader.DeepCopy()
	worker.Labels["role"] = "worker"
	w := &worker.Spec.Containers[0]
	w.Name = "vllm-worker"
	w.Args = []string{"bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"}
	w.Ports, w.ReadinessProbe, w.LivenessProbe, w.StartupProbe = nil, nil, nil, nil
	return leader, worker
}

var vllmOpts = Options{VolumeClaimTemplateNames: []string{"model-cache"}}

func TestVLLMTemplatesAreValid(t *testing.T) {
	leader, worker := vllmTemplates()
	for name, tpl := range map[string]*corev1.PodTemplateSpec{"leader": leader, "worker": worker} {
		before := tpl.DeepCopy()
		if errs := ValidatePodTemplateSpec(tpl, tplPath, vllmOpts); len(errs) != 0 {
			t.Errorf("%s: unexpected errors: %v", name, errs)
		}
		if !reflect.DeepEqual(before, tpl) {
			t.Errorf("%s: input template was mutated", name)
		}
	}
}

func TestNilTemplate(t *testing.T) {
	errs := ValidatePodTemplateSpec(nil, tplPath, Options{})
	if len(errs) != 1 || errs[0].Field != tplPath.String() {
		t.Fatalf("unexpected %v", errs)
	}
}

func BenchmarkValidatePodTemplateSpec(b *testing.B) {
	leader, _ := vllmTemplates()
	b.ReportAllocs()
	for b.Loop() {
		if errs := ValidatePodTemplateSpec(leader, tplPath, vllmOpts); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}
