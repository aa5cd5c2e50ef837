// Package podtemplatecorpus is the parity corpus of pod templates, for tests only: a
// deterministic set of pod templates (plus StatefulSet volumeClaimTemplates) built from a few
// realistic inference templates and, for every rule package podtemplate covers, targeted
// mutations at each boundary (the just-valid and the just-invalid value), and random
// combinations of those mutations. The tests of package podtemplate check each case with the
// provider and with a dry-run StatefulSet create on a real kube-apiserver v1.37.2
// (TestAccParityWithAPIServer, TestAccParityCombinationsWithAPIServer);
// TestParityCorpusProvider replays the server-verified expectations offline; the provider's
// tests apply the valid ones through Terraform's protocol. The provider itself never imports it.
package podtemplatecorpus

import (
	"fmt"
	"math/rand/v2"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate"
)

// ParityLabelKey/Value are on every corpus template; the StatefulSet selector
// of the dry-run create matches exactly this label.
const (
	ParityLabelKey   = "kubeinfer.io/parity"
	ParityLabelValue = "corpus"
)

// Deliberate divergences (doc.go DIVERGENCES): the provider rejects, the
// server's StatefulSet create accepts.
const (
	divMatchLabelKeysOverlap = "1: matchLabelKeys key also in labelSelector (every Pod of the set would fail creation)"
	divImageWhitespace       = "2: image with leading/trailing whitespace (every Pod of the set would fail validateContainerOnlyForPod)"
)

// Case is one template of the corpus.
type Case struct {
	Name string // unique: base/rule/mutation
	Rule string // rule family, for per-rule counts
	Tpl  *corev1.PodTemplateSpec
	VCTs []corev1.PersistentVolumeClaim
	// WantValid is the verdict of kube-apiserver v1.37.2 (verified by the
	// acceptance test).
	WantValid bool
	// Divergence is set on deliberate divergences: the provider must reject
	// although the server accepts (WantValid is true).
	Divergence string
}

func (c *Case) VCTNames() []string {
	var names []string
	for _, v := range c.VCTs {
		names = append(names, v.Name)
	}
	return names
}

var (
	corpusTplPath = field.NewPath("spec", "template")
	corpusVCTPath = field.NewPath("spec", "volumeClaimTemplates")
)

// ProviderErrors is the provider verdict for a case, exactly as the LWS
// resource validates a template.
func (c *Case) ProviderErrors() field.ErrorList {
	errs := podtemplate.ValidatePodTemplateSpec(c.Tpl, corpusTplPath, podtemplate.Options{VolumeClaimTemplateNames: c.VCTNames()})
	return append(errs, podtemplate.ValidateVolumeClaimTemplates(c.VCTs, corpusVCTPath)...)
}

// ---------------------------------------------------------------------------
// Helpers.

func qty(s string) resource.Quantity { return resource.MustParse(s) }

func qp(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

func vct(name, size string) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: qty(size)}},
		},
	}
}

func secretEnv(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}}
}

func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
}

func emptyDirVol(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}

func shmVol() corev1.Volume {
	return corev1.Volume{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
		Medium: corev1.StorageMediumMemory, SizeLimit: qp("16Gi")}}}
}

func sel(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

func labels(kv ...string) map[string]string {
	m := map[string]string{ParityLabelKey: ParityLabelValue}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func tcpProbe(port int32) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(port)}}}
}

func httpProbe(path string, port intstr.IntOrString) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: port}}}
}

// ---------------------------------------------------------------------------
// Base templates: all valid on kube-apiserver v1.37.2.

type baseTemplate struct {
	name  string
	build func() (*corev1.PodTemplateSpec, []corev1.PersistentVolumeClaim)
}

var corpusBases = []baseTemplate{
	{"vllm-leader", vllmLeaderBase},
	{"vllm-worker", vllmWorkerBase},
	{"minimal", minimalBase},
	{"sglang", sglangBase},
	{"triton", tritonBase},
}

// vllmLeaderBase: multi-node vLLM leader (LWS), 8 GPUs, /dev/shm in memory,
// zone spread, readiness probe, HF token from a Secret, a model cache VCT and
// a log-shipper sidecar.
func vllmLeaderBase() (*corev1.PodTemplateSpec, []corev1.PersistentVolumeClaim) {
	tpl := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{
			Labels:      labels("app", "vllm", "role", "leader"),
			Annotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "8000"},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:    "vllm-leader",
				Image:   "vllm/vllm-openai:v0.11.0",
				Command: []string{"sh", "-c"},
				Args:    []string{"python3 -m vllm.entrypoints.openai.api_server --port 8000 --model meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 8"},
				Env: []corev1.EnvVar{
					secretEnv("HF_TOKEN", "hf-secret", "hf_api_token"),
					fieldEnv("LWS_WORKER_INDEX", "metadata.labels['leaderworkerset.sigs.k8s.io/worker-index']"),
					fieldEnv("POD_IP", "status.podIP"),
					{Name: "NCCL_DEBUG", Value: "INFO"},
				},
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8000}, {Name: "ray", ContainerPort: 6379}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{"cpu": qty("32"), "memory": qty("512Gi"), "nvidia.com/gpu": qty("8")},
					Limits:   corev1.ResourceList{"memory": qty("512Gi"), "nvidia.com/gpu": qty("8")},
				},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8000)}},
					InitialDelaySeconds: 15, PeriodSeconds: 10,
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "dshm", MountPath: "/dev/shm"}, {Name: "model-cache", MountPath: "/models"}},
			}},
			InitContainers: []corev1.Container{{
				Name: "log-shipper", Image: "fluent/fluent-bit:3.1", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": qty("100m"), "memory": qty("64Mi")}},
			}},
			Volumes: []corev1.Volume{shmVol()},
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway,
				LabelSelector:  sel("app", "vllm"),
				MatchLabelKeys: []string{"leaderworkerset.sigs.k8s.io/group-key"},
			}},
			Tolerations:        []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			ServiceAccountName: "vllm",
			PriorityClassName:  "inference-high",
			NodeSelector:       map[string]string{"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
		},
	}
	return tpl, []corev1.PersistentVolumeClaim{vct("model-cache", "500Gi")}
}

// vllmWorkerBase: the matching Ray worker (no ports or probes).
func vllmWorkerBase() (*corev1.PodTemplateSpec, []corev1.PersistentVolumeClaim) {
	tpl, vcts := vllmLeaderBase()
	tpl.Labels["role"] = "worker"
	c := &tpl.Spec.Containers[0]
	c.Name = "vllm-worker"
	c.Args = []string{"ray start --block --address=$(LWS_LEADER_ADDRESS):6379"}
	c.Ports, c.ReadinessProbe = nil, nil
	tpl.Spec.InitContainers = nil
	return tpl, vcts
}

// minimalBase: one container, nothing else.
func minimalBase() (*corev1.PodTemplateSpec, []corev1.PersistentVolumeClaim) {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels("app", "web")},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "nginx:1.27"}}},
	}, nil
}

// sglangBase: two spread constraints (zone with minDomains, hostname), two
// VCTs, a metrics sidecar container, a classic init container, custom DNS and
// node affinity.
func sglangBase() (*corev1.PodTemplateSpec, []corev1.PersistentVolumeClaim) {
	tpl := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels("app", "sglang")},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{
				Name: "fetch-model", Image: "ghcr.io/example/model-fetcher:1.2",
				Env:          []corev1.EnvVar{secretEnv("HF_TOKEN", "hf-secret", "token")},
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
			}},
			Containers: []corev1.Container{
				{
					Name: "sglang", Image: "lmsysorg/sglang:v0.4.6",
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 30000}},
					Env: []corev1.EnvVar{
						fieldEnv("POD_NAME", "metadata.name"),
						{Name: "SGLANG_PORT", Value: "30000"},
					},
					EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "sglang-config"}}}},
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{"cpu": qty("16"), "memory": qty("128Gi"), "nvidia.com/gpu": qty("4")},
						Limits:   corev1.ResourceList{"cpu": qty("32"), "memory": qty("128Gi"), "nvidia.com/gpu": qty("4")},
					},
					ReadinessProbe: tcpProbe(30000),
					LivenessProbe:  httpProbe("/health", intstr.FromString("http")),
					VolumeMounts: []corev1.VolumeMount{
						{Name: "data", MountPath: "/data", ReadOnly: true},
						{Name: "cache", MountPath: "/root/.cache"},
						{Name: "dshm", MountPath: "/dev/shm"},
					},
				},
				{Name: "metrics", Image: "prom/statsd-exporter:v0.27.1", Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9102}}},
			},
			Volumes: []corev1.Volume{shmVol()},
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule, MinDomains: ptr.To[int32](2),
					LabelSelector: sel("app", "sglang"), NodeAffinityPolicy: ptr.To(corev1.NodeInclusionPolicyHonor), NodeTaintsPolicy: ptr.To(corev1.NodeInclusionPolicyIgnore)},
				{MaxSkew: 2, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: sel("app", "sglang")},
			},
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: "nvidia.com/gpu.product", Operator: corev1.NodeSelectorOpIn, Values: []string{"NVIDIA-A100-SXM4-80GB"}}}}}}}},
			DNSPolicy: corev1.DNSNone,
			DNSConfig: &corev1.PodDNSConfig{Nameservers: []string{"10.96.0.10"}, Searches: []string{"default.svc.cluster.local", "svc.cluster.local"},
				Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("2")}}},
			Tolerations: []corev1.Toleration{
				{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpEqual, Value: "present", Effect: corev1.TaintEffectNoSchedule},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
			},
			ServiceAccountName:            "sglang",
			TerminationGracePeriodSeconds: ptr.To[int64](60),
		},
	}
	return tpl, []corev1.PersistentVolumeClaim{vct("data", "200Gi"), vct("cache", "50Gi")}
}

// tritonBase: probes of every kind, a ConfigMap and a downward API volume,
// a hardened security context.
func tritonBase() (*corev1.PodTemplateSpec, []corev1.PersistentVolumeClaim) {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels("app", "triton")},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "triton", Image: "nvcr.io/nvidia/tritonserver:24.08-py3",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8000}, {Name: "grpc", ContainerPort: 8001}, {Name: "metrics", ContainerPort: 8002}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{"cpu": qty("4"), "memory": qty("16Gi")},
					Limits:   corev1.ResourceList{"cpu": qty("8"), "memory": qty("32Gi"), "nvidia.com/gpu": qty("1")},
				},
				ReadinessProbe: httpProbe("/v2/health/ready", intstr.FromString("http")),
				LivenessProbe:  httpProbe("/v2/health/live", intstr.FromInt32(8000)),
				StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 8001}},
					FailureThreshold: 60, PeriodSeconds: 10},
				Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 5}}},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "config", MountPath: "/etc/triton", ReadOnly: true},
					{Name: "podinfo", MountPath: "/etc/podinfo"},
				},
				SecurityContext: &corev1.SecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](1000),
					AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
			}},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "triton-config"},
					Items:                []corev1.KeyToPath{{Key: "config.pbtxt", Path: "model/config.pbtxt"}}}}},
				{Name: "podinfo", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
					Items: []corev1.DownwardAPIVolumeFile{{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}},
			},
			SecurityContext:   &corev1.PodSecurityContext{FSGroup: ptr.To[int64](2000), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			PriorityClassName: "inference-medium",
		},
	}, nil
}

// ---------------------------------------------------------------------------
// Mutations.

type mutation struct {
	rule string
	name string
	ok   bool   // verdict of kube-apiserver v1.37.2
	div  string // deliberate divergence (ok must be true)
	fn   func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim)
}

type mfn = func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim)

func valid(rule, name string, fn mfn) mutation {
	return mutation{rule: rule, name: name, ok: true, fn: fn}
}
func invalid(rule, name string, fn mfn) mutation {
	return mutation{rule: rule, name: name, ok: false, fn: fn}
}
func diverge(rule, name, div string, fn mfn) mutation {
	return mutation{rule: rule, name: name, ok: true, div: div, fn: fn}
}

// mc is the main (first regular) container.
func mc(t *corev1.PodTemplateSpec) *corev1.Container { return &t.Spec.Containers[0] }

// ts0 is the first topology spread constraint, added when the base has none.
func ts0(t *corev1.PodTemplateSpec) *corev1.TopologySpreadConstraint {
	if len(t.Spec.TopologySpreadConstraints) == 0 {
		t.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: sel("app", t.Labels["app"]),
		}}
	}
	return &t.Spec.TopologySpreadConstraints[0]
}

// setWhen sets whenUnsatisfiable of constraint 0, dropping minDomains (only valid with DoNotSchedule).
func setWhen(w corev1.UnsatisfiableConstraintAction) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		c := ts0(t)
		c.WhenUnsatisfiable, c.MinDomains = w, nil
	}
}

// readiness is the main container's readiness probe, added when missing.
func readiness(t *corev1.PodTemplateSpec) *corev1.Probe {
	c := mc(t)
	if c.ReadinessProbe == nil {
		c.ReadinessProbe = tcpProbe(8080)
	}
	return c.ReadinessProbe
}

func liveness(t *corev1.PodTemplateSpec) *corev1.Probe {
	c := mc(t)
	if c.LivenessProbe == nil {
		c.LivenessProbe = tcpProbe(8080)
	}
	return c.LivenessProbe
}

func startup(t *corev1.PodTemplateSpec) *corev1.Probe {
	c := mc(t)
	if c.StartupProbe == nil {
		c.StartupProbe = tcpProbe(8080)
	}
	return c.StartupProbe
}

