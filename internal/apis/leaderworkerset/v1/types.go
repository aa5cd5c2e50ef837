package v1

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Annotation and label keys that the LeaderWorkerSet API reads from user
// objects. Only the keys that admission looks at are listed here; the many
// keys the controller writes onto pods are not part of the user-facing API.
const (
	// ExclusiveKeyAnnotationKey names the node label used for 1:1 exclusive
	// placement of each group.
	ExclusiveKeyAnnotationKey = "leaderworkerset.sigs.k8s.io/exclusive-topology"

	// SubGroupExclusiveKeyAnnotationKey names the node label used for 1:1
	// exclusive placement of each subgroup. It requires subGroupPolicy.
	SubGroupExclusiveKeyAnnotationKey = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"

	// RecoverAnnotationKey set to "true" on the retained leader pod of a group
	// whose maxGroupRestarts budget is exhausted resets that budget.
	RecoverAnnotationKey = "leaderworkerset.sigs.k8s.io/recover"
)

// LeaderWorkerSetSpec defines the desired state of a LeaderWorkerSet: N groups
// (replicas) of one leader pod plus size-1 worker pods.
type LeaderWorkerSetSpec struct {
	// replicas is the number of leader-workers groups. A scale subresource is
	// available to enable HPA. The selector for HPA will be that of the leader
	// pod, and so practically HPA will be looking up the leader pod metrics.
	// Note that the leader pod could aggregate metrics from the rest of the
	// group and expose them as a summary custom metric representing the whole
	// group. On scale down, the leader pod as well as the workers statefulset
	// will be deleted. Default to 1.
	//
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	Replicas *int32 `json:"replicas,omitempty"`

	// leaderWorkerTemplate defines the template for leader/worker pods
	LeaderWorkerTemplate LeaderWorkerTemplate `json:"leaderWorkerTemplate"`

	// rolloutStrategy defines the strategy that will be applied to update
	// replicas when a revision is made to the leaderWorkerTemplate.
	//
	// +optional
	RolloutStrategy RolloutStrategy `json:"rolloutStrategy,omitempty"`

	// startupPolicy determines the startup policy for the worker statefulset.
	//
	// +optional
	// +kubebuilder:default=LeaderCreated
	// +kubebuilder:validation:Enum={LeaderCreated,LeaderReady}
	StartupPolicy StartupPolicyType `json:"startupPolicy"`

	// networkConfig defines the network configuration of the group
	//
	// +optional
	NetworkConfig *NetworkConfig `json:"networkConfig,omitempty"`

	// scheduling defines Workload-Aware Scheduling for this LeaderWorkerSet.
	// This field is immutable.
	//
	// +optional
	Scheduling *LeaderWorkerSetSchedulingConfiguration `json:"scheduling,omitempty"`

	// groupIdentity determines how group identities are assigned. Ordinal
	// (default) manages leaders through a StatefulSet: groups are named
	// -0..-N-1 and scale down always removes the highest ordinal. Hash manages
	// leaders through a Deployment: group names are hash-suffixed, scale down
	// prefers unscheduled and not-ready groups over healthy ones, and rollouts
	// are paced by a group readiness gate on the leader pods. This field is
	// immutable.
	//
	// +optional
	// +kubebuilder:default=Ordinal
	// +kubebuilder:validation:Enum={Ordinal,Hash}
	GroupIdentity GroupIdentityType `json:"groupIdentity,omitempty"`

	// groupReplacementPolicy controls when a replacement group may start
	// scheduling after a group is deleted, whether by the restart policy
	// recreating a failed group, by a rolling update or by a scale down that
	// races a scale up. PostTermination (default) admits a replacement only
	// once a previously deleted group has been fully removed, so the new group
	// lands on the capacity the old one released instead of preempting other
	// workloads. This matches the StatefulSet semantics of groupIdentity
	// Ordinal, where a leader pod cannot be recreated until its predecessor is
	// gone, and is the only supported value in that mode. Immediate admits
	// replacement groups as soon as the leader Deployment creates them,
	// overlapping with the teardown of the old group. Only supported with
	// groupIdentity Hash.
	//
	// +optional
	// +kubebuilder:validation:Enum={PostTermination,Immediate}
	GroupReplacementPolicy GroupReplacementPolicyType `json:"groupReplacementPolicy,omitempty"`
}

