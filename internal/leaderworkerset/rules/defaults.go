package rules

import (
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// SetDefaults applies the LeaderWorkerSet-level defaults of the CRD schema and
// the LWS mutating webhook (sigs.k8s.io/lws@v0.9.0
// pkg/webhooks/leaderworkerset_webhook.go, LeaderWorkerSetWebhook.Default, and
// the +kubebuilder:default markers of api/leaderworkerset/v1), so that the object looks
// as the server will store it. It is idempotent. Pod template defaults and
// spec.scheduling (whose defaults the controller computes without writing
// them back) are left alone.
//
// One limit: a zero intstr.IntOrString cannot be told apart from an explicit
// 0, and it is always encoded (omitempty has no effect on a struct), so the
// CRD defaults maxUnavailable=1/maxSurge=0 apply only when the whole
// rollingUpdateConfiguration is absent. Callers that build a partial
// rollingUpdateConfiguration must fill maxUnavailable themselves.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/webhooks/leaderworkerset_webhook.go LeaderWorkerSetWebhook.Default, merged with
// the +kubebuilder:default markers of sigs.k8s.io/lws@v0.9.0 api/leaderworkerset/v1/leaderworkerset_types.go.
func SetDefaults(obj *lwsv1.LeaderWorkerSet) {
	spec := &obj.Spec
	if spec.Replicas == nil {
		spec.Replicas = ptr.To[int32](1)
	}
	if spec.StartupPolicy == "" {
		spec.StartupPolicy = lwsv1.LeaderCreatedStartupPolicy
	}

	lwt := &spec.LeaderWorkerTemplate
	if lwt.Size == nil {
		lwt.Size = ptr.To[int32](1)
	}
	switch lwt.RestartPolicy {
	case "":
		lwt.RestartPolicy = lwsv1.RecreateGroupOnPodRestart
	case lwsv1.DeprecatedDefaultRestartPolicy:
		lwt.RestartPolicy = lwsv1.NoneRestartPolicy
	}
	if lwt.SubGroupPolicy != nil && lwt.SubGroupPolicy.Type == nil {
		lwt.SubGroupPolicy.Type = ptr.To(lwsv1.SubGroupPolicyTypeLeaderWorker)
	}

	rs := &spec.RolloutStrategy
	if rs.Type == "" {
		rs.Type = lwsv1.RollingUpdateStrategyType
	}
	if rs.Type == lwsv1.RollingUpdateStrategyType && rs.RollingUpdateConfiguration == nil {
		rs.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{
			MaxUnavailable: intstr.FromInt32(1),
			MaxSurge:       intstr.FromInt32(0),
		}
	}
	if cfg := rs.RollingUpdateConfiguration; cfg != nil && cfg.Partition == nil {
		cfg.Partition = ptr.To[int32](0)
	}

	if spec.NetworkConfig == nil {
		spec.NetworkConfig = &lwsv1.NetworkConfig{}
	}
	if spec.NetworkConfig.SubdomainPolicy == nil {
		spec.NetworkConfig.SubdomainPolicy = ptr.To(lwsv1.SubdomainShared)
	}

	// groupIdentity and groupReplacementPolicy (NewerFields) are not defaulted here: no released
	// CRD has them, so left out they are planned and stored as null, which means the server's
	// default (Ordinal, PostTermination), and a configuration generated from an object never sets
	// them. The rules read "" as that default (normalizeGroupIdentity).
}

// ClearServerDefaults clears, in an object read from the server, the newer fields that a CRD
// declaring them defaults (groupIdentity Ordinal, from its +kubebuilder:default) where prior (the
// state, or the configuration) leaves them null: null means that default.
func ClearServerDefaults(obj runtime.Object, prior tftypes.Value) {
	lws := kindrules.As[*lwsv1.LeaderWorkerSet](obj)
	unset := func(p string) bool {
		v, ok := k8sschema.ValueAt(node(), prior, p)
		return !ok || v.IsNull()
	}
	if lws.Spec.GroupIdentity == lwsv1.GroupIdentityOrdinal && unset("spec.groupIdentity") {
		lws.Spec.GroupIdentity = ""
	}
	if lws.Spec.GroupReplacementPolicy == lwsv1.GroupReplacementPostTermination && unset("spec.groupReplacementPolicy") {
		lws.Spec.GroupReplacementPolicy = ""
	}
}
