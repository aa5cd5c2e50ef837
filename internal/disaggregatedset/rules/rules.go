package rules

import (
	"reflect"
	"sync"

	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/footprint"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate"
)

const description = "A DisaggregatedSet (`disaggregatedset.x-k8s.io/v1`, LeaderWorkerSet v0.9.0; `slices`, `placement_policy` and externally scaled roles need v0.10.0): " +
	"disaggregated serving, where the phases of inference run on separate groups of GPUs (typically `prefill` " +
	"and `decode`). It has 2 to 10 roles; each role is the template of a LeaderWorkerSet that the " +
	"DisaggregatedSet controller creates (named `<name>-<revision>-<role>`), and a change to any role's template " +
	"rolls all roles out together: a new LeaderWorkerSet per role is scaled up while the old ones are scaled down " +
	"in step. Requires the LeaderWorkerSet v0.9.0 (or later) CRDs and controller in the cluster.\n\n" +
	"Validation never contacts the cluster (a plan reads it only to refresh objects in the state and, with the provider's " +
	"`placement_preview` on, to place the groups on its nodes). The CRD's rules (role names, 2 to 10 roles with unique names, replicas " +
	"zero for all roles or for none, slices and enums), the DisaggregatedSet webhook's rules (rolling updates only, no " +
	"`partition`, placement topology, slices with `External` roles) and, for each role, every rule of `kubeinfer_leaderworkerset` (the LeaderWorkerSet webhook, " +
	"and the rules kube-apiserver applies to the StatefulSets and pods created from the templates) fail at " +
	"`terraform plan` on the attribute at fault. One known exception: a role's volume that a claim template of the " +
	"same name shadows is not checked, and the CRD refuses it at apply when it lacks a required field (see the " +
	"limitations in the Compatibility and limitations guide).\n\n" +
	"The CRD's defaults are planned, never sent. By default create and update wait until every role's " +
	"LeaderWorkerSet of the new revision is rolled out and the old revisions are gone; see `wait_for_rollout`. " +
	"Destroy waits until the LeaderWorkerSets and pods of every role are gone."

// AttrWaitForRollout is the DisaggregatedSet-specific top-level attribute.
const AttrWaitForRollout = "wait_for_rollout"

// Kind is the offline half of the DisaggregatedSet kind: schema, defaults, validation (each role
// by the LeaderWorkerSet rules), rollout preview and footprint.
var Kind = &kindrules.Kind{
	TypeName:        "disaggregatedset",
	GVK:             disaggv1.GroupVersion.WithKind("DisaggregatedSet"),
	Resource:        "disaggregatedsets",
	Namespaced:      true,
	NewObject:       func() runtime.Object { return &disaggv1.DisaggregatedSet{} },
	Description:     description + compatibilityTable(),
	UndeclaredField: undeclaredField,
	BuildNode:       node,
	Defaults: func(obj runtime.Object, raw tftypes.Value) {
		SetDefaults(kindrules.As[*disaggv1.DisaggregatedSet](obj), raw)
	},
	Validate: func(obj runtime.Object) field.ErrorList {
		return Validate(kindrules.As[*disaggv1.DisaggregatedSet](obj))
	},
	CheckConfig:  checkConfig,
	CheckWritten: checkWritten,
	PlanUpdate:   planUpdate,
	Extras: map[string]rschema.Attribute{
		AttrWaitForRollout: rschema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
			MarkdownDescription: "Wait after create and update until the rollout of every role is done: for each role, the " +
				"LeaderWorkerSet of the current revision in each slice `0` to `slices - 1` has the role's `replicas` (an `External` role: " +
				"the role scaler's count), every group is updated and ready (pods included) and its `Available` condition is `True`, no " +
				"LeaderWorkerSet of an earlier revision is left, and after `slices` is lowered the removed slices' LeaderWorkerSets are " +
				"gone. The released controllers (v0.9.0 and v0.10.0) write no DisaggregatedSet status, so on both the wait reads the " +
				"LeaderWorkerSets alone; `status.role_statuses` and the `Available`/`Progressing` conditions are checked too when a " +
				"later controller reports them. The wait ends at `timeouts.create` / `timeouts.update` " +
				"(default 20 minutes) with an error that gives each role's progress and quotes the Warning events on the roles' " +
				"LeaderWorkerSets, their StatefulSets and their pods (the latest of each reason). A rollout that did not finish is an error, as with `kubernetes_deployment_v1`'s `wait_for_rollout`, so that a " +
				"pipeline can tell: on a create Terraform then marks the object tainted and the next apply replaces it " +
				"(`terraform untaint` keeps it, and the next plan shows an in-place update that only carries on the wait, as after " +
				"an update that timed out); only an interrupted create is a warning. A refusal that does not clear by itself (a " +
				"`FailedCreate` of an object the API server finds invalid, a missing PriorityClass or ServiceAccount, the " +
				"namespace's Pod Security level) ends the wait at once with an error that quotes the event; one that can clear " +
				"(an exceeded quota, `FailedScheduling`) is quoted and the wait goes on. Reading the events needs `list` and " +
				"`watch` on `events`: without them the provider warns that the wait cannot end early. Defaults to `true`."},
		lwsrules.AttrAllowGroupRestarts: lwsrules.AllowGroupRestartsAttribute("groups (a change of any role's " +
			"`name` or `leader_worker_template` recreates every group of every role, as the controller's revision covers all roles; " +
			"raising `slices` from 1 without such a change recreates slice 0 at once when its LeaderWorkerSets were created by the v0.9.0 " +
			"controller, which the plan cannot tell, so it is refused too. The rule for groups removed: removing groups is scaling, not a " +
			"restart, and passes: a lower `replicas`, fewer `slices`, or an `External` role switched to `Static` below the groups that run, " +
			"each with a warning that counts the groups and GPUs removed. A change of a role's `metadata`, `startup_policy`, `network_config` " +
			"or `rollout_strategy`, or of `placement_policy`, restarts nothing: the controller applies it only to the LeaderWorkerSets it " +
			"creates later, which the plan says in a warning)"),
	},
	ExtraDefaults: map[string]tftypes.Value{
		AttrWaitForRollout:              tftypes.NewValue(tftypes.Bool, true),
		lwsrules.AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, true),
	},
	Derived: map[string]rschema.Attribute{footprint.AttrFootprint: footprintAttribute},
	Derive:  derive,
}

