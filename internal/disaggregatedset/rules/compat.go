package rules

import (
	"fmt"
	"reflect"
	"strings"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
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
	if lwsrules.IsNewerCoreField(reflect.TypeFor[disaggv1.DisaggregatedSet](), path) {
		return lwsrules.NewerCoreFieldDetail
	}
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
		"Tested against the CRD, controller and webhook of v0.9.0 in every test run, the CRD of v0.10.0 (generated from the " +
		"provider's types), and v0.10.0's controller and webhook in an opt-in run. Fields left out are never " +
		"sent, so a configuration without v0.10.0 fields works on v0.9.0; one the installed CRD lacks fails the apply " +
		"on its attribute.\n\n" +
		"| Attribute | v0.9.0 | v0.10.0 |\n|---|---|---|\n")
	for _, f := range NewerFields {
		fmt.Fprintf(&b, "| `%s` | no | yes |\n", f.Attribute)
	}
	b.WriteString("\nv0.10.0 names a role's LeaderWorkerSets `<name>-<slice>-<revision>-<role>`, v0.9.0 `<name>-<revision>-<role>`. " +
		"The plan checks the names of a set that uses a v0.10.0 field in v0.10.0's form (highest slice); " +
		"other sets in v0.9.0's form, with a warning on `metadata.name` when v0.10.0's would be too long.\n\n" +
		"Neither v0.9.0 nor v0.10.0 writes the DisaggregatedSet's `status`: it stays empty, and the rollout wait reads the " +
		"role LeaderWorkerSets on both (v0.10.0 writes the status of the role scalers only). Both name the revision the same " +
		"way (a hash of every role's name and `leader_worker_template`), which the rollout warning gives.\n")
	return b.String()
}
