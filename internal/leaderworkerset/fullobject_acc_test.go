package leaderworkerset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// fullTemplate is a realistic, valid pod template with many fields set. claims are the
// spec.resourceClaims entries (for role-level scheduling), vct the name of a volume claim
// template to mount (empty for none).
func fullTemplate(role string, claims []corev1.PodResourceClaim, vct string) corev1.PodTemplateSpec {
	mounts := []corev1.VolumeMount{{Name: "dshm", MountPath: "/dev/shm"}, {Name: "config", MountPath: "/etc/vllm", ReadOnly: true}}
	if vct != "" {
		mounts = append(mounts, corev1.VolumeMount{Name: vct, MountPath: "/models"})
	}
	var containerClaims []corev1.ResourceClaim
	for _, c := range claims {
		containerClaims = append(containerClaims, corev1.ResourceClaim{Name: c.Name})
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{
			Labels:      map[string]string{"role": role, "app": "vllm"},
			Annotations: map[string]string{"prometheus.io/scrape": "true", "note": "uses ${literal} and %{literal} text"},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:            "vllm-" + role,
				Image:           "vllm/vllm-openai:v0.11.0",
				ImagePullPolicy: corev1.PullIfNotPresent,
				Command:         []string{"sh", "-c", "exec python3 -m vllm.entrypoints.openai.api_server --port 8080 --model \"$(MODEL)\""},
				Args:            []string{"--tensor-parallel-size", "8"},
				WorkingDir:      "/vllm-workspace",
				Env: []corev1.EnvVar{
					{Name: "MODEL", Value: "meta-llama/Meta-Llama-3.1-405B-Instruct"},
					{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: "hf-token"}, Key: "token", Optional: ptr.To(false)}}},
					{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.podIP"}}},
				},
				EnvFrom: []corev1.EnvFromSource{{Prefix: "VLLM_", ConfigMapRef: &corev1.ConfigMapEnvSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "vllm-env"}}}},
				// protocol is left to its CRD default (planned as "TCP") on the first port.
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080},
					{Name: "stats", ContainerPort: 9125, Protocol: corev1.ProtocolUDP, HostPort: 9125}},
				Resources: corev1.ResourceRequirements{
					Limits: corev1.ResourceList{"nvidia.com/gpu": apiresource.MustParse("8"), "memory": apiresource.MustParse("1124Gi"),
						"ephemeral-storage": apiresource.MustParse("800Gi")},
					Requests: corev1.ResourceList{"nvidia.com/gpu": apiresource.MustParse("8"), "memory": apiresource.MustParse("512Gi"),
						"cpu": apiresource.MustParse("500m")},
					Claims: containerClaims,
				},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
					InitialDelaySeconds: 15, PeriodSeconds: 10, TimeoutSeconds: 2, SuccessThreshold: 1, FailureThreshold: 3,
				},
				LivenessProbe: &corev1.Probe{
					ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
					PeriodSeconds: 30, FailureThreshold: 5, TerminationGracePeriodSeconds: ptr.To[int64](10),
				},
				Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 5}}},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false),
					Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"IPC_LOCK"}, Drop: []corev1.Capability{"NET_RAW"}},
				},
				VolumeMounts:             mounts,
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			}},
			Volumes: []corev1.Volume{
				{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
					Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(apiresource.MustParse("15Gi"))}}},
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "vllm-config"}, DefaultMode: ptr.To[int32](0o444),
					Items: []corev1.KeyToPath{{Key: "config.yaml", Path: "config.yaml"}}}}},
			},
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
				MinDomains:         ptr.To[int32](2),
				LabelSelector:      &metav1.LabelSelector{MatchLabels: map[string]string{"app": "vllm"}},
				MatchLabelKeys:     []string{"leaderworkerset.sigs.k8s.io/group-index"},
				NodeAffinityPolicy: ptr.To(corev1.NodeInclusionPolicyHonor),
				NodeTaintsPolicy:   ptr.To(corev1.NodeInclusionPolicyIgnore),
			}},
			Tolerations:  []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			NodeSelector: map[string]string{"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"a3-highgpu-8g"}}}}}}}},
			PriorityClassName:             "inference-high",
			TerminationGracePeriodSeconds: ptr.To[int64](60),
			ServiceAccountName:            "vllm",
			ImagePullSecrets:              []corev1.LocalObjectReference{{Name: "registry"}},
			ResourceClaims:                claims,
		},
	}
}

