package rules

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// wantErr is an expected error, identified by its type and field path.
type wantErr struct {
	typ  field.ErrorType
	path string
}

func (w wantErr) String() string { return string(w.typ) + " " + w.path }

func invalid(path string) wantErr      { return wantErr{field.ErrorTypeInvalid, path} }
func required(path string) wantErr     { return wantErr{field.ErrorTypeRequired, path} }
func notSupported(path string) wantErr { return wantErr{field.ErrorTypeNotSupported, path} }
func forbidden(path string) wantErr    { return wantErr{field.ErrorTypeForbidden, path} }
func tooMany(path string) wantErr      { return wantErr{field.ErrorTypeTooMany, path} }
func duplicate(path string) wantErr    { return wantErr{field.ErrorTypeDuplicate, path} }

// assertErrors requires got to hold exactly the wanted errors, in any order.
func assertErrors(t *testing.T, got field.ErrorList, want ...wantErr) {
	t.Helper()
	var g, w []string
	for _, e := range got {
		g = append(g, wantErr{e.Type, e.Field}.String())
	}
	for _, e := range want {
		w = append(w, e.String())
	}
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Errorf("errors differ\n got: %v\nwant: %v\nfull: %v", g, w, got)
	}
}

func podTemplate(container string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "vllm"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: container, Image: "vllm/vllm-openai:latest"}},
		},
	}
}

// baseLWS is a valid, defaulted LeaderWorkerSet: 2 replicas of size 4.
func baseLWS() *lwsv1.LeaderWorkerSet {
	leader := podTemplate("leader")
	obj := &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: "vllm", Namespace: "default"},
		Spec: lwsv1.LeaderWorkerSetSpec{
			Replicas: ptr.To[int32](2),
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				LeaderTemplate: &leader,
				WorkerTemplate: podTemplate("worker"),
				Size:           ptr.To[int32](4),
			},
		},
	}
	SetDefaults(obj)
	return obj
}

// scheduledLWS is baseLWS with `scheduling: {}` (replica level, gang).
func scheduledLWS() *lwsv1.LeaderWorkerSet {
	obj := baseLWS()
	obj.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{}
	return obj
}

type validateCase struct {
	name   string
	base   func() *lwsv1.LeaderWorkerSet // baseLWS when nil
	mutate func(*lwsv1.LeaderWorkerSet)
	want   []wantErr
}

func runValidateCases(t *testing.T, cases []validateCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.name] {
			t.Fatalf("duplicate case name %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			base := tc.base
			if base == nil {
				base = baseLWS
			}
			obj := base()
			if tc.mutate != nil {
				tc.mutate(obj)
			}
			assertErrors(t, Validate(obj), tc.want...)
		})
	}
}

func setReplicas(n int32) func(*lwsv1.LeaderWorkerSet) {
	return func(o *lwsv1.LeaderWorkerSet) { o.Spec.Replicas = ptr.To(n) }
}

func setSize(n int32) func(*lwsv1.LeaderWorkerSet) {
	return func(o *lwsv1.LeaderWorkerSet) { o.Spec.LeaderWorkerTemplate.Size = ptr.To(n) }
}

func setRollout(unavailable, surge intstr.IntOrString) func(*lwsv1.LeaderWorkerSet) {
	return func(o *lwsv1.LeaderWorkerSet) {
		o.Spec.RolloutStrategy.RollingUpdateConfiguration.MaxUnavailable = unavailable
		o.Spec.RolloutStrategy.RollingUpdateConfiguration.MaxSurge = surge
	}
}

func setSubGroup(size int32, policyType *lwsv1.SubGroupPolicyType, subGroupSize *int32) func(*lwsv1.LeaderWorkerSet) {
	return func(o *lwsv1.LeaderWorkerSet) {
		o.Spec.LeaderWorkerTemplate.Size = ptr.To(size)
		o.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{Type: policyType, SubGroupSize: subGroupSize}
	}
}

func all(fns ...func(*lwsv1.LeaderWorkerSet)) func(*lwsv1.LeaderWorkerSet) {
	return func(o *lwsv1.LeaderWorkerSet) {
		for _, fn := range fns {
			fn(o)
		}
	}
}

const (
	pReplicas       = "spec.replicas"
	pSize           = "spec.leaderWorkerTemplate.size"
	pMaxUnavailable = "spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable"
	pMaxSurge       = "spec.rolloutStrategy.rollingUpdateConfiguration.maxSurge"
	pPartition      = "spec.rolloutStrategy.rollingUpdateConfiguration.partition"
	pSubGroupSize   = "spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize"
	pGroupIdentity  = "spec.groupIdentity"
	pReplacement    = "spec.groupReplacementPolicy"
	pMaxRestarts    = "spec.leaderWorkerTemplate.maxGroupRestarts"
	pScheduling     = "spec.scheduling"
)

func TestValidateMetadata(t *testing.T) {
	subGroupAnnotation := "metadata.annotations[" + lwsv1.SubGroupExclusiveKeyAnnotationKey + "]"
	runValidateCases(t, []validateCase{
		{name: "valid base object"},
		{name: "name 63 characters", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Name = "a" + strings.Repeat("b", 62) }},
		{name: "name 64 characters", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Name = "a" + strings.Repeat("b", 63) },
			want: []wantErr{invalid("metadata.name")}},
		{name: "name empty", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Name = "" },
			want: []wantErr{required("metadata.name")}},
		{name: "name starting with a digit is not DNS-1035", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Name = "1vllm" },
			want: []wantErr{invalid("metadata.name")}},
		{name: "name with a dot", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Name = "vllm.a" },
			want: []wantErr{invalid("metadata.name")}},
		{name: "name with upper case", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Name = "Vllm" },
			want: []wantErr{invalid("metadata.name")}},
		{name: "namespace empty is left to the provider", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Namespace = "" }},
		{name: "namespace 63 characters", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Namespace = strings.Repeat("n", 63) }},
		{name: "namespace 64 characters", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Namespace = strings.Repeat("n", 64) },
			want: []wantErr{invalid("metadata.namespace")}},
		{name: "namespace with upper case", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Namespace = "Team" },
			want: []wantErr{invalid("metadata.namespace")}},
		{name: "subgroup exclusive topology without subGroupPolicy",
			mutate: func(o *lwsv1.LeaderWorkerSet) {
				o.Annotations = map[string]string{lwsv1.SubGroupExclusiveKeyAnnotationKey: "kubernetes.io/hostname"}
			},
			want: []wantErr{invalid(subGroupAnnotation)}},
		{name: "subgroup exclusive topology with subGroupPolicy",
			mutate: all(setSubGroup(4, nil, ptr.To[int32](2)), func(o *lwsv1.LeaderWorkerSet) {
				o.Annotations = map[string]string{lwsv1.SubGroupExclusiveKeyAnnotationKey: "kubernetes.io/hostname"}
			})},
	})
}