// res sets a request and/or a limit of the main container ("" leaves it unset and removes it).
func res(name corev1.ResourceName, req, lim string) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		r := &mc(t).Resources
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		if r.Limits == nil {
			r.Limits = corev1.ResourceList{}
		}
		delete(r.Requests, name)
		delete(r.Limits, name)
		if req != "" {
			r.Requests[name] = qty(req)
		}
		if lim != "" {
			r.Limits[name] = qty(lim)
		}
	}
}

func addEnv(e corev1.EnvVar) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		c := mc(t)
		c.Env = append(c.Env, e)
	}
}

func envFrom(cm, secret *string, prefix string) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		s := corev1.EnvFromSource{Prefix: prefix}
		if cm != nil {
			s.ConfigMapRef = &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: *cm}}
		}
		if secret != nil {
			s.SecretRef = &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: *secret}}
		}
		c := mc(t)
		c.EnvFrom = append(c.EnvFrom, s)
	}
}

func addPort(p corev1.ContainerPort) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		c := mc(t)
		c.Ports = append(c.Ports, p)
	}
}

// addVol adds a volume and mounts it in the main container at /mnt/<name>.
func addVol(v corev1.Volume) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		t.Spec.Volumes = append(t.Spec.Volumes, v)
		c := mc(t)
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: "/mnt/" + v.Name})
	}
}

// addVolOnly adds a volume without mounting it.
func addVolOnly(v corev1.Volume) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		t.Spec.Volumes = append(t.Spec.Volumes, v)
	}
}

func addMount(m corev1.VolumeMount) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		c := mc(t)
		c.VolumeMounts = append(c.VolumeMounts, m)
	}
}

// scratchMount adds an emptyDir "scratch" and a mount of it customised by fn.
func scratchMount(fn func(m *corev1.VolumeMount, c *corev1.Container)) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		t.Spec.Volumes = append(t.Spec.Volumes, emptyDirVol("scratch"))
		c := mc(t)
		m := corev1.VolumeMount{Name: "scratch", MountPath: "/scratch"}
		fn(&m, c)
		c.VolumeMounts = append(c.VolumeMounts, m)
	}
}

// addVCT adds a claim template (customised by fn) and mounts it in the main container.
func addVCT(name string, fn func(p *corev1.PersistentVolumeClaim)) mfn {
	return func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
		p := vct(name, "10Gi")
		if fn != nil {
			fn(&p)
		}
		*v = append(*v, p)
		c := mc(t)
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: "/vct/" + name})
	}
}

func addTol(tol corev1.Toleration) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		t.Spec.Tolerations = append(t.Spec.Tolerations, tol)
	}
}

func spec(fn func(s *corev1.PodSpec)) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) { fn(&t.Spec) }
}

func ctr(fn func(c *corev1.Container)) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) { fn(mc(t)) }
}

func tsc(fn func(c *corev1.TopologySpreadConstraint)) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) { fn(ts0(t)) }
}

// addTSC appends a constraint (with a selector on the app label).
func addTSC(key string, w corev1.UnsatisfiableConstraintAction) mfn {
	return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
		ts0(t)
		t.Spec.TopologySpreadConstraints = append(t.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: w, LabelSelector: sel("app", t.Labels["app"])})
	}
}

func setDNS(policy corev1.DNSPolicy, cfg *corev1.PodDNSConfig) mfn {
	return spec(func(s *corev1.PodSpec) { s.DNSPolicy, s.DNSConfig = policy, cfg })
}

func nameservers(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("10.0.0.%d", i+1))
	}
	return out
}

func searches(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("ns%d.svc.cluster.local", i))
	}
	return out
}

// longSearches returns n search domains of 251 characters each.
func longSearches(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("%s.%s.%s.%s", dns63, dns63, dns63, strings.Repeat("s", 59)))
	}
	return out
}

// secondCtr appends a regular container.
func secondCtr(c corev1.Container) mfn {
	return spec(func(s *corev1.PodSpec) { s.Containers = append(s.Containers, c) })
}

func initCtr(c corev1.Container) mfn {
	return spec(func(s *corev1.PodSpec) { s.InitContainers = append(s.InitContainers, c) })
}

func str(s string) *string { return &s }

var (
	hex64  = strings.Repeat("0123456789abcdef", 4)
	dns63  = strings.Repeat("a", 63)
	dns64  = strings.Repeat("a", 64)
	sub253 = strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61)
	sub254 = sub253 + "e"
)