// node is the object's schema tree, built once per process.
var node = sync.OnceValue(buildNode)

func buildNode() *k8sschema.Node {
	role := "spec.roles."
	spec := role + "spec."
	lwt := spec + "leaderWorkerTemplate."
	ru := spec + "rolloutStrategy.rollingUpdateConfiguration."
	return k8sschema.Build(reflect.TypeOf(disaggv1.DisaggregatedSet{}), k8sschema.Options{
		Only: map[string][]string{
			"metadata": {"name", "namespace", "labels", "annotations", "uid", "resourceVersion", "generation"},
			// The controller copies only the labels and annotations of a role's metadata to its
			// LeaderWorkerSet (LeaderWorkerSetManager.Create, pkg/controllers/disaggregatedset/lws_manager.go).
			role + "metadata": {"labels", "annotations"},
		},
		// Defaults declared by the DisaggregatedSet CRD of v0.9.0 (there is no mutating webhook):
		// OptionalComputed, planned by SetDefaults. The CRD declares none for rolloutStrategy,
		// rollingUpdateConfiguration or networkConfig themselves, so those stay Optional.
		Modes: map[string]k8sschema.Mode{
			"metadata":                    k8sschema.Required,
			"metadata.name":               k8sschema.Required,
			"metadata.namespace":          k8sschema.OptionalComputed,
			"metadata.uid":                k8sschema.Computed,
			"metadata.resourceVersion":    k8sschema.Computed,
			"metadata.generation":         k8sschema.Computed,
			"spec":                        k8sschema.Required,
			"spec.roles":                  k8sschema.Required,
			role + "name":                 k8sschema.Required,
			role + "spec":                 k8sschema.Required,
			spec + "replicas":             k8sschema.OptionalComputed,
			spec + "startupPolicy":        k8sschema.OptionalComputed,
			spec + "leaderWorkerTemplate": k8sschema.Required,
			lwt + "workerTemplate":        k8sschema.Required,
			lwt + "size":                  k8sschema.OptionalComputed,
			lwt + "restartPolicy":         k8sschema.OptionalComputed,
			lwt + "subGroupPolicy.subGroupPolicyType": k8sschema.OptionalComputed,
			spec + "rolloutStrategy.type":             k8sschema.OptionalComputed,
			ru + "partition":                          k8sschema.OptionalComputed,
			ru + "maxUnavailable":                     k8sschema.OptionalComputed,
			ru + "maxSurge":                           k8sschema.OptionalComputed,
			spec + "networkConfig.subdomainPolicy":    k8sschema.Required,
			"status":                                  k8sschema.Computed,

			// Defaults of the fields v0.10.0 adds (Slices 1, PlacementPolicy.Type None, RoleScaling.Mode Static).
			"spec.slices": k8sschema.OptionalComputed, "spec.placementPolicy.type": k8sschema.OptionalComputed,
			role + "scaling.mode": k8sschema.OptionalComputed,
		},
		KeysFromPrior: []string{"metadata.annotations", "metadata.labels"},
		TypeDefaults:  lwsrules.TemplateDefaults,
		FieldDocs:     podtemplate.MergeFieldDocs(podtemplate.FieldDocs, fieldDocs()),
		Notes: map[string]string{
			"spec.roles":           "2 to 10 roles with unique names. Either every role has `replicas = 0` or none has.",
			role + "name":          "1 to 63 lowercase letters, digits and `-`, starting and ending with a letter or digit. It becomes part of the LeaderWorkerSet's name (`<name>-<revision>-<role>`), which must stay within the limits of `kubeinfer_leaderworkerset`'s name.",
			spec + "replicas":      "Defaults to 1. Zero for all roles or for none (on v0.10.0, of the roles that are not `External`). For an `External` role it may not be set (a plan-time error), is not sent and never drifts: the refresh records the groups that run (the role scaler's `status.replicas`: the groups the controller counts over the role's LeaderWorkerSets of every revision; not its `spec.replicas`, what the autoscaler asks for), which the footprint, the rollout warning and a switch back to `Static` count; see `scaling`.",
			spec + "startupPolicy": "One of `LeaderCreated` (default) or `LeaderReady`.",
			lwt + "size":           "Defaults to `1`; must be at least 1, and `replicas * size` at most 2147483647.",
			lwt + "restartPolicy":  "One of `RecreateGroupOnPodRestart` (default), `RecreateGroupAfterStart`, `None`, or the deprecated `Default`.",
			lwt + "subGroupPolicy.subGroupPolicyType": "One of `LeaderWorker` (default) or `LeaderExcluded`.",
			lwt + "subGroupPolicy.subGroupSize":       "Required when `sub_group_policy` is set; at least 1 and at most `size`.",
			lwt + "leaderTemplate":                    "Optional: without it the leader uses the worker template. Validated at plan time as the API server validates it: in the LeaderWorkerSet (the CRD's list keys, the webhook) and in the StatefulSet created from it.",
			lwt + "workerTemplate":                    "Required. Validated at plan time as the API server validates it: in the LeaderWorkerSet (the CRD's list keys, the webhook) and in the StatefulSet created from it. The controller adds the labels `app`, `disaggregatedset.x-k8s.io/name`, `disaggregatedset.x-k8s.io/role` and `disaggregatedset.x-k8s.io/revision` to the pods, which Services and routers can select: v0.9.0 sets `app = \"<name>-<role>\"`; v0.10.0 sets `app = \"<name>-<slice>-<role>\"` (`<name>-0-<role>` with one slice) and the label `disaggregatedset.x-k8s.io/slice`. Pods created by v0.9.0 keep their `app` under v0.10.0 until the next template change (or, with `slices` raised, slice 0's recreation), so a selector meant for both releases and every slice selects `disaggregatedset.x-k8s.io/name` and `disaggregatedset.x-k8s.io/role` rather than `app`.",
			spec + "rolloutStrategy.type":             "Only `RollingUpdate` (the default when `rollout_strategy` is set).",
			ru + "partition":                          "Defaults to 0; must stay 0: the DisaggregatedSet rolls out across roles itself.",
			ru + "maxUnavailable":                     "Defaults to `\"1\"` when `rolling_update_configuration` is set. A number or a percentage up to 100%; not 0 when `max_surge` is 0.",
			ru + "maxSurge":                           "Defaults to `\"0\"` when `rolling_update_configuration` is set. A number or a percentage up to 100%.",
			spec + "networkConfig.subdomainPolicy":    "One of `Shared` or `UniquePerReplica`; required when `network_config` is set.",
		},
		Descriptions: map[string]string{
			"metadata":                    "Standard object metadata.",
			"metadata.name":               "Name of the DisaggregatedSet, a DNS subdomain. It starts the names of the LeaderWorkerSets (`<name>-<revision>-<role>`), so it must start with a letter and leave room for the revision, the role names and the group and pod indices within 63 characters. Changing it replaces the object.",
			"metadata.namespace":          "Namespace of the DisaggregatedSet and of its LeaderWorkerSets. Defaults to `default`. Changing it replaces the object.",
			"metadata.labels":             "Labels of the DisaggregatedSet. Labels added by others are not reported as drift.",
			"metadata.annotations":        "Annotations of the DisaggregatedSet. Annotations added by others are not reported as drift.",
			"metadata.uid":                "Unique identifier assigned by the server.",
			"metadata.resourceVersion":    "Version of the object in the server's storage.",
			"metadata.generation":         "Sequence number of spec changes, set by the server.",
			role + "metadata":             "Labels and annotations of the LeaderWorkerSet created for this role.",
			role + "metadata.labels":      "Labels of the role's LeaderWorkerSet; the controller adds `app` (`<name>-<role>` on v0.9.0, `<name>-<slice>-<role>` on v0.10.0), `disaggregatedset.x-k8s.io/name`, `disaggregatedset.x-k8s.io/role`, `disaggregatedset.x-k8s.io/revision` and, on v0.10.0, `disaggregatedset.x-k8s.io/slice`, which win over a label of the same key. The controller copies these labels only when it creates the LeaderWorkerSet (a new revision or slice): a change waits for the next template change.",
			role + "metadata.annotations": "Annotations of the role's LeaderWorkerSet.",
			"status":                      "Current state reported by the DisaggregatedSet controller. The released controllers, v0.9.0 and v0.10.0, write none, so it stays empty and the rollout wait reads the role LeaderWorkerSets; v0.10.0 reports an `External` role's groups on its role scaler (`kubeinfer_disaggregatedset_role_scaler`), and the state records them in the role's `replicas`.",
		},
	})
}