// LeaderWorkerSetSchedulingConfiguration is the hierarchical Workload-Aware
// Scheduling configuration of a LeaderWorkerSet. Its top-level fields apply to
// all replicas together; replica applies to each replica, and replica.leader
// and replica.worker to the leader and worker pods of each replica. Exactly
// one of those levels may be active; an empty object selects the replica
// level.
type LeaderWorkerSetSchedulingConfiguration struct {
	// schedulingPolicy defines scheduling for all replicas.
	//
	// +optional
	SchedulingPolicy *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy `json:"schedulingPolicy,omitempty"`

	// schedulingConstraints defines placement constraints for all replicas.
	//
	// +optional
	SchedulingConstraints *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`

	// disruptionMode defines how replica groups may be disrupted.
	//
	// +optional
	DisruptionMode *schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode `json:"disruptionMode,omitempty"`

	// replica defines scheduling for each replica.
	//
	// +optional
	Replica *LeaderWorkerSetReplicaScheduling `json:"replica,omitempty"`
}

// LeaderWorkerSetReplicaScheduling configures Workload-Aware Scheduling for
// each replica (one leader and its workers).
type LeaderWorkerSetReplicaScheduling struct {
	// schedulingPolicy defines scheduling for a leader and its workers.
	//
	// +optional
	SchedulingPolicy *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy `json:"schedulingPolicy,omitempty"`

	// schedulingConstraints defines placement constraints for a replica.
	//
	// +optional
	SchedulingConstraints *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`

	// disruptionMode defines how the leader and worker groups may be
	// disrupted.
	//
	// +optional
	DisruptionMode *schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode `json:"disruptionMode,omitempty"`

	// leader defines scheduling for the leader PodGroup.
	//
	// +optional
	Leader *LeaderWorkerSetLeaderScheduling `json:"leader,omitempty"`

	// worker defines scheduling for the worker PodGroup.
	//
	// +optional
	Worker *LeaderWorkerSetWorkerScheduling `json:"worker,omitempty"`
}

// LeaderWorkerSetLeaderScheduling configures the PodGroup of the leader pod of
// each replica.
type LeaderWorkerSetLeaderScheduling struct {
	// schedulingPolicy defines scheduling for the leader PodGroup.
	//
	// +optional
	SchedulingPolicy *schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy `json:"schedulingPolicy,omitempty"`

	// schedulingConstraints defines placement constraints for the leader
	// PodGroup.
	//
	// +optional
	SchedulingConstraints *schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`

	// disruptionMode defines how leader pods may be disrupted.
	//
	// +optional
	DisruptionMode *schedulingv1alpha3.WorkloadPodGroupDisruptionMode `json:"disruptionMode,omitempty"`

	// resourceClaims lists dynamic resource claims shared by leader pods.
	//
	// +optional
	// +kubebuilder:validation:MaxItems=4
	// +listType=map
	// +listMapKey=name
	ResourceClaims []schedulingv1alpha3.WorkloadPodGroupResourceClaim `json:"resourceClaims,omitempty"`
}

// LeaderWorkerSetWorkerScheduling configures the PodGroup of the worker pods
// of each replica.
type LeaderWorkerSetWorkerScheduling struct {
	// schedulingPolicy defines scheduling for the worker PodGroup.
	//
	// +optional
	SchedulingPolicy *schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy `json:"schedulingPolicy,omitempty"`

	// schedulingConstraints defines placement constraints for the worker
	// PodGroup.
	//
	// +optional
	SchedulingConstraints *schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`

	// disruptionMode defines how worker pods may be disrupted.
	//
	// +optional
	DisruptionMode *schedulingv1alpha3.WorkloadPodGroupDisruptionMode `json:"disruptionMode,omitempty"`

	// resourceClaims lists dynamic resource claims shared by worker pods.
	//
	// +optional
	// +kubebuilder:validation:MaxItems=4
	// +listType=map
	// +listMapKey=name
	ResourceClaims []schedulingv1alpha3.WorkloadPodGroupResourceClaim `json:"resourceClaims,omitempty"`
}

// GroupIdentityType defines how group identities are assigned.
type GroupIdentityType string

const (
	// GroupIdentityOrdinal names groups by contiguous StatefulSet ordinals.
	GroupIdentityOrdinal GroupIdentityType = "Ordinal"
	// GroupIdentityHash names groups by hash-suffixed leader pod names managed
	// through a Deployment.
	GroupIdentityHash GroupIdentityType = "Hash"
)

