package acctest

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodeTrouble(t *testing.T) {
	healthy := corev1.Node{
		Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: GPUTaintKey, Value: "present", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	if got := nodeTrouble(healthy); got != "" {
		t.Errorf("a Ready node with only the GPU taint: got %q, want nothing", got)
	}
	lost := corev1.Node{
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown"},
		}},
	}
	got := nodeTrouble(lost)
	for _, want := range []string{"Ready=Unknown (NodeStatusUnknown", "taint node.kubernetes.io/unreachable:NoSchedule"} {
		if !strings.Contains(got, want) {
			t.Errorf("a lost node: got %q, want it to hold %q", got, want)
		}
	}
}

func TestPodReadyAndConditions(t *testing.T) {
	pod := corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable"},
		{Type: corev1.PodReady, Status: corev1.ConditionFalse},
	}}}
	if PodReady(&pod) {
		t.Error("a pod with Ready=False counts as Ready")
	}
	if got, want := podConditions(pod), "[PodScheduled=False (Unschedulable), Ready=False]"; got != want {
		t.Errorf("podConditions = %q, want %q", got, want)
	}
	if PodReady(&corev1.Pod{}) {
		t.Error("a pod without conditions counts as Ready")
	}
	pod.Status.Conditions[1].Status = corev1.ConditionTrue
	if !PodReady(&pod) {
		t.Error("a pod with Ready=True does not count as Ready")
	}
	pod.DeletionTimestamp = &metav1.Time{}
	if PodReady(&pod) {
		t.Error("a pod being deleted counts as Ready")
	}
}
