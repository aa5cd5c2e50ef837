package rules

import (
	"reflect"
	"slices"
	"sync"

	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/footprint"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate"
)

const description = "A LeaderWorkerSet (`leaderworkerset.x-k8s.io/v1`): the multi-host inference workload. Each " +
	"replica is a group of `size` pods, one leader and `size - 1` workers (for example one vLLM server spread over " +
	"several nodes with tensor and pipeline parallelism). Requires the LeaderWorkerSet CRD and controller in the cluster.\n\n" +
	"Validation never contacts the cluster (a plan reads it only to refresh objects in the state and, with the provider's " +
	"`placement_preview` on, to place the groups on its nodes). Every rule the LWS admission webhook applies, and every rule kube-apiserver " +
	"applies to the StatefulSets and Pods the controller creates from the templates (topology spread constraints, " +
	"containers, images, ports, resources, env, volumes and mounts, probes, tolerations, DNS, names) fails at " +
	"`terraform plan` with the attribute path, instead of an apply that succeeds while groups never come up. " +
	"Admission that depends on the cluster's other objects (a PriorityClass or ServiceAccount that must exist, " +
	"PodSecurity, quotas, LimitRanges) is not checked at plan; the Compatibility and limitations guide lists " +
	"what is not.\n\n" +
	"The webhook's and the CRD's defaults are planned by the provider, so the plan shows them, but never sent: the " +
	"apply carries exactly what the configuration sets, and the server and the LWS webhook default the rest. By " +
	"default create and update wait until the rollout is done; see `wait_for_rollout`."

// Names of the LeaderWorkerSet-specific top-level attributes.
const (
	AttrWaitForRollout = "wait_for_rollout"
	AttrManageReplicas = "manage_replicas"
)

// Kind is the offline half of the LeaderWorkerSet kind: schema, defaults, validation, rollout
// preview and footprint.
var Kind = &kindrules.Kind{
	TypeName:            "leaderworkerset",
	GVK:                 lwsv1.GroupVersion.WithKind("LeaderWorkerSet"),
	Resource:            "leaderworkersets",
	Namespaced:          true,
	NewObject:           func() runtime.Object { return &lwsv1.LeaderWorkerSet{} },
	Description:         description + compatibilityTable(),
	UndeclaredField:     undeclaredField,
	ClearServerDefaults: ClearServerDefaults,
	BuildNode:           node,
	Defaults:            defaults,
	Validate: func(obj runtime.Object) field.ErrorList {
		return ValidateAll(kindrules.As[*lwsv1.LeaderWorkerSet](obj))
	},
	CheckConfig:  checkConfig,
	CheckWritten: checkWritten,
	ReplaceOn: func(newObj, oldObj runtime.Object, unknown []*field.Path) []*field.Path {
		oldLWS := kindrules.As[*lwsv1.LeaderWorkerSet](oldObj)
		paths := RequiresReplacement(kindrules.As[*lwsv1.LeaderWorkerSet](newObj), oldLWS)
		for _, p := range UnknownRequiresReplacement(oldLWS, unknown) {
			if !slices.ContainsFunc(paths, func(q *field.Path) bool { return q.String() == p.String() }) {
				paths = append(paths, p)
			}
		}
		return paths
	},
	ValidateUpdate: func(newObj, oldObj runtime.Object) field.ErrorList {
		return ValidateUpdate(kindrules.As[*lwsv1.LeaderWorkerSet](newObj), kindrules.As[*lwsv1.LeaderWorkerSet](oldObj))
	},
	PlanUpdate: planUpdate,
	Extras: map[string]rschema.Attribute{
		AttrWaitForRollout: rschema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
			MarkdownDescription: "Wait after create and update until the rollout is done: the controller has observed the " +
				"new generation, every group is updated and ready, surge groups (`max_surge`) are removed, and the `Available` " +
				"condition is `True`. The wait ends " +
				"at `timeouts.create` / `timeouts.update` (default 20 minutes) with an error that gives the group counts, " +
				"quotes the conditions, names the groups not ready with the scheduler's reason and quotes the Warning events on " +
				"the LeaderWorkerSet, its StatefulSets and its pods (the latest of each reason; `TF_LOG=info` shows them as they " +
				"come). A rollout that did not finish is an error, as with `kubernetes_deployment_v1`'s `wait_for_rollout`, so that a " +
				"pipeline can tell: on a create Terraform then marks the object tainted and the next apply replaces it " +
				"(`terraform untaint` keeps it, and the next plan shows an in-place update that only carries on the wait, as after " +
				"an update that timed out); only an interrupted create is a warning. A refusal that does not clear by itself (a " +
				"`FailedCreate` of an object the API server finds invalid, a missing PriorityClass or ServiceAccount, the " +
				"namespace's Pod Security level) ends the wait at once with an error that quotes the event; one that can clear " +
				"(an exceeded quota, `FailedScheduling`) is quoted and the wait goes on. Reading the events needs `list` and " +
				"`watch` on `events`: without them the provider warns that the wait cannot end early. Defaults to `true`."},
		AttrManageReplicas: rschema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
			MarkdownDescription: "Set to `false` when an autoscaler (HorizontalPodAutoscaler, KEDA) owns `spec.replicas` " +
				"through the scale subresource: the provider then never sends `spec.replicas`, never resets it and never " +
				"reports it as drift; `spec.replicas` shows the live value. Leave `spec.replicas` unset in that case. " +
				"Defaults to `true`."},
		AttrAllowGroupRestarts: AllowGroupRestartsAttribute("groups (a change of `spec.leader_worker_template` or `spec.network_config`)"),
	},
	ExtraDefaults: map[string]tftypes.Value{
		AttrWaitForRollout:     tftypes.NewValue(tftypes.Bool, true),
		AttrManageReplicas:     tftypes.NewValue(tftypes.Bool, true),
		AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, true),
	},
	Derived: map[string]rschema.Attribute{footprint.AttrFootprint: footprintAttribute},
	Derive:  derive,
}

