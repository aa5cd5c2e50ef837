package rules

import (
	"fmt"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
)

func External(role *disaggv1.DisaggregatedRoleSpec) bool {
	return role.Scaling != nil && role.Scaling.Mode == disaggv1.RoleScalingExternal
}

func ScalerName(set, role string) string { return set + "-" + role }

// externalReplicasError explains why an External role's replicas may not be written.
func externalReplicasError(set, role string) string {
	return fmt.Sprintf("role %q has scaling.mode = \"External\": its replicas are set through the "+
		"DisaggregatedSetRoleScaler %q (by an autoscaler such as a HorizontalPodAutoscaler or KEDA), the controller "+
		"ignores the role's own replicas, and the provider does not send them; remove replicas from this role "+
		"(the state records the groups that run)",
		role, ScalerName(set, role))
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
