package rules

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// TestPendingFields: a change of a role field that LeaderWorkerSetManager.Create alone copies
// (pkg/controllers/disaggregatedset/lws_manager.go, lws v0.9.0 and 2161f38), or of the
// placement policy, makes no revision: the plan says it waits for the next rollout, names the
// field, and the guard lets it through. With a template change in the same apply it comes with
// the rollout, and nothing more is said.
func TestPendingFields(t *testing.T) {
	deny := map[string]tftypes.Value{lwsrules.AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, false)}
	shared := releasedlws.SubdomainShared
	cases := []struct {
		name    string
		edit    func(*disaggv1.DisaggregatedSet)
		changed string
	}{
		{"role label", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Roles[0].Labels = map[string]string{"team": "a"} },
			`spec.roles[0].metadata.labels["team"]`},
		{"exclusive-topology annotation on the role", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Annotations = map[string]string{"leaderworkerset.sigs.k8s.io/exclusive-topology": "zone"}
		}, `spec.roles[1].metadata.annotations["leaderworkerset.sigs.k8s.io/exclusive-topology"]`},
		{"startup policy", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Spec.StartupPolicy = releasedlws.LeaderReadyStartupPolicy
		}, "spec.roles[1].spec.startup_policy"},
		{"network config", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.NetworkConfig = &releasedlws.NetworkConfig{SubdomainPolicy: &shared}
		}, "spec.roles[0].spec.network_config"},
		{"rollout strategy", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxSurge: intstr.FromInt32(2)}
		}, "spec.roles[0].spec.rollout_strategy.rolling_update_configuration"},
		{"placement policy", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{Type: disaggv1.PlacementExclusiveSlice, Topology: "rack"}
		}, "spec.placement_policy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			newObj := dsfixture.Pair()
			c.edit(newObj)
			if r := PreviewRollout(newObj, dsfixture.Pair()); len(r.Changed) != 0 {
				t.Fatalf("a new revision: %v", r.Changed)
			}
			w, errs := planUpdate(newObj, dsfixture.Pair(), deny, nil)
			if len(errs) != 0 || len(w) != 1 {
				t.Fatalf("guarded plan: warnings %v, errors %v; want one warning and no error", w, errs)
			}
			for _, want := range []string{"No group restarts", "only scales the LeaderWorkerSets that run",
				"until the next change of a role's name or leader_worker_template", "changed: " + c.changed} {
				if !strings.Contains(w[0].Detail, want) {
					t.Errorf("warning lacks %q:\n%s", want, w[0].Detail)
				}
			}
			if strings.Contains(w[0].Detail, "paces") != (c.name == "rollout strategy") {
				t.Errorf("rollout pacing said or not said wrongly:\n%s", w[0].Detail)
			}
			// The same change with a template change rolls every role, which carries it.
			newObj.Spec.Roles[0].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "x"
			w, _ = planUpdate(newObj, dsfixture.Pair(), nil, nil)
			if len(w) != 1 || !strings.HasPrefix(w[0].Detail, "Rolling update of EVERY role") {
				t.Errorf("with a new revision: %v", w)
			}
		})
	}
	// Slices added in the same apply are created with the change.
	newObj := dsfixture.Pair()
	newObj.Spec.Slices = ptr.To[int32](3)
	newObj.Spec.Roles[1].Spec.StartupPolicy = releasedlws.LeaderReadyStartupPolicy
	w, _ := planUpdate(newObj, dsfixture.Pair(), nil, nil)
	var pending string
	for _, x := range w {
		if strings.Contains(x.Summary, "waits for the next rollout") {
			pending = x.Detail
		}
	}
	if !strings.Contains(pending, "; slices 1-2 added by this apply get them now") {
		t.Errorf("slices added: %q", pending)
	}
}
