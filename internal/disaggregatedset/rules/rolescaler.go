package rules

import (
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

const roleScalerDescription = "A DisaggregatedSetRoleScaler (`disaggregatedset.x-k8s.io/v1`, LeaderWorkerSet v0.10.0 and later): " +
	"the scale target of one role of a `kubeinfer_disaggregatedset` whose `scaling.mode` is `External`. The " +
	"DisaggregatedSet controller creates it, named `<set>-<role>`, and scales the role's LeaderWorkerSets to its " +
	"`spec.replicas`; an autoscaler (a HorizontalPodAutoscaler's `scale_target_ref`, a KEDA ScaledObject's " +
	"`scaleTargetRef`: API version `disaggregatedset.x-k8s.io/v1`, kind `DisaggregatedSetRoleScaler`) drives it " +
	"through its scale subresource, whose selector (`status.selector`) picks one leader pod per group.\n\n" +
	"The object belongs to the controller: this data source only reads it, to wire an autoscaler to its name and " +
	"selector. It exists once the controller has reconciled the External role."

// RoleScalerKind is the DisaggregatedSetRoleScaler, served as a data source only (the controller
// owns the object). Types: api/disaggregatedset/v1/disaggregatedsetrolescaler_types.go at v0.10.0,
// written as our own in internal/apis/disaggregatedset/v1.
var RoleScalerKind = &kindrules.Kind{
	TypeName:    "disaggregatedset_role_scaler",
	GVK:         disaggv1.GroupVersion.WithKind("DisaggregatedSetRoleScaler"),
	Resource:    "disaggregatedsetrolescalers",
	Namespaced:  true,
	NewObject:   func() runtime.Object { return &disaggv1.DisaggregatedSetRoleScaler{} },
	Description: roleScalerDescription,
	BuildNode:   roleScalerNode,
}

var roleScalerNode = sync.OnceValue(func() *k8sschema.Node {
	return k8sschema.Build(reflect.TypeOf(disaggv1.DisaggregatedSetRoleScaler{}), k8sschema.Options{
		Only: map[string][]string{
			"metadata": {"name", "namespace", "labels", "annotations", "uid", "resourceVersion", "generation"},
		},
		Modes: map[string]k8sschema.Mode{
			"metadata":      k8sschema.Required,
			"metadata.name": k8sschema.Required,
			"status":        k8sschema.Computed,
		},
		FieldDocs: roleScalerFieldDocs(),
		Descriptions: map[string]string{
			"metadata":                 "Standard object metadata.",
			"metadata.name":            "Name of the scaler: `<set>-<role>`.",
			"metadata.namespace":       "Namespace of the scaler, the DisaggregatedSet's. Defaults to `default`.",
			"metadata.labels":          "Labels of the scaler; the controller sets `disaggregatedset.x-k8s.io/name` and `disaggregatedset.x-k8s.io/role`.",
			"metadata.annotations":     "Annotations of the scaler.",
			"metadata.uid":             "Unique identifier assigned by the server.",
			"metadata.resourceVersion": "Version of the object in the server's storage.",
			"metadata.generation":      "Sequence number of spec changes, set by the server.",
		},
	})
})

func roleScalerFieldDocs() map[reflect.Type]map[string]string {
	return map[reflect.Type]map[string]string{
		reflect.TypeOf(disaggv1.DisaggregatedSetRoleScaler{}): {
			"spec":   "Desired state, written by the autoscaler through the scale subresource.",
			"status": "State reported by the DisaggregatedSet controller.",
		},
		reflect.TypeOf(disaggv1.DisaggregatedSetRoleScalerSpec{}): {
			"replicas": "Desired number of groups of the role: the controller seeds it (1 for a new role, the current count when a role becomes `External`), the autoscaler sets it afterwards.",
		},
		reflect.TypeOf(disaggv1.DisaggregatedSetRoleScalerStatus{}): {
			"replicas":           "Number of groups of the role over every revision: the autoscaler's current count.",
			"selector":           "Label selector, in string form, of one pod (the leader) per group of the role: the selector of the scale subresource.",
			"observedGeneration": "The `metadata.generation` the status reflects.",
			"conditions":         "Conditions of the scaler, such as `Ready`.",
		},
		reflect.TypeOf(metav1.Condition{}): lwsrules.FieldDocs[reflect.TypeOf(metav1.Condition{})],
	}
}