func TestValidateReplicasAndSize(t *testing.T) {
	runValidateCases(t, []validateCase{
		{name: "replicas 0", mutate: setReplicas(0)},
		{name: "replicas -1", mutate: setReplicas(-1), want: []wantErr{invalid(pReplicas)}},
		{name: "replicas 1000000", mutate: all(setReplicas(1000000), setSize(1))},
		{name: "replicas 1000001", mutate: all(setReplicas(1000001), setSize(1)), want: []wantErr{invalid(pReplicas)}},
		{name: "size 1", mutate: setSize(1)},
		{name: "size 0", mutate: setSize(0), want: []wantErr{invalid(pSize)}},
		{name: "size -1", mutate: setSize(-1), want: []wantErr{invalid(pSize)}},
		// 1,000,000 x 2147 = 2,147,000,000 <= MaxInt32 < 1,000,000 x 2148.
		{name: "replicas times size at MaxInt32", mutate: all(setReplicas(1000000), setSize(2147))},
		{name: "replicas times size above MaxInt32", mutate: all(setReplicas(1000000), setSize(2148)),
			want: []wantErr{invalid(pReplicas)}},
		{name: "size MaxInt32 with one replica", mutate: all(setReplicas(1), setSize(math.MaxInt32))},
	})
}

func TestValidateEnums(t *testing.T) {
	runValidateCases(t, []validateCase{
		{name: "startupPolicy LeaderReady", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.StartupPolicy = lwsv1.LeaderReadyStartupPolicy }},
		{name: "startupPolicy empty reaches the CRD enum", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.StartupPolicy = "" },
			want: []wantErr{notSupported("spec.startupPolicy")}},
		{name: "startupPolicy unknown", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.StartupPolicy = "Eager" },
			want: []wantErr{notSupported("spec.startupPolicy")}},
		{name: "restartPolicy None", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.NoneRestartPolicy }},
		{name: "restartPolicy RecreateGroupAfterStart", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.RecreateGroupAfterStart
		}},
		{name: "restartPolicy Default before defaulting", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.DeprecatedDefaultRestartPolicy
		}},
		{name: "restartPolicy unknown", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.LeaderWorkerTemplate.RestartPolicy = "Always" },
			want: []wantErr{notSupported("spec.leaderWorkerTemplate.restartPolicy")}},
		{name: "rolloutStrategy type empty is filled by the webhook", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.RolloutStrategy.Type = "" }},
		{name: "rolloutStrategy type unknown", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.RolloutStrategy.Type = "Recreate" },
			want: []wantErr{notSupported("spec.rolloutStrategy.type")}},
		{name: "subdomainPolicy UniquePerReplica", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.NetworkConfig.SubdomainPolicy = ptr.To(lwsv1.SubdomainUniquePerReplica)
		}},
		{name: "subdomainPolicy nil is filled by the webhook", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.NetworkConfig.SubdomainPolicy = nil }},
		{name: "subdomainPolicy unknown", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.NetworkConfig.SubdomainPolicy = ptr.To[lwsv1.SubdomainPolicy]("PerPod")
		}, want: []wantErr{notSupported("spec.networkConfig.subdomainPolicy")}},
	})
}

func TestValidateRollingUpdate(t *testing.T) {
	i, s := intstr.FromInt32, intstr.FromString
	runValidateCases(t, []validateCase{
		{name: "partition 0", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](0)
		}},
		{name: "partition above replicas", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](5)
		}},
		{name: "partition -1", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](-1)
		}, want: []wantErr{invalid(pPartition)}},
		{name: "no rollingUpdateConfiguration", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.RolloutStrategy.RollingUpdateConfiguration = nil }},
		{name: "maxUnavailable 0 with maxSurge 1", mutate: setRollout(i(0), i(1))},
		{name: "maxUnavailable 100%", mutate: setRollout(s("100%"), i(0))},
		{name: "maxUnavailable 101%", mutate: setRollout(s("101%"), i(0)), want: []wantErr{invalid(pMaxUnavailable)}},
		{name: "maxUnavailable numeric string without percent", mutate: setRollout(s("1"), i(0)), want: []wantErr{invalid(pMaxUnavailable)}},
		{name: "maxUnavailable garbage string", mutate: setRollout(s("abc"), i(1)), want: []wantErr{invalid(pMaxUnavailable)}},
		{name: "maxUnavailable negative", mutate: setRollout(i(-1), i(1)), want: []wantErr{invalid(pMaxUnavailable)}},
		{name: "maxSurge 100%", mutate: setRollout(i(0), s("100%"))},
		{name: "maxSurge 150%", mutate: setRollout(i(1), s("150%")), want: []wantErr{invalid(pMaxSurge)}},
		{name: "maxSurge numeric string without percent", mutate: setRollout(i(1), s("2")), want: []wantErr{invalid(pMaxSurge)}},
		{name: "maxSurge negative", mutate: setRollout(i(1), i(-2)), want: []wantErr{invalid(pMaxSurge)}},
		{name: "both 0", mutate: setRollout(i(0), i(0)), want: []wantErr{invalid(pMaxUnavailable)}},
		{name: "both 0%", mutate: setRollout(s("0%"), s("0%")), want: []wantErr{invalid(pMaxUnavailable)}},
		{name: "both 0 with zero replicas", mutate: all(setReplicas(0), setRollout(i(0), i(0)))},
		// floor(5 x 10%) = 0 and maxSurge 0: rejected.
		{name: "maxUnavailable 10% of 5 rounds down to 0", mutate: all(setReplicas(5), setRollout(s("10%"), i(0))),
			want: []wantErr{invalid(pMaxUnavailable)}},
		{name: "maxUnavailable 10% of 10 is 1", mutate: all(setReplicas(10), setRollout(s("10%"), i(0)))},
		// ceil(5 x 1%) = 1.
		{name: "maxSurge 1% of 5 rounds up to 1", mutate: all(setReplicas(5), setRollout(i(0), s("1%")))},
	})
}