// TemplateDefaults are the LeaderWorkerSet CRD's structural defaults inside pod templates: the
// server writes them into fields the user left unset, so the provider plans them. (The CRD's
// "" defaults of non-pointer names read back as unset and need no entry.) The DisaggregatedSet
// CRD of the same release embeds the same pod templates with the same defaults.
var TemplateDefaults = map[reflect.Type]map[string]any{
	reflect.TypeOf(corev1.ContainerPort{}):         {"protocol": "TCP"},
	reflect.TypeOf(corev1.GRPCAction{}):            {"service": ""},
	reflect.TypeOf(corev1.AzureDiskVolumeSource{}): {"fsType": "ext4", "readOnly": false},
	reflect.TypeOf(corev1.ISCSIVolumeSource{}):     {"iscsiInterface": "default"},
	reflect.TypeOf(corev1.RBDVolumeSource{}):       {"keyring": "/etc/ceph/keyring", "pool": "rbd", "user": "admin"},
	reflect.TypeOf(corev1.ScaleIOVolumeSource{}):   {"fsType": "xfs", "storageMode": "ThinProvisioned"},
	reflect.TypeOf(corev1.FileKeySelector{}):       {"optional": false},
}

// node is the object's schema tree, built once per process.
var node = sync.OnceValue(buildNode)

