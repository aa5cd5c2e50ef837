package kube

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
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
