package kube

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// warningEvent is a core/v1 Warning event on kind/name last seen at.
func warningEvent(name, kind, obj, message string, at time.Time) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"name": name, "namespace": "default"},
		"involvedObject": map[string]any{"kind": kind, "name": obj, "namespace": "default"},
		"type":           "Warning", "reason": "FailedCreate", "message": message, "count": int64(3),
		"lastTimestamp": at.UTC().Format(time.RFC3339),
	}}
}

const invalidPod = `create Pod vllm-0-1 in StatefulSet vllm-0 failed error: Pod "vllm-0-1" is invalid: metadata.labels: Invalid value: "vllm-0-74fbbc8cf6": must be no more than 63 bytes`

func eventsClient(objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{eventsGVR: "EventList"}, objs...)
}

func concernsVLLM(kind, name string) bool {
	return kind == "StatefulSet" && strings.HasPrefix(name, "vllm")
}

// followVLLM follows the StatefulSets concernsVLLM names, by name only (the wait has read none).
func followVLLM() *FollowedObjects { return NewFollowedObjects(concernsVLLM) }

// A permanent Warning on a followed object ends the wait with it; the wait's own error is not
// returned.
func TestFailOnWarningEventsStopsTheWait(t *testing.T) {
	since := time.Now().Add(-time.Second)
	dyn := eventsClient()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		time.Sleep(500 * time.Millisecond)
		if _, err := dyn.Resource(eventsGVR).Namespace("default").Create(ctx, warningEvent("e1", "StatefulSet", "vllm-0", invalidPod, time.Now()), metav1.CreateOptions{}); err != nil {
			t.Error(err)
		}
	}()
	start := time.Now()
	err := FailOnWarningEvents(ctx, dyn, "default", since, followVLLM(), func(ctx context.Context) error {
		<-ctx.Done()
		return errors.New("timed out")
	})
	var we *WarningEventError
	if !errors.As(err, &we) || !errors.Is(err, ErrPermanentWarning) {
		t.Fatalf("err = %v, want a *WarningEventError", err)
	}
	if we.Name != "vllm-0" || we.Reason != "FailedCreate" || we.Count != 3 || !strings.Contains(err.Error(), "is invalid: metadata.labels") {
		t.Errorf("event %+v, error %q", we, err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s", took)
	}
}

