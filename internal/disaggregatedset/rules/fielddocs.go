package rules

import (
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// ownFieldDocs are the descriptions of the DisaggregatedSet's own types, and of the released
// LeaderWorkerSet fields whose kubeinfer_leaderworkerset description does not fit a role.
var ownFieldDocs = map[reflect.Type]map[string]string{
	reflect.TypeOf(disaggv1.DisaggregatedSet{}): {
		"spec":   "Desired state: the roles and their LeaderWorkerSet templates.",
		"status": "Current state reported by the DisaggregatedSet controller.",
	},
	reflect.TypeOf(disaggv1.DisaggregatedSetSpec{}): {
		"roles":           "The roles (for example `prefill` and `decode`), each with the template of the LeaderWorkerSet the controller creates for it. A change to any role's `name` or `leader_worker_template` starts a coordinated rolling update of all roles; a change of `replicas` only scales that role; the other fields of a role are copied into its LeaderWorkerSets only when the controller creates them, so their changes reach the running groups with the next rolling update.",
		"slices":          "Number of copies (slices) of the whole set of roles, 1 to 100; each slice has its own LeaderWorkerSet per role (label `disaggregatedset.x-k8s.io/slice`) and rolls out on its own. Changing it adds or deletes whole slices without a rollout; raising it from 1 deletes and recreates slice 0 at once when its LeaderWorkerSets were created by the v0.9.0 controller (without the slice label). Defaults to 1. Must stay 1 while a role is `External`. LeaderWorkerSet v0.10.0 and later.",
		"placementPolicy": "How a slice's roles are co-located and the slices spread over topology domains; the controller adds pod affinity to the LeaderWorkerSets it creates, so a change takes effect at the next rollout. LeaderWorkerSet v0.10.0 and later.",
	},
	reflect.TypeOf(disaggv1.PlacementPolicy{}): {
		"type":     "`None` (the default: no affinity), `ExclusiveSlice` (a slice's roles in one domain, the set's slices in different domains) or `ExclusiveTopology` (as `ExclusiveSlice`, and at most one slice of any DisaggregatedSet per domain).",
		"topology": "Node label key that defines a domain (for example `topology.kubernetes.io/zone`); required unless `type` is `None`. A role may not then carry the LeaderWorkerSet exclusive-topology annotations.",
	},
	reflect.TypeOf(disaggv1.RoleScaling{}): {
		"mode": "`Static` (the default: the role's `replicas`) or `External`: the controller creates a DisaggregatedSetRoleScaler named `<set>-<role>` whose scale subresource an autoscaler (HorizontalPodAutoscaler, KEDA) drives, and ignores the role's `replicas`. The provider then never sends the role's `replicas` and never reports a change of it as drift; switching back to `Static` plans and sends the role's `replicas` again (the configured value, or the default 1), taking it back from whoever changed it. The plan of that switch warns with the change from the groups that run (the role scaler's status), e.g. `4 running groups -> 2: 2 groups of 8 GPUs removed`; removing groups is scaling, not a restart, so `allow_group_restarts = false` lets it through, as it does a lower `replicas`.",
	},
	reflect.TypeOf(disaggv1.DisaggregatedRoleSpec{}): {
		"name":    "Name of the role, unique in the list; it is part of the names of the role's LeaderWorkerSets and Services and the value of their `disaggregatedset.x-k8s.io/role` label.",
		"scaling": "Where the role's replica count comes from; without it, the role's `replicas` (`Static`). LeaderWorkerSet v0.10.0 and later.",
	},
	reflect.TypeOf(releasedlws.LeaderWorkerSetTemplateSpec{}): {
		"metadata": "Metadata of the role's LeaderWorkerSet, copied when the controller creates one (a new revision or slice): a change reaches the running LeaderWorkerSets with the next rolling update.",
		"spec":     "The role's LeaderWorkerSet spec, with every rule of `kubeinfer_leaderworkerset`'s `spec` (fields of newer LeaderWorkerSet releases are not in the v0.9.0 DisaggregatedSet API).",
	},
	reflect.TypeOf(releasedlws.LeaderWorkerSetSpec{}): {
		"startupPolicy": "When the workers of a group are created: `LeaderCreated` as soon as the leader pod exists, `LeaderReady` only once the leader pod is ready. Copied into the role's LeaderWorkerSets when the controller creates them: a change reaches the running groups with the next rolling update.",
		"networkConfig": "Network settings of the groups. Copied into the role's LeaderWorkerSets when the controller creates them: a change reaches the running groups with the next rolling update.",
		"replicas":      "Number of leader-worker groups of the role.",
	},
	reflect.TypeOf(releasedlws.RolloutStrategy{}): {
		"type":                       "Kind of rollout of the role's LeaderWorkerSet.",
		"rollingUpdateConfiguration": "Pace of the DisaggregatedSet's rolling update of a new template: the controller adds the role's new groups and drains its old ones `max_surge` at a time (without surge, `max_unavailable`), every role in one shared number of steps (the most any role needs), and keeps at most `replicas + max_surge` groups of the role. It reads them from the set at each step; the copy in the role's LeaderWorkerSets, made when they are created, is not used, as the controller never changes their template.",
	},
	reflect.TypeOf(releasedlws.RollingUpdateConfiguration{}): {
		"partition": "Not supported by the DisaggregatedSet: leave it at 0.",
	},
	reflect.TypeOf(disaggv1.DisaggregatedSetStatus{}): {
		"observedGeneration": "The `metadata.generation` the controller last acted on (reported by LeaderWorkerSet controllers after v0.10.0).",
		"roleStatuses":       "Progress of each role, in the order of `spec.roles`.",
		"conditions":         "Conditions reported by the controller, such as `Available`, `Progressing` and `Degraded`.",
	},
	reflect.TypeOf(disaggv1.RoleStatus{}): {
		"name":            "Name of the role.",
		"replicas":        "Number of groups of the role that exist.",
		"readyReplicas":   "Number of groups of the role that are ready.",
		"updatedReplicas": "Number of groups of the role on the current revision.",
	},
}

// releasedTypes are the types of the released LeaderWorkerSet API that a role embeds; their
// descriptions are kubeinfer_leaderworkerset's, taken from the type of the same name there.
var releasedTypes = []reflect.Type{
	reflect.TypeOf(releasedlws.LeaderWorkerSetSpec{}),
	reflect.TypeOf(releasedlws.LeaderWorkerTemplate{}),
	reflect.TypeOf(releasedlws.RolloutStrategy{}),
	reflect.TypeOf(releasedlws.RollingUpdateConfiguration{}),
	reflect.TypeOf(releasedlws.SubGroupPolicy{}),
	reflect.TypeOf(releasedlws.NetworkConfig{}),
}

// fieldDocs are the descriptions of every field (k8sschema.Options.FieldDocs) besides the pod
// templates': the DisaggregatedSet's own, and for the embedded LeaderWorkerSet spec those of
// kubeinfer_leaderworkerset, so a field is described the same way on both resources.
func fieldDocs() map[reflect.Type]map[string]string {
	lwsPkg := reflect.TypeOf(lwsv1.LeaderWorkerSet{}).PkgPath()
	byName := map[string]map[string]string{}
	for t, docs := range lwsrules.FieldDocs {
		if t.PkgPath() == lwsPkg {
			byName[t.Name()] = docs
		}
	}
	out := map[reflect.Type]map[string]string{}
	for _, t := range releasedTypes {
		fields := map[string]string{}
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if d, ok := byName[t.Name()][name]; ok {
				fields[name] = d
			}
		}
		out[t] = fields
	}
	for t, docs := range ownFieldDocs {
		if out[t] == nil {
			out[t] = map[string]string{}
		}
		for f, d := range docs {
			out[t][f] = d
		}
	}
	out[reflect.TypeOf(metav1.Condition{})] = lwsrules.FieldDocs[reflect.TypeOf(metav1.Condition{})]
	return out
}
