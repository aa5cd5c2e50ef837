package kube

import (
	"strings"
	"testing"
)

// An action's wait error closes with the action's advice, never the resource's (no state was
// written and there is no next plan to carry the wait on).
func TestRolloutUnfinishedAdvice(t *testing.T) {
	resource := (&RolloutUnfinished{What: "the rollout", Reason: "1/2 groups ready"}).Error()
	if !strings.Contains(resource, "Raise timeouts.create / timeouts.update") || !strings.Contains(resource, "recorded in the state") {
		t.Errorf("the resource's wait error lacks its advice:\n%s", resource)
	}
	action := (&RolloutUnfinished{What: "the restarted groups", Reason: "1/2 groups ready", Detail: "group 1: 0/2 pods ready",
		Advice: "Raise the action's timeouts.invoke to wait longer."}).Error()
	want := "timed out waiting for the restarted groups: 1/2 groups ready.\ngroup 1: 0/2 pods ready\n\nRaise the action's timeouts.invoke to wait longer."
	if action != want {
		t.Errorf("action's wait error:\n%s\nwant:\n%s", action, want)
	}
}
