package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
)

// revisionLength is the length of the revision: the first 8 hex digits of the hash
// (revisionLength, pkg/utils/disaggregatedset/utils.go).
const revisionLength = 8

// ComputeRevision is the revision the DisaggregatedSet controller labels every role's
// LeaderWorkerSets with (disaggregatedset.x-k8s.io/revision) and names them after: a port of
// ComputeRevision (pkg/utils/disaggregatedset/utils.go), which is the same in v0.9.0 and in
// v0.10.0 (2161f38): the SHA-256 of the JSON list of {"name": role name, "template": role
// leaderWorkerTemplate} in the roles' order, its first 8 hex digits. Reconcile
// (pkg/controllers/disaggregatedset/disaggregatedset_controller.go, both versions) hashes the
// spec as the API server stores it: what was applied and the CRD's structural defaults (size,
// restartPolicy, a port's protocol, ...), which the plan fills in the same way (SetDefaults);
// there is no mutating webhook for the kind in either version. Nothing else of the spec is
// hashed: not replicas, scaling, slices, placementPolicy (v0.10.0 injects its affinity into the
// LeaderWorkerSets it creates, after hashing), rolloutStrategy, startupPolicy, networkConfig or
// the role's metadata. The LeaderWorkerTemplate type is the same in both versions, and so its
// JSON (built with k8s.io/api v0.36.2 and v0.36.3, whose JSON tags agree).
func ComputeRevision(roles []disaggv1.DisaggregatedRoleSpec) string {
	type roleTemplate struct {
		Name     string                     `json:"name"`
		Template lwsv1.LeaderWorkerTemplate `json:"template"`
	}
	templates := make([]roleTemplate, len(roles))
	for i := range roles {
		templates[i] = roleTemplate{Name: roles[i].Name, Template: roles[i].Spec.LeaderWorkerTemplate}
	}
	data, err := json.Marshal(templates)
	if err != nil {
		return "" // as the controller: no revision
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:revisionLength]
}