// GroupReplacementPolicyType defines when a replacement group may start
// scheduling after a group is deleted.
type GroupReplacementPolicyType string

const (
	// GroupReplacementPostTermination admits a replacement group only once the
	// deleted group is fully gone.
	GroupReplacementPostTermination GroupReplacementPolicyType = "PostTermination"
	// GroupReplacementImmediate admits a replacement group immediately. Only
	// supported with groupIdentity Hash.
	GroupReplacementImmediate GroupReplacementPolicyType = "Immediate"
)

// LeaderWorkerTemplate holds the pod templates of a group and the group-level
// settings. The leader template defaults to the worker template.
type LeaderWorkerTemplate struct {
	// leaderTemplate defines the pod template for leader pods.
	//
	// +optional
	LeaderTemplate *corev1.PodTemplateSpec `json:"leaderTemplate,omitempty"`

	// workerTemplate defines the pod template for worker pods.
	WorkerTemplate corev1.PodTemplateSpec `json:"workerTemplate"`

	// size is the number of pods to create. It is the total number of pods in
	// each group. The minimum is 1 which represent the leader. When set to 1,
	// the leader pod is created for each group as well as a 0-replica
	// StatefulSet for the workers. Default to 1.
	//
	// +optional
	// +kubebuilder:default=1
	Size *int32 `json:"size,omitempty"`

	// restartPolicy defines the restart policy when pod failures happen. The
	// former named Default policy is deprecated, will be removed in the
	// future, replace with None policy for the same behavior.
	//
	// +optional
	// +kubebuilder:default=RecreateGroupOnPodRestart
	// +kubebuilder:validation:Enum={Default,RecreateGroupOnPodRestart,RecreateGroupAfterStart,None}
	RestartPolicy RestartPolicyType `json:"restartPolicy,omitempty"`

	// maxGroupRestarts bounds how many times the controller can recreate a
	// group under RecreateGroupOnPodRestart or RecreateGroupAfterStart. Once
	// exhausted, the controller terminates the group, retains Pod API objects
	// that can still receive finalizers, and stops automatic group recreation.
	// Setting leaderworkerset.sigs.k8s.io/recover=true on the retained leader
	// Pod resets that revision/group's budget and allows recovery. Changing
	// this value does not resume an exhausted group. It is opt-in: when unset
	// (nil), group recreation is unlimited. Budget exhaustion handling requires
	// Kubernetes 1.27 or later because it relies on deleted Pods reaching a
	// terminal phase while finalizers retain their API objects.
	//
	// +optional
	// +kubebuilder:validation:Minimum=0
	MaxGroupRestarts *int32 `json:"maxGroupRestarts,omitempty"`

	// subGroupPolicy describes the policy that will be applied when creating
	// subgroups in each replica.
	//
	// +optional
	SubGroupPolicy *SubGroupPolicy `json:"subGroupPolicy,omitempty"`

	// volumeClaimTemplates is a list of claims that pods are allowed to
	// reference. Every claim in this list must have at least one matching (by
	// name) volumeMount in one container in the template. A claim in this list
	// takes precedence over any volumes in the template, with the same name.
	//
	// +optional
	VolumeClaimTemplates []corev1.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty"`

	// persistentVolumeClaimRetentionPolicy describes the policy used for PVCs
	// created from the VolumeClaimTemplates.
	//
	// +optional
	PersistentVolumeClaimRetentionPolicy *appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty"`
}

// RolloutStrategy defines the strategy that the LeaderWorkerSet controller
// uses to update replicas.
type RolloutStrategy struct {
	// type defines the rollout strategy, it can only be “RollingUpdate” for
	// now.
	//
	// +kubebuilder:validation:Enum={RollingUpdate}
	// +kubebuilder:default=RollingUpdate
	Type RolloutStrategyType `json:"type"`

	// rollingUpdateConfiguration defines the parameters to be used when type
	// is RollingUpdateStrategyType.
	//
	// +optional
	RollingUpdateConfiguration *RollingUpdateConfiguration `json:"rollingUpdateConfiguration,omitempty"`
}

