package podtemplate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func res(req, lim corev1.ResourceList) func(t *corev1.PodTemplateSpec) {
	return func(t *corev1.PodTemplateSpec) {
		ctr(t).Resources = corev1.ResourceRequirements{Requests: req, Limits: lim}
	}
}

func TestResources(t *testing.T) {
	const r = "spec.containers[0].resources"
	runCases(t, []tc{
		{name: "cpu/memory/gpu ok", mutate: res(corev1.ResourceList{"cpu": q("4"), "memory": q("16Gi")},
			corev1.ResourceList{"cpu": q("8"), "memory": q("16Gi"), "nvidia.com/gpu": q("1")})},
		{name: "request above limit", mutate: res(corev1.ResourceList{"cpu": q("2")}, corev1.ResourceList{"cpu": q("1")}), want: "FieldValueInvalid " + r + ".requests"},
		{name: "negative quantity", mutate: res(corev1.ResourceList{"memory": q("-1")}, nil), want: "FieldValueInvalid " + r + ".requests[memory]"},
		{name: "unknown unprefixed name", mutate: res(corev1.ResourceList{"gpu": q("1")}, nil), want: "FieldValueInvalid " + r + ".requests[gpu]"},
		{name: "quota-only name", mutate: res(nil, corev1.ResourceList{"pods": q("1")}), want: "FieldValueInvalid " + r + ".limits[pods]"},
		{name: "extended request without limit", mutate: res(corev1.ResourceList{"nvidia.com/gpu": q("1")}, nil), want: "FieldValueRequired " + r + ".limits"},
		{name: "extended request != limit", mutate: res(corev1.ResourceList{"nvidia.com/gpu": q("1")}, corev1.ResourceList{"nvidia.com/gpu": q("2")}), want: "FieldValueInvalid " + r + ".requests"},
		{name: "extended fractional", mutate: res(nil, corev1.ResourceList{"nvidia.com/gpu": q("500m")}), want: "FieldValueInvalid " + r + ".limits[nvidia.com/gpu]"},
		{name: "hugepages with memory", mutate: res(nil, corev1.ResourceList{"hugepages-2Mi": q("4Mi"), "memory": q("1Gi")})},
		{name: "hugepages alone", mutate: res(nil, corev1.ResourceList{"hugepages-2Mi": q("4Mi")}), want: "FieldValueForbidden " + r},
		{name: "hugepages indivisible", mutate: res(nil, corev1.ResourceList{"hugepages-2Mi": q("3Mi"), "memory": q("1Gi")}), want: "FieldValueInvalid " + r + ".limits[hugepages-2Mi]"},
		{name: "claims reference pod claim", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu-tpl")}}
			ctr(t).Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
		}},
		{name: "claims unknown", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}} }, want: "FieldValueNotFound " + r + ".claims[0]"},
		{name: "pod claim without source", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu"}}
		}, want: "FieldValueInvalid spec.resourceClaims[0]"},
		{name: "pod claim duplicate", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("a")}, {Name: "gpu", ResourceClaimName: ptr.To("b")}}
		}, want: "FieldValueDuplicate spec.resourceClaims[1].name"},
		{name: "pod-level resources ok", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("2")}, Limits: corev1.ResourceList{"cpu": q("4")}}
			ctr(t).Resources.Requests = corev1.ResourceList{"cpu": q("1")}
		}},
		{name: "pod-level below container sum", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("1")}}
			ctr(t).Resources.Requests = corev1.ResourceList{"cpu": q("2")}
		}, want: "FieldValueInvalid spec.resources.requests[cpu]"},
		{name: "pod-level unsupported resource", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{"ephemeral-storage": q("1Gi")}}
		}, want: "FieldValueNotSupported spec.resources.limits[ephemeral-storage]"},
		{name: "overhead negative", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.Overhead = corev1.ResourceList{"cpu": q("-1")} }, want: "FieldValueInvalid spec.overhead.limits[cpu]"},
	})
}