// fullObjects are LeaderWorkerSets that together set every field of the provider's LWS API
// (internal/apis/leaderworkerset/v1, newer fields included). The
// scheduling levels are exclusive, so each object uses one: a, the whole-LWS level; b, the
// replica level; c, the leader and worker levels; d, e and f set the other member of each
// union (basic or gang, single or all, claim or claim template) at those levels. gang.minGroupCount is the one
// field left out: the provider (following the webhook of the first scheduling stage) forbids any explicit value.
func fullObjects() []*lwsv1.LeaderWorkerSet {
	zone := []schedulingv1alpha3.TopologyConstraint{{Key: "topology.kubernetes.io/zone"}}
	block := []schedulingv1alpha3.TopologyConstraint{{Key: "cloud.google.com/gce-topology-block"}}

	a := &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: "acc-full-a", Namespace: "default",
			Labels:      map[string]string{"app": "vllm", "tier": "full"},
			Annotations: map[string]string{lwsv1.SubGroupExclusiveKeyAnnotationKey: "cloud.google.com/gke-nodepool"}},
		Spec: lwsv1.LeaderWorkerSetSpec{
			Replicas:      ptr.To[int32](3),
			StartupPolicy: lwsv1.LeaderCreatedStartupPolicy,
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				LeaderTemplate:   ptr.To(fullTemplate("leader", nil, "models")),
				WorkerTemplate:   fullTemplate("worker", nil, "models"),
				Size:             ptr.To[int32](4),
				RestartPolicy:    lwsv1.RecreateGroupAfterStart,
				MaxGroupRestarts: ptr.To[int32](5),
				SubGroupPolicy: &lwsv1.SubGroupPolicy{Type: ptr.To(lwsv1.SubGroupPolicyTypeLeaderExcluded),
					SubGroupSize: ptr.To[int32](3)},
				VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
					ObjectMeta: metav1.ObjectMeta{Name: "models", Labels: map[string]string{"data": "weights"}},
					Spec: corev1.PersistentVolumeClaimSpec{
						AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						StorageClassName: ptr.To("premium-rwo"),
						VolumeMode:       ptr.To(corev1.PersistentVolumeFilesystem),
						Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": apiresource.MustParse("1Ti")}},
					},
				}},
				PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
					WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
					WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
				},
			},
			RolloutStrategy: lwsv1.RolloutStrategy{Type: lwsv1.RollingUpdateStrategyType,
				RollingUpdateConfiguration: &lwsv1.RollingUpdateConfiguration{Partition: ptr.To[int32](1),
					MaxUnavailable: intstr.FromString("50%"), MaxSurge: intstr.FromInt32(1)}},
			NetworkConfig: &lwsv1.NetworkConfig{SubdomainPolicy: ptr.To(lwsv1.SubdomainUniquePerReplica)},
			Scheduling: &lwsv1.LeaderWorkerSetSchedulingConfiguration{
				SchedulingPolicy:      &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.WorkloadCompositePodGroupGangSchedulingPolicy{}},
				SchedulingConstraints: &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints{Topology: block},
				DisruptionMode:        &schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode{All: &schedulingv1alpha3.WorkloadCompositePodGroupAllDisruptionMode{}},
			},
			// groupIdentity and groupReplacementPolicy left out: null, the server's default (an
			// import could not tell a written default apart); b sets both.
		},
	}

	b := &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: "acc-full-b", Namespace: "default"},
		Spec: lwsv1.LeaderWorkerSetSpec{
			Replicas:      ptr.To[int32](2),
			StartupPolicy: lwsv1.LeaderReadyStartupPolicy,
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				WorkerTemplate: fullTemplate("worker", nil, ""),
				Size:           ptr.To[int32](4),
				RestartPolicy:  lwsv1.NoneRestartPolicy,
				SubGroupPolicy: &lwsv1.SubGroupPolicy{Type: ptr.To(lwsv1.SubGroupPolicyTypeLeaderWorker), SubGroupSize: ptr.To[int32](2)},
			},
			RolloutStrategy: lwsv1.RolloutStrategy{Type: lwsv1.RollingUpdateStrategyType,
				RollingUpdateConfiguration: &lwsv1.RollingUpdateConfiguration{Partition: ptr.To[int32](0),
					MaxUnavailable: intstr.FromInt32(0), MaxSurge: intstr.FromString("25%")}},
			NetworkConfig: &lwsv1.NetworkConfig{SubdomainPolicy: ptr.To(lwsv1.SubdomainShared)},
			Scheduling: &lwsv1.LeaderWorkerSetSchedulingConfiguration{Replica: &lwsv1.LeaderWorkerSetReplicaScheduling{
				SchedulingPolicy:      &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{Basic: &schedulingv1alpha3.WorkloadCompositePodGroupBasicSchedulingPolicy{}},
				SchedulingConstraints: &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints{Topology: zone},
				DisruptionMode:        &schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode{Single: &schedulingv1alpha3.WorkloadCompositePodGroupSingleDisruptionMode{}},
			}},
			GroupIdentity:          lwsv1.GroupIdentityHash,
			GroupReplacementPolicy: lwsv1.GroupReplacementImmediate,
		},
	}

	leaderClaims := []corev1.PodResourceClaim{{Name: "leader-nic", ResourceClaimName: ptr.To("shared-nic")}}
	workerClaims := []corev1.PodResourceClaim{{Name: "worker-gpus", ResourceClaimTemplateName: ptr.To("gpu-template")}}
	c := &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: "acc-full-c", Namespace: "default"},
		Spec: lwsv1.LeaderWorkerSetSpec{
			Replicas:      ptr.To[int32](1),
			StartupPolicy: lwsv1.LeaderReadyStartupPolicy,
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				LeaderTemplate: ptr.To(fullTemplate("leader", leaderClaims, "")),
				WorkerTemplate: fullTemplate("worker", workerClaims, ""),
				Size:           ptr.To[int32](3),
				RestartPolicy:  lwsv1.RecreateGroupOnPodRestart,
			},
			Scheduling: &lwsv1.LeaderWorkerSetSchedulingConfiguration{Replica: &lwsv1.LeaderWorkerSetReplicaScheduling{
				Leader: &lwsv1.LeaderWorkerSetLeaderScheduling{
					SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{
						MinCount: ptr.To[int32](1)}},
					SchedulingConstraints: &schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints{Topology: block},
					DisruptionMode:        &schedulingv1alpha3.WorkloadPodGroupDisruptionMode{All: &schedulingv1alpha3.WorkloadPodGroupAllDisruptionMode{}},
					ResourceClaims: []schedulingv1alpha3.WorkloadPodGroupResourceClaim{{Name: "leader-nic",
						ResourceClaimName: ptr.To("shared-nic")}},
				},
				Worker: &lwsv1.LeaderWorkerSetWorkerScheduling{
					SchedulingPolicy:      &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{Basic: &schedulingv1alpha3.WorkloadPodGroupBasicSchedulingPolicy{}},
					SchedulingConstraints: &schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints{Topology: zone},
					DisruptionMode:        &schedulingv1alpha3.WorkloadPodGroupDisruptionMode{Single: &schedulingv1alpha3.WorkloadPodGroupSingleDisruptionMode{}},
					ResourceClaims: []schedulingv1alpha3.WorkloadPodGroupResourceClaim{{Name: "worker-gpus",
						ResourceClaimTemplateName: ptr.To("gpu-template")}},
				},
			}},
		},
	}
	// c leaves rolloutStrategy and networkConfig to the planned defaults, and groupIdentity and
	// groupReplacementPolicy out: null in plan and state, although this CRD stores Ordinal.

	// The other member of each union (basic/gang, single/all, claim name/template), on copies.
	d := b.DeepCopy()
	d.Name = "acc-full-d"
	d.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{
		SchedulingPolicy: &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{Basic: &schedulingv1alpha3.WorkloadCompositePodGroupBasicSchedulingPolicy{}},
		DisruptionMode:   &schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode{Single: &schedulingv1alpha3.WorkloadCompositePodGroupSingleDisruptionMode{}},
	}
	e := b.DeepCopy()
	e.Name = "acc-full-e"
	e.Spec.StartupPolicy = lwsv1.LeaderCreatedStartupPolicy // a gang holding both roles cannot wait for the leader
	e.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{Replica: &lwsv1.LeaderWorkerSetReplicaScheduling{
		SchedulingPolicy: &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.WorkloadCompositePodGroupGangSchedulingPolicy{}},
		DisruptionMode:   &schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode{All: &schedulingv1alpha3.WorkloadCompositePodGroupAllDisruptionMode{}},
	}}
	f := c.DeepCopy()
	f.Name = "acc-full-f"
	leaderClaims = append(leaderClaims, corev1.PodResourceClaim{Name: "leader-scratch", ResourceClaimTemplateName: ptr.To("scratch-template")})
	workerClaims = append(workerClaims, corev1.PodResourceClaim{Name: "worker-nic", ResourceClaimName: ptr.To("shared-nic")})
	f.Spec.LeaderWorkerTemplate.LeaderTemplate = ptr.To(fullTemplate("leader", leaderClaims, ""))
	f.Spec.LeaderWorkerTemplate.WorkerTemplate = fullTemplate("worker", workerClaims, "")
	toGroupClaims := func(claims []corev1.PodResourceClaim) []schedulingv1alpha3.WorkloadPodGroupResourceClaim {
		var out []schedulingv1alpha3.WorkloadPodGroupResourceClaim
		for _, pc := range claims {
			out = append(out, schedulingv1alpha3.WorkloadPodGroupResourceClaim{Name: pc.Name,
				ResourceClaimName: pc.ResourceClaimName, ResourceClaimTemplateName: pc.ResourceClaimTemplateName})
		}
		return out
	}
	f.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{Replica: &lwsv1.LeaderWorkerSetReplicaScheduling{
		Leader: &lwsv1.LeaderWorkerSetLeaderScheduling{
			SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{Basic: &schedulingv1alpha3.WorkloadPodGroupBasicSchedulingPolicy{}},
			DisruptionMode:   &schedulingv1alpha3.WorkloadPodGroupDisruptionMode{Single: &schedulingv1alpha3.WorkloadPodGroupSingleDisruptionMode{}},
			ResourceClaims:   toGroupClaims(leaderClaims),
		},
		Worker: &lwsv1.LeaderWorkerSetWorkerScheduling{
			SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{
				MinCount: ptr.To[int32](2)}}, // size - 1
			DisruptionMode: &schedulingv1alpha3.WorkloadPodGroupDisruptionMode{All: &schedulingv1alpha3.WorkloadPodGroupAllDisruptionMode{}},
			ResourceClaims: toGroupClaims(workerClaims),
		},
	}}
	return []*lwsv1.LeaderWorkerSet{a, b, c, d, e, f}
}