// SubGroupPolicy describes the policy applied when creating subgroups.
type SubGroupPolicy struct {
	// subGroupPolicyType defines what type of Subgroups to create. Defaults to
	// LeaderWorker
	//
	// +optional
	// +kubebuilder:validation:Enum={LeaderWorker,LeaderExcluded}
	// +kubebuilder:default=LeaderWorker
	Type *SubGroupPolicyType `json:"subGroupPolicyType,omitempty"`

	// subGroupSize is the number of pods per subgroup. This value is
	// immutable, and must not be greater than LeaderWorkerSet.Spec.Size. Size
	// must be divisible by subGroupSize in which case the subgroups will be of
	// equal size. Or size - 1 is divisible by subGroupSize, in which case the
	// leader is considered as the extra pod, and will be part of the first
	// subgroup.
	SubGroupSize *int32 `json:"subGroupSize,omitempty"`
}

// SubGroupPolicyType selects how pods are split into subgroups.
type SubGroupPolicyType string

const (
	// SubGroupPolicyTypeLeaderWorker includes the leader in the first
	// subgroup.
	SubGroupPolicyTypeLeaderWorker SubGroupPolicyType = "LeaderWorker"
	// SubGroupPolicyTypeLeaderExcluded keeps the leader out of every
	// subgroup; size-1 must be divisible by subGroupSize.
	SubGroupPolicyTypeLeaderExcluded SubGroupPolicyType = "LeaderExcluded"
)

// NetworkConfig is the network configuration of the groups.
type NetworkConfig struct {
	// subdomainPolicy determines the policy that will be used when creating
	// the headless service, defaults to shared
	//
	// +kubebuilder:validation:Enum={Shared,UniquePerReplica}
	SubdomainPolicy *SubdomainPolicy `json:"subdomainPolicy"`
}

// SubdomainPolicy selects how headless services are created.
type SubdomainPolicy string

const (
	// SubdomainShared creates one headless service shared by all replicas.
	SubdomainShared SubdomainPolicy = "Shared"
	// SubdomainUniquePerReplica creates one headless service per replica.
	SubdomainUniquePerReplica SubdomainPolicy = "UniquePerReplica"
)

// RollingUpdateConfiguration defines the parameters of the RollingUpdate
// strategy.
type RollingUpdateConfiguration struct {
	// partition indicates the ordinal at which the lws should be partitioned
	// for updates. During a rolling update, all the groups from ordinal
	// Partition to Replicas-1 will be updated. The groups from 0 to
	// Partition-1 will not be updated. This is helpful in incremental rollout
	// strategies like canary deployments or interactive rollout strategies for
	// multiple replicas like xPyD deployments. Once partition field and
	// maxSurge field both set, the bursted replicas will keep remaining until
	// the rolling update is completely done and the partition field is reset
	// to 0. This is as expected to reduce the reconciling complexity. The
	// default value is 0.
	//
	// +optional
	// +kubebuilder:default=0
	Partition *int32 `json:"partition,omitempty"`

	// maxUnavailable is the maximum number of replicas that can be unavailable
	// during the update. Value can be an absolute number (ex: 5) or a
	// percentage of total replicas at the start of update (ex: 10%). Absolute
	// number is calculated from percentage by rounding down. This can not be 0
	// if MaxSurge is 0. By default, a fixed value of 1 is used. Example: when
	// this is set to 30%, the old replicas can be scaled down by 30%
	// immediately when the rolling update starts. Once new replicas are ready,
	// old replicas can be scaled down further, followed by scaling up the new
	// replicas, ensuring that at least 70% of original number of replicas are
	// available at all times during the update.
	//
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:default=1
	MaxUnavailable intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// maxSurge is the maximum number of replicas that can be scheduled above
	// the original number of replicas. Value can be an absolute number (ex: 5)
	// or a percentage of total replicas at the start of the update (ex: 10%).
	// Absolute number is calculated from percentage by rounding up. By
	// default, a value of 0 is used. Example: when this is set to 30%, the new
	// replicas can be scaled up by 30% immediately when the rolling update
	// starts. Once old replicas have been deleted, new replicas can be scaled
	// up further, ensuring that total number of replicas running at any time
	// during the update is at most 130% of original replicas. When rolling
	// update completes, replicas will fall back to the original replicas.
	//
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:default=0
	MaxSurge intstr.IntOrString `json:"maxSurge,omitempty"`
}

// RolloutStrategyType names a rollout strategy.
type RolloutStrategyType string