// corpusMutations lists every targeted mutation; each is applied to every base.
func corpusMutations() []mutation {
	var ms []mutation
	add := func(m ...mutation) { ms = append(ms, m...) }

	// --- TopologySpreadConstraints -------------------------------------
	const tsMaxSkew, tsKey, tsWhen, tsMin = "topology/maxSkew", "topology/topologyKey", "topology/whenUnsatisfiable", "topology/minDomains"
	add(
		valid(tsMaxSkew, "1", tsc(func(c *corev1.TopologySpreadConstraint) { c.MaxSkew = 1 })),
		valid(tsMaxSkew, "2", tsc(func(c *corev1.TopologySpreadConstraint) { c.MaxSkew = 2 })),
		invalid(tsMaxSkew, "0", tsc(func(c *corev1.TopologySpreadConstraint) { c.MaxSkew = 0 })),
		invalid(tsMaxSkew, "-1", tsc(func(c *corev1.TopologySpreadConstraint) { c.MaxSkew = -1 })),
		invalid(tsKey, "empty", tsc(func(c *corev1.TopologySpreadConstraint) { c.TopologyKey = "" })),
		valid(tsKey, "hostname", tsc(func(c *corev1.TopologySpreadConstraint) { c.TopologyKey = "kubernetes.io/hostname" })),
		valid(tsKey, "custom", tsc(func(c *corev1.TopologySpreadConstraint) { c.TopologyKey = "example.com/rack" })),
		// Only emptiness is checked, not the label-key format.
		valid(tsKey, "not-a-label-key", tsc(func(c *corev1.TopologySpreadConstraint) { c.TopologyKey = "Not A Label Key!" })),
		valid(tsWhen, "DoNotSchedule", setWhen(corev1.DoNotSchedule)),
		valid(tsWhen, "ScheduleAnyway", setWhen(corev1.ScheduleAnyway)),
		invalid(tsWhen, "empty", setWhen("")),
		invalid(tsWhen, "Sometimes", setWhen("Sometimes")),
		invalid(tsWhen, "lowercase", setWhen("doNotSchedule")),
		valid(tsMin, "nil", tsc(func(c *corev1.TopologySpreadConstraint) { c.MinDomains = nil })),
		valid(tsMin, "1-DoNotSchedule", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.WhenUnsatisfiable, c.MinDomains = corev1.DoNotSchedule, ptr.To[int32](1)
		})),
		valid(tsMin, "5-DoNotSchedule", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.WhenUnsatisfiable, c.MinDomains = corev1.DoNotSchedule, ptr.To[int32](5)
		})),
		invalid(tsMin, "0-DoNotSchedule", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.WhenUnsatisfiable, c.MinDomains = corev1.DoNotSchedule, ptr.To[int32](0)
		})),
		invalid(tsMin, "-1-DoNotSchedule", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.WhenUnsatisfiable, c.MinDomains = corev1.DoNotSchedule, ptr.To[int32](-1)
		})),
		invalid(tsMin, "1-ScheduleAnyway", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.WhenUnsatisfiable, c.MinDomains = corev1.ScheduleAnyway, ptr.To[int32](1)
		})),
		invalid(tsMin, "0-ScheduleAnyway", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.WhenUnsatisfiable, c.MinDomains = corev1.ScheduleAnyway, ptr.To[int32](0)
		})),
	)
	for _, pol := range []struct {
		name string
		set  func(c *corev1.TopologySpreadConstraint, p *corev1.NodeInclusionPolicy)
	}{
		{"nodeAffinityPolicy", func(c *corev1.TopologySpreadConstraint, p *corev1.NodeInclusionPolicy) { c.NodeAffinityPolicy = p }},
		{"nodeTaintsPolicy", func(c *corev1.TopologySpreadConstraint, p *corev1.NodeInclusionPolicy) { c.NodeTaintsPolicy = p }},
	} {
		rule := "topology/" + pol.name
		set := pol.set
		add(
			valid(rule, "Honor", tsc(func(c *corev1.TopologySpreadConstraint) { set(c, ptr.To(corev1.NodeInclusionPolicyHonor)) })),
			valid(rule, "Ignore", tsc(func(c *corev1.TopologySpreadConstraint) { set(c, ptr.To(corev1.NodeInclusionPolicyIgnore)) })),
			valid(rule, "nil", tsc(func(c *corev1.TopologySpreadConstraint) { set(c, nil) })),
			invalid(rule, "lowercase", tsc(func(c *corev1.TopologySpreadConstraint) { set(c, ptr.To[corev1.NodeInclusionPolicy]("honor")) })),
			invalid(rule, "empty", tsc(func(c *corev1.TopologySpreadConstraint) { set(c, ptr.To[corev1.NodeInclusionPolicy]("")) })),
		)
	}
	const tsSel, tsMLK, tsDup = "topology/labelSelector", "topology/matchLabelKeys", "topology/duplicatePair"
	setSel := func(s *metav1.LabelSelector) mfn {
		return tsc(func(c *corev1.TopologySpreadConstraint) { c.LabelSelector, c.MatchLabelKeys = s, nil })
	}
	expr := func(key string, op metav1.LabelSelectorOperator, vals ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: vals}}}
	}
	add(
		valid(tsSel, "nil", setSel(nil)),
		valid(tsSel, "matchLabels", setSel(sel("app", "x"))),
		valid(tsSel, "empty-selector", setSel(&metav1.LabelSelector{})),
		valid(tsSel, "prefixed-key", setSel(sel("example.com/app", "x"))),
		invalid(tsSel, "key-with-space", setSel(sel("bad key", "x"))),
		invalid(tsSel, "value-leading-dash", setSel(sel("app", "-x"))),
		valid(tsSel, "value-63", setSel(sel("app", dns63))),
		invalid(tsSel, "value-64", setSel(sel("app", dns64))),
		valid(tsSel, "In", setSel(expr("app", metav1.LabelSelectorOpIn, "a", "b"))),
		invalid(tsSel, "In-no-values", setSel(expr("app", metav1.LabelSelectorOpIn))),
		valid(tsSel, "NotIn", setSel(expr("app", metav1.LabelSelectorOpNotIn, "a"))),
		valid(tsSel, "Exists", setSel(expr("app", metav1.LabelSelectorOpExists))),
		invalid(tsSel, "Exists-with-values", setSel(expr("app", metav1.LabelSelectorOpExists, "a"))),
		valid(tsSel, "DoesNotExist", setSel(expr("app", metav1.LabelSelectorOpDoesNotExist))),
		invalid(tsSel, "operator-Equals", setSel(expr("app", "Equals", "a"))),
		invalid(tsSel, "expr-empty-key", setSel(expr("", metav1.LabelSelectorOpExists))),
		invalid(tsSel, "expr-bad-value", setSel(expr("app", metav1.LabelSelectorOpIn, "bad value"))),
		valid(tsMLK, "with-selector", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector, c.MatchLabelKeys = sel("app", "x"), []string{"pod-template-hash"}
		})),
		valid(tsMLK, "two-keys", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector, c.MatchLabelKeys = sel("app", "x"), []string{"pod-template-hash", "leaderworkerset.sigs.k8s.io/group-key"}
		})),
		invalid(tsMLK, "without-selector", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector, c.MatchLabelKeys = nil, []string{"pod-template-hash"}
		})),
		invalid(tsMLK, "bad-key", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector, c.MatchLabelKeys = sel("app", "x"), []string{"bad key"}
		})),
		invalid(tsMLK, "empty-key", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector, c.MatchLabelKeys = sel("app", "x"), []string{""}
		})),
		diverge(tsMLK, "overlaps-matchLabels", divMatchLabelKeysOverlap, tsc(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector, c.MatchLabelKeys = sel("app", "x"), []string{"app"}
		})),
		diverge(tsMLK, "overlaps-matchExpressions", divMatchLabelKeysOverlap, tsc(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector, c.MatchLabelKeys = expr("app", metav1.LabelSelectorOpIn, "x"), []string{"app"}
		})),
		// A key in both matchLabels and matchExpressions and matchLabelKeys is caught by the server too.
		invalid(tsMLK, "overlaps-both", tsc(func(c *corev1.TopologySpreadConstraint) {
			s := expr("app", metav1.LabelSelectorOpIn, "x")
			s.MatchLabels = map[string]string{"app": "x"}
			c.LabelSelector, c.MatchLabelKeys = s, []string{"app"}
		})),
		invalid(tsDup, "same-key-same-when", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			c := ts0(t)
			addTSC(c.TopologyKey, c.WhenUnsatisfiable)(t, v)
		}),
		valid(tsDup, "same-key-other-when", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			c := ts0(t)
			c.WhenUnsatisfiable, c.MinDomains = corev1.DoNotSchedule, nil
			c.TopologyKey = "example.com/rack"
			addTSC("example.com/rack", corev1.ScheduleAnyway)(t, v)
		}),
		valid(tsDup, "other-key-same-when", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			c := ts0(t)
			c.TopologyKey = "example.com/rack"
			addTSC("example.com/row", c.WhenUnsatisfiable)(t, v)
		}),
		invalid(tsDup, "dup-at-distance", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			c := ts0(t)
			c.TopologyKey = "example.com/rack"
			w := c.WhenUnsatisfiable
			addTSC("example.com/row", w)(t, v)
			addTSC("example.com/rack", w)(t, v)
		}),
	)

	// --- Container names, images, policies -----------------------------
	const cName, cImage, cPull, cTMP = "container/name", "container/image", "container/imagePullPolicy", "container/terminationMessagePolicy"
	setName := func(n string) mfn { return ctr(func(c *corev1.Container) { c.Name = n }) }
	setImage := func(i string) mfn { return ctr(func(c *corev1.Container) { c.Image = i }) }
	add(
		valid(cName, "a", setName("a")),
		valid(cName, "63", setName(dns63)),
		invalid(cName, "64", setName(dns64)),
		invalid(cName, "empty", setName("")),
		invalid(cName, "Bad_Name", setName("Bad_Name")),
		invalid(cName, "leading-dash", setName("-main")),
		invalid(cName, "dot", setName("my.container")),
		invalid(cName, "dup-regular", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			secondCtr(corev1.Container{Name: mc(t).Name, Image: "busybox:1.36"})(t, v)
		}),
		valid(cName, "second-distinct", secondCtr(corev1.Container{Name: "helper", Image: "busybox:1.36"})),
		invalid(cName, "dup-init-vs-regular", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			initCtr(corev1.Container{Name: mc(t).Name, Image: "busybox:1.36"})(t, v)
		}),
		invalid(cName, "init-empty", initCtr(corev1.Container{Name: "", Image: "busybox:1.36"})),
		invalid(cName, "init-Bad_Name", initCtr(corev1.Container{Name: "Bad_Name", Image: "busybox:1.36"})),
		valid(cName, "init-distinct", initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36"})),
		invalid(cImage, "empty", setImage("")),
		invalid(cImage, "init-empty", initCtr(corev1.Container{Name: "init-x"})),
		diverge(cImage, "leading-space", divImageWhitespace, setImage(" nginx:1.27")),
		diverge(cImage, "trailing-space", divImageWhitespace, setImage("nginx:1.27 ")),
		diverge(cImage, "trailing-tab", divImageWhitespace, setImage("nginx:1.27\t")),
		diverge(cImage, "init-trailing-space", divImageWhitespace, initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36 "})),
		valid(cImage, "digest", setImage("registry.example.com:5000/team/vllm@sha256:"+hex64)),
		valid(cImage, "untagged", setImage("nginx")),
		valid(cImage, "latest", setImage("nginx:latest")),
		// Template validation does not parse references.
		valid(cImage, "uppercase", setImage("Registry/Image:TAG")),
		valid(cPull, "Always", ctr(func(c *corev1.Container) { c.ImagePullPolicy = corev1.PullAlways })),
		valid(cPull, "IfNotPresent", ctr(func(c *corev1.Container) { c.ImagePullPolicy = corev1.PullIfNotPresent })),
		valid(cPull, "Never", ctr(func(c *corev1.Container) { c.ImagePullPolicy = corev1.PullNever })),
		invalid(cPull, "lowercase", ctr(func(c *corev1.Container) { c.ImagePullPolicy = "always" })),
		invalid(cPull, "Sometimes", ctr(func(c *corev1.Container) { c.ImagePullPolicy = "Sometimes" })),
		valid(cTMP, "FallbackToLogsOnError", ctr(func(c *corev1.Container) { c.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError })),
		invalid(cTMP, "Foo", ctr(func(c *corev1.Container) { c.TerminationMessagePolicy = "Foo" })),
		valid(cTMP, "custom-path", ctr(func(c *corev1.Container) { c.TerminationMessagePath = "/tmp/termination-log" })),
	)

	// --- Ports ---------------------------------------------------------
	const pNum, pHost, pName, pProto, pConflict, pHostNet = "ports/containerPort", "ports/hostPort", "ports/name", "ports/protocol", "ports/hostPortConflict", "ports/hostNetwork"
	add(
		valid(pNum, "1", addPort(corev1.ContainerPort{ContainerPort: 1})),
		valid(pNum, "65535", addPort(corev1.ContainerPort{ContainerPort: 65535})),
		invalid(pNum, "65536", addPort(corev1.ContainerPort{ContainerPort: 65536})),
		invalid(pNum, "0", addPort(corev1.ContainerPort{ContainerPort: 0})),
		invalid(pNum, "-1", addPort(corev1.ContainerPort{ContainerPort: -1})),
		// Duplicate container ports only warn.
		valid(pNum, "duplicate", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addPort(corev1.ContainerPort{ContainerPort: 7777})(t, v)
			addPort(corev1.ContainerPort{ContainerPort: 7777})(t, v)
		}),
		valid(pHost, "1", addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: 1})),
		valid(pHost, "65535", addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: 65535})),
		invalid(pHost, "65536", addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: 65536})),
		invalid(pHost, "-1", addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: -1})),
		valid(pName, "lower", addPort(corev1.ContainerPort{Name: "web", ContainerPort: 7000})),
		valid(pName, "15", addPort(corev1.ContainerPort{Name: "abcdefghijklmno", ContainerPort: 7000})),
		invalid(pName, "16", addPort(corev1.ContainerPort{Name: "abcdefghijklmnop", ContainerPort: 7000})),
		invalid(pName, "uppercase", addPort(corev1.ContainerPort{Name: "WEB", ContainerPort: 7000})),
		invalid(pName, "digits-only", addPort(corev1.ContainerPort{Name: "7000", ContainerPort: 7000})),
		invalid(pName, "double-dash", addPort(corev1.ContainerPort{Name: "a--b", ContainerPort: 7000})),
		invalid(pName, "leading-dash", addPort(corev1.ContainerPort{Name: "-ab", ContainerPort: 7000})),
		valid(pName, "dash", addPort(corev1.ContainerPort{Name: "a-b", ContainerPort: 7000})),
		invalid(pName, "duplicate", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addPort(corev1.ContainerPort{Name: "dup", ContainerPort: 7000})(t, v)
			addPort(corev1.ContainerPort{Name: "dup", ContainerPort: 7001})(t, v)
		}),
		valid(pProto, "UDP", addPort(corev1.ContainerPort{ContainerPort: 7000, Protocol: corev1.ProtocolUDP})),
		valid(pProto, "SCTP", addPort(corev1.ContainerPort{ContainerPort: 7000, Protocol: corev1.ProtocolSCTP})),
		invalid(pProto, "lowercase", addPort(corev1.ContainerPort{ContainerPort: 7000, Protocol: "tcp"})),
		invalid(pProto, "HTTP", addPort(corev1.ContainerPort{ContainerPort: 7000, Protocol: "HTTP"})),
		invalid(pConflict, "two-containers", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: 17000})(t, v)
			secondCtr(corev1.Container{Name: "helper", Image: "busybox:1.36", Ports: []corev1.ContainerPort{{ContainerPort: 7001, HostPort: 17000}}})(t, v)
		}),
		valid(pConflict, "other-protocol", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: 17000})(t, v)
			secondCtr(corev1.Container{Name: "helper", Image: "busybox:1.36", Ports: []corev1.ContainerPort{{ContainerPort: 7001, HostPort: 17000, Protocol: corev1.ProtocolUDP}}})(t, v)
		}),
		valid(pConflict, "other-hostIP", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: 17000, HostIP: "10.0.0.1"})(t, v)
			secondCtr(corev1.Container{Name: "helper", Image: "busybox:1.36", Ports: []corev1.ContainerPort{{ContainerPort: 7001, HostPort: 17000, HostIP: "10.0.0.2"}}})(t, v)
		}),
		invalid(pConflict, "same-container", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: 17000})(t, v)
			addPort(corev1.ContainerPort{ContainerPort: 7001, HostPort: 17000})(t, v)
		}),
		valid(pHostNet, "hostPort-equals-containerPort", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.HostNetwork = true
			addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: 7000})(t, v)
		}),
		invalid(pHostNet, "hostPort-differs", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.HostNetwork = true
			addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: 7001})(t, v)
		}),
		valid(pHostNet, "no-hostPort", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.HostNetwork = true
			addPort(corev1.ContainerPort{ContainerPort: 7000})(t, v)
		}),
	)

	// --- Resources -----------------------------------------------------
	const rCPU, rMem, rGPU, rExt, rEph, rHuge, rPod = "resources/cpu", "resources/memory", "resources/extended", "resources/name", "resources/ephemeral-storage", "resources/hugepages", "resources/pod-level"
	add(
		valid(rCPU, "requests==limits", res("cpu", "4", "4")),
		valid(rCPU, "requests<limits", res("cpu", "2", "4")),
		invalid(rCPU, "requests>limits", res("cpu", "8", "4")),
		invalid(rCPU, "requests>limits-milli", res("cpu", "4001m", "4")),
		valid(rCPU, "100m", res("cpu", "100m", "")),
		valid(rCPU, "0", res("cpu", "0", "")),
		invalid(rCPU, "-1", res("cpu", "-1", "")),
		invalid(rCPU, "limit--100m", res("cpu", "", "-100m")),
		valid(rCPU, "limit-only", res("cpu", "", "2")),
		valid(rMem, "requests==limits", res("memory", "1Gi", "1Gi")),
		invalid(rMem, "requests>limits", res("memory", "2Gi", "1Gi")),
		valid(rMem, "requests<limits", res("memory", "1Gi", "2Gi")),
		invalid(rMem, "negative", res("memory", "-1Gi", "")),
		valid(rGPU, "requests==limits", res("nvidia.com/gpu", "1", "1")),
		invalid(rGPU, "requests<limits", res("nvidia.com/gpu", "1", "2")),
		invalid(rGPU, "requests>limits", res("nvidia.com/gpu", "2", "1")),
		invalid(rGPU, "request-only", res("nvidia.com/gpu", "1", "")),
		valid(rGPU, "limit-only", res("nvidia.com/gpu", "", "2")),
		invalid(rGPU, "fractional", res("nvidia.com/gpu", "500m", "500m")),
		valid(rGPU, "zero", res("nvidia.com/gpu", "0", "0")),
		invalid(rGPU, "negative", res("nvidia.com/gpu", "", "-1")),
		valid(rExt, "example.com/foo", res("example.com/foo", "", "1")),
		invalid(rExt, "unqualified", res("foo", "", "1")),
		invalid(rExt, "requests-prefix", res("requests.example.com/foo", "", "1")),
		valid(rExt, "kubernetes.io-native", res("kubernetes.io/foo", "1", "")),
		invalid(rExt, "pods", res("pods", "", "1")),
		invalid(rExt, "storage", res("storage", "1Gi", "")),
		invalid(rExt, "bad-name", res("example.com/foo bar", "", "1")),
		valid(rEph, "requests==limits", res("ephemeral-storage", "10Gi", "10Gi")),
		invalid(rEph, "requests>limits", res("ephemeral-storage", "20Gi", "10Gi")),
		valid(rHuge, "with-memory", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			res("memory", "1Gi", "1Gi")(t, v)
			res("hugepages-2Mi", "4Mi", "4Mi")(t, v)
		}),
		invalid(rHuge, "not-page-multiple", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			res("memory", "1Gi", "1Gi")(t, v)
			res("hugepages-2Mi", "3Mi", "3Mi")(t, v)
		}),
		invalid(rHuge, "requests!=limits", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			res("memory", "1Gi", "1Gi")(t, v)
			res("hugepages-2Mi", "2Mi", "4Mi")(t, v)
		}),
		invalid(rHuge, "without-cpu-or-memory", ctr(func(c *corev1.Container) {
			c.Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{"hugepages-2Mi": qty("4Mi")}, Requests: corev1.ResourceList{"hugepages-2Mi": qty("4Mi")}}
		})),
		valid(rPod, "covers-containers", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			res("cpu", "1", "")(t, v)
			t.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": qty("1000")}}
		}),
		invalid(rPod, "below-aggregate", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			res("cpu", "1", "")(t, v)
			t.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": qty("500m")}}
		}),
		invalid(rPod, "gpu", spec(func(s *corev1.PodSpec) {
			s.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": qty("1")}}
		})),
	)

	// --- Env -----------------------------------------------------------
	const eName, eFrom, eSecret, eField, eRes, eFile, eEnvFrom = "env/name", "env/valueFrom", "env/secretKeyRef", "env/fieldRef", "env/resourceFieldRef", "env/fileKeyRef", "env/envFrom"
	addV := func(name, value string) mfn { return addEnv(corev1.EnvVar{Name: name, Value: value}) }
	add(
		valid(eName, "HF_TOKEN", addV("HF_TOKEN_2", "x")),
		invalid(eName, "contains-=", addV("A=B", "x")),
		invalid(eName, "empty", addV("", "x")),
		valid(eName, "leading-digit", addV("1ABC", "x")),
		valid(eName, "dots-dashes", addV("my.var-name", "x")),
		valid(eName, "space", addV("A B", "x")),
		invalid(eName, "non-ascii", addV("ÜBER", "x")),
		invalid(eFrom, "two-sources", addEnv(corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef:    &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"},
			ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}, Key: "k"}}})),
		invalid(eFrom, "value-and-valueFrom", addEnv(corev1.EnvVar{Name: "X", Value: "v", ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"}}})),
		invalid(eFrom, "empty", addEnv(corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{}})),
		valid(eFrom, "configMapKeyRef", addEnv(corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{
			ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}, Key: "k", Optional: ptr.To(true)}}})),
		valid(eSecret, "ok", addEnv(secretEnv("X", "hf-secret", "hf.token_1-x"))),
		invalid(eSecret, "empty-key", addEnv(secretEnv("X", "hf-secret", ""))),
		invalid(eSecret, "key-with-slash", addEnv(secretEnv("X", "hf-secret", "hf/token"))),
		invalid(eSecret, "name-Bad_Name", addEnv(secretEnv("X", "Bad_Name", "k"))),
		invalid(eSecret, "name-empty", addEnv(secretEnv("X", "", "k"))),
		valid(eSecret, "name-253", addEnv(secretEnv("X", sub253, "k"))),
		invalid(eSecret, "name-254", addEnv(secretEnv("X", sub254, "k"))),
	)
	for _, fp := range []struct {
		path string
		ok   bool
	}{
		{"metadata.name", true}, {"metadata.namespace", true}, {"metadata.uid", true}, {"spec.nodeName", true},
		{"spec.serviceAccountName", true}, {"status.hostIP", true}, {"status.podIPs", true},
		{"metadata.labels['app']", true}, {"metadata.annotations['example.com/x']", true},
		{"metadata.labels", false}, {"metadata.annotations", false}, {"spec.schedulerName", false},
		{"status.phase", false}, {"spec.foo", false}, {"", false}, {"metadata.labels['bad key']", false},
		{"metadata.name['x']", false},
	} {
		add(mutation{rule: eField, name: "path=" + fp.path, ok: fp.ok, fn: addEnv(fieldEnv("X", fp.path))})
	}
	add(
		invalid(eField, "apiVersion-v2", addEnv(corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v2", FieldPath: "metadata.name"}}})),
	)
	rf := func(resName, div string) mfn {
		s := &corev1.ResourceFieldSelector{Resource: resName}
		if div != "" {
			s.Divisor = qty(div)
		}
		return addEnv(corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: s}})
	}
	add(
		valid(eRes, "limits.cpu", rf("limits.cpu", "")),
		valid(eRes, "limits.cpu-1m", rf("limits.cpu", "1m")),
		invalid(eRes, "limits.cpu-2", rf("limits.cpu", "2")),
		valid(eRes, "requests.memory-1Mi", rf("requests.memory", "1Mi")),
		invalid(eRes, "requests.memory-3Mi", rf("requests.memory", "3Mi")),
		invalid(eRes, "limits.nvidia.com/gpu", rf("limits.nvidia.com/gpu", "")),
		invalid(eRes, "empty", rf("", "")),
		valid(eRes, "limits.hugepages-2Mi", rf("limits.hugepages-2Mi", "")),
	)
	fk := func(vol corev1.Volume, ref corev1.FileKeySelector) mfn {
		return func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			if vol.Name != "" {
				t.Spec.Volumes = append(t.Spec.Volumes, vol)
			}
			addEnv(corev1.EnvVar{Name: "FROM_FILE", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &ref}})(t, v)
		}
	}
	cmVol := corev1.Volume{Name: "envfile", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}}}
	add(
		valid(eFile, "emptyDir", fk(emptyDirVol("envfile"), corev1.FileKeySelector{VolumeName: "envfile", Path: "vars.env", Key: "TOKEN"})),
		invalid(eFile, "configMap-volume", fk(cmVol, corev1.FileKeySelector{VolumeName: "envfile", Path: "vars.env", Key: "TOKEN"})),
		invalid(eFile, "missing-volume", fk(corev1.Volume{}, corev1.FileKeySelector{VolumeName: "envfile", Path: "vars.env", Key: "TOKEN"})),
		invalid(eFile, "key-with-=", fk(emptyDirVol("envfile"), corev1.FileKeySelector{VolumeName: "envfile", Path: "vars.env", Key: "A=B"})),
		invalid(eFile, "path-backstep", fk(emptyDirVol("envfile"), corev1.FileKeySelector{VolumeName: "envfile", Path: "../vars.env", Key: "TOKEN"})),
		invalid(eFile, "empty-path", fk(emptyDirVol("envfile"), corev1.FileKeySelector{VolumeName: "envfile", Key: "TOKEN"})),
	)
	add(
		valid(eEnvFrom, "configMapRef", envFrom(str("cfg"), nil, "")),
		valid(eEnvFrom, "secretRef-prefix", envFrom(nil, str("sec"), "APP_")),
		invalid(eEnvFrom, "prefix-with-=", envFrom(str("cfg"), nil, "A=")),
		invalid(eEnvFrom, "both", envFrom(str("cfg"), str("sec"), "")),
		invalid(eEnvFrom, "neither", envFrom(nil, nil, "")),
		invalid(eEnvFrom, "empty-name", envFrom(str(""), nil, "")),
		invalid(eEnvFrom, "Bad_Name", envFrom(nil, str("Bad_Name"), "")),
		// Names are checked with prefix=true: a trailing dash is accepted.
		valid(eEnvFrom, "trailing-dash", envFrom(str("cfg-"), nil, "")),
	)

	// --- Volumes and mounts --------------------------------------------
	const vMount, vName, vSrc, vVCT, vVCTSpec, vDev = "volumes/mounts", "volumes/name", "volumes/source", "volumes/claimTemplateName", "volumes/claimTemplateSpec", "volumes/devices"
	add(
		valid(vMount, "vct-name", addVCT("scratch", nil)),
		invalid(vMount, "missing-volume", addMount(corev1.VolumeMount{Name: "nope", MountPath: "/nope"})),
		invalid(vMount, "empty-name", addMount(corev1.VolumeMount{Name: "", MountPath: "/nope"})),
		invalid(vMount, "empty-mountPath", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) { m.MountPath = "" })),
		invalid(vMount, "duplicate-mountPath", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.Volumes = append(t.Spec.Volumes, emptyDirVol("scratch"), emptyDirVol("scratch2"))
			addMount(corev1.VolumeMount{Name: "scratch", MountPath: "/scratch"})(t, v)
			addMount(corev1.VolumeMount{Name: "scratch2", MountPath: "/scratch"})(t, v)
		}),
		valid(vMount, "same-volume-twice", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.Volumes = append(t.Spec.Volumes, emptyDirVol("scratch"))
			addMount(corev1.VolumeMount{Name: "scratch", MountPath: "/scratch"})(t, v)
			addMount(corev1.VolumeMount{Name: "scratch", MountPath: "/scratch2", SubPath: "x"})(t, v)
		}),
		valid(vMount, "relative-mountPath", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) { m.MountPath = "scratch" })),
		valid(vMount, "subPath", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) { m.SubPath = "a/b" })),
		valid(vMount, "subPath-dotdot-prefix", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) { m.SubPath = "..a" })),
		invalid(vMount, "subPath-backstep", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) { m.SubPath = "../a" })),
		invalid(vMount, "subPath-inner-backstep", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) { m.SubPath = "a/../../b" })),
		invalid(vMount, "subPath-absolute", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) { m.SubPath = "/a" })),
		valid(vMount, "subPathExpr", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) { m.SubPathExpr = "$(POD_NAME)" })),
		invalid(vMount, "subPath-and-subPathExpr", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) {
			m.SubPath, m.SubPathExpr = "a", "$(POD_NAME)"
		})),
		valid(vMount, "HostToContainer", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) {
			m.MountPropagation = ptr.To(corev1.MountPropagationHostToContainer)
		})),
		invalid(vMount, "Bidirectional-unprivileged", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) {
			m.MountPropagation = ptr.To(corev1.MountPropagationBidirectional)
		})),
		valid(vMount, "Bidirectional-privileged", scratchMount(func(m *corev1.VolumeMount, c *corev1.Container) {
			m.MountPropagation = ptr.To(corev1.MountPropagationBidirectional)
			c.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		})),
		invalid(vMount, "propagation-Foo", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) {
			m.MountPropagation = ptr.To[corev1.MountPropagationMode]("Foo")
		})),
		valid(vMount, "recursiveReadOnly-Enabled", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) {
			m.ReadOnly, m.RecursiveReadOnly = true, ptr.To(corev1.RecursiveReadOnlyEnabled)
		})),
		invalid(vMount, "recursiveReadOnly-not-readOnly", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) {
			m.RecursiveReadOnly = ptr.To(corev1.RecursiveReadOnlyIfPossible)
		})),
		invalid(vMount, "recursiveReadOnly-Foo", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) {
			m.ReadOnly, m.RecursiveReadOnly = true, ptr.To[corev1.RecursiveReadOnlyMode]("Foo")
		})),
		valid(vMount, "recursiveReadOnly-Disabled", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) {
			m.RecursiveReadOnly = ptr.To(corev1.RecursiveReadOnlyDisabled)
		})),
		valid(vMount, "init-mounts-vct", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			*v = append(*v, vct("seed", "1Gi"))
			initCtr(corev1.Container{Name: "init-seed", Image: "busybox:1.36", VolumeMounts: []corev1.VolumeMount{{Name: "seed", MountPath: "/seed"}}})(t, v)
		}),
		invalid(vMount, "init-mounts-missing", initCtr(corev1.Container{Name: "init-seed", Image: "busybox:1.36", VolumeMounts: []corev1.VolumeMount{{Name: "seed", MountPath: "/seed"}}})),
	)
	add(
		invalid(vName, "Bad_Name", addVol(emptyDirVol("Bad_Name"))),
		valid(vName, "63", addVol(emptyDirVol(dns63))),
		invalid(vName, "64", addVol(emptyDirVol(dns64))),
		invalid(vName, "empty", addVolOnly(emptyDirVol(""))),
		invalid(vName, "dot", addVolOnly(emptyDirVol("a.b"))),
		invalid(vName, "duplicate", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addVol(emptyDirVol("twice"))(t, v)
			addVolOnly(emptyDirVol("twice"))(t, v)
		}),
		// A template volume named like a claim template is replaced by it.
		valid(vName, "shadowed-by-vct", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addVCT("shared", nil)(t, v)
			addVolOnly(corev1.Volume{Name: "shared", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: ""}}})(t, v)
		}),
	)
	secretVol := func(fn func(s *corev1.SecretVolumeSource)) mfn {
		s := &corev1.SecretVolumeSource{SecretName: "tls"}
		fn(s)
		return addVol(corev1.Volume{Name: "sec", VolumeSource: corev1.VolumeSource{Secret: s}})
	}
	add(
		valid(vSrc, "emptyDir-memory-sizeLimit", addVol(corev1.Volume{Name: "mem", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: qp("1Gi")}}})),
		invalid(vSrc, "emptyDir-negative-sizeLimit", addVol(corev1.Volume{Name: "mem", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: qp("-1Gi")}}})),
		valid(vSrc, "emptyDir-hugepages", addVol(corev1.Volume{Name: "mem", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumHugePages}}})),
		valid(vSrc, "no-source-defaults-emptyDir", addVol(corev1.Volume{Name: "nosrc"})),
		invalid(vSrc, "two-sources", addVol(corev1.Volume{Name: "two", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{},
			Secret: &corev1.SecretVolumeSource{SecretName: "s"}}})),
		valid(vSrc, "secret", secretVol(func(*corev1.SecretVolumeSource) {})),
		invalid(vSrc, "secret-empty-name", secretVol(func(s *corev1.SecretVolumeSource) { s.SecretName = "" })),
		valid(vSrc, "secret-mode-0777", secretVol(func(s *corev1.SecretVolumeSource) { s.DefaultMode = ptr.To[int32](0o777) })),
		invalid(vSrc, "secret-mode-01000", secretVol(func(s *corev1.SecretVolumeSource) { s.DefaultMode = ptr.To[int32](0o1000) })),
		invalid(vSrc, "secret-mode--1", secretVol(func(s *corev1.SecretVolumeSource) { s.DefaultMode = ptr.To[int32](-1) })),
		valid(vSrc, "secret-item", secretVol(func(s *corev1.SecretVolumeSource) { s.Items = []corev1.KeyToPath{{Key: "tls.crt", Path: "a/tls.crt"}} })),
		invalid(vSrc, "secret-item-empty-key", secretVol(func(s *corev1.SecretVolumeSource) { s.Items = []corev1.KeyToPath{{Path: "a"}} })),
		invalid(vSrc, "secret-item-backstep", secretVol(func(s *corev1.SecretVolumeSource) { s.Items = []corev1.KeyToPath{{Key: "k", Path: "../a"}} })),
		invalid(vSrc, "secret-item-absolute", secretVol(func(s *corev1.SecretVolumeSource) { s.Items = []corev1.KeyToPath{{Key: "k", Path: "/a"}} })),
		invalid(vSrc, "secret-item-dotdot-prefix", secretVol(func(s *corev1.SecretVolumeSource) { s.Items = []corev1.KeyToPath{{Key: "k", Path: "..a"}} })),
		invalid(vSrc, "secret-item-mode", secretVol(func(s *corev1.SecretVolumeSource) {
			s.Items = []corev1.KeyToPath{{Key: "k", Path: "a", Mode: ptr.To[int32](0o1777)}}
		})),
		valid(vSrc, "configMap", addVol(corev1.Volume{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}})),
		invalid(vSrc, "configMap-empty-name", addVol(corev1.Volume{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}})),
		valid(vSrc, "hostPath", addVol(corev1.Volume{Name: "hp", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}})),
		valid(vSrc, "hostPath-DirectoryOrCreate", addVol(corev1.Volume{Name: "hp", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data", Type: ptr.To(corev1.HostPathDirectoryOrCreate)}}})),
		invalid(vSrc, "hostPath-empty", addVol(corev1.Volume{Name: "hp", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{}}})),
		invalid(vSrc, "hostPath-type-Foo", addVol(corev1.Volume{Name: "hp", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data", Type: ptr.To[corev1.HostPathType]("Foo")}}})),
		invalid(vSrc, "hostPath-backstep", addVol(corev1.Volume{Name: "hp", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data/../etc"}}})),
		valid(vSrc, "pvc", addVol(corev1.Volume{Name: "claim", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "existing"}}})),
		invalid(vSrc, "pvc-empty-claimName", addVol(corev1.Volume{Name: "claim", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{}}})),
		valid(vSrc, "projected-token", addVol(corev1.Volume{Name: "tok", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](600)}}}}}})),
		invalid(vSrc, "projected-token-599s", addVol(corev1.Volume{Name: "tok", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](599)}}}}}})),
		invalid(vSrc, "projected-token-no-path", addVol(corev1.Volume{Name: "tok", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{}}}}}})),
		valid(vSrc, "downwardAPI-labels", addVol(corev1.Volume{Name: "dapi", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
			Items: []corev1.DownwardAPIVolumeFile{{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}})),
		invalid(vSrc, "downwardAPI-podIP", addVol(corev1.Volume{Name: "dapi", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
			Items: []corev1.DownwardAPIVolumeFile{{Path: "ip", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}}}}})),
		invalid(vSrc, "ephemeral-no-template", addVol(corev1.Volume{Name: "eph", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}})),
		valid(vSrc, "ephemeral", addVol(corev1.Volume{Name: "eph", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
			VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: vct("x", "1Gi").Spec}}}})),
	)
	add(
		invalid(vVCT, "Bad_Name", addVCT("Bad_Name", nil)),
		invalid(vVCT, "dot", addVCT("a.b", nil)),
		valid(vVCT, "63", addVCT(dns63, nil)),
		invalid(vVCT, "64", addVCT(dns64, nil)),
		invalid(vVCT, "empty", addVCT("", nil)),
		valid(vVCT, "two", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addVCT("first", nil)(t, v)
			addVCT("second", nil)(t, v)
		}),
		// Duplicate claim template names collapse into one volume on the server.
		valid(vVCT, "duplicate", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addVCT("twice", nil)(t, v)
			*v = append(*v, vct("twice", "1Gi"))
		}),
	)
	vctSpec := func(fn func(s *corev1.PersistentVolumeClaimSpec)) mfn {
		return addVCT("extra", func(p *corev1.PersistentVolumeClaim) { fn(&p.Spec) })
	}
	add(
		invalid(vVCTSpec, "no-accessModes", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.AccessModes = nil })),
		invalid(vVCTSpec, "accessMode-Foo", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.AccessModes = []corev1.PersistentVolumeAccessMode{"Foo"} })),
		valid(vVCTSpec, "ReadWriteOncePod", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) {
			s.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod}
		})),
		invalid(vVCTSpec, "ReadWriteOncePod-and-RWO", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) {
			s.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod, corev1.ReadWriteOnce}
		})),
		valid(vVCTSpec, "RWX-and-ROX", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) {
			s.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadOnlyMany}
		})),
		invalid(vVCTSpec, "no-storage", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.Resources.Requests = nil })),
		invalid(vVCTSpec, "storage-0", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.Resources.Requests["storage"] = qty("0") })),
		valid(vVCTSpec, "storage-1", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.Resources.Requests["storage"] = qty("1") })),
		valid(vVCTSpec, "storageClassName", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.StorageClassName = str("premium-rwo") })),
		valid(vVCTSpec, "storageClassName-empty", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.StorageClassName = str("") })),
		invalid(vVCTSpec, "storageClassName-Bad_Name", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.StorageClassName = str("Bad_Name") })),
		valid(vVCTSpec, "volumeMode-Block", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.VolumeMode = ptr.To(corev1.PersistentVolumeBlock) })),
		invalid(vVCTSpec, "volumeMode-Foo", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.VolumeMode = ptr.To[corev1.PersistentVolumeMode]("Foo") })),
		invalid(vVCTSpec, "selector-bad", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.Selector = sel("bad key", "x") })),
		valid(vVCTSpec, "dataSource-pvc", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) {
			s.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "golden"}
		})),
		invalid(vVCTSpec, "dataSource-core-non-pvc", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) {
			s.DataSource = &corev1.TypedLocalObjectReference{Kind: "Snapshot", Name: "golden"}
		})),
		valid(vVCTSpec, "dataSource-snapshot", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) {
			s.DataSource = &corev1.TypedLocalObjectReference{APIGroup: str("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: "golden"}
		})),
	)
	blockVCT := func(name string) corev1.PersistentVolumeClaim {
		p := vct(name, "10Gi")
		p.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock)
		return p
	}
	add(
		valid(vDev, "vct", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			*v = append(*v, blockVCT("raw"))
			mc(t).VolumeDevices = []corev1.VolumeDevice{{Name: "raw", DevicePath: "/dev/xvda"}}
		}),
		invalid(vDev, "emptyDir", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.Volumes = append(t.Spec.Volumes, emptyDirVol("raw"))
			mc(t).VolumeDevices = []corev1.VolumeDevice{{Name: "raw", DevicePath: "/dev/xvda"}}
		}),
		invalid(vDev, "missing", ctr(func(c *corev1.Container) {
			c.VolumeDevices = []corev1.VolumeDevice{{Name: "raw", DevicePath: "/dev/xvda"}}
		})),
		invalid(vDev, "empty-devicePath", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			*v = append(*v, blockVCT("raw"))
			mc(t).VolumeDevices = []corev1.VolumeDevice{{Name: "raw"}}
		}),
		invalid(vDev, "also-mounted", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			*v = append(*v, blockVCT("raw"))
			c := mc(t)
			c.VolumeDevices = []corev1.VolumeDevice{{Name: "raw", DevicePath: "/dev/xvda"}}
			c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "raw", MountPath: "/raw"})
		}),
	)

	// --- Probes and lifecycle ------------------------------------------
	const prH, prT, prS, prL = "probes/handler", "probes/thresholds", "probes/successThreshold", "probes/lifecycle"
	rp := func(fn func(p *corev1.Probe)) mfn {
		return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) { fn(readiness(t)) }
	}
	lp := func(fn func(p *corev1.Probe)) mfn {
		return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) { fn(liveness(t)) }
	}
	sp := func(fn func(p *corev1.Probe)) mfn {
		return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) { fn(startup(t)) }
	}
	handler := func(h corev1.ProbeHandler) func(p *corev1.Probe) { return func(p *corev1.Probe) { p.ProbeHandler = h } }
	tcp := &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}
	add(
		valid(prH, "readiness-tcp", rp(handler(corev1.ProbeHandler{TCPSocket: tcp}))),
		invalid(prH, "readiness-two-handlers", rp(handler(corev1.ProbeHandler{TCPSocket: tcp, HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8080)}}))),
		invalid(prH, "liveness-three-handlers", lp(handler(corev1.ProbeHandler{TCPSocket: tcp, Exec: &corev1.ExecAction{Command: []string{"true"}}, GRPC: &corev1.GRPCAction{Port: 9000}}))),
		invalid(prH, "readiness-no-handler", rp(handler(corev1.ProbeHandler{}))),
		valid(prH, "exec", rp(handler(corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/ready"}}}))),
		invalid(prH, "exec-no-command", rp(handler(corev1.ProbeHandler{Exec: &corev1.ExecAction{}}))),
		invalid(prH, "httpGet-port-0", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(0)}}))),
		valid(prH, "httpGet-port-65535", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(65535)}}))),
		invalid(prH, "httpGet-port-65536", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(65536)}}))),
		valid(prH, "httpGet-port-name", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http")}}))),
		invalid(prH, "httpGet-port-bad-name", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("HTTP_X")}}))),
		valid(prH, "httpGet-no-path", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}))),
		valid(prH, "httpGet-HTTPS", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8443), Scheme: corev1.URISchemeHTTPS}}))),
		invalid(prH, "httpGet-FTP", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8080), Scheme: "FTP"}}))),
		valid(prH, "httpGet-header", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8080),
			HTTPHeaders: []corev1.HTTPHeader{{Name: "X-Custom", Value: "1"}}}}))),
		invalid(prH, "httpGet-bad-header", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8080),
			HTTPHeaders: []corev1.HTTPHeader{{Name: "X Bad", Value: "1"}}}}))),
		valid(prH, "grpc", rp(handler(corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000}}))),
		invalid(prH, "grpc-port-0", rp(handler(corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 0}}))),
		invalid(prH, "tcp-port-0", rp(handler(corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(0)}}))),
		valid(prS, "liveness-1", lp(func(p *corev1.Probe) { p.SuccessThreshold = 1 })),
		invalid(prS, "liveness-2", lp(func(p *corev1.Probe) { p.SuccessThreshold = 2 })),
		valid(prS, "readiness-2", rp(func(p *corev1.Probe) { p.SuccessThreshold = 2 })),
		invalid(prS, "startup-2", sp(func(p *corev1.Probe) { p.SuccessThreshold = 2 })),
		invalid(prS, "readiness--1", rp(func(p *corev1.Probe) { p.SuccessThreshold = -1 })),
		valid(prT, "initialDelay-0", rp(func(p *corev1.Probe) { p.InitialDelaySeconds = 0 })),
		invalid(prT, "initialDelay--1", rp(func(p *corev1.Probe) { p.InitialDelaySeconds = -1 })),
		invalid(prT, "period--1", rp(func(p *corev1.Probe) { p.PeriodSeconds = -1 })),
		invalid(prT, "timeout--1", lp(func(p *corev1.Probe) { p.TimeoutSeconds = -1 })),
		invalid(prT, "failure--1", sp(func(p *corev1.Probe) { p.FailureThreshold = -1 })),
		valid(prT, "startup-failure-120", sp(func(p *corev1.Probe) { p.FailureThreshold = 120 })),
		invalid(prT, "readiness-terminationGrace", rp(func(p *corev1.Probe) { p.TerminationGracePeriodSeconds = ptr.To[int64](10) })),
		valid(prT, "liveness-terminationGrace-10", lp(func(p *corev1.Probe) { p.TerminationGracePeriodSeconds = ptr.To[int64](10) })),
		invalid(prT, "liveness-terminationGrace-0", lp(func(p *corev1.Probe) { p.TerminationGracePeriodSeconds = ptr.To[int64](0) })),
		invalid(prT, "startup-terminationGrace--1", sp(func(p *corev1.Probe) { p.TerminationGracePeriodSeconds = ptr.To[int64](-1) })),
		invalid(prH, "classic-init-readiness", initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36", ReadinessProbe: tcpProbe(8080)})),
		valid(prH, "sidecar-readiness", initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36", ReadinessProbe: tcpProbe(8080),
			RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)})),
		invalid(prS, "sidecar-liveness-2", initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36",
			LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: tcp}, SuccessThreshold: 2},
			RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)})),
	)
	lc := func(pre, post *corev1.LifecycleHandler, grace *int64) mfn {
		return func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			mc(t).Lifecycle = &corev1.Lifecycle{PreStop: pre, PostStart: post}
			if grace != nil {
				t.Spec.TerminationGracePeriodSeconds = grace
			}
		}
	}
	sleep := func(s int64) *corev1.LifecycleHandler {
		return &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: s}}
	}
	add(
		valid(prL, "sleep-5", lc(sleep(5), nil, ptr.To[int64](30))),
		valid(prL, "sleep-equals-grace", lc(sleep(30), nil, ptr.To[int64](30))),
		invalid(prL, "sleep-above-grace", lc(sleep(31), nil, ptr.To[int64](30))),
		valid(prL, "sleep-45-grace-60", lc(sleep(45), nil, ptr.To[int64](60))),
		invalid(prL, "sleep--1", lc(sleep(-1), nil, nil)),
		valid(prL, "sleep-0", lc(sleep(0), nil, nil)),
		invalid(prL, "preStop-two-handlers", lc(&corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 1}, Exec: &corev1.ExecAction{Command: []string{"true"}}}, nil, nil)),
		invalid(prL, "preStop-no-handler", lc(&corev1.LifecycleHandler{}, nil, nil)),
		valid(prL, "postStart-httpGet", lc(nil, &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/warm", Port: intstr.FromInt32(8080)}}, nil)),
		invalid(prL, "postStart-httpGet-port-0", lc(nil, &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/warm", Port: intstr.FromInt32(0)}}, nil)),
		invalid(prL, "classic-init-lifecycle", initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36", Lifecycle: &corev1.Lifecycle{PreStop: sleep(1)}})),
		valid(prL, "grace-0-sleep-0", lc(sleep(0), nil, ptr.To[int64](0))),
		invalid(prL, "grace-0-sleep-1", lc(sleep(1), nil, ptr.To[int64](0))),
		// A negative grace period is accepted by validation (the server only warns), but no sleep fits in it.
		valid(prL, "grace--1", lc(nil, &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}, ptr.To[int64](-1))),
		invalid(prL, "grace--1-sleep-0", lc(sleep(0), nil, ptr.To[int64](-1))),
	)

	// --- Restart policy ------------------------------------------------
	const rpPod, rpCtr = "restartPolicy/pod", "restartPolicy/container"
	setRP := func(p corev1.RestartPolicy) mfn { return spec(func(s *corev1.PodSpec) { s.RestartPolicy = p }) }
	add(
		valid(rpPod, "empty", setRP("")),
		valid(rpPod, "Always", setRP(corev1.RestartPolicyAlways)),
		invalid(rpPod, "OnFailure", setRP(corev1.RestartPolicyOnFailure)),
		invalid(rpPod, "Never", setRP(corev1.RestartPolicyNever)),
		invalid(rpPod, "Sometimes", setRP("Sometimes")),
		invalid(rpPod, "activeDeadlineSeconds", spec(func(s *corev1.PodSpec) { s.ActiveDeadlineSeconds = ptr.To[int64](600) })),
		valid(rpCtr, "sidecar-Always", initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)})),
		invalid(rpCtr, "init-Sometimes", initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36", RestartPolicy: ptr.To[corev1.ContainerRestartPolicy]("Sometimes")})),
		valid(rpCtr, "init-Never", initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyNever)})),
		valid(rpCtr, "regular-Never", ctr(func(c *corev1.Container) { c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyNever) })),
		invalid(rpCtr, "regular-Sometimes", ctr(func(c *corev1.Container) { c.RestartPolicy = ptr.To[corev1.ContainerRestartPolicy]("Sometimes") })),
		valid(rpCtr, "regular-rule", ctr(func(c *corev1.Container) {
			c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyNever)
			c.RestartPolicyRules = []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart,
				ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
		})),
		invalid(rpCtr, "regular-rule-without-policy", ctr(func(c *corev1.Container) {
			c.RestartPolicyRules = []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart,
				ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
		})),
	)

	// --- Tolerations ---------------------------------------------------
	const tol = "tolerations"
	add(
		valid(tol, "Exists", addTol(corev1.Toleration{Key: "example.com/dedicated", Operator: corev1.TolerationOpExists})),
		invalid(tol, "Exists-with-value", addTol(corev1.Toleration{Key: "example.com/dedicated", Operator: corev1.TolerationOpExists, Value: "gpu"})),
		valid(tol, "Equal-with-value", addTol(corev1.Toleration{Key: "example.com/dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu"})),
		valid(tol, "default-operator", addTol(corev1.Toleration{Key: "example.com/dedicated", Value: "gpu"})),
		invalid(tol, "empty-key-Equal", addTol(corev1.Toleration{Operator: corev1.TolerationOpEqual, Value: "gpu"})),
		valid(tol, "empty-key-Exists", addTol(corev1.Toleration{Operator: corev1.TolerationOpExists})),
		valid(tol, "seconds-NoExecute", addTol(corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)})),
		invalid(tol, "seconds-NoSchedule", addTol(corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: ptr.To[int64](60)})),
		valid(tol, "PreferNoSchedule", addTol(corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule})),
		invalid(tol, "effect-Foo", addTol(corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: "Foo"})),
		invalid(tol, "operator-Foo", addTol(corev1.Toleration{Key: "k", Operator: "Foo"})),
		invalid(tol, "operator-Lt", addTol(corev1.Toleration{Key: "k", Operator: corev1.TolerationOpLt, Value: "5"})),
		invalid(tol, "bad-key", addTol(corev1.Toleration{Key: "bad key", Operator: corev1.TolerationOpExists})),
		valid(tol, "value-63", addTol(corev1.Toleration{Key: "k", Value: dns63})),
		invalid(tol, "value-64", addTol(corev1.Toleration{Key: "k", Value: dns64})),
		invalid(tol, "value-bad", addTol(corev1.Toleration{Key: "k", Value: "bad value!"})),
	)

	// --- DNS -----------------------------------------------------------
	const dnsP, dnsC = "dns/policy", "dns/config"
	add(
		valid(dnsP, "None-with-nameserver", setDNS(corev1.DNSNone, &corev1.PodDNSConfig{Nameservers: []string{"8.8.8.8"}})),
		invalid(dnsP, "None-without-config", setDNS(corev1.DNSNone, nil)),
		invalid(dnsP, "None-without-nameservers", setDNS(corev1.DNSNone, &corev1.PodDNSConfig{Searches: []string{"example.com"}})),
		invalid(dnsP, "Foo", setDNS("Foo", nil)),
		valid(dnsP, "ClusterFirstWithHostNet", setDNS(corev1.DNSClusterFirstWithHostNet, nil)),
		valid(dnsP, "Default", setDNS(corev1.DNSDefault, nil)),
		valid(dnsP, "ClusterFirst-with-config", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Searches: []string{"example.com"}})),
		valid(dnsC, "3-nameservers", setDNS(corev1.DNSNone, &corev1.PodDNSConfig{Nameservers: nameservers(3)})),
		invalid(dnsC, "4-nameservers", setDNS(corev1.DNSNone, &corev1.PodDNSConfig{Nameservers: nameservers(4)})),
		invalid(dnsC, "nameserver-not-ip", setDNS(corev1.DNSNone, &corev1.PodDNSConfig{Nameservers: []string{"dns.example.com"}})),
		valid(dnsC, "nameserver-ipv6", setDNS(corev1.DNSNone, &corev1.PodDNSConfig{Nameservers: []string{"2001:db8::1"}})),
		invalid(dnsC, "nameserver-leading-zero", setDNS(corev1.DNSNone, &corev1.PodDNSConfig{Nameservers: []string{"010.0.0.1"}})),
		valid(dnsC, "32-searches", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Searches: searches(32)})),
		invalid(dnsC, "33-searches", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Searches: searches(33)})),
		invalid(dnsC, "search-uppercase", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Searches: []string{"Bad.Example.com"}})),
		valid(dnsC, "search-underscore", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Searches: []string{"_sip._tcp.example.com"}})),
		valid(dnsC, "search-trailing-dot", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Searches: []string{"example.com."}})),
		valid(dnsC, "searches-2015-chars", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Searches: longSearches(8)})),
		invalid(dnsC, "searches-2267-chars", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Searches: longSearches(9)})),
		invalid(dnsC, "option-empty-name", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Options: []corev1.PodDNSConfigOption{{Value: ptr.To("1")}}})),
		valid(dnsC, "option-ndots", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("5")}}})),
	)

	// --- Names of referenced objects -----------------------------------
	const nSA, nPC, nOther = "names/serviceAccountName", "names/priorityClassName", "names/other"
	setSA := func(n string) mfn { return spec(func(s *corev1.PodSpec) { s.ServiceAccountName = n }) }
	setPC := func(n string) mfn { return spec(func(s *corev1.PodSpec) { s.PriorityClassName = n }) }
	add(
		valid(nSA, "vllm", setSA("vllm")),
		invalid(nSA, "Bad_Name", setSA("Bad_Name")),
		valid(nSA, "dots", setSA("a.b.c")),
		valid(nSA, "253", setSA(sub253)),
		invalid(nSA, "254", setSA(sub254)),
		invalid(nSA, "leading-dash", setSA("-abc")),
		valid(nSA, "empty", setSA("")),
		invalid(nSA, "deprecated-Bad_Name", spec(func(s *corev1.PodSpec) { s.ServiceAccountName, s.DeprecatedServiceAccount = "", "Bad_Name" })),
		valid(nPC, "inference-high", setPC("inference-high")),
		valid(nPC, "253", setPC(sub253)),
		invalid(nPC, "254", setPC(sub254)),
		invalid(nPC, "Bad_Name", setPC("Bad_Name")),
		valid(nPC, "system-cluster-critical", setPC("system-cluster-critical")),
		invalid(nPC, "trailing-dot", setPC("high.")),
		invalid(nOther, "nodeName-Bad_Name", spec(func(s *corev1.PodSpec) { s.NodeName = "Bad_Name" })),
		valid(nOther, "nodeName", spec(func(s *corev1.PodSpec) { s.NodeName = "gpu-node-1" })),
		valid(nOther, "runtimeClassName", spec(func(s *corev1.PodSpec) { s.RuntimeClassName = str("nvidia") })),
		invalid(nOther, "runtimeClassName-Bad_Name", spec(func(s *corev1.PodSpec) { s.RuntimeClassName = str("Bad_Name") })),
		valid(nOther, "schedulerName", spec(func(s *corev1.PodSpec) { s.SchedulerName = "kai-scheduler" })),
		// The StatefulSet controller overwrites hostname and subdomain: not validated.
		valid(nOther, "hostname-Bad_Name", spec(func(s *corev1.PodSpec) { s.Hostname = "Bad_Name" })),
		valid(nOther, "subdomain-Bad_Name", spec(func(s *corev1.PodSpec) { s.Subdomain = "Bad_Name" })),
		valid(nOther, "preemptionPolicy-Never", spec(func(s *corev1.PodSpec) { s.PreemptionPolicy = ptr.To(corev1.PreemptNever) })),
		invalid(nOther, "preemptionPolicy-Foo", spec(func(s *corev1.PodSpec) { s.PreemptionPolicy = ptr.To[corev1.PreemptionPolicy]("Foo") })),
		valid(nOther, "imagePullSecret", spec(func(s *corev1.PodSpec) {
			s.ImagePullSecrets = append(s.ImagePullSecrets, corev1.LocalObjectReference{Name: "regcred"})
		})),
	)

	// --- Metadata, affinity, scheduling gates, security ----------------
	const md, aff, gates, sec = "metadata", "affinity", "schedulingGates", "securityContext"
	add(
		valid(md, "label-value-63", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) { t.Labels["extra"] = dns63 }),
		invalid(md, "label-value-64", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) { t.Labels["extra"] = dns64 }),
		invalid(md, "label-key-space", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) { t.Labels["bad key"] = "x" }),
		valid(md, "label-key-prefixed", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			t.Labels["example.com/team"] = "ml"
		}),
		invalid(md, "annotation-key-space", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			t.Annotations = map[string]string{"bad key": "x"}
		}),
		invalid(md, "annotations-too-large", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			t.Annotations = map[string]string{"example.com/blob": strings.Repeat("x", 256*1024)}
		}),
		valid(md, "annotation-large", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			t.Annotations = map[string]string{"example.com/blob": strings.Repeat("x", 200*1024)}
		}),
	)
	nodeAff := func(r corev1.NodeSelectorRequirement) mfn {
		return spec(func(s *corev1.PodSpec) {
			s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{r}}}}}}
		})
	}
	antiAff := func(term corev1.PodAffinityTerm, weight int32) mfn {
		return spec(func(s *corev1.PodSpec) {
			s.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: weight, PodAffinityTerm: term}}}}
		})
	}
	goodTerm := corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", LabelSelector: sel("app", "x")}
	add(
		valid(aff, "node-In", nodeAff(corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpIn, Values: []string{"h100"}})),
		invalid(aff, "node-In-no-values", nodeAff(corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpIn})),
		invalid(aff, "node-Exists-values", nodeAff(corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpExists, Values: []string{"x"}})),
		valid(aff, "node-Gt", nodeAff(corev1.NodeSelectorRequirement{Key: "gpu-count", Operator: corev1.NodeSelectorOpGt, Values: []string{"4"}})),
		invalid(aff, "node-Gt-two-values", nodeAff(corev1.NodeSelectorRequirement{Key: "gpu-count", Operator: corev1.NodeSelectorOpGt, Values: []string{"4", "5"}})),
		invalid(aff, "node-bad-value", nodeAff(corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpIn, Values: []string{"bad value"}})),
		valid(aff, "anti-weight-100", antiAff(goodTerm, 100)),
		invalid(aff, "anti-weight-0", antiAff(goodTerm, 0)),
		invalid(aff, "anti-weight-101", antiAff(goodTerm, 101)),
		invalid(aff, "anti-empty-topologyKey", antiAff(corev1.PodAffinityTerm{LabelSelector: sel("app", "x")}, 10)),
		invalid(aff, "anti-matchLabelKeys-no-selector", antiAff(corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", MatchLabelKeys: []string{"pod-template-hash"}}, 10)),
		valid(aff, "anti-matchLabelKeys", antiAff(corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", LabelSelector: sel("app", "x"), MatchLabelKeys: []string{"pod-template-hash"}}, 10)),
		invalid(aff, "nodeSelector-value-64", spec(func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"pool": dns64} })),
		valid(gates, "one", spec(func(s *corev1.PodSpec) { s.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}} })),
		invalid(gates, "duplicate", spec(func(s *corev1.PodSpec) {
			s.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}, {Name: "example.com/quota"}}
		})),
		invalid(gates, "bad-name", spec(func(s *corev1.PodSpec) { s.SchedulingGates = []corev1.PodSchedulingGate{{Name: "bad gate"}} })),
		valid(gates, "readinessGate", spec(func(s *corev1.PodSpec) {
			s.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/model-loaded"}}
		})),
		invalid(gates, "readinessGate-bad", spec(func(s *corev1.PodSpec) { s.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "bad gate"}} })),
	)
	csc := func(fn func(sc *corev1.SecurityContext)) mfn {
		return ctr(func(c *corev1.Container) {
			if c.SecurityContext == nil {
				c.SecurityContext = &corev1.SecurityContext{}
			}
			fn(c.SecurityContext)
		})
	}
	psc := func(fn func(sc *corev1.PodSecurityContext)) mfn {
		return spec(func(s *corev1.PodSpec) {
			if s.SecurityContext == nil {
				s.SecurityContext = &corev1.PodSecurityContext{}
			}
			fn(s.SecurityContext)
		})
	}
	add(
		valid(sec, "runAsUser-1000", csc(func(sc *corev1.SecurityContext) { sc.RunAsUser = ptr.To[int64](1000) })),
		invalid(sec, "runAsUser--1", csc(func(sc *corev1.SecurityContext) { sc.RunAsUser = ptr.To[int64](-1) })),
		valid(sec, "privileged", csc(func(sc *corev1.SecurityContext) { sc.Privileged = ptr.To(true); sc.AllowPrivilegeEscalation = nil })),
		invalid(sec, "privileged-no-escalation", csc(func(sc *corev1.SecurityContext) {
			sc.Privileged, sc.AllowPrivilegeEscalation = ptr.To(true), ptr.To(false)
		})),
		valid(sec, "cap-IPC_LOCK", csc(func(sc *corev1.SecurityContext) {
			sc.Capabilities = &corev1.Capabilities{Add: []corev1.Capability{"IPC_LOCK"}}
		})),
		invalid(sec, "pod-fsGroup--1", psc(func(sc *corev1.PodSecurityContext) { sc.FSGroup = ptr.To[int64](-1) })),
		valid(sec, "sysctl", psc(func(sc *corev1.PodSecurityContext) {
			sc.Sysctls = []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}
		})),
		invalid(sec, "sysctl-bad-name", psc(func(sc *corev1.PodSecurityContext) { sc.Sysctls = []corev1.Sysctl{{Name: "kernel foo", Value: "1"}} })),
		invalid(sec, "seccomp-Localhost-no-profile", psc(func(sc *corev1.PodSecurityContext) {
			sc.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost}
		})),
		valid(sec, "seccomp-RuntimeDefault", csc(func(sc *corev1.SecurityContext) {
			sc.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
		})),
		invalid(sec, "procMount-Foo", csc(func(sc *corev1.SecurityContext) { sc.ProcMount = ptr.To[corev1.ProcMountType]("Foo") })),
	)
	// --- Boundaries found while widening the corpus ---------------------
	const rRound, misc, ann, vctMeta = "resources/rounding", "misc", "metadata/annotations", "volumes/claimTemplateMeta"
	add(
		// Quantities are rounded up to milli-units before validation.
		valid(rRound, "limit-999u-rounds-to-request-1m", res("cpu", "1m", "999u")),
		invalid(rRound, "request-1001u-above-limit-1m", res("cpu", "1001u", "1m")),
		valid(rRound, "request-100u", res("cpu", "100u", "")),
		valid(rRound, "memory-bytes-equal-Gi", res("memory", "1073741824", "1Gi")),
		invalid(rRound, "memory-one-byte-over", res("memory", "1073741825", "1Gi")),
		valid(rRound, "gpu-2.0-equals-2", res("nvidia.com/gpu", "2", "2.0")),
		invalid(rRound, "gpu-1500m", res("nvidia.com/gpu", "", "1500m")),
		valid(rRound, "example-extended-1e3", res("example.com/foo", "1e3", "1k")),
		invalid(rRound, "container-requests.cpu", res("requests.cpu", "1", "")),
		invalid(rRound, "container-limits.memory", res("limits.memory", "", "1Gi")),
	)
	add(
		invalid(tsMin, "second-constraint-minDomains-ScheduleAnyway", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addTSC("example.com/rack", corev1.ScheduleAnyway)(t, v)
			t.Spec.TopologySpreadConstraints[len(t.Spec.TopologySpreadConstraints)-1].MinDomains = ptr.To[int32](2)
		}),
		valid(tsMLK, "duplicate-entries", tsc(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector, c.MatchLabelKeys = sel("app", "x"), []string{"pod-template-hash", "pod-template-hash"}
		})),
		valid(tsSel, "empty-value", setSel(sel("app", ""))),
		invalid(tsSel, "uppercase-prefix", setSel(sel("Example.com/app", "x"))),
		valid(tsKey, "63-char-name", tsc(func(c *corev1.TopologySpreadConstraint) { c.TopologyKey = "example.com/" + dns63 })),
		valid(tsMaxSkew, "max-int32", tsc(func(c *corev1.TopologySpreadConstraint) { c.MaxSkew = 2147483647 })),
	)
	add(
		invalid(tol, "seconds-empty-effect", addTol(corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, TolerationSeconds: ptr.To[int64](60)})),
		invalid(tol, "empty-key-default-operator", addTol(corev1.Toleration{})),
		valid(tol, "negative-seconds", addTol(corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](-5)})),
		valid(tol, "empty-value-Equal", addTol(corev1.Toleration{Key: "k", Operator: corev1.TolerationOpEqual})),
	)
	add(
		valid(dnsC, "ClusterFirst-nameserver", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1"}})),
		invalid(dnsC, "search-empty", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Searches: []string{""}})),
		valid(dnsC, "search-dot", setDNS(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Searches: []string{"."}})),
	)
	add(
		invalid(prH, "httpGet-numeric-string-port", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("8080")}}))),
		valid(prH, "tcp-port-name", rp(handler(corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("http")}}))),
		valid(prH, "grpc-service", rp(handler(corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000, Service: str("health")}}))),
		valid(prH, "httpGet-host", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Host: "10.0.0.1", Port: intstr.FromInt32(8080)}}))),
		invalid(prH, "grpc-port-65536", rp(handler(corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 65536}}))),
		valid(prT, "period-1", rp(func(p *corev1.Probe) { p.PeriodSeconds = 1 })),
		valid(prT, "timeout-0-defaults", rp(func(p *corev1.Probe) { p.TimeoutSeconds = 0 })),
	)
	add(
		invalid(eField, "apiVersion-empty-defaults-v1-bad-path", addEnv(corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.phase"}}})),
		valid(eField, "explicit-v1", addEnv(corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}})),
		valid(eName, "empty-value", addV("EMPTY", "")),
		valid(eRes, "containerName-other", addEnv(corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{
			ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "does-not-exist", Resource: "limits.memory"}}})),
	)
	add(
		invalid(misc, "ephemeral-container", spec(func(s *corev1.PodSpec) {
			s.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox:1.36",
				TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}}}
		})),
		valid(misc, "overhead", spec(func(s *corev1.PodSpec) { s.Overhead = corev1.ResourceList{"cpu": qty("250m"), "memory": qty("120Mi")} })),
		invalid(misc, "overhead-negative", spec(func(s *corev1.PodSpec) { s.Overhead = corev1.ResourceList{"cpu": qty("-250m")} })),
		valid(misc, "hostAliases", spec(func(s *corev1.PodSpec) {
			s.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"registry.local"}}}
		})),
		invalid(misc, "hostAliases-bad-ip", spec(func(s *corev1.PodSpec) { s.HostAliases = []corev1.HostAlias{{IP: "10.1.2", Hostnames: []string{"a"}}} })),
		invalid(misc, "hostAliases-bad-hostname", spec(func(s *corev1.PodSpec) {
			s.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"Bad_Host"}}}
		})),
		invalid(misc, "os-foo", spec(func(s *corev1.PodSpec) { s.OS = &corev1.PodOS{Name: "foo"} })),
		valid(misc, "os-linux", spec(func(s *corev1.PodSpec) { s.OS = &corev1.PodOS{Name: corev1.Linux} })),
		valid(misc, "hostnameOverride", spec(func(s *corev1.PodSpec) { s.HostnameOverride = str("model-host") })),
		invalid(misc, "hostnameOverride-hostNetwork", spec(func(s *corev1.PodSpec) { s.HostnameOverride, s.HostNetwork = str("model-host"), true })),
		invalid(misc, "hostnameOverride-Bad", spec(func(s *corev1.PodSpec) { s.HostnameOverride = str("Bad_Host") })),
		invalid(misc, "hostUsers-false-hostNetwork", spec(func(s *corev1.PodSpec) { s.HostUsers, s.HostNetwork = ptr.To(false), true })),
		valid(misc, "hostUsers-false", spec(func(s *corev1.PodSpec) { s.HostUsers = ptr.To(false) })),
		invalid(misc, "shareProcessNamespace-hostPID", spec(func(s *corev1.PodSpec) { s.ShareProcessNamespace, s.HostPID = ptr.To(true), true })),
		// hostNetwork only constrains the ports of regular containers.
		valid(misc, "init-hostPort-differs-hostNetwork", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.HostNetwork = true
			initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36", Ports: []corev1.ContainerPort{{ContainerPort: 7000, HostPort: 7001}}})(t, v)
		}),
		invalid(misc, "init-hostPort-conflict-within", initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36",
			Ports: []corev1.ContainerPort{{ContainerPort: 7000, HostPort: 17000}, {ContainerPort: 7001, HostPort: 17000}}})),
		valid(misc, "init-and-regular-same-hostPort", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			addPort(corev1.ContainerPort{ContainerPort: 7000, HostPort: 17000})(t, v)
			initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36", Ports: []corev1.ContainerPort{{ContainerPort: 7000, HostPort: 17000}}})(t, v)
		}),
		valid(misc, "resourceClaim", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: str("gpu-template")}}
			mc(t).Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
		}),
		invalid(misc, "resourceClaim-missing", ctr(func(c *corev1.Container) { c.Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}} })),
		invalid(misc, "resourceClaim-both-sources", spec(func(s *corev1.PodSpec) {
			s.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: str("a"), ResourceClaimTemplateName: str("b")}}
		})),
		valid(misc, "image-volume", addVol(corev1.Volume{Name: "weights", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "registry.example.com/models/llama:3"}}})),
		invalid(misc, "image-volume-no-reference", addVol(corev1.Volume{Name: "weights", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{}}})),
		invalid(misc, "appArmor-Localhost-no-profile", csc(func(sc *corev1.SecurityContext) {
			sc.AppArmorProfile = &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost}
		})),
		invalid(misc, "windows-os-with-seLinux", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
			psc(func(sc *corev1.PodSecurityContext) { sc.SELinuxOptions = &corev1.SELinuxOptions{Level: "s0"} })(t, v)
		}),
	)
	add(
		valid(ann, "deletion-cost", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			t.Annotations = map[string]string{"controller.kubernetes.io/pod-deletion-cost": "-10"}
		}),
		invalid(ann, "deletion-cost-text", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			t.Annotations = map[string]string{"controller.kubernetes.io/pod-deletion-cost": "abc"}
		}),
		invalid(ann, "deletion-cost-plus", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			t.Annotations = map[string]string{"controller.kubernetes.io/pod-deletion-cost": "+10"}
		}),
		invalid(ann, "deletion-cost-overflow", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			t.Annotations = map[string]string{"controller.kubernetes.io/pod-deletion-cost": "2147483648"}
		}),
		invalid(ann, "tolerations-bad-json", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			t.Annotations = map[string]string{"scheduler.alpha.kubernetes.io/tolerations": "{not json"}
		}),
		invalid(ann, "mirror-pod", func(t *corev1.PodTemplateSpec, _ *[]corev1.PersistentVolumeClaim) {
			t.Annotations = map[string]string{"kubernetes.io/config.mirror": "x"}
		}),
		invalid(ann, "seccomp-annotation-mismatch", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Annotations = map[string]string{"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}
			psc(func(sc *corev1.PodSecurityContext) {
				sc.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
			})(t, v)
		}),
	)
	add(
		// The server validates only the spec of a claim template.
		valid(vctMeta, "bad-label", addVCT("extra", func(p *corev1.PersistentVolumeClaim) { p.Labels = map[string]string{"bad key": "x"} })),
		valid(vctMeta, "namespace-set", addVCT("extra", func(p *corev1.PersistentVolumeClaim) { p.Namespace = "Bad_NS" })),
		invalid(vVCTSpec, "volumeAttributesClassName-Bad", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.VolumeAttributesClassName = str("Bad_Name") })),
		valid(vVCTSpec, "limits-below-requests", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) {
			s.Resources.Limits = corev1.ResourceList{"storage": qty("1Gi")}
		})),
		valid(vVCTSpec, "dataSourceRef-matches", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) {
			s.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "golden"}
			s.DataSourceRef = &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "golden"}
		})),
		invalid(vVCTSpec, "dataSourceRef-differs", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) {
			s.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "golden"}
			s.DataSourceRef = &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "other"}
		})),
		invalid(vVCTSpec, "storage-negative", vctSpec(func(s *corev1.PersistentVolumeClaimSpec) { s.Resources.Requests["storage"] = qty("-1Gi") })),
	)
	// --- Fields of feature gates that are off in v1.37 (dropped, never rejected)
	const gated = "gatedFields"
	add(
		valid(gated, "lifecycle-stopSignal", ctr(func(c *corev1.Container) {
			c.Lifecycle = &corev1.Lifecycle{StopSignal: ptr.To[corev1.Signal]("SIGBOGUS")}
		})),
		valid(gated, "httpGet-protocol", rp(handler(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8080),
			Protocol: ptr.To[corev1.HTTPProtocol]("Bogus")}}))),
		valid(gated, "grpc-mode", rp(handler(corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000, Mode: ptr.To[corev1.GRPCProbeMode]("Bogus")}}))),
		valid(gated, "emptyDir-mode", addVol(corev1.Volume{Name: "moded", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Mode: ptr.To[int32](0o7777)}}})),
		valid(gated, "bindMountOptions", scratchMount(func(m *corev1.VolumeMount, _ *corev1.Container) { m.BindMountOptions = []string{"bogus"} })),
		valid(gated, "schedulingGroup", spec(func(s *corev1.PodSpec) { s.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: str("Bad_Name")} })),
	)
	const resize, rules2, psec = "container/resizePolicy", "restartPolicy/rules", "securityContext/pod"
	add(
		valid(resize, "cpu-NotRequired", ctr(func(c *corev1.Container) {
			c.ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: "cpu", RestartPolicy: corev1.NotRequired}}
		})),
		valid(resize, "memory-RestartContainer", ctr(func(c *corev1.Container) {
			c.ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: "memory", RestartPolicy: corev1.RestartContainer}}
		})),
		invalid(resize, "gpu", ctr(func(c *corev1.Container) {
			c.ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: "nvidia.com/gpu", RestartPolicy: corev1.NotRequired}}
		})),
		invalid(resize, "policy-Foo", ctr(func(c *corev1.Container) {
			c.ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: "cpu", RestartPolicy: "Foo"}}
		})),
		invalid(resize, "duplicate", ctr(func(c *corev1.Container) {
			c.ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: "cpu", RestartPolicy: corev1.NotRequired}, {ResourceName: "cpu", RestartPolicy: corev1.RestartContainer}}
		})),
		invalid(resize, "classic-init-RestartContainer", initCtr(corev1.Container{Name: "init-x", Image: "busybox:1.36",
			ResizePolicy: []corev1.ContainerResizePolicy{{ResourceName: "cpu", RestartPolicy: corev1.RestartContainer}}})),
	)
	rule := func(a corev1.ContainerRestartRuleAction, op corev1.ContainerRestartRuleOnExitCodesOperator, n int) corev1.ContainerRestartRule {
		vals := make([]int32, n)
		for i := range vals {
			vals[i] = int32(i + 1)
		}
		return corev1.ContainerRestartRule{Action: a, ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: op, Values: vals}}
	}
	withRules := func(rs ...corev1.ContainerRestartRule) mfn {
		return ctr(func(c *corev1.Container) {
			c.RestartPolicy, c.RestartPolicyRules = ptr.To(corev1.ContainerRestartPolicyNever), rs
		})
	}
	add(
		valid(rules2, "RestartAllContainers", withRules(rule(corev1.ContainerRestartRuleActionRestartAllContainers, corev1.ContainerRestartRuleOnExitCodesOpNotIn, 1))),
		invalid(rules2, "action-Foo", withRules(rule("Foo", corev1.ContainerRestartRuleOnExitCodesOpIn, 1))),
		invalid(rules2, "operator-Foo", withRules(rule(corev1.ContainerRestartRuleActionRestart, "Foo", 1))),
		valid(rules2, "255-values", withRules(rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpIn, 255))),
		invalid(rules2, "256-values", withRules(rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpIn, 256))),
		invalid(rules2, "no-exitCodes", withRules(corev1.ContainerRestartRule{Action: corev1.ContainerRestartRuleActionRestart})),
		valid(rules2, "20-rules", withRules(func() []corev1.ContainerRestartRule {
			var rs []corev1.ContainerRestartRule
			for i := 0; i < 20; i++ {
				rs = append(rs, rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpIn, 1))
			}
			return rs
		}()...)),
		invalid(rules2, "21-rules", withRules(func() []corev1.ContainerRestartRule {
			var rs []corev1.ContainerRestartRule
			for i := 0; i < 21; i++ {
				rs = append(rs, rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpIn, 1))
			}
			return rs
		}()...)),
	)
	add(
		invalid(psec, "net-sysctl-hostNetwork", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.HostNetwork = true
			psc(func(sc *corev1.PodSecurityContext) {
				sc.Sysctls = []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}
			})(t, v)
		}),
		valid(psec, "kernel-sysctl-hostNetwork", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.HostNetwork = true
			psc(func(sc *corev1.PodSecurityContext) {
				sc.Sysctls = []corev1.Sysctl{{Name: "kernel.shm_rmid_forced", Value: "1"}}
			})(t, v)
		}),
		invalid(psec, "sysctl-duplicate", psc(func(sc *corev1.PodSecurityContext) {
			sc.Sysctls = []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1"}, {Name: "net.core.somaxconn", Value: "2"}}
		})),
		invalid(psec, "fsGroupChangePolicy-Foo", psc(func(sc *corev1.PodSecurityContext) {
			sc.FSGroupChangePolicy = ptr.To[corev1.PodFSGroupChangePolicy]("Foo")
		})),
		valid(psec, "fsGroupChangePolicy-OnRootMismatch", psc(func(sc *corev1.PodSecurityContext) {
			sc.FSGroupChangePolicy = ptr.To(corev1.FSGroupChangeOnRootMismatch)
		})),
		invalid(psec, "supplementalGroupsPolicy-Foo", psc(func(sc *corev1.PodSecurityContext) {
			sc.SupplementalGroupsPolicy = ptr.To[corev1.SupplementalGroupsPolicy]("Foo")
		})),
		valid(psec, "supplementalGroupsPolicy-Strict", psc(func(sc *corev1.PodSecurityContext) {
			sc.SupplementalGroupsPolicy = ptr.To(corev1.SupplementalGroupsPolicyStrict)
		})),
		invalid(psec, "seLinuxChangePolicy-Foo", psc(func(sc *corev1.PodSecurityContext) {
			sc.SELinuxChangePolicy = ptr.To[corev1.PodSELinuxChangePolicy]("Foo")
		})),
		invalid(psec, "supplementalGroup--1", psc(func(sc *corev1.PodSecurityContext) { sc.SupplementalGroups = []int64{-1} })),
		valid(psec, "windows-hostProcess", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
			t.Spec.HostNetwork = true
			t.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr.To(true)}}
			for i := range t.Spec.Containers {
				t.Spec.Containers[i].SecurityContext = nil
			}
			for i := range t.Spec.InitContainers {
				t.Spec.InitContainers[i].SecurityContext = nil
			}
		}),
		invalid(psec, "windows-hostProcess-no-hostNetwork", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			t.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
			t.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr.To(true)}}
			for i := range t.Spec.Containers {
				t.Spec.Containers[i].SecurityContext = nil
			}
		}),
	)
	add(
		valid(rHuge, "limit-only", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			res("memory", "1Gi", "1Gi")(t, v)
			res("hugepages-1Gi", "", "2Gi")(t, v)
		}),
		invalid(rHuge, "request-only", func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
			res("memory", "1Gi", "1Gi")(t, v)
			res("hugepages-1Gi", "2Gi", "")(t, v)
		}),
		invalid(vSrc, "nfs-relative", addVol(corev1.Volume{Name: "nfs", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.0.0.5", Path: "exports"}}})),
		valid(vSrc, "nfs", addVol(corev1.Volume{Name: "nfs", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.0.0.5", Path: "/exports"}}})),
		valid(vSrc, "csi", addVol(corev1.Volume{Name: "csi", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "secrets-store.csi.k8s.io"}}})),
		invalid(vSrc, "csi-bad-driver", addVol(corev1.Volume{Name: "csi", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "Bad_Driver"}}})),
		invalid(vSrc, "projected-duplicate-path", addVol(corev1.Volume{Name: "proj", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "a"}, Items: []corev1.KeyToPath{{Key: "k", Path: "same"}}}},
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "b"}, Items: []corev1.KeyToPath{{Key: "k", Path: "same"}}}},
		}}}})),
		valid(vSrc, "clusterTrustBundle", addVol(corev1.Volume{Name: "ctb", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ClusterTrustBundle: &corev1.ClusterTrustBundleProjection{Name: str("example.com:ca:root"), Path: "ca.pem"}}}}}})),
		invalid(vSrc, "clusterTrustBundle-name-and-signer", addVol(corev1.Volume{Name: "ctb", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ClusterTrustBundle: &corev1.ClusterTrustBundleProjection{Name: str("x"), SignerName: str("example.com/ca"), Path: "ca.pem"}}}}}})),
		invalid(vSrc, "gitRepo-absolute-directory", addVol(corev1.Volume{Name: "git", VolumeSource: corev1.VolumeSource{GitRepo: &corev1.GitRepoVolumeSource{ //nolint:staticcheck
			Repository: "https://example.com/repo.git", Directory: "/abs"}}})),
	)
	return ms
}

