package rules

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
)

// TestComputeAllStepsAsUpstream: the port plays the sequences of upstream's own
// TestComputeAllSteps_ExactSequence (pkg/controllers/disaggregatedset/planner_test.go, lws 2161f38;
// the same cases in v0.9.0), given as old/new replicas per role after each step.
func TestComputeAllStepsAsUpstream(t *testing.T) {
	surge := func(s ...int) []rollingUpdateConfig {
		out := make([]rollingUpdateConfig, len(s))
		for i := range s {
			out[i].MaxSurge = s[i]
		}
		return out
	}
	cases := []struct {
		name           string
		source, target []int
		config         []rollingUpdateConfig
		want           string
	}{
		{"medium_6_2_surge1", []int{6, 2}, []int{6, 2}, defaultRollingUpdateConfig(2),
			"[6 2]/[0 0] [6 2]/[1 1] [5 2]/[1 1] [5 2]/[2 1] [4 2]/[2 1] [4 2]/[3 1] [3 1]/[3 1] [3 1]/[4 2] [2 1]/[4 2] [2 1]/[5 2] [1 1]/[5 2] [1 1]/[6 2] [0 0]/[6 2]"},
		{"medium_6_2_surge2", []int{6, 2}, []int{6, 2}, surge(2, 2),
			"[6 2]/[0 0] [6 2]/[2 1] [4 2]/[2 1] [4 2]/[4 2] [2 1]/[4 2] [2 1]/[6 2] [0 0]/[6 2]"},
		{"asymmetric_5_3_surge2", []int{5, 3}, []int{5, 3}, surge(2, 2),
			"[5 3]/[0 0] [5 3]/[2 1] [4 2]/[2 1] [3 2]/[2 1] [3 2]/[4 2] [2 1]/[4 2] [2 1]/[5 3] [0 0]/[5 3]"},
		{"mixed_scale_3_5_to_5_3", []int{3, 5}, []int{5, 3}, defaultRollingUpdateConfig(2),
			"[3 5]/[0 0] [3 4]/[0 0] [2 3]/[0 0] [2 3]/[1 1] [2 2]/[1 1] [2 2]/[2 2] [2 2]/[3 2] [1 1]/[3 2] [1 1]/[4 3] [1 1]/[5 3] [0 0]/[5 3]"},
		{"proportional_3_5_to_4_2", []int{3, 5}, []int{4, 2}, defaultRollingUpdateConfig(2),
			"[3 5]/[0 0] [3 4]/[0 0] [2 3]/[0 0] [2 2]/[0 0] [2 2]/[1 1] [2 2]/[2 1] [1 1]/[2 1] [1 1]/[3 2] [1 1]/[4 2] [0 0]/[4 2]"},
		{"fresh_deploy_0_0_to_3_3", []int{0, 0}, []int{3, 3}, defaultRollingUpdateConfig(2),
			"[0 0]/[0 0] [0 0]/[1 1] [0 0]/[2 2] [0 0]/[3 3]"},
	}
	for _, c := range cases {
		var got []string
		for _, s := range computeAllSteps(c.source, c.target, c.config) {
			got = append(got, fmt.Sprintf("%v/%v", s.Past, s.New))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, g, c.want)
		}
	}
}

// TestRolloutPacingSharesOneStepCount is issue 57's example: prefill 8 groups with max_surge 1 and
// decode 2 with max_surge 2. The controller moves both roles by one step count, the most any role
// needs (computeTotalSteps: prefill's 8 / 1 = 8, decode's 2 / 2 = 1), and adds a role's groups at
// ceil(step * target / 8) (computeNextNewReplicas): decode 1 at step 1 and 1 at step 5, not 2 at once.
func TestRolloutPacingSharesOneStepCount(t *testing.T) {
	oldObj := dsfixture.Pair()
	oldObj.Spec.Roles[0].Spec.Replicas, oldObj.Spec.Roles[1].Spec.Replicas = ptr.To[int32](8), ptr.To[int32](2)
	oldObj.Spec.Roles[0].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxSurge: intstr.FromInt32(1)}
	oldObj.Spec.Roles[1].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxSurge: intstr.FromInt32(2)}
	newObj := oldObj.DeepCopy()
	newObj.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.12.0"
	r := PreviewRollout(newObj, oldObj)
	if r.TotalSteps != 8 || r.ScaleUpSteps != 8 {
		t.Errorf("steps: %d total, %d scale-ups; want 8 and 8", r.TotalSteps, r.ScaleUpSteps)
	}
	if got := fmt.Sprint(r.Roles[1].ScaleUps); got != "map[1:1 5:1]" {
		t.Errorf("decode's new groups by step: %s, want 1 at step 1 and 1 at step 5", got)
	}
	msg := r.Message()
	want := "; in 8 steps, one step count shared by every role (the most any role needs: its groups over its max_surge, or " +
		"max_unavailable without surge), new groups: prefill 1 at each of steps 1-8; decode 1 at steps 1 and 5; changed: "
	if !strings.Contains(msg, want) {
		t.Errorf("message:\n%s\nwant it to contain\n%s", msg, want)
	}
	// The same, by slice.
	newObj.Spec.Slices, oldObj.Spec.Slices = ptr.To[int32](2), ptr.To[int32](2)
	if msg := PreviewRollout(newObj, oldObj).Message(); !strings.Contains(msg, "new groups in each slice: prefill 1 at each of steps 1-8; decode 1 at steps 1 and 5") {
		t.Errorf("slices: %s", msg)
	}
}

// TestStepList: how a role's steps are said.
func TestStepList(t *testing.T) {
	for want, steps := range map[string][]int{
		"step 3": {3}, "steps 1 and 5": {1, 5}, "each of steps 1-8": {1, 2, 3, 4, 5, 6, 7, 8},
		"steps 1-3, 5 and 7": {1, 2, 3, 5, 7}, "steps 1, 2 and 4": {1, 2, 4},
	} {
		if got := stepList(steps); got != want {
			t.Errorf("%v: %q, want %q", steps, got, want)
		}
	}
}
