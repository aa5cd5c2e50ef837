package rules

import (
	"reflect"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// FieldDocs are the provider's own descriptions of this kind's fields (k8sschema.Options.FieldDocs);
// the DisaggregatedSet, whose roles embed the released LeaderWorkerSet spec, reuses them.
// Defaults, allowed values and immutability of many fields are appended from the Notes in
// resource.go, so the entries below do not repeat them.
var FieldDocs = map[reflect.Type]map[string]string{
	reflect.TypeOf(lwsv1.LeaderWorkerSet{}): {
		"spec": "Desired state: what each group is made of, how many groups run, and how they are rolled out, networked and scheduled.",
	},
	reflect.TypeOf(lwsv1.LeaderWorkerSetSpec{}): {
		"leaderWorkerTemplate": "Shape of every group: the leader and worker pod templates, the number of pods per group (`size`), restart behaviour, subgroups and volume claims. Changes to the templates, `size` or `volume_claim_templates` are applied by a rolling update.",
		"networkConfig":        "Network settings of the groups.",
		"rolloutStrategy":      "How existing groups are replaced when `leader_worker_template` changes.",
		"startupPolicy":        "When the workers of a group are created: `LeaderCreated` as soon as the leader pod exists, `LeaderReady` only once the leader pod is ready. `LeaderReady` cannot be combined with a `scheduling` gang that contains both the leader and its workers (which includes the default replica-level gang).",
	},
	reflect.TypeOf(lwsv1.LeaderWorkerTemplate{}): {
		"leaderTemplate":                       "Pod template for the leader pod of each group.",
		"workerTemplate":                       "Pod template for the `size - 1` worker pods of each group, also used for the leader when `leader_template` is unset.",
		"size":                                 "Number of pods in each group, the leader included; `1` gives a leader without workers.",
		"restartPolicy":                        "What happens to a group when one of its pods fails: `RecreateGroupOnPodRestart` recreates all pods of the group when any pod is recreated or any container restarts; `RecreateGroupAfterStart` does the same, but only once every pod of the group has left `Pending`; `None` restarts just the failed pod, as a StatefulSet would.",
		"maxGroupRestarts":                     "Budget of group recreations after pod failures. Once it is used up the controller tears the group down, keeps its Pod objects where finalizers allow, stops recreating it and reports the `Failed` condition; annotating the retained leader pod with `leaderworkerset.sigs.k8s.io/recover=true` resets the budget of that group. `0` allows no recreation. Changing the value does not revive an exhausted group. Handling an exhausted budget needs Kubernetes 1.27 or later.",
		"subGroupPolicy":                       "Splits each group into subgroups of `sub_group_size` pods, for example to place every subgroup in its own topology domain with the `leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology` annotation (which is only allowed together with this attribute).",
		"volumeClaimTemplates":                 "PersistentVolumeClaims created for each pod, as in a StatefulSet. Each claim should be mounted by name (`volume_mounts`) in a container of the templates, and it replaces any template volume with the same name.",
		"persistentVolumeClaimRetentionPolicy": "Whether the PVCs created from `volume_claim_templates` are kept (`Retain`, the default) or removed (`Delete`) when the StatefulSets are deleted (`when_deleted`) or scaled down (`when_scaled`).",
	},
	reflect.TypeOf(lwsv1.SubGroupPolicy{}): {
		"subGroupPolicyType": "Whether the leader belongs to a subgroup: `LeaderWorker` counts it in the first subgroup; `LeaderExcluded` keeps it out, so only the `size - 1` workers are divided and `size - 1` must be a multiple of `sub_group_size`. Can be changed in place.",
		"subGroupSize":       "Number of pods in each subgroup. Either `size` or `size - 1` must be a multiple of it; when only `size - 1` is, the leader is an extra pod in the first subgroup (or in none with `LeaderExcluded`).",
	},
	reflect.TypeOf(lwsv1.NetworkConfig{}): {
		"subdomainPolicy": "Headless Services that give the pods stable DNS names: `Shared` creates one Service for all groups, `UniquePerReplica` one Service per group.",
	},
	reflect.TypeOf(lwsv1.RolloutStrategy{}): {
		"type":                       "Kind of rollout; a rolling update replaces a limited number of groups at a time, as configured in `rolling_update_configuration`.",
		"rollingUpdateConfiguration": "Pace and scope of rolling updates: `max_unavailable`, `max_surge` and `partition`.",
	},
	reflect.TypeOf(lwsv1.RollingUpdateConfiguration{}): {
		"partition":      "Only groups whose index is at least this value are updated; groups below it keep the previous template, which allows canary or staged rollouts. It may exceed `replicas`. Surge groups created because of `max_surge` remain until the update completes and `partition` is back at 0.",
		"maxUnavailable": "How many groups may be unavailable while a rolling update runs, as a count (`\"2\"`) or as a percentage of `replicas` (`\"25%\"`, rounded down).",
		"maxSurge":       "How many groups may be created on top of `replicas` while a rolling update runs, as a count (`\"1\"`) or as a percentage of `replicas` (`\"10%\"`, rounded up); trades extra capacity for a faster update.",
	},
	reflect.TypeOf(lwsv1.LeaderWorkerSetSchedulingConfiguration{}): {
		"schedulingPolicy":      "Policy for all groups of the LeaderWorkerSet taken together: `gang` admits all `replicas * size` pods at once or none, `basic` (the default at this level) schedules them normally. Exactly one of `basic` or `gang`. Selects the top level (rules out `replica`).",
		"schedulingConstraints": "Topology for the whole LeaderWorkerSet: all of its pods are placed in a single topology domain. Selects the top level (rules out `replica`).",
		"disruptionMode":        "Whether groups may be disrupted (for example preempted) one at a time (`single`) or only all together (`all`, which needs `scheduling_policy` `gang`). Exactly one of `single` or `all`. Selects the top level (rules out `replica`).",
		"replica":               "Scheduling per group (one leader and its workers), the level used when no other is selected: `scheduling = {}` or `replica = {}` gang-schedules the `size` pods of each group. Use either this object's `scheduling_policy`, `scheduling_constraints` and `disruption_mode` (one PodGroup per group) or `leader`/`worker` (separate PodGroups for the leader and the workers), not both. Rules out the top-level `scheduling_policy`, `scheduling_constraints` and `disruption_mode`.",
	},
	reflect.TypeOf(lwsv1.LeaderWorkerSetReplicaScheduling{}): {
		"schedulingPolicy":      "Policy for each group as a whole: `gang` (the default) places the leader and all workers of a group together or not at all, `basic` schedules them pod by pod. Exactly one of `basic` or `gang`. The gang, default or explicit, cannot be used with the `leaderworkerset.sigs.k8s.io/exclusive-topology` annotation.",
		"schedulingConstraints": "Topology per group: all pods of a group are placed in the same topology domain (for example one rack); different groups may use different domains.",
		"disruptionMode":        "Whether the leader and the workers of a group may be disrupted independently (`single`) or only together (`all`, not with `scheduling_policy` `basic`). Exactly one of `single` or `all`.",
		"leader":                "Scheduling of the leader of each group as its own PodGroup. Setting `leader` or `worker` selects the role level, which needs `size` of at least 2 and excludes this object's `scheduling_policy`, `scheduling_constraints` and `disruption_mode`.",
		"worker":                "Scheduling of the `size - 1` workers of each group as their own PodGroup. Setting `leader` or `worker` selects the role level, which needs `size` of at least 2 and excludes this object's `scheduling_policy`, `scheduling_constraints` and `disruption_mode`.",
	},
	reflect.TypeOf(lwsv1.LeaderWorkerSetLeaderScheduling{}): {
		"schedulingPolicy":      "Policy for the leader's PodGroup: `basic` (the default) or `gang`, whose `min_count`, if set, must be 1. Exactly one of `basic` or `gang`.",
		"schedulingConstraints": "Topology constraint of the leader's PodGroup.",
		"disruptionMode":        "How the leader may be disrupted: `single` or `all` (which needs `scheduling_policy` `gang`). Exactly one of the two.",
		"resourceClaims":        "Dynamic resource allocation (DRA) claims shared by the leader's PodGroup: at most 4, with unique `name`s. Each must also be listed, with the same name and source, in `spec.resource_claims` of the leader template (of the worker template when `leader_template` is unset).",
	},
	reflect.TypeOf(lwsv1.LeaderWorkerSetWorkerScheduling{}): {
		"schedulingPolicy":      "Policy for the workers of each group: `basic` (the default) schedules them pod by pod, `gang` admits all `size - 1` workers together or none (`min_count`, if set, must equal `size - 1`). Exactly one of `basic` or `gang`. A worker-only gang is compatible with `startup_policy = \"LeaderReady\"`.",
		"schedulingConstraints": "Topology constraint for the workers of each group: they are all placed in one topology domain.",
		"disruptionMode":        "Whether the workers of a group may be disrupted one by one (`single`) or only all together (`all`, which needs `scheduling_policy` `gang`). Exactly one of the two.",
		"resourceClaims":        "Dynamic resource allocation (DRA) claims shared by the workers of each group: at most 4, with unique `name`s. Each must also be listed, with the same name and source, in `spec.resource_claims` of the worker template.",
	},
	reflect.TypeOf(schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{}): {
		"basic": "Set to `{}` to schedule the member groups independently, with no all-or-nothing guarantee across them.",
		"gang":  "Set to `{}` to admit all pods covered by this level together or not at all. Not with the `leaderworkerset.sigs.k8s.io/exclusive-topology` annotation.",
	},
	reflect.TypeOf(schedulingv1alpha3.WorkloadCompositePodGroupGangSchedulingPolicy{}): {
		"minGroupCount": "Leave unset: the LeaderWorkerSet does not support it yet (it needs CompositePodGroup support) and rejects any value; the gang always covers every pod of the level.",
	},
	reflect.TypeOf(schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints{}): {
		"topology": "At most one topology constraint; all pods covered by this level are placed in a single domain of its `key`. Unset means no topology requirement. Not with the `leaderworkerset.sigs.k8s.io/exclusive-topology` annotation.",
	},
	reflect.TypeOf(schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode{}): {
		"single": "Set to `{}` to let each member group be disrupted on its own.",
		"all":    "Set to `{}` so that the member groups are only disrupted all together. Not allowed when this level's scheduling policy is `basic`.",
	},
	reflect.TypeOf(schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{}): {
		"basic": "Set to `{}` for ordinary scheduling, pod by pod, with no all-or-nothing guarantee.",
		"gang":  "Set to `{}` (optionally with `min_count`) to schedule the pods of the group all at once or not at all. Not with the `leaderworkerset.sigs.k8s.io/exclusive-topology` annotation.",
	},
	reflect.TypeOf(schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{}): {
		"minCount": "How many pods of the group must fit at the same time before the scheduler admits any of them. Optional: the LeaderWorkerSet uses the number of pods in the group (1 for the leader, `size - 1` for the workers), and an explicit value must equal that number.",
	},
	reflect.TypeOf(schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints{}): {
		"topology": "At most one topology constraint; all pods of the group are placed in a single domain of its `key`. Unset means no topology requirement. Not with the `leaderworkerset.sigs.k8s.io/exclusive-topology` annotation.",
	},
	reflect.TypeOf(schedulingv1alpha3.TopologyConstraint{}): {
		"key": "Node label whose values define the topology domains, e.g. `topology.kubernetes.io/zone` or a rack label: the pods the constraint applies to all go to nodes with one and the same value of this label. Required; must be a valid label key.",
	},
	reflect.TypeOf(schedulingv1alpha3.WorkloadPodGroupDisruptionMode{}): {
		"single": "Set to `{}` to let each pod of the group be disrupted on its own.",
		"all":    "Set to `{}` so that the pods of the group are only disrupted all together. Requires the `gang` scheduling policy.",
	},
	reflect.TypeOf(schedulingv1alpha3.WorkloadPodGroupResourceClaim{}): {
		"name":                      "Name of the claim within the group: a DNS label (lowercase letters, digits and `-`, at most 63 characters), unique in the list. The pod template must have a `resource_claims` entry with this name and the same claim or template.",
		"resourceClaimName":         "Name of an existing ResourceClaim in the LeaderWorkerSet's namespace; the PodGroups of all groups at this level use that same claim. Exactly one of `resource_claim_name` and `resource_claim_template_name`; must be a DNS subdomain.",
		"resourceClaimTemplateName": "Name of a ResourceClaimTemplate in the LeaderWorkerSet's namespace; one claim is made from it for each PodGroup (per group, separately for the leader and for the workers) and shared by that PodGroup's pods. Exactly one of `resource_claim_name` and `resource_claim_template_name`; must be a DNS subdomain.",
	},
	reflect.TypeOf(lwsv1.LeaderWorkerSetStatus{}): {
		"conditions":         "Conditions reported by the controller: `Available` (enough groups are up), `Progressing` (groups are being created or scaled), `UpdateInProgress` (a rolling update is running) and `Failed` (a group used up its `max_group_restarts` budget).",
		"readyReplicas":      "Number of groups that are ready, on the current template or not.",
		"updatedReplicas":    "Number of groups already on the current template, ready or not.",
		"replicas":           "Number of groups that exist, whatever their template or readiness; reported as the current count by the scale subresource.",
		"hpaPodSelector":     "Label selector, in string form, matching the leader pods; the scale subresource publishes it so that an autoscaler knows which pods to measure.",
		"observedGeneration": "The `metadata.generation` the controller last acted on; when it equals `metadata.generation`, the status reflects the latest spec.",
	},
	reflect.TypeOf(metav1.Condition{}): {
		"type":               "Condition name, such as `Available` or `Progressing`.",
		"status":             "`True`, `False` or `Unknown`.",
		"reason":             "Short CamelCase code for the cause of the last status change, meant for tools.",
		"message":            "Human-readable details about the last status change; may be empty.",
		"lastTransitionTime": "When `status` last changed, as an RFC 3339 timestamp.",
		"observedGeneration": "The `metadata.generation` this condition was computed for; a value below the current generation means the condition is out of date.",
	},
}