func TestPodSpec(t *testing.T) {
	runCases(t, []tc{
		{name: "restartPolicy Always explicit", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.RestartPolicy = corev1.RestartPolicyAlways }},
		{name: "restartPolicy OnFailure", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.RestartPolicy = corev1.RestartPolicyOnFailure }, want: "FieldValueNotSupported spec.restartPolicy"},
		{name: "restartPolicy bogus", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.RestartPolicy = "Sometimes" }, want: "FieldValueNotSupported spec.restartPolicy"},
		{name: "activeDeadlineSeconds", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.ActiveDeadlineSeconds = ptr.To[int64](60) }, want: "FieldValueForbidden spec.activeDeadlineSeconds"},
		{name: "terminationGracePeriodSeconds explicit", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.TerminationGracePeriodSeconds = ptr.To[int64](600) }},
		{name: "dnsPolicy Default", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.DNSPolicy = corev1.DNSDefault }},
		{name: "dnsPolicy bogus", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.DNSPolicy = "Google" }, want: "FieldValueNotSupported spec.dnsPolicy"},
		{name: "dnsPolicy None without config", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.DNSPolicy = corev1.DNSNone }, want: "FieldValueRequired spec.dnsConfig"},
		{name: "dnsPolicy None without nameservers", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.DNSPolicy = corev1.DNSNone
			t.Spec.DNSConfig = &corev1.PodDNSConfig{Searches: []string{"svc.local"}}
		}, want: "FieldValueRequired spec.dnsConfig.nameservers"},
		{name: "dnsPolicy None with nameserver", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.DNSPolicy = corev1.DNSNone
			t.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"10.0.0.10"}, Searches: []string{"svc.cluster.local."}, Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("2")}}}
		}},
		{name: "dnsConfig too many nameservers", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1", "1.0.0.1", "8.8.8.8", "8.8.4.4"}}
		}, want: "FieldValueInvalid spec.dnsConfig.nameservers"},
		{name: "dnsConfig bad IP", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"dns.google"}}
		}, want: "FieldValueInvalid spec.dnsConfig.nameservers[0]"},
		{name: "dnsConfig bad search", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.DNSConfig = &corev1.PodDNSConfig{Searches: []string{"Bad Domain"}}
		}, want: "FieldValueInvalid spec.dnsConfig.searches[0]"},
		{name: "dnsConfig empty option", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.DNSConfig = &corev1.PodDNSConfig{Options: []corev1.PodDNSConfigOption{{}}}
		}, want: "FieldValueRequired spec.dnsConfig.options[0]"},
		{name: "hostNetwork matching hostPort", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.HostNetwork = true
			ctr(t).Ports = []corev1.ContainerPort{{ContainerPort: 8080}, {ContainerPort: 9090, HostPort: 9090}}
		}},
		{name: "hostNetwork mismatched hostPort", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.HostNetwork = true
			ctr(t).Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 80}}
		}, want: "FieldValueInvalid spec.containers[0].ports[0].hostPort"},
		{name: "nodeSelector ok", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.NodeSelector = map[string]string{"nvidia.com/gpu.product": "H100"}
		}},
		{name: "nodeSelector bad value", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.NodeSelector = map[string]string{"gpu": "a b"} }, want: "FieldValueInvalid spec.nodeSelector"},
		{name: "names ok", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.ServiceAccountName, t.Spec.PriorityClassName, t.Spec.RuntimeClassName = "vllm", "high", ptr.To("nvidia")
			t.Spec.SchedulerName = "volcano"
		}},
		{name: "serviceAccountName invalid", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.ServiceAccountName = "Bad_SA" }, want: "FieldValueInvalid spec.serviceAccountName"},
		{name: "priorityClassName invalid", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.PriorityClassName = "High" }, want: "FieldValueInvalid spec.priorityClassName"},
		{name: "runtimeClassName invalid", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.RuntimeClassName = ptr.To("") }, want: "FieldValueInvalid spec.runtimeClassName"},
		{name: "hostname/subdomain ignored for statefulsets", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.Hostname, t.Spec.Subdomain = "Not_Valid", "Also_Bad" }},
		{name: "hostAliases ok", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"foo.local"}}}
		}},
		{name: "hostAliases bad ip", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.2"}} }, want: "FieldValueInvalid spec.hostAliases[0].ip"},
		{name: "hostAliases bad hostname", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"Foo_Bar"}}}
		}, want: "FieldValueInvalid spec.hostAliases[0].hostnames[0]"},
		{name: "readinessGates ok", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/ready"}}
		}},
		{name: "readinessGates invalid", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "not ok"}}
		}, want: "FieldValueInvalid spec.readinessGates[0].conditionType"},
		{name: "schedulingGates duplicate", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/a"}, {Name: "example.com/a"}}
		}, want: "FieldValueDuplicate spec.schedulingGates[1]"},
		{name: "schedulingGates invalid", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: ""}} }, want: "FieldValueInvalid spec.schedulingGates[0]"},
		{name: "ephemeralContainers forbidden", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "dbg", Image: "busybox"}}}
		}, want: "FieldValueForbidden spec.ephemeralContainers"},
		{name: "os linux", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.OS = &corev1.PodOS{Name: corev1.Linux} }},
		{name: "os bogus", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.OS = &corev1.PodOS{Name: "plan9"} }, want: "FieldValueNotSupported spec.os"},
		{name: "windows forbids seccomp", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
			t.Spec.SecurityContext = &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
		}, want: "FieldValueForbidden spec.securityContext.seccompProfile"},
		{name: "pod securityContext sysctls ok", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}},
				FSGroup: ptr.To[int64](2000), FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch)}
		}},
		{name: "sysctl invalid name", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "Net.Core", Value: "1"}}}
		}, want: "FieldValueInvalid spec.securityContext.sysctls[0].name"},
		{name: "net sysctl with hostNetwork", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.HostNetwork = true
			t.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1"}}}
		}, want: "FieldValueInvalid spec.securityContext.sysctls[0].name"},
		{name: "fsGroupChangePolicy bogus", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.SecurityContext = &corev1.PodSecurityContext{FSGroupChangePolicy: ptr.To(corev1.PodFSGroupChangePolicy("Never"))}
		}, want: "FieldValueNotSupported spec.securityContext.fsGroupChangePolicy"},
		{name: "seLinuxChangePolicy bogus", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.SecurityContext = &corev1.PodSecurityContext{SELinuxChangePolicy: ptr.To(corev1.PodSELinuxChangePolicy("Fast"))}
		}, want: "FieldValueNotSupported spec.securityContext.seLinuxChangePolicy"},
		{name: "supplementalGroupsPolicy bogus", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.SecurityContext = &corev1.PodSecurityContext{SupplementalGroupsPolicy: ptr.To(corev1.SupplementalGroupsPolicy("Loose"))}
		}, want: "FieldValueNotSupported spec.securityContext.supplementalGroupsPolicy"},
		{name: "preemptionPolicy bogus", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.PreemptionPolicy = ptr.To(corev1.PreemptionPolicy("Always")) }, want: "FieldValueNotSupported spec.preemptionPolicy"},
		// metadata
		{name: "labels invalid", mutate: func(t *corev1.PodTemplateSpec) { t.Labels = map[string]string{"a": "b c"} }, want: "FieldValueInvalid labels"},
		{name: "annotations invalid key", mutate: func(t *corev1.PodTemplateSpec) { t.Annotations = map[string]string{"bad key": "v"} }, want: "FieldValueInvalid annotations"},
		{name: "annotations any value", mutate: func(t *corev1.PodTemplateSpec) {
			t.Annotations = map[string]string{"example.com/x": "any value at all"}
		}},
		{name: "pod-deletion-cost invalid", mutate: func(t *corev1.PodTemplateSpec) { t.Annotations = map[string]string{corev1.PodDeletionCost: "+5"} }, want: "FieldValueInvalid annotations[controller.kubernetes.io/pod-deletion-cost]"},
		// tolerations
		{name: "tolerations ok", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Tolerations = []corev1.Toleration{
				{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: "dedicated", Value: "inference"},
				{Operator: corev1.TolerationOpExists},
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
			}
		}},
		{name: "toleration empty key with Equal", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.Tolerations = []corev1.Toleration{{Value: "x"}} }, want: "FieldValueInvalid spec.tolerations[0].operator"},
		{name: "toleration Exists with value", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Value: "v"}}
		}, want: "FieldValueInvalid spec.tolerations[0].operator"},
		{name: "toleration bad value", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.Tolerations = []corev1.Toleration{{Key: "k", Value: "a b"}} }, want: "FieldValueInvalid spec.tolerations[0].operator"},
		{name: "toleration bad key", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Tolerations = []corev1.Toleration{{Key: "a b", Operator: corev1.TolerationOpExists}}
		}, want: "FieldValueInvalid spec.tolerations[0].key"},
		{name: "toleration seconds without NoExecute", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: ptr.To[int64](5)}}
		}, want: "FieldValueInvalid spec.tolerations[0].effect"},
		{name: "toleration bad effect", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Effect: "NoRun"}}
		}, want: "FieldValueNotSupported spec.tolerations[0].effect"},
		{name: "toleration Lt gated off", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpLt, Value: "5"}}
		}, want: "FieldValueNotSupported spec.tolerations[0].operator"},
		{name: "toleration bogus operator", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: "In"}}
		}, want: "FieldValueNotSupported spec.tolerations[0].operator"},
	})
}

