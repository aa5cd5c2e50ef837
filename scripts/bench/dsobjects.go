package main

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"
	"sigs.k8s.io/yaml"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	dsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/scripts/bench/internal/tfbench"
)

func dsName(i int) string { return fmt.Sprintf("bench-ds-%03d", i) }

// dsKind is the vLLM prefill/decode pair of examples/disaggregated-serving (Llama 3.1 70B, the
// KV cache over NIXL): prefill 2 groups of 1 pod, decode 1 group of a leader and a worker, each
// pod with 8 GPUs, probes, env from a Secret, a memory emptyDir and the GPU toleration, with
// `wait_for_rollout = false` (the bench cluster runs no DisaggregatedSet controller). HCL and
// YAML are rendered from one object of the released Go types (sigs.k8s.io/lws v0.9.0), dsVLLM:
// the example with its locals written out.
var dsKind = benchKind{
	Name:     "DS",
	TypeName: "kubeinfer_disaggregatedset",
	HCL: func(i int) string {
		return "\n" + tfbench.Resource(disaggregatedset.Kind.Node(), "kubeinfer_disaggregatedset", fmt.Sprintf("ds_%03d", i), dsVLLM(dsName(i)))
	},
	YAML: func(i int) ([]byte, error) {
		obj := dsVLLM(dsName(i))
		// The CRD's defaults, as the plan shows them (the server applies the same); without
		// them the CRD rejects the empty startupPolicy the Go type writes.
		dsrules.SetDefaults(obj, tftypes.Value{})
		m, err := manifestMap(obj)
		if err != nil {
			return nil, err
		}
		// rolloutStrategy is a struct (omitempty has no effect): unset, it marshals as
		// {"type": ""}, which the CRD's enum rejects. The configuration leaves it out.
		if spec, ok := m["spec"].(map[string]any); ok {
			roles, _ := spec["roles"].([]any)
			for _, r := range roles {
				role, _ := r.(map[string]any)
				if meta, ok := role["metadata"].(map[string]any); ok && len(meta) == 0 {
					delete(role, "metadata") // the role's LeaderWorkerSet metadata, unset
				}
				rs, _ := role["spec"].(map[string]any)
				if st, ok := rs["rolloutStrategy"].(map[string]any); ok && st["type"] == "" && len(st) == 1 {
					delete(rs, "rolloutStrategy")
				}
			}
		}
		m["apiVersion"] = disaggv1.GroupVersion.String()
		m["kind"] = "DisaggregatedSet"
		return yaml.Marshal(stripNullTimestamps(m))
	},
}

const (
	dsModel   = "meta-llama/Llama-3.1-70B-Instruct"
	dsImage   = "vllm/vllm-openai:v0.11.0"
	dsKVTrans = `{"kv_connector":"NixlConnector","kv_role":"kv_both"}` // jsonencode() of the example
)

var (
	dsPrefillCommand      = []string{"vllm", "serve", dsModel, "--port", "8000", "--tensor-parallel-size", "8", "--kv-transfer-config", dsKVTrans}
	dsDecodeLeaderCommand = []string{"sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); " +
		"vllm serve " + dsModel + " --port 8000 --tensor-parallel-size 8 --pipeline-parallel-size 2 --kv-transfer-config '" + dsKVTrans + "'"}
	dsDecodeWorkerCommand = []string{"sh", "-c", "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"}
)

// dsRouterLabels are the labels a router selects on (llm-d, the Inference Extension).
var dsRouterLabels = map[string]string{"llm-d.ai/inferenceServing": "true", "llm-d.ai/model": "llama-3-1-70b"}

// dsVLLM is the pair as the released Go types.
func dsVLLM(name string) *disaggv1.DisaggregatedSet {
	pod := func(role string, command []string, routerLabels, probe bool) *corev1.PodTemplateSpec {
		labels := map[string]string{"llm-d.ai/role": role}
		if routerLabels {
			for k, v := range dsRouterLabels {
				labels[k] = v
			}
		}
		c := corev1.Container{
			Name:    "vllm",
			Image:   dsImage,
			Command: command,
			Env: []corev1.EnvVar{
				{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "hf-token"}, Key: "token"}}},
				{Name: "VLLM_NIXL_SIDE_CHANNEL_PORT", Value: "5600"},
			},
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8000}, {Name: "nixl", ContainerPort: 5600}},
			Resources: corev1.ResourceRequirements{
				Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"), "memory": resource.MustParse("512Gi")},
				Requests: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"), "cpu": resource.MustParse("64"),
					"memory": resource.MustParse("512Gi")},
			},
			VolumeMounts: []corev1.VolumeMount{{Name: "dshm", MountPath: "/dev/shm"}},
		}
		if probe {
			c.ReadinessProbe = &corev1.Probe{
				ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString("http")}},
				InitialDelaySeconds: 30, PeriodSeconds: 10,
			}
		}
		return &corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{
				Containers:  []corev1.Container{c},
				Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
				Volumes: []corev1.Volume{{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
					Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(resource.MustParse("32Gi"))}}}},
			},
		}
	}
	role := func(name string, replicas, size int32, leader, worker *corev1.PodTemplateSpec) disaggv1.DisaggregatedRoleSpec {
		r := disaggv1.DisaggregatedRoleSpec{Name: name}
		r.Spec = releasedlws.LeaderWorkerSetSpec{
			Replicas: ptr.To(replicas),
			LeaderWorkerTemplate: releasedlws.LeaderWorkerTemplate{
				Size:           ptr.To(size),
				LeaderTemplate: leader,
				WorkerTemplate: *worker,
			},
		}
		return r
	}
	return &disaggv1.DisaggregatedSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
			Labels: map[string]string{"app.kubernetes.io/part-of": "inference-platform"}},
		Spec: disaggv1.DisaggregatedSetSpec{Roles: []disaggv1.DisaggregatedRoleSpec{
			role("prefill", 2, 1, nil, pod("prefill", dsPrefillCommand, true, true)),
			role("decode", 1, 2, pod("decode", dsDecodeLeaderCommand, true, true), pod("decode", dsDecodeWorkerCommand, false, false)),
		}},
	}
}
