package rules

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// RolloutState says how far a LeaderWorkerSet's rollout is, as its status tells.
type RolloutState struct {
	Done   bool
	Reason string
	// Summary is Reason without the conditions: one line, for progress messages.
	Summary string
}

// RolloutDone reports whether the controller has finished rolling out obj: it has observed the
// current generation, every group is updated and ready, no surge group is left, and Available is
// True.
func RolloutDone(obj *lwsv1.LeaderWorkerSet) (bool, string) {
	s := RolloutStatus(obj)
	return s.Done, s.Reason
}

// RolloutStatus reads the rollout's progress from obj's status, as the controller reports it.
func RolloutStatus(obj *lwsv1.LeaderWorkerSet) RolloutState {
	want := int32(1)
	if obj.Spec.Replicas != nil {
		want = *obj.Spec.Replicas
	}
	st := obj.Status
	var problems []string
	// status.observedGeneration is reported since LWS v0.9.0; before, the conditions' own
	// observedGeneration is the only sign of which generation the status describes.
	observed := st.ObservedGeneration
	if observed == 0 {
		for _, c := range st.Conditions {
			observed = max(observed, c.ObservedGeneration)
		}
	}
	if observed != 0 && observed < obj.Generation {
		problems = append(problems, fmt.Sprintf("the controller has not observed generation %d yet (observed %d)", obj.Generation, observed))
	}
	if st.UpdatedReplicas < want {
		problems = append(problems, fmt.Sprintf("%d of %d groups updated", st.UpdatedReplicas, want))
	}
	if st.ReadyReplicas < want {
		problems = append(problems, fmt.Sprintf("%d of %d groups ready", st.ReadyReplicas, want))
	}
	// Surge groups (rolling_update_configuration.max_surge) count in updatedReplicas and
	// readyReplicas, so both reach replicas while a surge group still runs; status.replicas is
	// the leader StatefulSet's replica count, surge included (updateStatus in
	// pkg/controllers/leaderworkerset_controller.go, lws v0.9.0). The rollout is over when it is
	// back to spec.replicas, as `kubectl rollout status` waits for old replicas to go.
	if st.Replicas > want {
		problems = append(problems, fmt.Sprintf("%d surge groups not yet removed", st.Replicas-want))
	}
	if want > 0 && !conditionTrue(st.Conditions, string(lwsv1.LeaderWorkerSetAvailable)) {
		problems = append(problems, "condition Available is not True")
	}
	if len(problems) == 0 {
		return RolloutState{Done: true}
	}
	summary := strings.Join(problems, "; ")
	return RolloutState{Reason: summary + conditionSummary(st.Conditions), Summary: summary}
}

func conditionTrue(conds []metav1.Condition, t string) bool {
	for _, c := range conds {
		if c.Type == t {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

func conditionSummary(conds []metav1.Condition) string {
	if len(conds) == 0 {
		return ". The controller has reported no conditions: is the LeaderWorkerSet controller running?"
	}
	var b strings.Builder
	b.WriteString(". Conditions:")
	for _, c := range conds {
		fmt.Fprintf(&b, "\n  %s=%s", c.Type, c.Status)
		if c.Reason != "" {
			fmt.Fprintf(&b, " (%s)", c.Reason)
		}
		if c.Message != "" {
			fmt.Fprintf(&b, ": %s", c.Message)
		}
	}
	return b.String()
}