// initRules are the container-level rule families that are replayed on the
// first init container (a sidecar in vllm-leader, a classic init container in
// sglang). Host-port and hostNetwork rules are left out on purpose: the server
// checks init containers one by one and only regular containers against
// hostNetwork, so their verdicts differ (covered by explicit cases).
var initRules = map[string]bool{
	"container/name": true, "container/image": true, "container/imagePullPolicy": true, "container/terminationMessagePolicy": true,
	"ports/containerPort": true, "ports/hostPort": true, "ports/name": true, "ports/protocol": true,
	"resources/cpu": true, "resources/memory": true, "resources/extended": true, "resources/name": true,
	"resources/ephemeral-storage": true, "resources/hugepages": true, "resources/rounding": true,
	"env/name": true, "env/valueFrom": true, "env/secretKeyRef": true, "env/fieldRef": true, "env/resourceFieldRef": true,
	"env/fileKeyRef": true, "env/envFrom": true,
	"volumes/mounts": true, "volumes/devices": true, "securityContext": true,
}

// onInit applies a main-container mutation to the first init container instead.
func onInit(fn mfn) mfn {
	return func(t *corev1.PodTemplateSpec, v *[]corev1.PersistentVolumeClaim) {
		regular := t.Spec.Containers
		t.Spec.Containers = []corev1.Container{t.Spec.InitContainers[0]}
		fn(t, v)
		t.Spec.InitContainers[0] = t.Spec.Containers[0]
		t.Spec.Containers = append(regular, t.Spec.Containers[1:]...)
	}
}

