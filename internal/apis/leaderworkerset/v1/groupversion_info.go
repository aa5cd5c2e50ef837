// Package v1 holds the Go types of the LeaderWorkerSet API
// (leaderworkerset.x-k8s.io/v1) as this provider supports it: the released
// v0.9.0 API plus fields newer than any LWS release (scheduling, groupIdentity,
// groupReplacementPolicy, maxGroupRestarts). JSON names and shapes follow
// upstream sigs.k8s.io/lws wherever upstream has the field. The test CRD in
// internal/acctest/testdata/crds is generated from these types
// (tools/crdgen/generate.sh).
//
// +kubebuilder:object:generate=true
// +groupName=leaderworkerset.x-k8s.io
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of LeaderWorkerSet.
const GroupName = "leaderworkerset.x-k8s.io"

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

// Resource returns the GroupResource of a resource of this group, for example
// Resource("leaderworkersets").
func Resource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}

// Kind returns the GroupKind of a kind of this group.
func Kind(kind string) schema.GroupKind {
	return GroupVersion.WithKind(kind).GroupKind()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &LeaderWorkerSet{}, &LeaderWorkerSetList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