func buildNode() *k8sschema.Node {
	lwt := "spec.leaderWorkerTemplate."
	ru := "spec.rolloutStrategy.rollingUpdateConfiguration."
	return k8sschema.Build(reflect.TypeOf(lwsv1.LeaderWorkerSet{}), k8sschema.Options{
		Only: map[string][]string{"metadata": {"name", "namespace", "labels", "annotations", "uid", "resourceVersion", "generation"}},
		Modes: map[string]k8sschema.Mode{
			"metadata":                  k8sschema.Required,
			"metadata.name":             k8sschema.Required,
			"metadata.namespace":        k8sschema.OptionalComputed,
			"metadata.uid":              k8sschema.Computed,
			"metadata.resourceVersion":  k8sschema.Computed,
			"metadata.generation":       k8sschema.Computed,
			"spec":                      k8sschema.Required,
			"spec.replicas":             k8sschema.OptionalComputed,
			"spec.startupPolicy":        k8sschema.OptionalComputed,
			"spec.leaderWorkerTemplate": k8sschema.Required,
			lwt + "workerTemplate":      k8sschema.Required,
			lwt + "size":                k8sschema.OptionalComputed,
			lwt + "restartPolicy":       k8sschema.OptionalComputed,
			lwt + "subGroupPolicy.subGroupPolicyType":         k8sschema.OptionalComputed,
			"spec.rolloutStrategy":                            k8sschema.OptionalComputed,
			"spec.rolloutStrategy.type":                       k8sschema.OptionalComputed,
			"spec.rolloutStrategy.rollingUpdateConfiguration": k8sschema.OptionalComputed,
			ru + "partition":                                  k8sschema.OptionalComputed,
			ru + "maxUnavailable":                             k8sschema.OptionalComputed,
			ru + "maxSurge":                                   k8sschema.OptionalComputed,
			"spec.networkConfig":                              k8sschema.OptionalComputed,
			"spec.networkConfig.subdomainPolicy":              k8sschema.OptionalComputed,
			"status":                                          k8sschema.Computed,
		},
		KeysFromPrior: []string{"metadata.annotations", "metadata.labels"},
		// The restart action (restartaction.go) rolls the groups by stamping the templates with
		// its own field manager; the resource neither reports nor removes that stamp.
		ForeignKeys: map[string][]string{
			lwt + "leaderTemplate.metadata.annotations": {RestartedAtAnnotation},
			lwt + "workerTemplate.metadata.annotations": {RestartedAtAnnotation},
		},
		TypeDefaults: TemplateDefaults,
		FieldDocs:    podtemplate.MergeFieldDocs(podtemplate.FieldDocs, FieldDocs),
		Equivalents: map[string]map[string]string{
			lwt + "restartPolicy": {string(lwsv1.DeprecatedDefaultRestartPolicy): string(lwsv1.NoneRestartPolicy)},
		},
		Notes: map[string]string{
			lwt + "size":                                "Defaults to `1`; must be at least 1, and `replicas * size` at most 2147483647.",
			lwt + "restartPolicy":                       "One of `RecreateGroupOnPodRestart` (default), `RecreateGroupAfterStart`, `None`, or the deprecated `Default` (stored as `None`; both read back without drift).",
			lwt + "maxGroupRestarts":                    "At least 0; only with `restart_policy` `RecreateGroupOnPodRestart` or `RecreateGroupAfterStart`. Unset means unlimited.",
			lwt + "subGroupPolicy":                      "Cannot be added or removed after creation: doing so replaces the object.",
			lwt + "subGroupPolicy.subGroupPolicyType":   "One of `LeaderWorker` (default) or `LeaderExcluded`.",
			lwt + "subGroupPolicy.subGroupSize":         "Required when `sub_group_policy` is set; at least 1 and at most `size`. Immutable: a change replaces the object.",
			lwt + "leaderTemplate":                      "Optional: without it the leader uses the worker template. Validated at plan time as the API server validates it: in the LeaderWorkerSet (the CRD's list keys, the webhook) and in the StatefulSet created from it.",
			lwt + "workerTemplate":                      "Required. Validated at plan time as the API server validates it: in the LeaderWorkerSet (the CRD's list keys, the webhook) and in the StatefulSet created from it.",
			lwt + "volumeClaimTemplates":                "Not allowed with `group_identity = \"Hash\"`. A change of a claim's name, access modes, storage class, volume mode or resources replaces the object (the StatefulSets the controller makes from it cannot change them); its other fields change in place.",
			lwt + "leaderTemplate.metadata.annotations": restartedAtNote,
			lwt + "workerTemplate.metadata.annotations": restartedAtNote,
			"spec.startupPolicy":                        "One of `LeaderCreated` (default) or `LeaderReady`.",
			"spec.rolloutStrategy":                      "Defaults to a rolling update with `max_unavailable = \"1\"`, `max_surge = \"0\"` and `partition = 0`.",
			"spec.rolloutStrategy.type":                 "Only `RollingUpdate` (the default).",
			ru + "partition":                            "Defaults to 0; at least 0; must be 0 with `group_identity = \"Hash\"`.",
			ru + "maxUnavailable":                       "Defaults to `\"1\"`. A number or a percentage up to 100%; not 0 when `max_surge` is 0 (after scaling by `replicas`).",
			ru + "maxSurge":                             "Defaults to `\"0\"`. A number or a percentage up to 100%. The surge groups of a rolling update take the indices `replicas` to `replicas + max_surge - 1`, which count in the length limits of `metadata.name`.",
			"spec.networkConfig.subdomainPolicy":        "One of `Shared` (default) or `UniquePerReplica`.",
		},
		Descriptions: map[string]string{
			"metadata":                    "Standard object metadata.",
			"metadata.name":               "Name of the LeaderWorkerSet, a DNS-1035 label (lowercase letters, digits and `-`, starting with a letter). It names the headless Service, the StatefulSets and the pods, so it must leave room for the group and pod indices within 63 characters, the surge groups of a rolling update included (`replicas + max_surge - 1` is the highest group index). Changing it replaces the object.",
			"metadata.namespace":          "Namespace of the LeaderWorkerSet. Defaults to `default`. Changing it replaces the object.",
			"metadata.labels":             "Labels of the LeaderWorkerSet. Labels added by others are not reported as drift.",
			"metadata.annotations":        "Annotations of the LeaderWorkerSet. Annotations added by others are not reported as drift.",
			"metadata.uid":                "Unique identifier assigned by the server.",
			"metadata.resourceVersion":    "Version of the object in the server's storage.",
			"metadata.generation":         "Sequence number of spec changes, set by the server.",
			"spec.replicas":               "Number of leader-worker groups. Defaults to 1. A scale subresource is available for autoscalers; see `manage_replicas`.",
			"spec.groupIdentity":          "How group identities are assigned: `Ordinal` (default; leaders managed by a StatefulSet, groups named -0..-N-1) or `Hash` (leaders managed by a Deployment, hash-suffixed group names). Immutable: a change replaces the object.",
			"spec.groupReplacementPolicy": "When a replacement group may start after a group is deleted: `PostTermination` (default) or `Immediate` (only with `group_identity = \"Hash\"`).",
			"spec.scheduling":             "Workload-aware scheduling (gang scheduling, topology constraints) for this LeaderWorkerSet. Immutable: adding, removing or changing it replaces the object. Needs a cluster whose LWS controller and scheduler support it.",
			"status":                      "Current state reported by the LeaderWorkerSet controller.",
		},
	})
}