func TestValidateSubGroupPolicy(t *testing.T) {
	leaderWorker := ptr.To(lwsv1.SubGroupPolicyTypeLeaderWorker)
	leaderExcluded := ptr.To(lwsv1.SubGroupPolicyTypeLeaderExcluded)
	runValidateCases(t, []validateCase{
		{name: "size divisible", mutate: setSubGroup(4, leaderWorker, ptr.To[int32](2))},
		{name: "size - 1 divisible", mutate: setSubGroup(5, leaderWorker, ptr.To[int32](2))},
		{name: "subGroupSize equal to size", mutate: setSubGroup(4, nil, ptr.To[int32](4))},
		{name: "neither size nor size - 1 divisible", mutate: setSubGroup(6, nil, ptr.To[int32](4)),
			want: []wantErr{invalid(pSubGroupSize)}},
		{name: "subGroupSize larger than size", mutate: setSubGroup(1, nil, ptr.To[int32](2)),
			want: []wantErr{invalid(pSubGroupSize)}},
		{name: "subGroupSize 1", mutate: setSubGroup(3, nil, ptr.To[int32](1))},
		{name: "subGroupSize 0", mutate: setSubGroup(4, nil, ptr.To[int32](0)), want: []wantErr{invalid(pSubGroupSize)}},
		{name: "subGroupSize missing", mutate: setSubGroup(4, nil, nil), want: []wantErr{required(pSubGroupSize)}},
		{name: "LeaderExcluded with size - 1 divisible", mutate: setSubGroup(5, leaderExcluded, ptr.To[int32](2))},
		{name: "LeaderExcluded with only size divisible", mutate: setSubGroup(4, leaderExcluded, ptr.To[int32](2)),
			want: []wantErr{invalid(pSubGroupSize)}},
		{name: "LeaderExcluded with size 1", mutate: setSubGroup(1, leaderExcluded, ptr.To[int32](1))},
		{name: "subGroupPolicyType unknown", mutate: setSubGroup(4, ptr.To[lwsv1.SubGroupPolicyType]("Striped"), ptr.To[int32](2)),
			want: []wantErr{notSupported("spec.leaderWorkerTemplate.subGroupPolicy.subGroupPolicyType")}},
	})
}

func TestValidateGroupIdentity(t *testing.T) {
	hash := func(o *lwsv1.LeaderWorkerSet) { o.Spec.GroupIdentity = lwsv1.GroupIdentityHash }
	withVCT := func(o *lwsv1.LeaderWorkerSet) {
		o.Spec.LeaderWorkerTemplate.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "cache"}}}
	}
	partition := func(n int32) func(*lwsv1.LeaderWorkerSet) {
		return func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To(n)
		}
	}
	replacement := func(p lwsv1.GroupReplacementPolicyType) func(*lwsv1.LeaderWorkerSet) {
		return func(o *lwsv1.LeaderWorkerSet) { o.Spec.GroupReplacementPolicy = p }
	}
	runValidateCases(t, []validateCase{
		{name: "Hash", mutate: hash},
		{name: "empty means Ordinal", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.GroupIdentity = "" }},
		{name: "unknown", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.GroupIdentity = "Random" },
			want: []wantErr{notSupported(pGroupIdentity)}},
		{name: "Ordinal with volumeClaimTemplates", mutate: withVCT},
		{name: "Hash with volumeClaimTemplates", mutate: all(hash, withVCT), want: []wantErr{invalid(pGroupIdentity)}},
		{name: "Ordinal with partition", mutate: partition(1)},
		{name: "Hash with partition 0", mutate: all(hash, partition(0))},
		{name: "Hash with partition 1", mutate: all(hash, partition(1)), want: []wantErr{invalid(pGroupIdentity)}},
		// Merged PR#987 behaviour: both accepted with Hash.
		{name: "Hash with subGroupPolicy", mutate: all(hash, setSubGroup(4, nil, ptr.To[int32](2)))},
		{name: "Hash with UniquePerReplica", mutate: all(hash, func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.NetworkConfig.SubdomainPolicy = ptr.To(lwsv1.SubdomainUniquePerReplica)
		})},
		{name: "Immediate with Hash", mutate: all(hash, replacement(lwsv1.GroupReplacementImmediate))},
		{name: "Immediate with Ordinal", mutate: replacement(lwsv1.GroupReplacementImmediate), want: []wantErr{invalid(pReplacement)}},
		{name: "Immediate with empty identity", mutate: all(replacement(lwsv1.GroupReplacementImmediate), func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.GroupIdentity = ""
		}), want: []wantErr{invalid(pReplacement)}},
		{name: "PostTermination with Ordinal", mutate: replacement(lwsv1.GroupReplacementPostTermination)},
		{name: "PostTermination with Hash", mutate: all(hash, replacement(lwsv1.GroupReplacementPostTermination))},
		{name: "groupReplacementPolicy unknown", mutate: replacement("Eager"), want: []wantErr{notSupported(pReplacement)}},
	})
}

func TestValidateMaxGroupRestarts(t *testing.T) {
	restarts := func(n int32, policy lwsv1.RestartPolicyType) func(*lwsv1.LeaderWorkerSet) {
		return func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.MaxGroupRestarts = ptr.To(n)
			o.Spec.LeaderWorkerTemplate.RestartPolicy = policy
		}
	}
	runValidateCases(t, []validateCase{
		{name: "0 with RecreateGroupOnPodRestart", mutate: restarts(0, lwsv1.RecreateGroupOnPodRestart)},
		{name: "3 with RecreateGroupAfterStart", mutate: restarts(3, lwsv1.RecreateGroupAfterStart)},
		{name: "-1", mutate: restarts(-1, lwsv1.RecreateGroupOnPodRestart), want: []wantErr{invalid(pMaxRestarts)}},
		{name: "with None", mutate: restarts(2, lwsv1.NoneRestartPolicy), want: []wantErr{invalid(pMaxRestarts)}},
		{name: "with Default", mutate: restarts(2, lwsv1.DeprecatedDefaultRestartPolicy), want: []wantErr{invalid(pMaxRestarts)}},
		{name: "unset with None", mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.NoneRestartPolicy }},
	})
}

// Scheduling helpers.

func compositeGang(minGroupCount *int32) *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy {
	return &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{
		Gang: &schedulingv1alpha3.WorkloadCompositePodGroupGangSchedulingPolicy{MinGroupCount: minGroupCount},
	}
}

func compositeBasic() *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy {
	return &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{
		Basic: &schedulingv1alpha3.WorkloadCompositePodGroupBasicSchedulingPolicy{},
	}
}

func podGang(minCount *int32) *schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy {
	return &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
		Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{MinCount: minCount},
	}
}

func compositeTopology(keys ...string) *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints {
	c := &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints{}
	for _, k := range keys {
		c.Topology = append(c.Topology, schedulingv1alpha3.TopologyConstraint{Key: k})
	}
	return c
}

func podTopology(keys ...string) *schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints {
	c := &schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints{}
	for _, k := range keys {
		c.Topology = append(c.Topology, schedulingv1alpha3.TopologyConstraint{Key: k})
	}
	return c
}

func compositeDisruption(single, all bool) *schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode {
	d := &schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode{}
	if single {
		d.Single = &schedulingv1alpha3.WorkloadCompositePodGroupSingleDisruptionMode{}
	}
	if all {
		d.All = &schedulingv1alpha3.WorkloadCompositePodGroupAllDisruptionMode{}
	}
	return d
}

func podDisruption(single, all bool) *schedulingv1alpha3.WorkloadPodGroupDisruptionMode {
	d := &schedulingv1alpha3.WorkloadPodGroupDisruptionMode{}
	if single {
		d.Single = &schedulingv1alpha3.WorkloadPodGroupSingleDisruptionMode{}
	}
	if all {
		d.All = &schedulingv1alpha3.WorkloadPodGroupAllDisruptionMode{}
	}
	return d
}