// Build returns every base template, every mutation of every base and,
// for bases with init containers, the container-level mutations replayed on
// the first init container.
func Build() []*Case {
	var out []*Case
	muts := corpusMutations()
	for _, b := range corpusBases {
		tpl, vcts := b.build()
		out = append(out, &Case{Name: b.name + "/base", Rule: "base", Tpl: tpl, VCTs: vcts, WantValid: true})
		hasInit := len(tpl.Spec.InitContainers) > 0
		for _, m := range muts {
			tpl, vcts := b.build()
			m.fn(tpl, &vcts)
			out = append(out, &Case{
				Name: b.name + "/" + m.rule + "/" + m.name, Rule: m.rule, Tpl: tpl, VCTs: vcts,
				WantValid: m.ok, Divergence: m.div,
			})
			if hasInit && initRules[m.rule] {
				tpl, vcts := b.build()
				onInit(m.fn)(tpl, &vcts)
				out = append(out, &Case{
					Name: b.name + "/" + m.rule + "/init:" + m.name, Rule: m.rule + " (init)", Tpl: tpl, VCTs: vcts,
					WantValid: m.ok, Divergence: m.div,
				})
			}
		}
	}
	return out
}

// Combinations composes the single-rule corpus: each case is one base template with two to
// five mutations of different rule families applied in turn. Single mutations test each rule at
// its boundary; combinations test what the rules do together, which is where a port goes wrong
// without any single rule being wrong: a check that stops at the first error and hides the next
// one, a default one field gives another, an index shifted by an added container or volume.
// A case that includes a deliberate divergence is left out (its verdicts differ on purpose), as
// is a combination whose mutations do not fit each other (a mutation that panics on what an
// earlier one removed).
func Combinations(seed uint64, n int) []*Case {
	muts := corpusMutations()
	// Valid mutations are drawn three times in four, so that about a third of the combinations
	// are valid and the rejections do not all come from one mutation.
	var valids, invalids []mutation
	for _, m := range muts {
		switch {
		case m.div != "":
		case m.ok:
			valids = append(valids, m)
		default:
			invalids = append(invalids, m)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0xc0b1))
	var out []*Case
	for len(out) < n {
		b := corpusBases[rng.IntN(len(corpusBases))]
		tpl, vcts := b.build()
		k := 2 + rng.IntN(4)
		var names []string
		rules := map[string]bool{}
		applied := 0
		fits := true
		for tries := 0; applied < k && tries < 4*k; tries++ {
			pool := valids
			if rng.IntN(4) == 0 {
				pool = invalids
			}
			m := pool[rng.IntN(len(pool))]
			if rules[m.rule] {
				continue
			}
			if !applyMutation(m, tpl, &vcts) {
				fits = false
				break
			}
			rules[m.rule] = true
			names = append(names, m.rule+"/"+m.name)
			applied++
		}
		if !fits || applied < 2 {
			continue
		}
		out = append(out, &Case{Name: fmt.Sprintf("combo-%d %s: %s", len(out), b.name, strings.Join(names, " + ")), Rule: "combination", Tpl: tpl, VCTs: vcts})
	}
	return out
}

// applyMutation applies m, and reports false when m does not fit what earlier mutations left.
func applyMutation(m mutation, tpl *corev1.PodTemplateSpec, vcts *[]corev1.PersistentVolumeClaim) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	m.fn(tpl, vcts)
	return true
}

// LeaderWorkerSet is a LeaderWorkerSet without groups (replicas 0) named name in the default
// namespace, whose worker template (and, with withLeader, leader template) is cc's, with cc's
// volume claim templates: the corpus as the tests of the provider's resources use it.
func LeaderWorkerSet(name string, cc *Case, withLeader bool) *lwsv1.LeaderWorkerSet {
	o := &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: lwsv1.LeaderWorkerSetSpec{
			Replicas: ptr.To[int32](0),
			// startupPolicy has no omitempty: the JSON of a Go object always has it.
			StartupPolicy: lwsv1.LeaderCreatedStartupPolicy,
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				WorkerTemplate:       *cc.Tpl.DeepCopy(),
				VolumeClaimTemplates: append([]corev1.PersistentVolumeClaim(nil), cc.VCTs...),
			},
		},
	}
	if withLeader {
		o.Spec.LeaderWorkerTemplate.LeaderTemplate = cc.Tpl.DeepCopy()
	}
	return o
}