// TestFullObjectsAreValid explains failures of the acceptance test below: every object must
// pass the provider's plan-time rules, and together they must set every field of the API.
func TestFullObjectsAreValid(t *testing.T) {
	objs := fullObjects()
	for _, obj := range objs {
		d := obj.DeepCopy()
		lwsrules.SetDefaults(d)
		if errs := lwsrules.ValidateAll(d); len(errs) > 0 {
			t.Errorf("%s: the provider rejects it:\n%v", obj.Name, errs.ToAggregate())
		}
	}
	// Every field of the spec's node tree outside the pod templates (whose fields the PodSpec
	// test covers) must be set in at least one object.
	node := leaderworkerset.Kind.Node()
	set := map[string]bool{}
	for _, obj := range objs {
		collectSet(node, k8sschema.Encode(node, obj), "", set)
	}
	var missing []string
	node.FieldJSON("spec").Walk(func(n *k8sschema.Node) {
		p := strings.ReplaceAll(n.Path(), "[]", "")
		for _, skip := range []string{"spec.leaderWorkerTemplate.leaderTemplate.", "spec.leaderWorkerTemplate.workerTemplate.",
			"spec.leaderWorkerTemplate.volumeClaimTemplates.", "spec.scheduling.schedulingPolicy.gang.minGroupCount",
			"spec.scheduling.replica.schedulingPolicy.gang.minGroupCount"} {
			if strings.HasPrefix(p, skip) || p == skip {
				return
			}
		}
		if !set[p] {
			missing = append(missing, p)
		}
	})
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no object sets these fields:\n  %s", strings.Join(missing, "\n  "))
	}
}