func sched(fn func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration)) func(*lwsv1.LeaderWorkerSet) {
	return func(o *lwsv1.LeaderWorkerSet) { fn(o.Spec.Scheduling) }
}

func replica(r *lwsv1.LeaderWorkerSetReplicaScheduling) func(*lwsv1.LeaderWorkerSet) {
	return sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) { s.Replica = r })
}

func leader(l *lwsv1.LeaderWorkerSetLeaderScheduling) func(*lwsv1.LeaderWorkerSet) {
	return replica(&lwsv1.LeaderWorkerSetReplicaScheduling{Leader: l})
}

func worker(w *lwsv1.LeaderWorkerSetWorkerScheduling) func(*lwsv1.LeaderWorkerSet) {
	return replica(&lwsv1.LeaderWorkerSetReplicaScheduling{Worker: w})
}

func leaderReady(o *lwsv1.LeaderWorkerSet) { o.Spec.StartupPolicy = lwsv1.LeaderReadyStartupPolicy }

func exclusive(o *lwsv1.LeaderWorkerSet) {
	o.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: "kubernetes.io/hostname"}
}

func TestValidateSchedulingLevels(t *testing.T) {
	runValidateCases(t, []validateCase{
		{name: "empty scheduling selects replica gang", base: scheduledLWS},
		{name: "empty replica", base: scheduledLWS, mutate: replica(&lwsv1.LeaderWorkerSetReplicaScheduling{})},
		{name: "LWS gang", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingPolicy = compositeGang(nil)
		})},
		{name: "LWS gang with zero replicas", base: scheduledLWS, mutate: all(setReplicas(0), sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingPolicy = compositeGang(nil)
		}))},
		{name: "LWS and replica levels both active", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingConstraints = compositeTopology()
			s.Replica = &lwsv1.LeaderWorkerSetReplicaScheduling{}
		}), want: []wantErr{invalid(pScheduling)}},
		{name: "replica fields and roles both active", base: scheduledLWS, mutate: replica(&lwsv1.LeaderWorkerSetReplicaScheduling{
			SchedulingPolicy: compositeGang(nil),
			Leader:           &lwsv1.LeaderWorkerSetLeaderScheduling{},
		}), want: []wantErr{invalid(pScheduling)}},
		{name: "role mode with size 2", base: scheduledLWS, mutate: all(setSize(2), leader(&lwsv1.LeaderWorkerSetLeaderScheduling{}))},
		{name: "role mode with size 1", base: scheduledLWS, mutate: all(setSize(1), leader(&lwsv1.LeaderWorkerSetLeaderScheduling{})),
			want: []wantErr{invalid(pSize)}},
		{name: "replica mode with size 1", base: scheduledLWS, mutate: setSize(1)},
	})
}

func TestValidateSchedulingPolicies(t *testing.T) {
	runValidateCases(t, []validateCase{
		{name: "LWS policy empty", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingPolicy = &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{}
		}), want: []wantErr{invalid(pScheduling + ".schedulingPolicy")}},
		{name: "LWS policy basic and gang", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingPolicy = compositeGang(nil)
			s.SchedulingPolicy.Basic = &schedulingv1alpha3.WorkloadCompositePodGroupBasicSchedulingPolicy{}
		}), want: []wantErr{invalid(pScheduling + ".schedulingPolicy")}},
		{name: "LWS basic", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingPolicy = compositeBasic()
		})},
		{name: "LWS minGroupCount", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingPolicy = compositeGang(ptr.To[int32](1))
		}), want: []wantErr{forbidden(pScheduling + ".schedulingPolicy.gang.minGroupCount")}},
		{name: "LWS minGroupCount 0", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingPolicy = compositeGang(ptr.To[int32](0))
		}), want: []wantErr{invalid(pScheduling + ".schedulingPolicy.gang.minGroupCount")}},
		{name: "replica gang", base: scheduledLWS, mutate: replica(&lwsv1.LeaderWorkerSetReplicaScheduling{SchedulingPolicy: compositeGang(nil)})},
		{name: "replica minGroupCount", base: scheduledLWS, mutate: replica(&lwsv1.LeaderWorkerSetReplicaScheduling{SchedulingPolicy: compositeGang(ptr.To[int32](2))}),
			want: []wantErr{forbidden(pScheduling + ".replica.schedulingPolicy.gang.minGroupCount")}},
		{name: "replica policy empty", base: scheduledLWS, mutate: replica(&lwsv1.LeaderWorkerSetReplicaScheduling{
			SchedulingPolicy: &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{},
		}), want: []wantErr{invalid(pScheduling + ".replica.schedulingPolicy")}},
		{name: "leader gang minCount 1", base: scheduledLWS, mutate: leader(&lwsv1.LeaderWorkerSetLeaderScheduling{SchedulingPolicy: podGang(ptr.To[int32](1))})},
		{name: "leader gang without minCount", base: scheduledLWS, mutate: leader(&lwsv1.LeaderWorkerSetLeaderScheduling{SchedulingPolicy: podGang(nil)})},
		{name: "leader gang minCount 2", base: scheduledLWS, mutate: leader(&lwsv1.LeaderWorkerSetLeaderScheduling{SchedulingPolicy: podGang(ptr.To[int32](2))}),
			want: []wantErr{invalid(pScheduling + ".replica.leader.schedulingPolicy.gang.minCount")}},
		{name: "leader gang minCount 0", base: scheduledLWS, mutate: leader(&lwsv1.LeaderWorkerSetLeaderScheduling{SchedulingPolicy: podGang(ptr.To[int32](0))}),
			want: []wantErr{invalid(pScheduling + ".replica.leader.schedulingPolicy.gang.minCount")}},
		{name: "leader policy basic and gang", base: scheduledLWS, mutate: leader(&lwsv1.LeaderWorkerSetLeaderScheduling{
			SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
				Basic: &schedulingv1alpha3.WorkloadPodGroupBasicSchedulingPolicy{},
				Gang:  &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{},
			},
		}), want: []wantErr{invalid(pScheduling + ".replica.leader.schedulingPolicy")}},
		{name: "worker gang minCount size-1", base: scheduledLWS, mutate: worker(&lwsv1.LeaderWorkerSetWorkerScheduling{SchedulingPolicy: podGang(ptr.To[int32](3))})},
		{name: "worker gang minCount size", base: scheduledLWS, mutate: worker(&lwsv1.LeaderWorkerSetWorkerScheduling{SchedulingPolicy: podGang(ptr.To[int32](4))}),
			want: []wantErr{invalid(pScheduling + ".replica.worker.schedulingPolicy.gang.minCount")}},
		{name: "worker policy empty", base: scheduledLWS, mutate: worker(&lwsv1.LeaderWorkerSetWorkerScheduling{
			SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{},
		}), want: []wantErr{invalid(pScheduling + ".replica.worker.schedulingPolicy")}},
	})
}

