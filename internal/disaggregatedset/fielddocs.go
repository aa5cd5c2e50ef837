package disaggregatedset

import (
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	disaggv1 "sigs.k8s.io/lws/api/disaggregatedset/v1"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// ownFieldDocs are the descriptions of the DisaggregatedSet's own types, and of the released
// LeaderWorkerSet fields whose kubeinfer_leaderworkerset description does not fit a role.
var ownFieldDocs = map[reflect.Type]map[string]string{
	reflect.TypeOf(disaggv1.DisaggregatedSet{}): {
		"spec":   "Desired state: the roles and their LeaderWorkerSet templates.",
		"status": "Current state reported by the DisaggregatedSet controller.",
	},
	reflect.TypeOf(disaggv1.DisaggregatedSetSpec{}): {
		"roles": "The roles (for example `prefill` and `decode`), each with the template of the LeaderWorkerSet the controller creates for it. A change to any role's `leader_worker_template` starts a coordinated rolling update of all roles; a change of `replicas` only scales that role.",
	},
	reflect.TypeOf(disaggv1.DisaggregatedRoleSpec{}): {
		"name": "Name of the role, unique in the list; it is part of the names of the role's LeaderWorkerSets and Services and the value of their `disaggregatedset.x-k8s.io/role` label.",
	},
	reflect.TypeOf(releasedlws.LeaderWorkerSetTemplateSpec{}): {
		"metadata": "Metadata of the role's LeaderWorkerSet.",
		"spec":     "The role's LeaderWorkerSet spec, with every rule of `kubeinfer_leaderworkerset`'s `spec` (fields of newer LeaderWorkerSet releases are not in the v0.9.0 DisaggregatedSet API).",
	},
	reflect.TypeOf(releasedlws.LeaderWorkerSetSpec{}): {
		"startupPolicy": "When the workers of a group are created: `LeaderCreated` as soon as the leader pod exists, `LeaderReady` only once the leader pod is ready.",
		"replicas":      "Number of leader-worker groups of the role.",
	},
	reflect.TypeOf(releasedlws.RolloutStrategy{}): {
		"type":                       "Kind of rollout of the role's LeaderWorkerSet.",
		"rollingUpdateConfiguration": "Pace of the role's LeaderWorkerSet during its own rolling updates: `max_unavailable` and `max_surge`. The DisaggregatedSet rolls a new template out by creating a new LeaderWorkerSet per role, so these mostly matter for changes made to the LeaderWorkerSets directly.",
	},
	reflect.TypeOf(releasedlws.RollingUpdateConfiguration{}): {
		"partition": "Not supported by the DisaggregatedSet: leave it at 0.",
	},
	reflect.TypeOf(disaggv1.DisaggregatedSetStatus{}): {
		"roleStatuses": "Progress of each role, in the order of `spec.roles`.",
		"conditions":   "Conditions reported by the controller, such as `Available`, `Progressing` and `Degraded`.",
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
	for t, docs := range leaderworkerset.FieldDocs {
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
	out[reflect.TypeOf(metav1.Condition{})] = leaderworkerset.FieldDocs[reflect.TypeOf(metav1.Condition{})]
	return out
}
