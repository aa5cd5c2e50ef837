package v1

// SwaggerDoc descriptions in the style of k8s.io/api's generated
// types_swagger_doc_generated.go: the "" key documents the type, the other keys
// are json field names. Field texts are the descriptions of the API
// (keep them in step with the field comments in types.go, which controller-gen
// copies into the CRD).

var map_LeaderWorkerSet = map[string]string{
	"":         "LeaderWorkerSet API: N replicas of a group of one leader pod and size-1 worker pods.",
	"metadata": "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
	"spec":     "spec defines the desired behavior of LeaderWorkerSet.",
	"status":   "status represents the current status of LeaderWorkerSet.",
}

// SwaggerDoc returns the field descriptions of LeaderWorkerSet, keyed by json name.
func (LeaderWorkerSet) SwaggerDoc() map[string]string {
	return map_LeaderWorkerSet
}

var map_LeaderWorkerSetList = map[string]string{
	"":         "LeaderWorkerSetList contains a list of LeaderWorkerSet.",
	"metadata": "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
	"items":    "items is the list of LeaderWorkerSets.",
}

// SwaggerDoc returns the field descriptions of LeaderWorkerSetList, keyed by json name.
func (LeaderWorkerSetList) SwaggerDoc() map[string]string {
	return map_LeaderWorkerSetList
}

var map_LeaderWorkerSetSpec = map[string]string{
	"":                       "LeaderWorkerSetSpec defines the desired state of a LeaderWorkerSet.",
	"replicas":               "replicas is the number of leader-workers groups. A scale subresource is available to enable HPA. The selector for HPA will be that of the leader pod, and so practically HPA will be looking up the leader pod metrics. Note that the leader pod could aggregate metrics from the rest of the group and expose them as a summary custom metric representing the whole group. On scale down, the leader pod as well as the workers statefulset will be deleted. Default to 1.",
	"leaderWorkerTemplate":   "leaderWorkerTemplate defines the template for leader/worker pods",
	"rolloutStrategy":        "rolloutStrategy defines the strategy that will be applied to update replicas when a revision is made to the leaderWorkerTemplate.",
	"startupPolicy":          "startupPolicy determines the startup policy for the worker statefulset.",
	"networkConfig":          "networkConfig defines the network configuration of the group",
	"scheduling":             "scheduling defines Workload-Aware Scheduling for this LeaderWorkerSet. This field is immutable.",
	"groupIdentity":          "groupIdentity determines how group identities are assigned. Ordinal (default) manages leaders through a StatefulSet: groups are named -0..-N-1 and scale down always removes the highest ordinal. Hash manages leaders through a Deployment: group names are hash-suffixed, scale down prefers unscheduled and not-ready groups over healthy ones, and rollouts are paced by a group readiness gate on the leader pods. This field is immutable.",
	"groupReplacementPolicy": "groupReplacementPolicy controls when a replacement group may start scheduling after a group is deleted, whether by the restart policy recreating a failed group, by a rolling update or by a scale down that races a scale up. PostTermination (default) admits a replacement only once a previously deleted group has been fully removed, so the new group lands on the capacity the old one released instead of preempting other workloads. This matches the StatefulSet semantics of groupIdentity Ordinal, where a leader pod cannot be recreated until its predecessor is gone, and is the only supported value in that mode. Immediate admits replacement groups as soon as the leader Deployment creates them, overlapping with the teardown of the old group. Only supported with groupIdentity Hash.",
}

// SwaggerDoc returns the field descriptions of LeaderWorkerSetSpec, keyed by json name.
func (LeaderWorkerSetSpec) SwaggerDoc() map[string]string {
	return map_LeaderWorkerSetSpec
}

var map_LeaderWorkerSetSchedulingConfiguration = map[string]string{
	"":                      "LeaderWorkerSetSchedulingConfiguration is the hierarchical Workload-Aware Scheduling configuration: the top-level fields apply to all replicas, replica to each replica, and replica.leader / replica.worker to the leader and worker pods of each replica. Exactly one level may be active; an empty object selects the replica level.",
	"schedulingPolicy":      "schedulingPolicy defines scheduling for all replicas.",
	"schedulingConstraints": "schedulingConstraints defines placement constraints for all replicas.",
	"disruptionMode":        "disruptionMode defines how replica groups may be disrupted.",
	"replica":               "replica defines scheduling for each replica.",
}

// SwaggerDoc returns the field descriptions of LeaderWorkerSetSchedulingConfiguration, keyed by json name.
func (LeaderWorkerSetSchedulingConfiguration) SwaggerDoc() map[string]string {
	return map_LeaderWorkerSetSchedulingConfiguration
}