func TestValidateSchedulingConstraintsAndDisruption(t *testing.T) {
	runValidateCases(t, []validateCase{
		{name: "LWS topology with one key", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingConstraints = compositeTopology("topology.kubernetes.io/zone")
		})},
		{name: "LWS topology with two keys", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingConstraints = compositeTopology("topology.kubernetes.io/zone", "kubernetes.io/hostname")
		}), want: []wantErr{tooMany(pScheduling + ".schedulingConstraints.topology")}},
		{name: "LWS topology key empty", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingConstraints = compositeTopology("")
		}), want: []wantErr{required(pScheduling + ".schedulingConstraints.topology[0].key")}},
		{name: "replica topology key not a label key", base: scheduledLWS, mutate: replica(&lwsv1.LeaderWorkerSetReplicaScheduling{
			SchedulingConstraints: compositeTopology("bad key!"),
		}), want: []wantErr{invalid(pScheduling + ".replica.schedulingConstraints.topology[0].key")}},
		{name: "worker topology", base: scheduledLWS, mutate: worker(&lwsv1.LeaderWorkerSetWorkerScheduling{
			SchedulingConstraints: podTopology("example.com/rack"),
		})},
		{name: "leader topology with two keys", base: scheduledLWS, mutate: leader(&lwsv1.LeaderWorkerSetLeaderScheduling{
			SchedulingConstraints: podTopology("a", "b"),
		}), want: []wantErr{tooMany(pScheduling + ".replica.leader.schedulingConstraints.topology")}},
		{name: "LWS disruption empty", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.DisruptionMode = compositeDisruption(false, false)
		}), want: []wantErr{invalid(pScheduling + ".disruptionMode")}},
		{name: "LWS disruption single and all", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingPolicy = compositeGang(nil)
			s.DisruptionMode = compositeDisruption(true, true)
		}), want: []wantErr{invalid(pScheduling + ".disruptionMode")}},
		{name: "LWS disruption all with default Basic", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.DisruptionMode = compositeDisruption(false, true)
		}), want: []wantErr{invalid(pScheduling + ".disruptionMode")}},
		{name: "LWS disruption all with gang", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingPolicy = compositeGang(nil)
			s.DisruptionMode = compositeDisruption(false, true)
		})},
		{name: "LWS disruption single with default Basic", base: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.DisruptionMode = compositeDisruption(true, false)
		})},
		{name: "replica disruption all with default gang", base: scheduledLWS, mutate: replica(&lwsv1.LeaderWorkerSetReplicaScheduling{
			DisruptionMode: compositeDisruption(false, true),
		})},
		{name: "replica disruption all with basic", base: scheduledLWS, mutate: replica(&lwsv1.LeaderWorkerSetReplicaScheduling{
			SchedulingPolicy: compositeBasic(),
			DisruptionMode:   compositeDisruption(false, true),
		}), want: []wantErr{invalid(pScheduling + ".replica.disruptionMode")}},
		{name: "leader disruption all with default Basic", base: scheduledLWS, mutate: leader(&lwsv1.LeaderWorkerSetLeaderScheduling{
			DisruptionMode: podDisruption(false, true),
		}), want: []wantErr{invalid(pScheduling + ".replica.leader.disruptionMode")}},
		{name: "worker disruption all with gang", base: scheduledLWS, mutate: worker(&lwsv1.LeaderWorkerSetWorkerScheduling{
			SchedulingPolicy: podGang(nil),
			DisruptionMode:   podDisruption(false, true),
		})},
		{name: "worker disruption empty", base: scheduledLWS, mutate: worker(&lwsv1.LeaderWorkerSetWorkerScheduling{
			DisruptionMode: podDisruption(false, false),
		}), want: []wantErr{invalid(pScheduling + ".replica.worker.disruptionMode")}},
	})
}

func podClaim(name string, claimName, templateName *string) corev1.PodResourceClaim {
	return corev1.PodResourceClaim{Name: name, ResourceClaimName: claimName, ResourceClaimTemplateName: templateName}
}

func groupClaim(name string, claimName, templateName *string) schedulingv1alpha3.WorkloadPodGroupResourceClaim {
	return schedulingv1alpha3.WorkloadPodGroupResourceClaim{Name: name, ResourceClaimName: claimName, ResourceClaimTemplateName: templateName}
}

func workerClaims(template []corev1.PodResourceClaim, claims ...schedulingv1alpha3.WorkloadPodGroupResourceClaim) func(*lwsv1.LeaderWorkerSet) {
	return func(o *lwsv1.LeaderWorkerSet) {
		o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.ResourceClaims = template
		worker(&lwsv1.LeaderWorkerSetWorkerScheduling{ResourceClaims: claims})(o)
	}
}

