package leaderworkerset

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
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// An interrupted rollout wait (Terraform's Stop cancels the context) says it was interrupted,
// not that it timed out, counts as unfinished (so the create is recorded without a taint), and
// makes no request after the interrupt: a timed-out wait lists the pods to name the groups that
// are not ready, an interrupted one must not.
func TestRolloutWaitInterruptMakesNoFurtherRequest(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
		"metadata": map[string]any{"name": "vllm", "namespace": "default", "resourceVersion": "1", "generation": int64(1)},
		"spec":     map[string]any{"replicas": int64(2), "leaderWorkerTemplate": map[string]any{"size": int64(2)}},
	}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		gvr: "LeaderWorkerSetList", {Version: "v1", Resource: "pods"}: "PodList",
	}, u)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := waitForRollout(ctx, dyn, dyn.Resource(gvr).Namespace("default"), u, nil)
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // the wait is watching
	before := len(dyn.Actions())
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not end after the interrupt")
	}
	if err == nil || !strings.Contains(err.Error(), "interrupted while waiting for the rollout") || strings.Contains(err.Error(), "timed out") {
		t.Fatalf("want an interrupt error, got %v", err)
	}
	if !errors.Is(err, kube.ErrWaitUnfinished) {
		t.Errorf("an interrupted wait must count as unfinished (recorded, not tainted): %v", err)
	}
	if after := dyn.Actions()[before:]; len(after) > 0 {
		t.Errorf("requests after the interrupt: %v", after)
	}
}

// A rollout with max_surge is not done while the surge group runs, even though the surge group
// makes updatedReplicas and readyReplicas reach spec.replicas before the last old group is
// replaced; it is done once status.replicas is back to spec.replicas.
func TestRolloutDoneWaitsForSurgeGroupsToGo(t *testing.T) {
	obj := &lwsv1.LeaderWorkerSet{}
	obj.Generation = 2
	obj.Spec.Replicas = ptr.To[int32](4)
	obj.Status = lwsv1.LeaderWorkerSetStatus{
		ObservedGeneration: 2, Replicas: 5, ReadyReplicas: 5, UpdatedReplicas: 5,
		Conditions: []metav1.Condition{{Type: string(lwsv1.LeaderWorkerSetAvailable), Status: metav1.ConditionTrue}},
	}
	if done, reason := RolloutDone(obj); done || !strings.Contains(reason, "1 surge groups not yet removed") {
		t.Fatalf("with a surge group left: done=%v, reason %q", done, reason)
	}
	obj.Status.Replicas, obj.Status.ReadyReplicas, obj.Status.UpdatedReplicas = 4, 4, 4
	if done, reason := RolloutDone(obj); !done {
		t.Fatalf("surge group gone, every group updated and ready: not done: %s", reason)
	}
	// A controller that does not report status.replicas (0) is judged by the other fields.
	obj.Status.Replicas = 0
	if done, reason := RolloutDone(obj); !done {
		t.Fatalf("status.replicas unreported: not done: %s", reason)
	}
}

// When the status says the rollout is done but a group's pod is not Ready (the controller's
// cache lagging behind a pod just replaced), the wait goes on until the pod is Ready.
func TestRolloutWaitConfirmsPodsReady(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	lws := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
		"metadata": map[string]any{"name": "vllm", "namespace": "default", "resourceVersion": "1", "generation": int64(1)},
		"spec":     map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{"size": int64(1)}},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "readyReplicas": int64(1), "updatedReplicas": int64(1),
			"conditions": []any{map[string]any{"type": "Available", "status": "True", "reason": "AllGroupsReady", "message": "", "lastTransitionTime": "2026-12-01T00:00:00Z"}}},
	}}
	pod := func(ready string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "vllm-0", "namespace": "default", "labels": map[string]any{
				"leaderworkerset.sigs.k8s.io/name": "vllm", "leaderworkerset.sigs.k8s.io/group-index": "0"}},
			"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": ready}}},
		}}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		gvr: "LeaderWorkerSetList", podsGVR: "PodList",
	}, lws, pod("False"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	readyAt := make(chan time.Time, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		if _, err := dyn.Resource(podsGVR).Namespace("default").Update(ctx, pod("True"), metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
		readyAt <- time.Now()
	}()
	_, err := waitForRollout(ctx, dyn, dyn.Resource(gvr).Namespace("default"), lws, nil)
	returned := time.Now()
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	select {
	case at := <-readyAt:
		if returned.Before(at) {
			t.Fatalf("the wait returned %v before the pod turned Ready", at.Sub(returned))
		}
	default:
		t.Fatal("the wait returned while the group's pod was not Ready")
	}
}

// Destroy returns only once the StatefulSets and pods of the set are gone.
func TestCleanupWaitsForPodsAndStatefulSets(t *testing.T) {
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	stsGVR := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	labelled := func(apiVersion, kind, name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": apiVersion, "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": "default", "labels": map[string]any{"leaderworkerset.sigs.k8s.io/name": "vllm"}},
		}}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		podsGVR: "PodList", stsGVR: "StatefulSetList",
	}, labelled("v1", "Pod", "vllm-0"), labelled("apps/v1", "StatefulSet", "vllm"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		time.Sleep(500 * time.Millisecond)
		_ = dyn.Resource(podsGVR).Namespace("default").Delete(ctx, "vllm-0", metav1.DeleteOptions{})
		time.Sleep(500 * time.Millisecond)
		_ = dyn.Resource(stsGVR).Namespace("default").Delete(ctx, "vllm", metav1.DeleteOptions{})
	}()
	start := time.Now()
	if err := waitForCleanup(ctx, dyn, "default", "vllm"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < time.Second {
		t.Fatalf("returned after %v, before the StatefulSet was deleted", took)
	}
	// A wait that runs out of time names what remains.
	dyn2 := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		podsGVR: "PodList", stsGVR: "StatefulSetList",
	}, labelled("v1", "Pod", "vllm-0"))
	short, cancel2 := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel2()
	err := waitForCleanup(short, dyn2, "default", "vllm")
	if err == nil || !strings.Contains(err.Error(), "timed out waiting for the cleanup") || !strings.Contains(err.Error(), "vllm-0") {
		t.Fatalf("want a timeout naming the pod, got %v", err)
	}
}
