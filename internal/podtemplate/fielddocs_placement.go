package podtemplate

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// placementDocs describe scheduling (affinity, topology spread), label selectors, the embedded
// metadata of templates and volume claims (spec, status, retention policy).
var placementDocs = map[reflect.Type]map[string]string{
	reflect.TypeOf(metav1.ObjectMeta{}): {
		"annotations": "Annotations for each pod or claim created from this template.",
		"finalizers":  "Finalizers for each pod or claim created. Forbidden in an ephemeral `volume_claim_template`.",
		"labels":      "Labels for each pod or claim created from this template.",
		"name":        "Required in `volume_claim_templates`: the name `volume_mounts` use. Ignored for pods, forbidden in ephemeral templates.",
		"namespace":   "Ignored: pods and claims go to the LeaderWorkerSet's namespace. Forbidden in an ephemeral `volume_claim_template`.",
	},
	reflect.TypeOf(metav1.LabelSelector{}): {
		"matchExpressions": "Set-based requirements; all must match, as must `match_labels`.",
		"matchLabels":      "Exact label values; all must match, as must `match_expressions`.",
	},
	reflect.TypeOf(metav1.LabelSelectorRequirement{}): {
		"key":      "Label key the requirement tests.",
		"operator": "One of `In`, `NotIn`, `Exists`, `DoesNotExist`.",
		"values":   "Label values: non-empty for `In`/`NotIn`, empty for `Exists`/`DoesNotExist`.",
	},
	reflect.TypeOf(corev1.Affinity{}): {
		"nodeAffinity":    "Constraints on which nodes the pod may run, by node labels.",
		"podAffinity":     "Rules placing the pod in the same topology domain as matching pods.",
		"podAntiAffinity": "Rules keeping the pod away from topology domains running matching pods.",
	},
	reflect.TypeOf(corev1.NodeAffinity{}): {
		"preferredDuringSchedulingIgnoredDuringExecution": "Soft node preferences: nodes with the highest total `weight` of matching terms win.",
		"requiredDuringSchedulingIgnoredDuringExecution":  "Hard node requirement, checked only when the pod is scheduled.",
	},
	reflect.TypeOf(corev1.NodeSelector{}): {
		"nodeSelectorTerms": "Required, at least one; a node qualifies if it matches any term.",
	},
	reflect.TypeOf(corev1.NodeSelectorTerm{}): {
		"matchExpressions": "Requirements on node labels; all must hold.",
		"matchFields":      "Requirements on node fields: only `metadata.name`, with `In` or `NotIn`.",
	},
	reflect.TypeOf(corev1.NodeSelectorRequirement{}): {
		"key":      "Node label key (`metadata.name` in `match_fields`).",
		"operator": "One of `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt` (only `In`/`NotIn` in `match_fields`).",
		"values":   "Non-empty for `In`/`NotIn` (one value in `match_fields`), empty for `Exists`/`DoesNotExist`, one integer for `Gt`/`Lt`.",
	},
	reflect.TypeOf(corev1.PreferredSchedulingTerm{}): {
		"preference": "Node selector term that earns the `weight`.",
		"weight":     "Score for nodes matching `preference`, 1 to 100.",
	},
	reflect.TypeOf(corev1.PodAffinity{}): {
		"preferredDuringSchedulingIgnoredDuringExecution": "Soft co-location: nodes are ranked by the summed `weight` of the terms they satisfy.",
		"requiredDuringSchedulingIgnoredDuringExecution":  "Hard co-location rules, checked at scheduling; every term must hold.",
	},
	reflect.TypeOf(corev1.PodAntiAffinity{}): {
		"preferredDuringSchedulingIgnoredDuringExecution": "Soft separation: the `weight` of each term a node violates counts against it.",
		"requiredDuringSchedulingIgnoredDuringExecution":  "Hard separation rules, checked at scheduling; every term must hold.",
	},
	reflect.TypeOf(corev1.WeightedPodAffinityTerm{}): {
		"podAffinityTerm": "Term that earns the `weight`.",
		"weight":          "Weight of the term, 1 to 100.",
	},
	reflect.TypeOf(corev1.PodAffinityTerm{}): {
		"labelSelector":     "Selects the other pods the term refers to; unset matches none.",
		"matchLabelKeys":    "Label keys copied from this pod into `label_selector` as `key in (value)`; needs `label_selector`, keys not in it.",
		"mismatchLabelKeys": "Label keys copied from this pod into `label_selector` as `key notin (value)`; needs `label_selector`, keys not in it.",
		"namespaceSelector": "Namespaces whose pods count, besides `namespaces`; `{}` selects all. Neither set: the pod's own namespace.",
		"namespaces":        "Namespace names whose pods count, besides `namespace_selector`. Neither set: the pod's own namespace.",
		"topologyKey":       "Node label defining the domain, e.g. `kubernetes.io/hostname` or `topology.kubernetes.io/zone`. Required.",
	},
	reflect.TypeOf(corev1.EvictionResponder{}): {
		"name":     "Required, unique domain-prefixed key such as `acme.io/foo`; `*.k8s.io` and `*.kubernetes.io` are reserved.",
		"priority": "Required, 0-100000; highest tried first, 0-999 reserved for `*.k8s.io`. The pod's managing controller should use 10000.",
	},
	reflect.TypeOf(corev1.TopologySpreadConstraint{}): {
		"labelSelector":      "Selects the pods counted in each domain, typically this template's pods. Without it no pods are counted.",
		"matchLabelKeys":     "Pod label keys whose values on the incoming pod are ANDed into `label_selector`; absent keys are ignored. Needs `label_selector`; each must be a valid label key not already in it.",
		"maxSkew":            "Largest allowed difference in matching pods between a domain and the emptiest eligible one. Required, 1 or more. With `ScheduleAnyway` it only ranks nodes.",
		"minDomains":         "Minimum eligible domains: while fewer exist, the global minimum counts as 0, so a domain gets at most `max_skew` pods. 1 or more; only with `when_unsatisfiable = \"DoNotSchedule\"`. Unset acts as 1.",
		"nodeAffinityPolicy": "`Honor` (default) counts only nodes matching the pod's `node_selector` and node affinity when computing skew; `Ignore` counts all nodes.",
		"nodeTaintsPolicy":   "`Ignore` (default) counts all nodes when computing skew; `Honor` leaves out tainted nodes the pod does not tolerate.",
		"topologyKey":        "Node label key whose values form the domains, e.g. `topology.kubernetes.io/zone` or `kubernetes.io/hostname`. Required; each `topology_key` + `when_unsatisfiable` pair only once.",
		"whenUnsatisfiable":  "Required: `DoNotSchedule` keeps the pod pending if every node would exceed `max_skew`; `ScheduleAnyway` places it, preferring nodes that reduce skew.",
	},
	reflect.TypeOf(corev1.PersistentVolumeClaim{}): {
		"metadata": "Claim metadata; `name` is required and is the volume name for `volume_mounts`.",
		"spec":     "Requested volume: access modes, size, storage class.",
		"status":   "Reported by the server; leave unset in a template.",
	},
	reflect.TypeOf(corev1.PersistentVolumeClaimSpec{}): {
		"accessModes":               "At least one of `ReadWriteOnce`, `ReadOnlyMany`, `ReadWriteMany`, `ReadWriteOncePod` (the last only alone).",
		"dataSource":                "Populate the volume from a `VolumeSnapshot` or PVC. Must equal `data_source_ref` if both are set.",
		"dataSourceRef":             "Populate the volume from a PVC or any object a volume populator handles; supersedes `data_source`.",
		"resources":                 "Storage size of the claim.",
		"selector":                  "Restricts binding to existing volumes with matching labels.",
		"storageClassName":          "StorageClass to provision from; unset uses the cluster default (if any), `\"\"` means no class.",
		"volumeAttributesClassName": "VolumeAttributesClass whose parameters the CSI driver applies to the volume.",
		"volumeMode":                "`Filesystem` (default) or `Block` (a raw device for `volume_devices`).",
		"volumeName":                "Existing PersistentVolume to bind to.",
	},
	reflect.TypeOf(corev1.TypedLocalObjectReference{}): {
		"apiGroup": "API group, e.g. `snapshot.storage.k8s.io`; empty only for a `PersistentVolumeClaim`.",
		"kind":     "Kind, e.g. `VolumeSnapshot` or `PersistentVolumeClaim`. Required.",
		"name":     "Name of the source object. Required.",
	},
	reflect.TypeOf(corev1.TypedObjectReference{}): {
		"apiGroup":  "API group, e.g. `snapshot.storage.k8s.io`; empty only for a `PersistentVolumeClaim`.",
		"kind":      "Kind, e.g. `VolumeSnapshot` or `PersistentVolumeClaim`. Required.",
		"name":      "Name of the source object. Required.",
		"namespace": "Namespace of the source, for a cross-namespace copy: needs a `ReferenceGrant` there and an alpha feature gate.",
	},
	reflect.TypeOf(corev1.VolumeResourceRequirements{}): {
		"limits":   "Maximum resources, as quantities, e.g. `storage = \"100Gi\"`.",
		"requests": "Minimum resources: `storage` is required and positive, e.g. `storage = \"16Gi\"`.",
	},
	reflect.TypeOf(appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}): {
		"whenDeleted": "When the LeaderWorkerSet's StatefulSets are deleted: `Retain` (default) keeps the claims, `Delete` removes them.",
		"whenScaled":  "On scale-down: `Retain` (default) keeps the claims of removed pods, `Delete` removes them.",
	},
	reflect.TypeOf(corev1.PersistentVolumeClaimStatus{}): {
		"accessModes":                      "Access modes of the bound volume.",
		"allocatedResourceStatuses":        "Resize progress per resource, e.g. `ControllerResizeInProgress`.",
		"allocatedResources":               "Resources allocated to the claim, including pending expansions.",
		"capacity":                         "Actual size of the bound volume.",
		"conditions":                       "Claim conditions, e.g. a resize in progress.",
		"currentVolumeAttributesClassName": "VolumeAttributesClass in effect.",
		"healthStatus":                     "Volume health reported by the CSI driver.",
		"modifyVolumeStatus":               "Progress of a VolumeAttributesClass change.",
		"phase":                            "`Pending`, `Bound` or `Lost`.",
	},
	reflect.TypeOf(corev1.PersistentVolumeClaimCondition{}): {
		"lastProbeTime":      "Time of the last check.",
		"lastTransitionTime": "Time of the last status change.",
		"message":            "Human-readable detail.",
		"reason":             "Machine-readable cause of the last change.",
		"status":             "`True`, `False` or `Unknown`.",
		"type":               "Condition type, e.g. `Resizing`.",
	},
	reflect.TypeOf(corev1.VolumeHealthStatus{}): {
		"healthConditions":   "Problems reported by the CSI driver, at most 16; empty when healthy.",
		"lastTransitionTime": "Time the present set of problems was first reported.",
	},
	reflect.TypeOf(corev1.VolumeHealthCondition{}): {
		"message": "Human-readable detail, up to 1024 bytes.",
		"reason":  "CamelCase cause, up to 256 bytes.",
		"status":  "`Inaccessible`, `DataLoss` or `Degraded`.",
	},
	reflect.TypeOf(corev1.ModifyVolumeStatus{}): {
		"status":                          "`Pending`, `InProgress` or `Infeasible`.",
		"targetVolumeAttributesClassName": "VolumeAttributesClass being applied.",
	},
}
