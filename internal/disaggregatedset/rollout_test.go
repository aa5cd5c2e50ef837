package disaggregatedset

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// TestRevisionRule: what changes the v0.9.0 revision (ComputeRevision) and so rolls every role.
func TestRevisionRule(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*disaggv1.DisaggregatedSet)
		rolls bool
		field string
	}{
		{"nothing", func(*disaggv1.DisaggregatedSet) {}, false, ""},
		{"one role's image", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.12.0"
		}, true, "spec.roles[1].spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].image"},
		{"size", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.LeaderWorkerTemplate.Size = ptr.To[int32](4)
		}, true,
			"spec.roles[0].spec.leaderWorkerTemplate.size"},
		{"template label", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.LeaderWorkerTemplate.WorkerTemplate.Labels = map[string]string{"a": "b"}
		}, true, "spec.roles[0].spec.leaderWorkerTemplate.workerTemplate.metadata.labels[a]"},
		{"role name", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Roles[0].Name = "prefill2" }, true, "spec.roles[0].name"},
		{"replicas", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Roles[0].Spec.Replicas = ptr.To[int32](6) }, false, ""},
		{"rollout strategy", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxSurge: intstr.FromInt32(2)}
		}, false, ""},
		{"role metadata", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Roles[0].Labels = map[string]string{"a": "b"} }, false, ""},
		{"object label", func(ds *disaggv1.DisaggregatedSet) { ds.Labels = map[string]string{"a": "b"} }, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			newObj := pair()
			c.edit(newObj)
			r := PreviewRollout(newObj, pair())
			if rolls := len(r.Changed) > 0; rolls != c.rolls {
				t.Fatalf("rolls = %v, want %v (%v)", rolls, c.rolls, r.Changed)
			}
			if c.field != "" && r.Changed[0].String() != c.field {
				t.Errorf("changed = %v, want %s first", r.Changed, c.field)
			}
		})
	}
}

func TestRolloutMessageAndGuard(t *testing.T) {
	newObj := pair()
	newObj.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.12.0"
	newObj.Spec.Roles[1].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{
		MaxUnavailable: intstr.FromInt32(2), MaxSurge: intstr.FromInt32(0)}
	want := "Rolling update of EVERY role: default/llama moves to a new revision, so ALL 2 roles (prefill, decode) are recreated, " +
		"including roles whose template did not change: the controller creates a new LeaderWorkerSet for each role and scales " +
		"the old ones down in step, until all 6 groups (prefill 2, decode 4) are replaced; groups per step: prefill 1, decode 2; " +
		"changed: spec.roles[1].spec.leader_worker_template.worker_template.spec.containers[0].image"
	if got := PreviewRollout(newObj, pair()).Message(); got != want {
		t.Errorf("got\n  %s\nwant\n  %s", got, want)
	}
	deny := map[string]tftypes.Value{leaderworkerset.AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, false)}
	if w, errs := planUpdate(newObj, pair(), nil, nil); len(w) != 1 || len(errs) != 0 || w[0].Detail != want {
		t.Errorf("allowed: %v, %v", w, errs)
	}
	w, errs := planUpdate(newObj, pair(), deny, nil)
	if len(w) != 0 || len(errs) != 1 || errs[0].Field != "spec.roles[1].spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].image" ||
		!strings.Contains(errs[0].Detail, "recreates every group of EVERY role") {
		t.Errorf("guarded: %v, %v", w, errs)
	}
	if w, errs := planUpdate(newObj, pair(), deny, []*field.Path{field.NewPath("spec", "roles")}); len(w)+len(errs) != 0 {
		t.Errorf("unknown roles: %v, %v", w, errs)
	}
	scaled := pair()
	scaled.Spec.Roles[0].Spec.Replicas = ptr.To[int32](3)
	if w, errs := planUpdate(scaled, pair(), deny, nil); len(w)+len(errs) != 0 {
		t.Errorf("scale: %v, %v", w, errs)
	}
}
