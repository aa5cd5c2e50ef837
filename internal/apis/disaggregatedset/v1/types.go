package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

// Label keys the DisaggregatedSet controller puts on the LeaderWorkerSets and
// Services it creates (the same keys in v0.9.0 and v0.10.0; the slice label is
// new in v0.10.0).
const (
	SetNameLabelKey  = "disaggregatedset.x-k8s.io/name"
	RoleLabelKey     = "disaggregatedset.x-k8s.io/role"
	SliceLabelKey    = "disaggregatedset.x-k8s.io/slice"
	RevisionLabelKey = "disaggregatedset.x-k8s.io/revision"
)

// RoleScalingMode says where a role's replica count comes from.
//
// +kubebuilder:validation:Enum=Static;External
type RoleScalingMode string

const (
	// RoleScalingStatic takes the replica count from the role's spec.replicas.
	RoleScalingStatic RoleScalingMode = "Static"
	// RoleScalingExternal takes it from the DisaggregatedSetRoleScaler
	// "<set>-<role>" that the controller creates, which an autoscaler drives
	// through its scale subresource; the role's spec.replicas is ignored.
	RoleScalingExternal RoleScalingMode = "External"
)

// RoleScaling is how a role is scaled (new in v0.10.0).
type RoleScaling struct {
	// mode is Static (the default) or External.
	//
	// +optional
	// +kubebuilder:default=Static
	Mode RoleScalingMode `json:"mode,omitempty"`
}

// DisaggregatedRoleSpec is one role: a name and the template of the
// LeaderWorkerSet the controller creates for it.
type DisaggregatedRoleSpec struct {
	// name identifies the role; unique in the list.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// scaling is how the role is scaled; without it, Static.
	//
	// +optional
	Scaling *RoleScaling `json:"scaling,omitempty"`

	// The template of the role's LeaderWorkerSet (metadata and spec).
	releasedlws.LeaderWorkerSetTemplateSpec `json:",inline"`
}

// PlacementType is the placement guarantee of a DisaggregatedSet's slices.
type PlacementType string

const (
	// PlacementNone adds no affinity (the default).
	PlacementNone PlacementType = "None"
	// PlacementExclusiveSlice keeps a slice's roles in one topology domain
	// and spreads the set's slices over domains.
	PlacementExclusiveSlice PlacementType = "ExclusiveSlice"
	// PlacementExclusiveTopology is ExclusiveSlice with at most one slice of
	// any DisaggregatedSet per domain.
	PlacementExclusiveTopology PlacementType = "ExclusiveTopology"
)

// PlacementPolicy places a DisaggregatedSet's slices on topology domains
// (new in v0.10.0).
type PlacementPolicy struct {
	// type is the placement guarantee; defaults to None.
	//
	// +optional
	// +kubebuilder:default=None
	// +kubebuilder:validation:Enum=None;ExclusiveSlice;ExclusiveTopology
	Type PlacementType `json:"type,omitempty"`

	// topology is the node label key of a domain; required unless type is
	// None (a webhook rule, not a schema rule).
	//
	// +optional
	Topology string `json:"topology,omitempty"`
}

// DisaggregatedSetSpec is the desired state of a DisaggregatedSet.
//
// The replicas rule covers the roles that are not External (v0.10.0; v0.9.0
// covered every role).
//
// +kubebuilder:validation:XValidation:rule="self.roles.filter(r, !has(r.scaling) || r.scaling.mode != 'External').all(r, !has(r.spec.replicas) || r.spec.replicas == 0) || self.roles.filter(r, !has(r.scaling) || r.scaling.mode != 'External').all(r, has(r.spec.replicas) && r.spec.replicas > 0)",message="replicas must be zero for all non-External roles or non-zero for all non-External roles"
type DisaggregatedSetSpec struct {
	// roles are the roles, 2 to 10 with unique names.
	//
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=10
	Roles []DisaggregatedRoleSpec `json:"roles"`

	// slices is the number of copies of the whole set of roles (new in
	// v0.10.0).
	//
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Slices *int32 `json:"slices,omitempty"`

	// placementPolicy places the slices on topology domains (new in v0.10.0).
	//
	// +optional
	PlacementPolicy *PlacementPolicy `json:"placementPolicy,omitempty"`
}

// RoleStatus is the observed state of one role.
type RoleStatus struct {
	// name of the role.
	//
	// +required
	Name string `json:"name"`

	// replicas is the number of groups of the role.
	//
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// readyReplicas is the number of ready groups of the role.
	//
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// updatedReplicas is the number of groups of the role at the current
	// revision.
	//
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`
}

// DisaggregatedSetStatus is the observed state of a DisaggregatedSet.
type DisaggregatedSetStatus struct {
	// observedGeneration is the generation the controller last acted on
	// (upstream main, after v0.10.0).
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// roleStatuses is the state of each role, in the order of spec.roles.
	//
	// +optional
	// +listType=map
	// +listMapKey=name
	RoleStatuses []RoleStatus `json:"roleStatuses,omitempty"`

	// conditions are the controller's conditions (Available, Progressing).
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// DisaggregatedSet runs the roles of disaggregated inference (prefill,
// decode, ...) as LeaderWorkerSets rolled out together.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type DisaggregatedSet struct {
	metav1.TypeMeta `json:",inline"`

	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec DisaggregatedSetSpec `json:"spec"`

	// +optional
	Status DisaggregatedSetStatus `json:"status,omitempty"`
}

// DisaggregatedSetList is a list of DisaggregatedSets.
//
// +kubebuilder:object:root=true
type DisaggregatedSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DisaggregatedSet `json:"items"`
}