// Events from before the wait, on other objects, or that clear by themselves leave the wait alone.
func TestFailOnWarningEventsIgnoresOthers(t *testing.T) {
	now := time.Now()
	dyn := eventsClient(
		warningEvent("old", "StatefulSet", "vllm-0", invalidPod, now.Add(-time.Hour)),
		warningEvent("other", "StatefulSet", "other-0", invalidPod, now),
		warningEvent("transient", "StatefulSet", "vllm-0", "0/8 nodes are available", now),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	waitErr := errors.New("timed out")
	err := FailOnWarningEvents(ctx, dyn, "default", now.Add(-time.Second), followVLLM(), func(ctx context.Context) error {
		<-ctx.Done()
		return waitErr
	})
	if err != waitErr {
		t.Fatalf("err = %v, want the wait's own", err)
	}
	// A wait that succeeds returns nil, whatever the events.
	dyn = eventsClient(warningEvent("e1", "StatefulSet", "vllm-0", invalidPod, now))
	if err := FailOnWarningEvents(context.Background(), dyn, "default", now.Add(-time.Second), followVLLM(), func(context.Context) error { return nil }); err != nil {
		t.Fatalf("a successful wait: %v", err)
	}
}

// The refusals that do not clear by themselves end the wait; the ones that can are only quoted.
// The messages are the admission plugins' and the controllers' words (Kubernetes v1.37).
func TestPermanentWarningKinds(t *testing.T) {
	for _, tc := range []struct {
		message   string
		permanent bool
	}{
		{invalidPod, true},
		{`create Pod vllm-0 in StatefulSet vllm failed error: pods "vllm-0" is forbidden: no PriorityClass with name does-not-exist was found`, true},
		{`create Pod vllm-0 in StatefulSet vllm failed error: pods "vllm-0" is forbidden: error looking up service account default/runner: serviceaccount "runner" not found`, true},
		{`create Pod vllm-0 in StatefulSet vllm failed error: pods "vllm-0" is forbidden: error looking up service account inference/default: serviceaccount "default" not found`, false},
		{`create Pod vllm-0 in StatefulSet vllm failed error: pods "vllm-0" is forbidden: violates PodSecurity "restricted:latest": privileged (container "vllm" must not set securityContext.privileged=true)`, true},
		{`create Pod vllm-0-1 in StatefulSet vllm-0 failed error: pods "vllm-0-1" is forbidden: exceeded quota: gpus, requested: pods=1, used: pods=1, limited: pods=1`, false},
		{`0/8 nodes are available: 8 Insufficient nvidia.com/gpu. preemption: 0/8 nodes are available: 8 No preemption victims found for incoming pod.`, false},
	} {
		ev := &corev1.Event{Type: corev1.EventTypeWarning, Reason: "FailedCreate", Message: tc.message}
		if got := PermanentWarning(ev); got != tc.permanent {
			t.Errorf("PermanentWarning(%q) = %v, want %v", tc.message, got, tc.permanent)
		}
	}
}

// Every Warning event on a followed object (its pods too) is quoted in the message of a wait
// that does not finish, the latest of each reason, and in its progress as it comes.
func TestFailOnWarningEventsQuotesTheEvents(t *testing.T) {
	now := time.Now()
	quota := warningEvent("q1", "Pod", "vllm-0-1", `pods "vllm-0-1" is forbidden: exceeded quota: gpus, requested: pods=1, used: pods=1, limited: pods=1`, now)
	scheduling := warningEvent("s1", "Pod", "vllm-0", "0/8 nodes are available: 8 Insufficient nvidia.com/gpu.", now)
	scheduling.Object["reason"] = "FailedScheduling"
	olderScheduling := warningEvent("s0", "Pod", "vllm-1", "0/8 nodes are available: an older reason.", now.Add(-500*time.Millisecond))
	olderScheduling.Object["reason"] = "FailedScheduling"
	notAPod := warningEvent("n1", "Pod", "vllm-0-x", "not a pod of a followed StatefulSet", now)
	dyn := eventsClient(quota, scheduling, olderScheduling, notAPod)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var progress []string
	ctx, notes := WithWaitReport(ctx, func(msg string) { progress = append(progress, msg) })
	err := FailOnWarningEvents(ctx, dyn, "default", now.Add(-2*time.Second), followVLLM(), func(ctx context.Context) error {
		<-ctx.Done()
		time.Sleep(100 * time.Millisecond) // the events are read
		return &RolloutUnfinished{What: "the rollout", Reason: "0 of 1 groups ready"}
	})
	var unfinished *RolloutUnfinished
	if !errors.As(err, &unfinished) || errors.Is(err, ErrPermanentWarning) {
		t.Fatalf("err = %v, want the unfinished wait", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"Warning events on the objects the wait follows (the latest of each reason):",
		"Warning FailedCreate on Pod vllm-0-1 (3 times): pods \"vllm-0-1\" is forbidden: exceeded quota",
		"Warning FailedScheduling on Pod vllm-0 (3 times): 0/8 nodes are available: 8 Insufficient",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "an older reason") || strings.Contains(msg, "vllm-0-x") {
		t.Errorf("the message quotes an older event of a reason, or an object not followed:\n%s", msg)
	}
	if len(progress) < 2 {
		t.Errorf("progress %q, want each event quoted", progress)
	}
	if n := notes(); len(n) != 0 {
		t.Errorf("notes %q, want none", n)
	}
}

// A wait whose events cannot be read for want of permission says which permission it lacks and
// what that costs: in its notes (the apply's warnings) and in the message of an unfinished wait.
func TestFailOnWarningEventsForbiddenIsNotSilent(t *testing.T) {
	dyn := eventsClient()
	dyn.PrependReactor("list", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "", errors.New(`User "system:serviceaccount:default:tf-runner" cannot list resource "events"`))
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ctx, notes := WithWaitReport(ctx, nil)
	err := FailOnWarningEvents(ctx, dyn, "inference", time.Now(), followVLLM(), func(ctx context.Context) error {
		<-ctx.Done()
		time.Sleep(100 * time.Millisecond)
		return &RolloutUnfinished{What: "the rollout", Reason: "0 of 1 groups ready"}
	})
	want := `cannot list events in namespace "inference": the provider's credentials lack "list" on "events": the wait cannot end early on a refusal`
	if n := notes(); len(n) != 1 || !strings.Contains(n[0], want) || !strings.Contains(n[0], "Grant list, watch on events") {
		t.Errorf("notes %q, want one that says %q and what to grant", n, want)
	}
	if err == nil || !strings.Contains(err.Error(), "Warning events: "+want) {
		t.Errorf("the unfinished wait's message does not say the events were not read: %v", err)
	}
}
