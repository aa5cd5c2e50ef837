package rules

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

func TestSetDefaultsEmpty(t *testing.T) {
	obj := &lwsv1.LeaderWorkerSet{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	SetDefaults(obj)
	want := lwsv1.LeaderWorkerSetSpec{
		Replicas:      ptr.To[int32](1),
		StartupPolicy: lwsv1.LeaderCreatedStartupPolicy,
		LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
			Size:          ptr.To[int32](1),
			RestartPolicy: lwsv1.RecreateGroupOnPodRestart,
		},
		RolloutStrategy: lwsv1.RolloutStrategy{
			Type: lwsv1.RollingUpdateStrategyType,
			RollingUpdateConfiguration: &lwsv1.RollingUpdateConfiguration{
				Partition:      ptr.To[int32](0),
				MaxUnavailable: intstr.FromInt32(1),
				MaxSurge:       intstr.FromInt32(0),
			},
		},
		NetworkConfig: &lwsv1.NetworkConfig{SubdomainPolicy: ptr.To(lwsv1.SubdomainShared)},
		// groupIdentity and groupReplacementPolicy stay unset: null means the server's default.
	}
	if !equality.Semantic.DeepEqual(obj.Spec, want) {
		t.Fatalf("defaults differ:\n got: %#v\nwant: %#v", obj.Spec, want)
	}
	if obj.Spec.Scheduling != nil || obj.Spec.LeaderWorkerTemplate.SubGroupPolicy != nil ||
		obj.Spec.LeaderWorkerTemplate.MaxGroupRestarts != nil || obj.Spec.LeaderWorkerTemplate.LeaderTemplate != nil {
		t.Fatal("SetDefaults created optional objects it must leave alone")
	}
}

func TestSetDefaultsCases(t *testing.T) {
	cases := []struct {
		name   string
		in     func(*lwsv1.LeaderWorkerSet)
		check  func(*lwsv1.LeaderWorkerSet) bool
		expect string
	}{
		{
			name: "Default restart policy becomes None",
			in: func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.DeprecatedDefaultRestartPolicy
			},
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				return o.Spec.LeaderWorkerTemplate.RestartPolicy == lwsv1.NoneRestartPolicy
			},
			expect: "restartPolicy None",
		},
		{
			name: "explicit restart policy kept",
			in: func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.RecreateGroupAfterStart
			},
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				return o.Spec.LeaderWorkerTemplate.RestartPolicy == lwsv1.RecreateGroupAfterStart
			},
			expect: "restartPolicy RecreateGroupAfterStart",
		},
		{
			name: "explicit zero replicas kept",
			in:   func(o *lwsv1.LeaderWorkerSet) { o.Spec.Replicas = ptr.To[int32](0) },
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				return *o.Spec.Replicas == 0
			},
			expect: "replicas 0",
		},
		{
			name: "partial rollingUpdateConfiguration gets a partition only",
			in: func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.RolloutStrategy.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{
					MaxUnavailable: intstr.FromString("25%"), MaxSurge: intstr.FromInt32(2),
				}
			},
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				c := o.Spec.RolloutStrategy.RollingUpdateConfiguration
				return *c.Partition == 0 && c.MaxUnavailable == intstr.FromString("25%") && c.MaxSurge == intstr.FromInt32(2)
			},
			expect: "partition 0, maxUnavailable 25%, maxSurge 2",
		},
		{
			name: "explicit partition kept",
			in: func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.RolloutStrategy.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{Partition: ptr.To[int32](3)}
			},
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				return *o.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition == 3
			},
			expect: "partition 3",
		},
		{
			name: "empty networkConfig gets Shared",
			in:   func(o *lwsv1.LeaderWorkerSet) { o.Spec.NetworkConfig = &lwsv1.NetworkConfig{} },
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				return *o.Spec.NetworkConfig.SubdomainPolicy == lwsv1.SubdomainShared
			},
			expect: "subdomainPolicy Shared",
		},
		{
			name: "explicit subdomainPolicy kept",
			in: func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.NetworkConfig = &lwsv1.NetworkConfig{SubdomainPolicy: ptr.To(lwsv1.SubdomainUniquePerReplica)}
			},
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				return *o.Spec.NetworkConfig.SubdomainPolicy == lwsv1.SubdomainUniquePerReplica
			},
			expect: "subdomainPolicy UniquePerReplica",
		},
		{
			name: "subGroupPolicy gets LeaderWorker",
			in: func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](2)}
			},
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				p := o.Spec.LeaderWorkerTemplate.SubGroupPolicy
				return *p.Type == lwsv1.SubGroupPolicyTypeLeaderWorker && *p.SubGroupSize == 2
			},
			expect: "subGroupPolicyType LeaderWorker",
		},
		{
			name: "explicit subGroupPolicyType kept",
			in: func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{Type: ptr.To(lwsv1.SubGroupPolicyTypeLeaderExcluded)}
			},
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				return *o.Spec.LeaderWorkerTemplate.SubGroupPolicy.Type == lwsv1.SubGroupPolicyTypeLeaderExcluded
			},
			expect: "subGroupPolicyType LeaderExcluded",
		},
		{
			name: "Hash and Immediate kept",
			in: func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.GroupIdentity = lwsv1.GroupIdentityHash
				o.Spec.GroupReplacementPolicy = lwsv1.GroupReplacementImmediate
			},
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				return o.Spec.GroupIdentity == lwsv1.GroupIdentityHash && o.Spec.GroupReplacementPolicy == lwsv1.GroupReplacementImmediate
			},
			expect: "groupIdentity Hash, groupReplacementPolicy Immediate",
		},
		{
			name: "scheduling is not defaulted",
			in: func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.Scheduling = &lwsv1.LeaderWorkerSetSchedulingConfiguration{}
			},
			check: func(o *lwsv1.LeaderWorkerSet) bool {
				return equality.Semantic.DeepEqual(o.Spec.Scheduling, &lwsv1.LeaderWorkerSetSchedulingConfiguration{})
			},
			expect: "scheduling {}",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := &lwsv1.LeaderWorkerSet{}
			tc.in(obj)
			SetDefaults(obj)
			if !tc.check(obj) {
				t.Fatalf("expected %s, got %#v", tc.expect, obj.Spec)
			}
		})
	}
}

func TestSetDefaultsIdempotent(t *testing.T) {
	for name, obj := range map[string]*lwsv1.LeaderWorkerSet{
		"empty":           {},
		"vLLM":            vllmLWS(),
		"Default restart": {Spec: lwsv1.LeaderWorkerSetSpec{LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{RestartPolicy: lwsv1.DeprecatedDefaultRestartPolicy}}},
	} {
		t.Run(name, func(t *testing.T) {
			SetDefaults(obj)
			once := obj.DeepCopy()
			SetDefaults(obj)
			if !equality.Semantic.DeepEqual(once, obj) {
				t.Fatalf("second SetDefaults changed the object:\n%#v\n%#v", once.Spec, obj.Spec)
			}
		})
	}
}

// A minimal object (name, namespace, worker template) is valid once defaulted.
func TestSetDefaultsThenValidate(t *testing.T) {
	obj := &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: "minimal", Namespace: "default"},
		Spec: lwsv1.LeaderWorkerSetSpec{LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
			WorkerTemplate: podTemplate("worker"),
		}},
	}
	if errs := Validate(obj); len(errs) == 0 {
		t.Fatal("an undefaulted object with an empty startupPolicy should not validate")
	}
	SetDefaults(obj)
	assertErrors(t, Validate(obj))
}