func TestValidateSchedulingResourceClaims(t *testing.T) {
	gpu := ptr.To("shared-gpu")
	wc := pScheduling + ".replica.worker.resourceClaims"
	fiveTemplate := []corev1.PodResourceClaim{}
	fiveClaims := []schedulingv1alpha3.WorkloadPodGroupResourceClaim{}
	for i := range 5 {
		name := fmt.Sprintf("c%d", i)
		fiveTemplate = append(fiveTemplate, podClaim(name, gpu, nil))
		fiveClaims = append(fiveClaims, groupClaim(name, gpu, nil))
	}
	runValidateCases(t, []validateCase{
		{name: "worker claim matching the worker template", base: scheduledLWS,
			mutate: workerClaims([]corev1.PodResourceClaim{podClaim("gpu", gpu, nil)}, groupClaim("gpu", gpu, nil))},
		{name: "four claims", base: scheduledLWS, mutate: workerClaims(fiveTemplate[:4], fiveClaims[:4]...)},
		{name: "five claims", base: scheduledLWS, mutate: workerClaims(fiveTemplate, fiveClaims...),
			want: []wantErr{tooMany(wc)}},
		{name: "worker claim without template reference", base: scheduledLWS,
			mutate: workerClaims(nil, groupClaim("gpu", gpu, nil)), want: []wantErr{invalid(wc + "[0]")}},
		{name: "worker claim referencing another source", base: scheduledLWS,
			mutate: workerClaims([]corev1.PodResourceClaim{podClaim("gpu", nil, ptr.To("gpu-template"))}, groupClaim("gpu", gpu, nil)),
			want:   []wantErr{invalid(wc + "[0]")}},
		{name: "claim name empty", base: scheduledLWS,
			mutate: workerClaims(nil, groupClaim("", gpu, nil)), want: []wantErr{required(wc + "[0].name")}},
		{name: "claim name not a DNS label", base: scheduledLWS,
			mutate: workerClaims([]corev1.PodResourceClaim{podClaim("GPU", gpu, nil)}, groupClaim("GPU", gpu, nil)),
			want:   []wantErr{invalid(wc + "[0].name")}},
		{name: "claim names duplicated", base: scheduledLWS,
			mutate: workerClaims([]corev1.PodResourceClaim{podClaim("gpu", gpu, nil)}, groupClaim("gpu", gpu, nil), groupClaim("gpu", gpu, nil)),
			want:   []wantErr{duplicate(wc + "[1]")}},
		{name: "claim without source", base: scheduledLWS,
			mutate: workerClaims([]corev1.PodResourceClaim{podClaim("gpu", nil, nil)}, groupClaim("gpu", nil, nil)),
			want:   []wantErr{invalid(wc + "[0]")}},
		{name: "claim with both sources", base: scheduledLWS,
			mutate: workerClaims([]corev1.PodResourceClaim{podClaim("gpu", gpu, gpu)}, groupClaim("gpu", gpu, gpu)),
			want:   []wantErr{invalid(wc + "[0]")}},
		{name: "claim template name 253 characters", base: scheduledLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			long := ptr.To(strings.Repeat("a", 253))
			workerClaims([]corev1.PodResourceClaim{podClaim("gpu", nil, long)}, groupClaim("gpu", nil, long))(o)
		}},
		{name: "claim template name not a DNS subdomain", base: scheduledLWS,
			mutate: workerClaims([]corev1.PodResourceClaim{podClaim("gpu", nil, ptr.To("Bad_Name"))}, groupClaim("gpu", nil, ptr.To("Bad_Name"))),
			want:   []wantErr{invalid(wc + "[0].resourceClaimTemplateName")}},
		{name: "leader claim needs the leader template", base: scheduledLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.ResourceClaims = []corev1.PodResourceClaim{podClaim("gpu", gpu, nil)}
			leader(&lwsv1.LeaderWorkerSetLeaderScheduling{ResourceClaims: []schedulingv1alpha3.WorkloadPodGroupResourceClaim{groupClaim("gpu", gpu, nil)}})(o)
		}, want: []wantErr{invalid(pScheduling + ".replica.leader.resourceClaims[0]")}},
		{name: "leader claim with the worker template as leader template", base: scheduledLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.LeaderTemplate = nil
			o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.ResourceClaims = []corev1.PodResourceClaim{podClaim("gpu", gpu, nil)}
			leader(&lwsv1.LeaderWorkerSetLeaderScheduling{ResourceClaims: []schedulingv1alpha3.WorkloadPodGroupResourceClaim{groupClaim("gpu", gpu, nil)}})(o)
		}},
	})
}

func TestValidateSchedulingCrossRules(t *testing.T) {
	runValidateCases(t, []validateCase{
		{name: "LeaderReady with default replica gang", base: scheduledLWS, mutate: leaderReady,
			want: []wantErr{forbidden(pScheduling)}},
		{name: "LeaderReady with replica basic", base: scheduledLWS,
			mutate: all(leaderReady, replica(&lwsv1.LeaderWorkerSetReplicaScheduling{SchedulingPolicy: compositeBasic()}))},
		{name: "LeaderReady with LWS gang", base: scheduledLWS,
			mutate: all(leaderReady, sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) { s.SchedulingPolicy = compositeGang(nil) })),
			want:   []wantErr{forbidden(pScheduling)}},
		{name: "LeaderReady with LWS topology only (Basic)", base: scheduledLWS,
			mutate: all(leaderReady, sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
				s.SchedulingConstraints = compositeTopology("a")
			}))},
		{name: "LeaderReady with worker-only gang", base: scheduledLWS,
			mutate: all(leaderReady, worker(&lwsv1.LeaderWorkerSetWorkerScheduling{SchedulingPolicy: podGang(nil)}))},
		{name: "exclusive topology with default replica gang", base: scheduledLWS, mutate: exclusive,
			want: []wantErr{forbidden(pScheduling)}},
		{name: "exclusive topology with replica basic", base: scheduledLWS,
			mutate: all(exclusive, replica(&lwsv1.LeaderWorkerSetReplicaScheduling{SchedulingPolicy: compositeBasic()}))},
		{name: "exclusive topology with replica basic and topology", base: scheduledLWS,
			mutate: all(exclusive, replica(&lwsv1.LeaderWorkerSetReplicaScheduling{SchedulingPolicy: compositeBasic(), SchedulingConstraints: compositeTopology("a")})),
			want:   []wantErr{forbidden(pScheduling)}},
		{name: "exclusive topology with basic roles", base: scheduledLWS,
			mutate: all(exclusive, leader(&lwsv1.LeaderWorkerSetLeaderScheduling{}))},
		{name: "exclusive topology with a worker gang", base: scheduledLWS,
			mutate: all(exclusive, worker(&lwsv1.LeaderWorkerSetWorkerScheduling{SchedulingPolicy: podGang(nil)})),
			want:   []wantErr{forbidden(pScheduling)}},
		{name: "exclusive topology annotation empty", base: scheduledLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: ""}
		}},
		{name: "equal priorityClassName", base: scheduledLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.PriorityClassName = "high"
			o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.PriorityClassName = "high"
		}},
		{name: "different priorityClassName", base: scheduledLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.PriorityClassName = "high"
		}, want: []wantErr{invalid(pScheduling)}},
		{name: "different priorityClassName without scheduling", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.PriorityClassName = "high"
		}},
		{name: "schedulingGroup in the worker template", base: scheduledLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("mine")}
		}, want: []wantErr{forbidden(pScheduling)}},
		{name: "schedulingGroup in the leader template", base: scheduledLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("mine")}
		}, want: []wantErr{forbidden(pScheduling)}},
		{name: "schedulingGroup without scheduling", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("mine")}
		}},
	})
}