// defaults applies the CRD and webhook defaults. A partial rolling update configuration gets
// the CRD defaults of the fields left out, which the Go type cannot tell from an explicit 0.
// An object read from the server (raw null) only gets what it lacks: a restartPolicy "Default"
// the server stored (no webhook rewrote it) stays as the server has it.
func defaults(obj runtime.Object, raw tftypes.Value) {
	lws := kindrules.As[*lwsv1.LeaderWorkerSet](obj)
	if raw.IsNull() {
		stored := lws.Spec.LeaderWorkerTemplate.RestartPolicy
		defer func() {
			if stored != "" {
				lws.Spec.LeaderWorkerTemplate.RestartPolicy = stored
			}
		}()
	}
	if lws.Namespace == "" {
		lws.Namespace = "default"
	}
	if ru := lws.Spec.RolloutStrategy.RollingUpdateConfiguration; ru != nil {
		unset := func(name string) bool {
			v, ok := k8sschema.ValueAt(node(), raw, "spec.rolloutStrategy.rollingUpdateConfiguration."+name)
			return ok && v.IsNull()
		}
		if unset("maxUnavailable") {
			ru.MaxUnavailable = intstr.FromInt32(1)
		}
		if unset("maxSurge") {
			ru.MaxSurge = intstr.FromInt32(0)
		}
	}
	SetDefaults(lws)
}

// RestartedAtAnnotation is the pod template annotation `kubectl rollout restart` sets to the
// current time to roll a Deployment, StatefulSet or DaemonSet (defaultObjectRestarter,
// k8s.io/kubectl v0.37 pkg/polymorphichelpers/objectrestarter.go). On a LeaderWorkerSet's
// templates it changes the revision the controller computes (revisionFields), so the controller
// rolls every group as for any template change, by its rollout strategy.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// restartedAtNote is appended to the templates' annotations descriptions.
const restartedAtNote = "`" + RestartedAtAnnotation + "`, which the `kubeinfer_leaderworkerset_restart` action sets, " +
	"is neither reported as drift nor removed unless declared here."
