package rules

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// SetDefaults applies the defaults the DisaggregatedSet CRD of sigs.k8s.io/lws@v0.9.0 declares
// (config/crd/bases/disaggregatedset.x-k8s.io_disaggregatedsets.yaml, from the
// +kubebuilder:default markers of api/leaderworkerset/v1 embedded in each role), so the plan
// shows the role specs as the server stores them. There is no DisaggregatedSet mutating
// webhook, and the LeaderWorkerSet webhook's defaults (networkConfig, a rolloutStrategy when
// none is written) land on the LeaderWorkerSets the controller creates, not on the
// DisaggregatedSet: they are not applied here.
//
// Structural defaults only apply inside an object that is present: rolloutStrategy.type when
// rolloutStrategy is written, the rollingUpdateConfiguration fields when it is written.
// raw is the configuration the object was decoded from (null for an object read from the
// server, which the server has defaulted already): maxUnavailable and maxSurge are
// intstr.IntOrString values whose zero cannot be told from an explicit 0, and an empty
// rolloutStrategy decodes as the zero struct.
//
// The v0.10.0 CRD adds the defaults of its new fields (api/disaggregatedset/v1/disaggregatedset_types.go
// at v0.10.0: Slices +kubebuilder:default=1, PlacementPolicy.Type +kubebuilder:default=None,
// RoleScaling.Mode +kubebuilder:default=Static); they are planned the same way, and on a v0.9.0
// server, which has none of these fields, the objects read back get them too (kube.Kind.FromServer),
// which is how the v0.9.0 controller behaves.
func SetDefaults(ds *disaggv1.DisaggregatedSet, raw tftypes.Value) {
	if ds.Namespace == "" {
		ds.Namespace = "default"
	}
	if ds.Spec.Slices == nil {
		ds.Spec.Slices = ptr.To[int32](1)
	}
	if pp := ds.Spec.PlacementPolicy; pp != nil && pp.Type == "" {
		pp.Type = disaggv1.PlacementNone
	}
	defaultReplicas(ds, raw)
	for i := range ds.Spec.Roles {
		if sc := ds.Spec.Roles[i].Scaling; sc != nil && sc.Mode == "" {
			sc.Mode = disaggv1.RoleScalingStatic
		}
		spec := &ds.Spec.Roles[i].Spec
		written := func(field string) (present, null bool) {
			v, ok := k8sschema.ValueAt(node(), raw, fmt.Sprintf("spec.roles[%d].spec.%s", i, field))
			return ok && !v.IsNull(), ok && v.IsNull()
		}
		if spec.StartupPolicy == "" {
			spec.StartupPolicy = releasedlws.LeaderCreatedStartupPolicy
		}
		lwt := &spec.LeaderWorkerTemplate
		if lwt.Size == nil {
			lwt.Size = ptr.To[int32](1)
		}
		if lwt.RestartPolicy == "" {
			lwt.RestartPolicy = releasedlws.RecreateGroupOnPodRestart
		}
		if lwt.SubGroupPolicy != nil && lwt.SubGroupPolicy.Type == nil {
			lwt.SubGroupPolicy.Type = ptr.To(releasedlws.SubGroupPolicyTypeLeaderWorker)
		}
		rs := &spec.RolloutStrategy
		if present, _ := written("rolloutStrategy"); present || rs.RollingUpdateConfiguration != nil {
			if rs.Type == "" {
				rs.Type = releasedlws.RollingUpdateStrategyType
			}
		}
		if ru := rs.RollingUpdateConfiguration; ru != nil {
			if ru.Partition == nil {
				ru.Partition = ptr.To[int32](0)
			}
			if _, unset := written("rolloutStrategy.rollingUpdateConfiguration.maxUnavailable"); unset {
				ru.MaxUnavailable = intstr.FromInt32(1)
			}
			if _, unset := written("rolloutStrategy.rollingUpdateConfiguration.maxSurge"); unset {
				ru.MaxSurge = intstr.FromInt32(0)
			}
		}
	}
}

// defaultReplicas applies the CRD default of replicas (1). A replica count not known yet at
// plan time (decoded as unset) is taken to agree with the known ones for the CRD's
// all-zero-or-none rule, which cannot be decided before it is known; the rule runs again at
// apply with the value. External roles (v0.10.0) are outside that rule: an unknown count of theirs
// plans the CRD default.
func defaultReplicas(ds *disaggv1.DisaggregatedSet, raw tftypes.Value) {
	var unknown []int
	allZero, anyKnown := true, false
	for i := range ds.Spec.Roles {
		spec := &ds.Spec.Roles[i].Spec
		external := External(&ds.Spec.Roles[i])
		if v, _ := k8sschema.ValueAt(node(), raw, fmt.Sprintf("spec.roles[%d].spec.replicas", i)); !v.IsKnown() && !external {
			unknown = append(unknown, i)
			continue
		}
		if spec.Replicas == nil {
			spec.Replicas = ptr.To[int32](1)
		}
		if external {
			continue
		}
		anyKnown = true
		allZero = allZero && *spec.Replicas == 0
	}
	for _, i := range unknown {
		n := int32(1)
		if anyKnown && allZero {
			n = 0
		}
		ds.Spec.Roles[i].Spec.Replicas = ptr.To(n)
	}
}