func TestValidateUpdate(t *testing.T) {
	type updateCase struct {
		name   string
		old    func() *lwsv1.LeaderWorkerSet
		mutate func(*lwsv1.LeaderWorkerSet)
		want   []wantErr
	}
	withSubGroup := func() *lwsv1.LeaderWorkerSet {
		o := baseLWS()
		o.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{
			Type: ptr.To(lwsv1.SubGroupPolicyTypeLeaderWorker), SubGroupSize: ptr.To[int32](2),
		}
		return o
	}
	cases := []updateCase{
		{name: "unchanged", old: baseLWS},
		{name: "replicas, size and templates are mutable", old: baseLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.Replicas = ptr.To[int32](7)
			o.Spec.LeaderWorkerTemplate.Size = ptr.To[int32](8)
			o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v2"
			o.Spec.StartupPolicy = lwsv1.LeaderReadyStartupPolicy
			o.Spec.NetworkConfig.SubdomainPolicy = ptr.To(lwsv1.SubdomainUniquePerReplica)
		}},
		{name: "groupReplacementPolicy and maxGroupRestarts are mutable", old: baseLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.GroupReplacementPolicy = lwsv1.GroupReplacementImmediate
			o.Spec.LeaderWorkerTemplate.MaxGroupRestarts = ptr.To[int32](3)
		}},
		{name: "name changed", old: baseLWS, mutate: func(o *lwsv1.LeaderWorkerSet) { o.Name = "other" },
			want: []wantErr{invalid("metadata.name")}},
		{name: "namespace changed", old: baseLWS, mutate: func(o *lwsv1.LeaderWorkerSet) { o.Namespace = "other" },
			want: []wantErr{invalid("metadata.namespace")}},
		{name: "subGroupPolicy added", old: baseLWS, mutate: setSubGroup(4, nil, ptr.To[int32](2)),
			want: []wantErr{invalid(pSubGroupSize)}},
		{name: "subGroupPolicy removed", old: withSubGroup, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.SubGroupPolicy = nil
		}, want: []wantErr{invalid(pSubGroupSize)}},
		{name: "subGroupSize changed", old: withSubGroup, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.SubGroupPolicy.SubGroupSize = ptr.To[int32](4)
		}, want: []wantErr{invalid(pSubGroupSize)}},
		{name: "subGroupPolicyType changed", old: withSubGroup, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.SubGroupPolicy.Type = ptr.To(lwsv1.SubGroupPolicyTypeLeaderExcluded)
		}},
		{name: "legacy subGroupSize set once", old: func() *lwsv1.LeaderWorkerSet {
			o := withSubGroup()
			o.Spec.LeaderWorkerTemplate.SubGroupPolicy.SubGroupSize = nil
			return o
		}},
		{name: "groupIdentity empty to Ordinal", old: func() *lwsv1.LeaderWorkerSet {
			o := baseLWS()
			o.Spec.GroupIdentity = ""
			return o
		}},
		{name: "groupIdentity Ordinal to Hash", old: baseLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.GroupIdentity = lwsv1.GroupIdentityHash
		}, want: []wantErr{invalid(pGroupIdentity)}},
		{name: "scheduling added", old: baseLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{}
		}, want: []wantErr{forbidden(pScheduling)}},
		{name: "scheduling removed", old: scheduledLWS, mutate: func(o *lwsv1.LeaderWorkerSet) { o.Spec.Scheduling = nil },
			want: []wantErr{forbidden(pScheduling)}},
		{name: "scheduling level switched", old: scheduledLWS, mutate: sched(func(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) {
			s.SchedulingPolicy = compositeGang(nil)
		}), want: []wantErr{forbidden(pScheduling)}},
		{name: "scheduling policy changed", old: scheduledLWS, mutate: replica(&lwsv1.LeaderWorkerSetReplicaScheduling{SchedulingPolicy: compositeBasic()}),
			want: []wantErr{forbidden(pScheduling)}},
		{name: "empty scheduling to empty replica", old: scheduledLWS, mutate: replica(&lwsv1.LeaderWorkerSetReplicaScheduling{})},
		{name: "scheduling unchanged with replicas changed", old: scheduledLWS, mutate: setReplicas(9)},
		{name: "priorityClassName changed with scheduling", old: scheduledLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.PriorityClassName = "high"
			o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.PriorityClassName = "high"
		}, want: []wantErr{forbidden("spec.leaderWorkerTemplate")}},
		{name: "priorityClassName changed without scheduling", old: baseLWS, mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.PriorityClassName = "high"
			o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.PriorityClassName = "high"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			oldObj := tc.old()
			newObj := oldObj.DeepCopy()
			if tc.mutate != nil {
				tc.mutate(newObj)
			}
			assertErrors(t, ValidateUpdate(newObj, oldObj), tc.want...)
		})
	}
}

// withClaim gives the object one volume claim template (100Gi), changed by fn.
func withClaim(fn func(*corev1.PersistentVolumeClaim)) func(*lwsv1.LeaderWorkerSet) {
	return func(o *lwsv1.LeaderWorkerSet) {
		c := corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "model-cache"},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Gi")}}},
		}
		if fn != nil {
			fn(&c)
		}
		o.Spec.LeaderWorkerTemplate.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{c}
	}
}

const pVCTs = "spec.leaderWorkerTemplate.volumeClaimTemplates"

func TestRequiresReplacement(t *testing.T) {
	withSubGroup := func(o *lwsv1.LeaderWorkerSet) {
		o.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](2)}
	}
	cases := []struct {
		name      string
		old       func(*lwsv1.LeaderWorkerSet)
		new       func(*lwsv1.LeaderWorkerSet)
		wantPaths []string
	}{
		{name: "unchanged"},
		{name: "mutable fields only", new: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.Replicas = ptr.To[int32](5)
			o.Spec.GroupReplacementPolicy = lwsv1.GroupReplacementImmediate
			o.Spec.LeaderWorkerTemplate.MaxGroupRestarts = ptr.To[int32](1)
		}},
		{name: "groupIdentity empty vs Ordinal", old: func(o *lwsv1.LeaderWorkerSet) { o.Spec.GroupIdentity = "" }},
		{name: "groupIdentity changed", new: func(o *lwsv1.LeaderWorkerSet) { o.Spec.GroupIdentity = lwsv1.GroupIdentityHash },
			wantPaths: []string{pGroupIdentity}},
		{name: "scheduling added", new: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{}
		}, wantPaths: []string{pScheduling}},
		{name: "scheduling removed", old: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{}
		}, wantPaths: []string{pScheduling}},
		{name: "scheduling changed", old: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{}
		}, new: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{Replica: &lwsv1.LeaderWorkerSetReplicaScheduling{
				DisruptionMode: compositeDisruption(true, false),
			}}
		}, wantPaths: []string{pScheduling}},
		{name: "scheduling {} vs replica {}", old: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{}
		}, new: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{Replica: &lwsv1.LeaderWorkerSetReplicaScheduling{}}
		}},
		{name: "subGroupPolicy added", new: withSubGroup, wantPaths: []string{"spec.leaderWorkerTemplate.subGroupPolicy"}},
		{name: "subGroupPolicy removed", old: withSubGroup, wantPaths: []string{"spec.leaderWorkerTemplate.subGroupPolicy"}},
		{name: "subGroupSize changed", old: withSubGroup, new: func(o *lwsv1.LeaderWorkerSet) {
			withSubGroup(o)
			o.Spec.LeaderWorkerTemplate.SubGroupPolicy.SubGroupSize = ptr.To[int32](4)
		}, wantPaths: []string{pSubGroupSize}},
		{name: "subGroupPolicyType changed", old: withSubGroup, new: func(o *lwsv1.LeaderWorkerSet) {
			withSubGroup(o)
			o.Spec.LeaderWorkerTemplate.SubGroupPolicy.Type = ptr.To(lwsv1.SubGroupPolicyTypeLeaderExcluded)
		}},
		{name: "claim template added", new: withClaim(nil), wantPaths: []string{pVCTs}},
		{name: "claim template removed", old: withClaim(nil), wantPaths: []string{pVCTs}},
		{name: "claim template storage request changed", old: withClaim(nil), new: withClaim(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("200Gi")
		}), wantPaths: []string{pVCTs}},
		{name: "claim template storage class set", old: withClaim(nil), new: withClaim(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.StorageClassName = ptr.To("fast")
		}), wantPaths: []string{pVCTs}},
		{name: "claim template volume mode Filesystem written out", old: withClaim(nil), new: withClaim(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
		})},
		{name: "claim template request respelled", old: withClaim(nil), new: withClaim(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("102400Mi")
		})},
		{name: "claim template fields the controller does not copy", old: withClaim(nil), new: withClaim(func(c *corev1.PersistentVolumeClaim) {
			c.Labels = map[string]string{"team": "inference"}
			c.Spec.DataSource = &corev1.TypedLocalObjectReference{APIGroup: ptr.To(""), Kind: "PersistentVolumeClaim", Name: "seed"}
		})},
		{name: "several at once", new: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.GroupIdentity = lwsv1.GroupIdentityHash
			o.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{}
			withSubGroup(o)
		}, wantPaths: []string{pGroupIdentity, pScheduling, "spec.leaderWorkerTemplate.subGroupPolicy"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			oldObj, newObj := baseLWS(), baseLWS()
			if tc.old != nil {
				tc.old(oldObj)
			}
			if tc.new != nil {
				tc.new(newObj)
			}
			var got []string
			for _, p := range RequiresReplacement(newObj, oldObj) {
				got = append(got, p.String())
			}
			if !slices.Equal(got, tc.wantPaths) {
				t.Errorf("RequiresReplacement() = %v, want %v", got, tc.wantPaths)
			}
		})
	}
}

