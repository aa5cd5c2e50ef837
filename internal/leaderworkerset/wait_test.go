package leaderworkerset

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

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