var map_LeaderWorkerSetReplicaScheduling = map[string]string{
	"":                      "LeaderWorkerSetReplicaScheduling configures Workload-Aware Scheduling for each replica (one leader and its workers).",
	"schedulingPolicy":      "schedulingPolicy defines scheduling for a leader and its workers.",
	"schedulingConstraints": "schedulingConstraints defines placement constraints for a replica.",
	"disruptionMode":        "disruptionMode defines how the leader and worker groups may be disrupted.",
	"leader":                "leader defines scheduling for the leader PodGroup.",
	"worker":                "worker defines scheduling for the worker PodGroup.",
}

// SwaggerDoc returns the field descriptions of LeaderWorkerSetReplicaScheduling, keyed by json name.
func (LeaderWorkerSetReplicaScheduling) SwaggerDoc() map[string]string {
	return map_LeaderWorkerSetReplicaScheduling
}

var map_LeaderWorkerSetLeaderScheduling = map[string]string{
	"":                      "LeaderWorkerSetLeaderScheduling configures the PodGroup of the leader pod of each replica.",
	"schedulingPolicy":      "schedulingPolicy defines scheduling for the leader PodGroup.",
	"schedulingConstraints": "schedulingConstraints defines placement constraints for the leader PodGroup.",
	"disruptionMode":        "disruptionMode defines how leader pods may be disrupted.",
	"resourceClaims":        "resourceClaims lists dynamic resource claims shared by leader pods.",
}

// SwaggerDoc returns the field descriptions of LeaderWorkerSetLeaderScheduling, keyed by json name.
func (LeaderWorkerSetLeaderScheduling) SwaggerDoc() map[string]string {
	return map_LeaderWorkerSetLeaderScheduling
}

var map_LeaderWorkerSetWorkerScheduling = map[string]string{
	"":                      "LeaderWorkerSetWorkerScheduling configures the PodGroup of the worker pods of each replica.",
	"schedulingPolicy":      "schedulingPolicy defines scheduling for the worker PodGroup.",
	"schedulingConstraints": "schedulingConstraints defines placement constraints for the worker PodGroup.",
	"disruptionMode":        "disruptionMode defines how worker pods may be disrupted.",
	"resourceClaims":        "resourceClaims lists dynamic resource claims shared by worker pods.",
}

// SwaggerDoc returns the field descriptions of LeaderWorkerSetWorkerScheduling, keyed by json name.
func (LeaderWorkerSetWorkerScheduling) SwaggerDoc() map[string]string {
	return map_LeaderWorkerSetWorkerScheduling
}

var map_LeaderWorkerTemplate = map[string]string{
	"":                                     "LeaderWorkerTemplate holds the pod templates of a group and the group-level settings. The leader template defaults to the worker template.",
	"leaderTemplate":                       "leaderTemplate defines the pod template for leader pods.",
	"workerTemplate":                       "workerTemplate defines the pod template for worker pods.",
	"size":                                 "size is the number of pods to create. It is the total number of pods in each group. The minimum is 1 which represent the leader. When set to 1, the leader pod is created for each group as well as a 0-replica StatefulSet for the workers. Default to 1.",
	"restartPolicy":                        "restartPolicy defines the restart policy when pod failures happen. The former named Default policy is deprecated, will be removed in the future, replace with None policy for the same behavior.",
	"maxGroupRestarts":                     "maxGroupRestarts bounds how many times the controller can recreate a group under RecreateGroupOnPodRestart or RecreateGroupAfterStart. Once exhausted, the controller terminates the group, retains Pod API objects that can still receive finalizers, and stops automatic group recreation. Setting leaderworkerset.sigs.k8s.io/recover=true on the retained leader Pod resets that revision/group's budget and allows recovery. Changing this value does not resume an exhausted group. It is opt-in: when unset (nil), group recreation is unlimited. Budget exhaustion handling requires Kubernetes 1.27 or later because it relies on deleted Pods reaching a terminal phase while finalizers retain their API objects.",
	"subGroupPolicy":                       "subGroupPolicy describes the policy that will be applied when creating subgroups in each replica.",
	"volumeClaimTemplates":                 "volumeClaimTemplates is a list of claims that pods are allowed to reference. Every claim in this list must have at least one matching (by name) volumeMount in one container in the template. A claim in this list takes precedence over any volumes in the template, with the same name.",
	"persistentVolumeClaimRetentionPolicy": "persistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the VolumeClaimTemplates.",
}

// SwaggerDoc returns the field descriptions of LeaderWorkerTemplate, keyed by json name.
func (LeaderWorkerTemplate) SwaggerDoc() map[string]string {
	return map_LeaderWorkerTemplate
}