// An immutable field whose planned value is not known yet may change once it is: it plans a
// replacement. A subGroupSize the old object lacks may still be set once in place.
func TestUnknownRequiresReplacement(t *testing.T) {
	withSize := baseLWS()
	withSize.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](2)}
	withoutSize := baseLWS()
	withoutSize.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{}
	for _, c := range []struct {
		old     *lwsv1.LeaderWorkerSet
		unknown []string
		want    []string
	}{
		{baseLWS(), []string{"spec.replicas", "spec.leaderWorkerTemplate.workerTemplate"}, nil},
		{baseLWS(), []string{"spec.groupIdentity"}, []string{pGroupIdentity}},
		{baseLWS(), []string{"spec"}, []string{pGroupIdentity, pScheduling, pVCTs, "spec.leaderWorkerTemplate.subGroupPolicy"}},
		{baseLWS(), []string{pVCTs + "[0].spec.storageClassName"}, []string{pVCTs}},
		{baseLWS(), []string{"spec.scheduling.replica.schedulingPolicy"}, []string{pScheduling}},
		{baseLWS(), []string{"spec.leaderWorkerTemplate.subGroupPolicy"}, []string{"spec.leaderWorkerTemplate.subGroupPolicy"}},
		{withSize, []string{pSubGroupSize}, []string{pSubGroupSize}},
		{withoutSize, []string{pSubGroupSize}, nil},
	} {
		var unknown []*field.Path
		for _, u := range c.unknown {
			p := field.NewPath(strings.Split(u, ".")[0])
			for _, step := range strings.Split(u, ".")[1:] {
				p = p.Child(step)
			}
			unknown = append(unknown, p)
		}
		var got []string
		for _, p := range UnknownRequiresReplacement(c.old, unknown) {
			got = append(got, p.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("unknown %v: got %v, want %v", c.unknown, got, c.want)
		}
	}
}

// vllmLWS is a realistic multi-node vLLM deployment: 4 replicas of 8 pods,
// GPU requests, a shared leader/worker claim and role-level gang scheduling.
func vllmLWS() *lwsv1.LeaderWorkerSet {
	container := func(name string, args ...string) corev1.Container {
		return corev1.Container{
			Name:    name,
			Image:   "vllm/vllm-openai:v0.9.0",
			Command: []string{"sh", "-c"},
			Args:    args,
			Env: []corev1.EnvVar{
				{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "hf"}, Key: "token",
				}}},
				{Name: "NCCL_DEBUG", Value: "INFO"},
			},
			Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("1Ti")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("96")},
			},
			VolumeMounts: []corev1.VolumeMount{{Name: "dshm", MountPath: "/dev/shm"}},
		}
	}
	template := func(c corev1.Container) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "vllm"}},
			Spec: corev1.PodSpec{
				PriorityClassName: "inference-high",
				Containers:        []corev1.Container{c},
				Volumes: []corev1.Volume{{Name: "dshm", VolumeSource: corev1.VolumeSource{
					EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory},
				}}},
				ResourceClaims: []corev1.PodResourceClaim{podClaim("fabric", nil, ptr.To("imex-channel"))},
			},
		}
	}
	leaderTemplate := template(container("vllm-leader", "ray start --head && vllm serve meta-llama/Llama-3.1-405B --tensor-parallel-size 8 --pipeline-parallel-size 8"))
	obj := &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: "vllm", Namespace: "inference", Labels: map[string]string{"app": "vllm"}},
		Spec: lwsv1.LeaderWorkerSetSpec{
			Replicas: ptr.To[int32](4),
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				LeaderTemplate:   &leaderTemplate,
				WorkerTemplate:   template(container("vllm-worker", "ray start --address=$LWS_LEADER_ADDRESS:6379 --block")),
				Size:             ptr.To[int32](8),
				MaxGroupRestarts: ptr.To[int32](5),
				SubGroupPolicy:   &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](4)},
			},
			RolloutStrategy: lwsv1.RolloutStrategy{RollingUpdateConfiguration: &lwsv1.RollingUpdateConfiguration{
				MaxUnavailable: intstr.FromString("25%"), MaxSurge: intstr.FromInt32(1),
			}},
			Scheduling: &lwsv1.LeaderWorkerSetSchedulingConfiguration{Replica: &lwsv1.LeaderWorkerSetReplicaScheduling{
				Leader: &lwsv1.LeaderWorkerSetLeaderScheduling{
					ResourceClaims: []schedulingv1alpha3.WorkloadPodGroupResourceClaim{groupClaim("fabric", nil, ptr.To("imex-channel"))},
				},
				Worker: &lwsv1.LeaderWorkerSetWorkerScheduling{
					SchedulingPolicy:      podGang(ptr.To[int32](7)),
					SchedulingConstraints: podTopology("topology.kubernetes.io/rack"),
					DisruptionMode:        podDisruption(false, true),
					ResourceClaims:        []schedulingv1alpha3.WorkloadPodGroupResourceClaim{groupClaim("fabric", nil, ptr.To("imex-channel"))},
				},
			}},
		},
	}
	SetDefaults(obj)
	return obj
}

func TestValidateVLLM(t *testing.T) {
	assertErrors(t, Validate(vllmLWS()))
}

func BenchmarkValidate(b *testing.B) {
	obj := vllmLWS()
	b.ReportAllocs()
	for b.Loop() {
		if errs := Validate(obj); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}