// collectSet records the dotted JSON paths (without list markers) of the non-null values of v.
func collectSet(n *k8sschema.Node, v tftypes.Value, p string, set map[string]bool) {
	if !v.IsKnown() || v.IsNull() {
		return
	}
	if p != "" {
		set[p] = true
	}
	switch n.Kind {
	case k8sschema.KindObject:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		for _, f := range n.Fields {
			collectSet(f, m[f.TFName], joinPath(p, f.JSONName), set)
		}
	case k8sschema.KindList:
		var l []tftypes.Value
		_ = v.As(&l)
		for _, e := range l {
			collectSet(n.Elem, e, p, set)
		}
	case k8sschema.KindMap:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		for _, e := range m {
			collectSet(n.Elem, e, p, set)
		}
	}
}

func joinPath(p, name string) string {
	if p == "" {
		return name
	}
	return p + "." + name
}

// fullObjectConfig renders obj as a kubeinfer_leaderworkerset resource "<obj.Name>", without
// the computed fields. wait_for_rollout keeps its default (true; the fake controller reports
// the groups ready): with false, import (which cannot know the setting and assumes the default)
// would differ from the applied state, and ImportStateVerify would need an ignore list.
func fullObjectConfig(obj *lwsv1.LeaderWorkerSet) string {
	return acctest.ObjectHCL(leaderworkerset.Kind.Node(), "kubeinfer_leaderworkerset", obj.Name, obj)
}