func aff(a *corev1.Affinity) func(t *corev1.PodTemplateSpec) {
	return func(t *corev1.PodTemplateSpec) { t.Spec.Affinity = a }
}

func TestAffinity(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	term := func(mut func(*corev1.PodAffinityTerm)) corev1.PodAffinityTerm {
		pt := corev1.PodAffinityTerm{LabelSelector: sel.DeepCopy(), TopologyKey: "kubernetes.io/hostname"}
		if mut != nil {
			mut(&pt)
		}
		return pt
	}
	nodeReq := func(r corev1.NodeSelectorRequirement) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{r}}}}}}
	}
	const na = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
	const pa = "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
	runCases(t, []tc{
		{name: "node affinity ok", mutate: aff(nodeReq(corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpIn, Values: []string{"h100"}}))},
		{name: "node affinity no terms", mutate: aff(&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{}}}), want: "FieldValueRequired " + na + ".nodeSelectorTerms"},
		{name: "node affinity bad operator", mutate: aff(nodeReq(corev1.NodeSelectorRequirement{Key: "gpu", Operator: "Has"})), want: "FieldValueInvalid " + na + ".nodeSelectorTerms[0].matchExpressions[0].operator"},
		{name: "node affinity Gt needs one value", mutate: aff(nodeReq(corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpGt})), want: "FieldValueRequired " + na + ".nodeSelectorTerms[0].matchExpressions[0].values"},
		{name: "node affinity bad value", mutate: aff(nodeReq(corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpIn, Values: []string{"a b"}})), want: "FieldValueInvalid " + na + ".nodeSelectorTerms[0].matchExpressions[0].values[0]"},
		{name: "preferred weight 0", mutate: aff(&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 0}}}}),
			want: "FieldValueInvalid spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight"},
		{name: "pod anti-affinity ok", mutate: aff(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term(nil)}}})},
		{name: "pod anti-affinity no topologyKey", mutate: aff(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			term(func(pt *corev1.PodAffinityTerm) { pt.TopologyKey = "" })}}}), want: "FieldValueRequired " + pa + ".topologyKey"},
		{name: "pod affinity weight 101", mutate: aff(&corev1.Affinity{PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 101, PodAffinityTerm: term(nil)}}}}),
			want: "FieldValueInvalid spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight"},
		{name: "matchLabelKeys ok", mutate: aff(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			term(func(pt *corev1.PodAffinityTerm) {
				pt.MatchLabelKeys = []string{"leaderworkerset.sigs.k8s.io/group-key"}
			})}}})},
		{name: "matchLabelKeys without selector", mutate: aff(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			term(func(pt *corev1.PodAffinityTerm) { pt.LabelSelector = nil; pt.MatchLabelKeys = []string{"k"} })}}}), want: "FieldValueForbidden " + pa + ".matchLabelKeys"},
		{name: "matchLabelKeys and mismatchLabelKeys overlap", mutate: aff(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			term(func(pt *corev1.PodAffinityTerm) {
				pt.MatchLabelKeys = []string{"k"}
				pt.MismatchLabelKeys = []string{"k"}
			})}}}), want: "FieldValueInvalid " + pa + ".matchLabelKeys[0]"},
		{name: "bad namespace", mutate: aff(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			term(func(pt *corev1.PodAffinityTerm) { pt.Namespaces = []string{"Bad_NS"} })}}}), want: "FieldValueInvalid " + pa + ".namespace"},
	})
}
