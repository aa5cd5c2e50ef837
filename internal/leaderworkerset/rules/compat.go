package rules

import (
	"fmt"
	"reflect"
	"strings"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// ReleasedAPI names the LeaderWorkerSet release whose CRD, controller and webhooks run in every
// acceptance run (make test).
const ReleasedAPI = "sigs.k8s.io/lws v0.9.0"

// NewestRelease is the newest LeaderWorkerSet release. Its LeaderWorkerSet spec is v0.9.0's (its
// CRD, config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml at the release commit
// 2161f38, declares none of NewerFields); the acceptance tests of this kind also pass against its
// controller and webhooks in an opt-in run (tools/testcluster/ensure-lws-v010.sh).
const NewestRelease = "sigs.k8s.io/lws v0.10.0"

// NewerField is a field of the LeaderWorkerSet API this provider supports that no released CRD
// declares yet. Against a released CRD a server-side apply that carries it fails as a whole
// ("field not declared in schema"), so the provider sends it only when the configuration sets it.
type NewerField struct {
	Path      string // JSON path, e.g. "spec.groupIdentity"
	Attribute string // Terraform attribute path
	Feature   string // what it is for
}

// NewerFields lists the fields newer than ReleasedAPI. Every other field of the resource is in
// the released API (v0.8.0 and v0.9.0 have the same spec; v0.9.0 adds status.observedGeneration).
var NewerFields = []NewerField{
	{"spec.scheduling", "spec.scheduling", "workload-aware (gang and topology-aware) scheduling"},
	{"spec.groupIdentity", "spec.group_identity", "ordinal or hash-named groups"},
	{"spec.groupReplacementPolicy", "spec.group_replacement_policy", "when a failed group is replaced"},
	{"spec.leaderWorkerTemplate.maxGroupRestarts", "spec.leader_worker_template.max_group_restarts", "a bound on group restarts"},
}

// undeclaredField explains a field the installed CRD does not declare (kube.Kind.UndeclaredField).
func undeclaredField(path string) string {
	if IsNewerCoreField(reflect.TypeFor[lwsv1.LeaderWorkerSet](), path) {
		return NewerCoreFieldDetail
	}
	for _, f := range NewerFields {
		if path == f.Path || strings.HasPrefix(path, f.Path+".") {
			return fmt.Sprintf("%s (%s) is part of the newer LeaderWorkerSet API: no released LeaderWorkerSet up to %s "+
				"declares it. Install a LeaderWorkerSet CRD (and controller) that has %s, or remove %s from the "+
				"configuration: left out, it is not sent and stays null in plan and state (the server's default).",
				f.Attribute, f.Feature, NewestRelease, f.Path, f.Attribute)
		}
	}
	return ""
}

// compatibilityTable is the resource documentation's table of the fields and the LWS API that
// has them.
func compatibilityTable() string {
	var b strings.Builder
	b.WriteString("\n\n## Compatibility with LeaderWorkerSet releases\n\n" +
		"The provider is tested against the CRD, controller and webhooks of " + ReleasedAPI + " in every test run, and " +
		"against those of " + NewestRelease + " in an opt-in run; both releases have the same LeaderWorkerSet spec. Fields a configuration " +
		"leaves out are never sent (the server and the LWS webhook default them), so a configuration that sets no newer " +
		"field works on any release that has the fields it sets. A field the installed CRD does not declare fails the " +
		"apply on that attribute, naming the API that has it.\n\n" +
		"| Attribute | LeaderWorkerSet API that has it |\n|---|---|\n" +
		"| `spec.replicas`, `spec.startup_policy`, `spec.rollout_strategy`, `spec.network_config`, " +
		"`spec.leader_worker_template` (`size`, `leader_template`, `worker_template`, `restart_policy`, `sub_group_policy`, " +
		"`volume_claim_templates`, `persistent_volume_claim_retention_policy`) | the supported releases v0.9.0 and v0.10.0 " +
		"(and v0.8.0, which is not supported) |\n" +
		"| `status.observed_generation` | v0.9.0 and v0.10.0 |\n")
	for _, f := range NewerFields {
		fmt.Fprintf(&b, "| `%s` | newer API, not in any release up to %s (%s) |\n", f.Attribute, NewestRelease, f.Feature)
	}
	return b.String()
}
