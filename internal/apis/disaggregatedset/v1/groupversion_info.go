// Package v1 holds the Go types of the DisaggregatedSet API
// (disaggregatedset.x-k8s.io/v1) as this provider supports it: the API of
// sigs.k8s.io/lws v0.10.0 (spec.slices, spec.placementPolicy,
// roles[].scaling, and the DisaggregatedSetRoleScaler of External roles) plus
// status.observedGeneration of upstream main, over the released v0.9.0
// fields. A role embeds the LeaderWorkerSet template of the released v0.9.0
// module, as the v0.9.0 DisaggregatedSet does. JSON names, shapes, defaults
// and bounds follow upstream; the markers are ours, written from the facts of
// api/disaggregatedset/v1/disaggregatedset_types.go and
// disaggregatedsetrolescaler_types.go at v0.10.0. The test CRDs in
// internal/acctest/testdata/crds are generated from these types
// (tools/crdgen/generate.sh).
//
// +kubebuilder:object:generate=true
// +groupName=disaggregatedset.x-k8s.io
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of DisaggregatedSet.
const GroupName = "disaggregatedset.x-k8s.io"

var (
	// GroupVersion is the group version of the types in this package.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

	// SchemeGroupVersion is an alias of GroupVersion, as client-go
	// conventions expect.
	SchemeGroupVersion = GroupVersion

	// SchemeBuilder registers the types of this package in a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types of this group version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &DisaggregatedSet{}, &DisaggregatedSetList{},
		&DisaggregatedSetRoleScaler{}, &DisaggregatedSetRoleScalerList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
