package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DisaggregatedSetRoleScalerSpec is the replica count an autoscaler writes
// through the scale subresource.
type DisaggregatedSetRoleScalerSpec struct {
	// replicas is the desired number of groups of the role. The controller
	// sets it when it creates the scaler (1 for a new role, the role's current
	// count when a role becomes External); autoscalers write it afterwards.
	//
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
}

// DisaggregatedSetRoleScalerStatus is what the DisaggregatedSet controller
// reports about the role.
type DisaggregatedSetRoleScalerStatus struct {
	// replicas is the number of groups of the role, over every revision.
	//
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// selector selects one pod (the leader) per group of the role, in the
	// string form the scale subresource reports.
	//
	// +optional
	Selector string `json:"selector,omitempty"`

	// observedGeneration is the generation the status reflects.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions of the scaler (Ready).
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// DisaggregatedSetRoleScaler is the scale target of one External role of a
// DisaggregatedSet (new in v0.10.0): the controller creates it as
// "<set>-<role>", an autoscaler drives its scale subresource, and the
// controller scales the role's LeaderWorkerSets to its spec.replicas.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=dsrs
type DisaggregatedSetRoleScaler struct {
	metav1.TypeMeta `json:",inline"`

	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec DisaggregatedSetRoleScalerSpec `json:"spec,omitempty"`

	// +optional
	Status DisaggregatedSetRoleScalerStatus `json:"status,omitempty"`
}

// DisaggregatedSetRoleScalerList is a list of DisaggregatedSetRoleScalers.
//
// +kubebuilder:object:root=true
type DisaggregatedSetRoleScalerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DisaggregatedSetRoleScaler `json:"items"`
}