// TestAccLeaderWorkerSet_fullObject: an object with every field set reads back unchanged:
// the second plan is empty, import gives the same state, and the server stores every field.
func TestAccLeaderWorkerSet_fullObject(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstOfEachKindOnly(t, "every field's round trip through the CLI's core")
	c := newerFieldsClient(t)
	cfg := acctest.ProviderConfigFor(newerFieldsCluster(t))
	objs := fullObjects()
	defaulted := map[string]*lwsv1.LeaderWorkerSet{}
	for _, obj := range objs {
		d := obj.DeepCopy()
		lwsrules.SetDefaults(d)
		if errs := lwsrules.ValidateAll(d); len(errs) > 0 {
			t.Fatalf("%s is not valid for the provider; fix the test object:\n%v", obj.Name, errs.ToAggregate())
		}
		defaulted[obj.Name] = d
		cfg += fullObjectConfig(obj)
	}
	serverHasEverything := func(*terraform.State) error {
		var failures []string
		for _, obj := range objs {
			u, err := c.Get(context.Background(), obj.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			want, err := toJSONMap(defaulted[obj.Name].Spec)
			if err != nil {
				return err
			}
			// The server holds what was sent (only configured fields) plus its CRD defaults; the
			// provider reads it with the planned defaults filled in where the server has none
			// (no webhook runs on this profile).
			var stored lwsv1.LeaderWorkerSet
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &stored); err != nil {
				return err
			}
			lwsrules.SetDefaults(&stored)
			got, err := toJSONMap(stored.Spec)
			if err != nil {
				return err
			}
			var diffs []string
			compareSubset("spec", want, got, &diffs)
			if len(diffs) > 0 {
				failures = append(failures, fmt.Sprintf("%s: the server's spec differs from the one built (both after SetDefaults):\n  %s",
					obj.Name, strings.Join(diffs, "\n  ")))
			}
			var extra []string
			compareSubset("spec", got, want, &extra)
			for i, e := range extra {
				extra[i] = strings.Replace(e, "missing (pruned?), want", "not in the built spec; the server holds", 1)
			}
			if len(extra) > 0 {
				t.Logf("%s: fields the server holds beyond the built spec:\n  %s", obj.Name, strings.Join(extra, "\n  "))
			}
		}
		if len(failures) > 0 {
			return fmt.Errorf("%s", strings.Join(failures, "\n"))
		}
		return nil
	}
	steps := []resource.TestStep{
		{Config: cfg, Check: serverHasEverything},
		{Config: cfg, PlanOnly: true},
	}
	for _, obj := range objs {
		steps = append(steps, resource.TestStep{
			Config:                               cfg,
			ResourceName:                         "kubeinfer_leaderworkerset." + obj.Name,
			ImportState:                          true,
			ImportStateVerify:                    true,
			ImportStateId:                        "default/" + obj.Name,
			ImportStateVerifyIdentifierAttribute: "id",
		})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProviderFactories, Steps: steps})
}

func toJSONMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// compareSubset reports every value of want that got lacks or holds differently. Strings that
// are both quantities compare by value ("1Ti" and "1024Gi" are equal).
func compareSubset(p string, want, got any, diffs *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: want an object %s, got %s", p, short(want), short(got)))
			return
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				if isEmptyJSON(w[k]) {
					continue // an empty value the server drops means the same
				}
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: missing (pruned?), want %s", p, k, short(w[k])))
				continue
			}
			compareSubset(p+"."+k, w[k], gv, diffs)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*diffs = append(*diffs, fmt.Sprintf("%s: want %s, got %s", p, short(want), short(got)))
			return
		}
		for i := range w {
			compareSubset(fmt.Sprintf("%s[%d]", p, i), w[i], g[i], diffs)
		}
	case string:
		if g, ok := got.(string); ok && g == w {
			return
		}
		if g, ok := got.(string); ok {
			qw, e1 := apiresource.ParseQuantity(w)
			qg, e2 := apiresource.ParseQuantity(g)
			if e1 == nil && e2 == nil && qw.Cmp(qg) == 0 {
				return
			}
		}
		*diffs = append(*diffs, fmt.Sprintf("%s: want %q, got %s", p, w, short(got)))
	default:
		if wf, ok := toFloat(want); ok {
			if gf, ok := toFloat(got); ok && wf == gf {
				return
			}
		}
		if !reflect.DeepEqual(want, got) {
			*diffs = append(*diffs, fmt.Sprintf("%s: want %s, got %s", p, short(want), short(got)))
		}
	}
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

func isEmptyJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		// An object of nulls ({"creationTimestamp": null}) says nothing; {} does (basic: {}).
		for _, e := range x {
			if !isEmptyJSON(e) {
				return false
			}
		}
		return len(x) > 0
	case []any:
		return len(x) == 0
	}
	return false
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// everyFieldTemplate fills a pod template with a value in every field: one element in every
// list and map, true booleans, small positive numbers, quantities and well-formed names. The
// values are not valid together (a volume has every source at once); they are for checking that
// the schema and the CRD hold every field, not for the pod validation rules.
func everyFieldTemplate(seed int64) corev1.PodTemplateSpec {
	n := 0
	name := func() string { n++; return fmt.Sprintf("v%d", n) }
	filler := randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 1).Funcs(
		func(s *string, c randfill.Continue) { *s = name() },
		func(b *bool, c randfill.Continue) { *b = true },
		func(i *int32, c randfill.Continue) { *i = int32(c.Intn(1000) + 1) },
		func(i *int64, c randfill.Continue) { *i = int64(c.Intn(100000) + 1) },
		func(q *apiresource.Quantity, c randfill.Continue) {
			*q = apiresource.MustParse(fmt.Sprintf("%dMi", c.Intn(1000)+1))
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(int32(c.Intn(60000) + 1))
			} else {
				*x = intstr.FromString(name())
			}
		},
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			// Embedded metadata keeps only these fields (the CRD prunes the others).
			*m = metav1.ObjectMeta{Name: name(), Namespace: name(), Labels: map[string]string{name(): name()},
				Annotations: map[string]string{"example.com/" + name(): name()}, Finalizers: []string{"example.com/" + name()}}
		},
	)
	var tpl corev1.PodTemplateSpec
	filler.Fill(&tpl)
	// randfill fills named string types (PullPolicy, ResourceName, ...) with random runes,
	// sometimes none: give them readable names too.
	var fix func(v reflect.Value)
	fix = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				fix(v.Elem())
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(metav1.ObjectMeta{}) {
				return // set above
			}
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					fix(v.Field(i))
				}
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return
			}
			for i := 0; i < v.Len(); i++ {
				fix(v.Index(i))
			}
		case reflect.Map:
			out := reflect.MakeMap(v.Type())
			for it := v.MapRange(); it.Next(); {
				k := reflect.New(v.Type().Key()).Elem()
				k.Set(it.Key())
				fix(k)
				e := reflect.New(v.Type().Elem()).Elem()
				e.Set(it.Value())
				fix(e)
				out.SetMapIndex(k, e)
			}
			v.Set(out)
		case reflect.String:
			if v.Type() != reflect.TypeOf("") && v.CanSet() {
				v.SetString(name())
			}
		}
	}
	fix(reflect.ValueOf(&tpl))
	return tpl
}