var map_RolloutStrategy = map[string]string{
	"":                           "RolloutStrategy defines the strategy that the LeaderWorkerSet controller uses to update replicas.",
	"type":                       "type defines the rollout strategy, it can only be “RollingUpdate” for now.",
	"rollingUpdateConfiguration": "rollingUpdateConfiguration defines the parameters to be used when type is RollingUpdateStrategyType.",
}

// SwaggerDoc returns the field descriptions of RolloutStrategy, keyed by json name.
func (RolloutStrategy) SwaggerDoc() map[string]string {
	return map_RolloutStrategy
}

var map_RollingUpdateConfiguration = map[string]string{
	"":               "RollingUpdateConfiguration defines the parameters of the RollingUpdate strategy.",
	"partition":      "partition indicates the ordinal at which the lws should be partitioned for updates. During a rolling update, all the groups from ordinal Partition to Replicas-1 will be updated. The groups from 0 to Partition-1 will not be updated. This is helpful in incremental rollout strategies like canary deployments or interactive rollout strategies for multiple replicas like xPyD deployments. Once partition field and maxSurge field both set, the bursted replicas will keep remaining until the rolling update is completely done and the partition field is reset to 0. This is as expected to reduce the reconciling complexity. The default value is 0.",
	"maxUnavailable": "maxUnavailable is the maximum number of replicas that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of total replicas at the start of update (ex: 10%). Absolute number is calculated from percentage by rounding down. This can not be 0 if MaxSurge is 0. By default, a fixed value of 1 is used. Example: when this is set to 30%, the old replicas can be scaled down by 30% immediately when the rolling update starts. Once new replicas are ready, old replicas can be scaled down further, followed by scaling up the new replicas, ensuring that at least 70% of original number of replicas are available at all times during the update.",
	"maxSurge":       "maxSurge is the maximum number of replicas that can be scheduled above the original number of replicas. Value can be an absolute number (ex: 5) or a percentage of total replicas at the start of the update (ex: 10%). Absolute number is calculated from percentage by rounding up. By default, a value of 0 is used. Example: when this is set to 30%, the new replicas can be scaled up by 30% immediately when the rolling update starts. Once old replicas have been deleted, new replicas can be scaled up further, ensuring that total number of replicas running at any time during the update is at most 130% of original replicas. When rolling update completes, replicas will fall back to the original replicas.",
}

// SwaggerDoc returns the field descriptions of RollingUpdateConfiguration, keyed by json name.
func (RollingUpdateConfiguration) SwaggerDoc() map[string]string {
	return map_RollingUpdateConfiguration
}

var map_SubGroupPolicy = map[string]string{
	"":                   "SubGroupPolicy describes the policy applied when creating subgroups.",
	"subGroupPolicyType": "subGroupPolicyType defines what type of Subgroups to create. Defaults to LeaderWorker",
	"subGroupSize":       "subGroupSize is the number of pods per subgroup. This value is immutable, and must not be greater than LeaderWorkerSet.Spec.Size. Size must be divisible by subGroupSize in which case the subgroups will be of equal size. Or size - 1 is divisible by subGroupSize, in which case the leader is considered as the extra pod, and will be part of the first subgroup.",
}

// SwaggerDoc returns the field descriptions of SubGroupPolicy, keyed by json name.
func (SubGroupPolicy) SwaggerDoc() map[string]string {
	return map_SubGroupPolicy
}

var map_NetworkConfig = map[string]string{
	"":                "NetworkConfig is the network configuration of the groups.",
	"subdomainPolicy": "subdomainPolicy determines the policy that will be used when creating the headless service, defaults to shared",
}

// SwaggerDoc returns the field descriptions of NetworkConfig, keyed by json name.
func (NetworkConfig) SwaggerDoc() map[string]string {
	return map_NetworkConfig
}

var map_LeaderWorkerSetStatus = map[string]string{
	"":                   "LeaderWorkerSetStatus defines the observed state of a LeaderWorkerSet.",
	"conditions":         "conditions track the condition of the leaderworkerset.",
	"readyReplicas":      "readyReplicas track the number of groups that are in ready state (updated or not).",
	"updatedReplicas":    "updatedReplicas track the number of groups that have been updated (ready or not).",
	"replicas":           "replicas track the total number of groups that have been created (updated or not, ready or not)",
	"hpaPodSelector":     "hpaPodSelector for pods that belong to the LeaderWorkerSet object, this is needed for HPA to know what pods belong to the LeaderWorkerSet object. Here we only select the leader pods.",
	"observedGeneration": "observedGeneration is the most recent generation observed for this LeaderWorkerSet.",
}

// SwaggerDoc returns the field descriptions of LeaderWorkerSetStatus, keyed by json name.
func (LeaderWorkerSetStatus) SwaggerDoc() map[string]string {
	return map_LeaderWorkerSetStatus
}
