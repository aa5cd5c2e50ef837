package rules

import (
	"fmt"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
)

func External(role *disaggv1.DisaggregatedRoleSpec) bool {
	return role.Scaling != nil && role.Scaling.Mode == disaggv1.RoleScalingExternal
}

func ScalerName(set, role string) string { return set + "-" + role }

// externalReplicasError explains why an External role's replicas may not be written, and why
// the provider is stricter than the webhook. replicas is the written value, nil when not known
// yet.
//
// The v0.10.0 webhook accepts any value and warns only above 1, with the warning ported here
// (DisaggregatedSetWebhook.validate, pkg/webhooks/disaggregatedset/disaggregatedset_webhook.go,
// lws 2161f38). The provider cannot accept it: Terraform requires a configured value to be the
// planned value and the value stored after the apply and every refresh, while this attribute of
// an External role records the groups that run, which the autoscaler changes. Accepted, a
// written value would either stand in the state for a count the controller ignores (the
// footprint, the rollout warning and a switch back to Static would count it) or differ from
// what the refresh reads and show as drift every time.
func externalReplicasError(set, role string, replicas *int64) string {
	webhook := "accepts it without a warning at 0 or 1 and warns above 1"
	if replicas != nil && *replicas > 1 {
		webhook = fmt.Sprintf("accepts it with the warning %q",
			fmt.Sprintf("role %q sets scaling.mode: External and spec.replicas: %d — spec.replicas is ignored; drive replicas via DisaggregatedSetRoleScaler %q instead",
				role, *replicas, ScalerName(set, role)))
	} else if replicas != nil {
		webhook = fmt.Sprintf("accepts %d without a warning (it warns above 1)", *replicas)
	}
	return fmt.Sprintf("role %q has scaling.mode = \"External\": its replicas are set through the "+
		"DisaggregatedSetRoleScaler %q (by an autoscaler such as a HorizontalPodAutoscaler or KEDA), the controller "+
		"ignores the role's own replicas, and the provider does not send them; remove replicas from this role "+
		"(the state records the groups that run). The LeaderWorkerSet v0.10.0 webhook %s; the provider is stricter because "+
		"Terraform requires a written value to be the planned and the stored value, and here the state records the groups "+
		"that run, which the autoscaler changes: a written value would stand for a count the controller ignores, or show as "+
		"drift at every refresh",
		role, ScalerName(set, role), webhook)
}

// slicesAdded names the slices a change of slices adds ("slice 2", "slices 1-3"), "" for none.
func slicesAdded(newObj, oldObj *disaggv1.DisaggregatedSet) string {
	from, to := SlicesOf(oldObj), SlicesOf(newObj)
	switch {
	case to <= from:
		return ""
	case to == from+1:
		return fmt.Sprintf("slice %d", from)
	}
	return fmt.Sprintf("slices %d-%d", from, to-1)
}
