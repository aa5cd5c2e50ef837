package rules

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// TestRoleNamesHaveNoSurgeGroups: a role's LeaderWorkerSet never has the surge groups of a
// LeaderWorkerSet's rolling update. The DisaggregatedSet controller creates one LeaderWorkerSet
// per revision and then only scales it (LeaderWorkerSetManager.Create and Scale,
// pkg/controllers/disaggregatedset/lws_manager.go, sigs.k8s.io/lws v0.9.0 and v0.10.0): its
// revision never changes, so the LeaderWorkerSet controller never rolls it; and the role's own
// rollout scales the new revision's LeaderWorkerSet up to the role's replicas, never beyond
// (computeNextNewReplicas, planner.go, v0.9.0 and v0.10.0), the old one down from its own. The role's
// max_surge is the role rollout's, not group indices: with replicas 10, groups of 2 pods and
// max_surge = 1, a role LeaderWorkerSet name of 50 characters is fine, where a
// kubeinfer_leaderworkerset of that name and spec is warned about its surge group 10.
func TestRoleNamesHaveNoSurgeGroups(t *testing.T) {
	for _, n := range []int{34, 35, 36, 37} { // role LeaderWorkerSet names of 50 to 53 characters
		ds := &disaggv1.DisaggregatedSet{}
		ds.Namespace = "default"
		ds.Name = "s" + strings.Repeat("n", n-1)
		r := dsfixture.Role("decode", 10, "vllm/vllm-openai:v0.11.0")
		r.Spec.LeaderWorkerTemplate.Size = ptr.To[int32](2)
		r.Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{
			MaxUnavailable: intstr.FromInt32(1), MaxSurge: intstr.FromInt32(1)}
		ds.Spec.Roles = []disaggv1.DisaggregatedRoleSpec{r}
		SetDefaults(ds, k8sschema.NullValue(node()))
		lws, err := RoleLeaderWorkerSet(ds, 0)
		if err != nil {
			t.Fatal(err)
		}
		lwsrules.SetDefaults(lws)
		if len(lws.Name) != n+16 {
			t.Fatalf("role LeaderWorkerSet %q: %d characters, want %d", lws.Name, len(lws.Name), n+16)
		}
		// The same name and spec as a LeaderWorkerSet of its own: one verdict more severe for its
		// surge group 10 (ok -> warn at 50, warn -> error at 52).
		want, asLWS := map[int]string{34: "ok", 35: "warn", 36: "warn", 37: "error"}[n], "ok"
		if len(lwsrules.RuntimeNameWarnings(lws)) > 0 {
			asLWS = "warn"
		}
		for _, e := range lwsrules.ValidateAll(lws) {
			if e.Field == "metadata.name" {
				asLWS = "error"
			}
		}
		got := "ok" // in v0.9.0's form (v0.10.0's adds "-0": warned on its own, TestRoleNameLimitsV010)
		if len(roleNameWarnings(ds, 0, false)) > 0 {
			got = "warn"
		}
		for _, e := range validateRoleLeaderWorkerSetAs(ds, 0, false) {
			if e.Field == "metadata.name" {
				got = "error"
			}
		}
		if got != want {
			t.Errorf("role LeaderWorkerSet of %d characters: %s, want %s (no surge group)", len(lws.Name), got, want)
		}
		if wantLWS := map[int]string{34: "warn", 35: "warn", 36: "error", 37: "error"}[n]; asLWS != wantLWS {
			t.Errorf("as a LeaderWorkerSet of its own, %d characters: %s, want %s (surge group 10)", len(lws.Name), asLWS, wantLWS)
		}
	}
}