func templateNode() *k8sschema.Node {
	return leaderworkerset.Kind.Node().FieldJSON("spec").FieldJSON("leaderWorkerTemplate").FieldJSON("workerTemplate")
}

// podTemplateRoundTrip puts tpl through the Terraform schema: Encode to a Terraform value and
// Decode back. It fails the test when a field has no attribute or changes on the way.
func podTemplateRoundTrip(t *testing.T, tpl corev1.PodTemplateSpec) corev1.PodTemplateSpec {
	t.Helper()
	node := templateNode()
	v := k8sschema.Encode(node, &tpl)

	set := map[string]bool{}
	collectSet(node, v, "", set)
	var unset []string
	node.Walk(func(n *k8sschema.Node) {
		p := strings.TrimPrefix(strings.ReplaceAll(n.Path(), "[]", ""), "spec.leaderWorkerTemplate.workerTemplate.")
		if !set[p] {
			unset = append(unset, p)
		}
	})
	if len(unset) > 0 {
		sort.Strings(unset)
		t.Errorf("the generator left %d attributes null:\n  %s", len(unset), strings.Join(unset, "\n  "))
	}

	var back corev1.PodTemplateSpec
	dec := k8sschema.Decode(node, v, &back, nil)
	if len(dec.Errs) > 0 || dec.HasUnknown() {
		t.Fatalf("decoding the encoded template: %v (unknown: %v)", dec.Errs, dec.Unknown)
	}
	want, _ := toJSONMap(tpl)
	got, _ := toJSONMap(back)
	var diffs []string
	compareSubset("template", want, got, &diffs)
	if len(diffs) > 0 {
		t.Errorf("the Terraform schema loses or changes %d values of the template:\n  %s", len(diffs), strings.Join(diffs, "\n  "))
	}
	if again := k8sschema.Encode(node, &back); !again.Equal(v) {
		t.Errorf("encode(decode(encode(template))) differs from encode(template)")
	}
	return back
}

// TestPodTemplateSchemaCoversEveryField: every field of a core/v1 PodTemplateSpec (embedded
// metadata restricted to what a CRD keeps) has a Terraform attribute and survives
// Encode -> Decode.
func TestPodTemplateSchemaCoversEveryField(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		podTemplateRoundTrip(t, everyFieldTemplate(seed))
	}
}

// TestAccLeaderWorkerSet_podTemplateEveryField: the generated CRD (k8s.io/api v0.37 pod templates)
// stores every PodTemplateSpec field of both templates: a template with every field set, after the Terraform round trip, is applied
// (server-side apply, bypassing the provider's plan-time validation, which such a template
// cannot pass) and read back with nothing pruned.
func TestAccLeaderWorkerSet_podTemplateEveryField(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := newerFieldsCluster(t).Dynamic().Resource(leaderworkerset.Kind.GVR()).Namespace("default")
	tpl := podTemplateRoundTrip(t, everyFieldTemplate(42))
	const name = "acc-podspec-every-field"
	obj := &lwsv1.LeaderWorkerSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: lwsv1.GroupVersion.String(), Kind: "LeaderWorkerSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: lwsv1.LeaderWorkerSetSpec{
			StartupPolicy:   lwsv1.LeaderCreatedStartupPolicy,
			RolloutStrategy: lwsv1.RolloutStrategy{Type: lwsv1.RollingUpdateStrategyType},
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				LeaderTemplate: ptr.To(tpl),
				WorkerTemplate: tpl,
			},
		},
	}
	body, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t.Cleanup(func() { _ = c.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	if _, err := c.Patch(ctx, name, k8stypes.ApplyPatchType, body, metav1.PatchOptions{
		FieldManager: "acctest", Force: ptr.To(true), FieldValidation: "Strict"}); err != nil {
		t.Fatalf("server-side apply: %v", err)
	}
	u, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := toJSONMap(tpl)
	lwt, _ := u.Object["spec"].(map[string]any)["leaderWorkerTemplate"].(map[string]any)
	for _, which := range []string{"leaderTemplate", "workerTemplate"} {
		var diffs []string
		compareSubset(which, want, lwt[which], &diffs)
		if len(diffs) > 0 {
			t.Errorf("the server pruned or changed %d values of %s:\n  %s", len(diffs), which, strings.Join(diffs, "\n  "))
		}
	}
}
