package disaggregatedset

import (
	"fmt"
	"strings"
)

// Releases of the DisaggregatedSet API the provider knows: ReleasedAPI is the one whose CRD,
// controller and webhook run in the acceptance tests (released profile); NewerAPI is the one
// whose fields the schema has besides (its CRD is generated from internal/apis/disaggregatedset/v1
// for the newer-fields profile).
const (
	ReleasedAPI = "sigs.k8s.io/lws v0.9.0"
	NewerAPI    = "sigs.k8s.io/lws v0.10.0"
)

// NewerField is a field of the DisaggregatedSet API that the v0.9.0 CRD does not declare. Against
// that CRD a server-side apply that carries it fails as a whole ("field not declared in schema"),
// so the provider sends it only when the configuration sets it (planned defaults are never sent).
type NewerField struct {
	Path      string // JSON path without list indices, e.g. "spec.roles.scaling"
	Attribute string // Terraform attribute path
	Feature   string // what it is for
	Since     string // the API that adds it
}

// NewerFields lists the fields newer than ReleasedAPI: v0.10.0 adds spec.slices,
// spec.placementPolicy and spec.roles[].scaling (api/disaggregatedset/v1/disaggregatedset_types.go
// at v0.10.0); upstream main adds status.observedGeneration, which is computed and never sent.
var NewerFields = []NewerField{
	{"spec.slices", "spec.slices", "copies of the whole set of roles", NewerAPI},
	{"spec.placementPolicy", "spec.placement_policy", "topology placement of the slices", NewerAPI},
	{"spec.roles.scaling", "spec.roles[*].scaling", "externally scaled roles (DisaggregatedSetRoleScaler)", NewerAPI},
}

// undeclaredField explains a field the installed CRD does not declare (kube.Kind.UndeclaredField).
func undeclaredField(path string) string {
	for _, f := range NewerFields {
		if path == f.Path || strings.HasPrefix(path, f.Path+".") {
			return fmt.Sprintf("%s (%s) is part of the DisaggregatedSet API of %s: the installed CRD "+
				"(%s or earlier) does not declare it. Install the LeaderWorkerSet %s CRDs and controller, or "+
				"remove %s from the configuration: left out, it is not sent, and the plan shows the default "+
				"the older controller's behaviour matches.",
				f.Attribute, f.Feature, f.Since, ReleasedAPI, strings.TrimPrefix(f.Since, "sigs.k8s.io/lws "), f.Attribute)
		}
	}
	return ""
}

// compatibilityTable is the resource documentation's table of the attributes and the
// DisaggregatedSet releases that have them.
func compatibilityTable() string {
	var b strings.Builder
	b.WriteString("\n\n## Compatibility with LeaderWorkerSet releases\n\n" +
		"The DisaggregatedSet API ships with LeaderWorkerSet v0.9.0 and later. The provider is tested against the CRD, " +
		"controller and webhook of " + ReleasedAPI + ", and against the CRD of " + NewerAPI + " (generated from the " +
		"provider's own types; API server only). Fields a configuration leaves out are never sent (the CRD defaults " +
		"them), so a configuration that sets no v0.10.0 field works on v0.9.0 too. A field the installed CRD does " +
		"not declare fails the apply on that attribute, naming the release that has it.\n\n" +
		"| Attribute | v0.9.0 | v0.10.0 |\n|---|---|---|\n" +
		"| `spec.roles` (`name`, `metadata`, `spec`) | yes | yes |\n")
	for _, f := range NewerFields {
		fmt.Fprintf(&b, "| `%s` (%s) | no | yes |\n", f.Attribute, f.Feature)
	}
	b.WriteString("| `status.role_statuses`, `status.conditions` | declared, not reported | reported by later controllers |\n" +
		"| `status.observed_generation` | no | no (upstream main) |\n")
	b.WriteString("\nOn v0.10.0 the rule that `replicas` is zero for all roles or for none covers only the roles that are " +
		"not `External`, and the webhook also refuses `slices` above 1 while a role is `External`, a " +
		"`placement_policy` other than `None` without `topology`, and a role `rolling_update_configuration` whose " +
		"`max_surge` and `max_unavailable` are both 0. The v0.10.0 controller names a role's LeaderWorkerSets " +
		"`<name>-<slice>-<revision>-<role>`, one per slice: the rollout wait finds them by their labels and waits for " +
		"every slice, but the plan-time name-length checks still count the v0.9.0 names (`<name>-<revision>-<role>`), " +
		"a few characters shorter.\n")
	return b.String()
}