const (
	// RollingUpdateStrategyType updates groups one by one as configured by
	// RollingUpdateConfiguration.
	RollingUpdateStrategyType RolloutStrategyType = "RollingUpdate"
)

// RestartPolicyType names what happens to a group when one of its pods fails.
type RestartPolicyType string

const (
	// RecreateGroupOnPodRestart recreates all pods of the group when any pod
	// is recreated or any of its containers restarts.
	RecreateGroupOnPodRestart RestartPolicyType = "RecreateGroupOnPodRestart"
	// RecreateGroupAfterStart behaves like RecreateGroupOnPodRestart, but only
	// once every pod of the group has left the Pending phase.
	RecreateGroupAfterStart RestartPolicyType = "RecreateGroupAfterStart"
	// DeprecatedDefaultRestartPolicy is the former name of None; the mutating
	// webhook rewrites it to None.
	DeprecatedDefaultRestartPolicy RestartPolicyType = "Default"
	// NoneRestartPolicy restarts only the failed pod, like a StatefulSet.
	NoneRestartPolicy RestartPolicyType = "None"
)

// StartupPolicyType names when the worker StatefulSet is created.
type StartupPolicyType string

const (
	// LeaderReadyStartupPolicy creates the workers after the leader pod is
	// ready.
	LeaderReadyStartupPolicy StartupPolicyType = "LeaderReady"
	// LeaderCreatedStartupPolicy creates the workers as soon as the leader pod
	// is created.
	LeaderCreatedStartupPolicy StartupPolicyType = "LeaderCreated"
)

// LeaderWorkerSetStatus defines the observed state of a LeaderWorkerSet.
type LeaderWorkerSetStatus struct {
	// conditions track the condition of the leaderworkerset.
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// readyReplicas track the number of groups that are in ready state
	// (updated or not).
	//
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// updatedReplicas track the number of groups that have been updated (ready
	// or not).
	//
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`

	// replicas track the total number of groups that have been created
	// (updated or not, ready or not)
	//
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// hpaPodSelector for pods that belong to the LeaderWorkerSet object, this
	// is needed for HPA to know what pods belong to the LeaderWorkerSet
	// object. Here we only select the leader pods.
	//
	// +optional
	HPAPodSelector string `json:"hpaPodSelector,omitempty"`

	// observedGeneration is the most recent generation observed for this
	// LeaderWorkerSet.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// LeaderWorkerSetConditionType names a condition of a LeaderWorkerSet.
type LeaderWorkerSetConditionType string

const (
	// LeaderWorkerSetAvailable means at least the minimum available groups are
	// up and running.
	LeaderWorkerSetAvailable LeaderWorkerSetConditionType = "Available"
	// LeaderWorkerSetProgressing means groups are being created or scaled.
	LeaderWorkerSetProgressing LeaderWorkerSetConditionType = "Progressing"
	// LeaderWorkerSetUpdateInProgress means a rolling update is in progress.
	LeaderWorkerSetUpdateInProgress LeaderWorkerSetConditionType = "UpdateInProgress"
	// LeaderWorkerSetFailed means a group exhausted its maxGroupRestarts
	// budget.
	LeaderWorkerSetFailed LeaderWorkerSetConditionType = "Failed"
)

// LeaderWorkerSet is the Schema for the leaderworkersets API.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.hpaPodSelector
// +kubebuilder:resource:shortName={lws}
// +kubebuilder:printcolumn:name="Ready",type="integer",JSONPath=".status.readyReplicas",description="Number of ready replicas"
// +kubebuilder:printcolumn:name="Desired",type="integer",JSONPath=".spec.replicas",description="Number of desired replicas"
// +kubebuilder:printcolumn:name="Up-to-date",type="integer",JSONPath=".status.updatedReplicas",description="Number of up-to-date replicas"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type LeaderWorkerSet struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object's metadata.
	//
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec defines the desired behavior of LeaderWorkerSet.
	//
	// +optional
	Spec LeaderWorkerSetSpec `json:"spec,omitempty"`

	// status represents the current status of LeaderWorkerSet.
	//
	// +optional
	Status LeaderWorkerSetStatus `json:"status,omitempty"`
}

// LeaderWorkerSetList contains a list of LeaderWorkerSet.
//
// +kubebuilder:object:root=true
type LeaderWorkerSetList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	//
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items is the list of LeaderWorkerSets.
	Items []LeaderWorkerSet `json:"items"`
}
