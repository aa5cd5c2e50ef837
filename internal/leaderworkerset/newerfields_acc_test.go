package leaderworkerset_test

import (
	"context"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// Tests of the fields newer than the released LeaderWorkerSet API run on the NewerFields
// profile of the test cluster: the API server with the CRD generated from
// internal/apis/leaderworkerset/v1 and this fake controller reporting status.

// newerFieldsCluster is the cluster whose LeaderWorkerSet CRD declares the fields newer than the
// released API. No LWS controller runs there: startFakeController reports status instead.
func newerFieldsCluster(t *testing.T) *acctest.TestCluster {
	t.Helper()
	return acctest.ClusterWith(t, acctest.NewerFields)
}

// newerFieldsClient is the LeaderWorkerSet client of newerFieldsCluster, with the fake
// controller running.
func newerFieldsClient(t *testing.T) dynamic.ResourceInterface {
	t.Helper()
	c := newerFieldsCluster(t).Dynamic().Resource(leaderworkerset.Kind.GVR()).Namespace("default")
	startFakeController(c)
	return c
}

var (
	controllerOnce sync.Once
	// stuck names LeaderWorkerSets whose groups the fake controller never reports ready.
	stuck sync.Map
)

// startFakeController plays the LWS controller for the whole test binary: it reports every
// group of every LeaderWorkerSet ready through the status subresource once it sees a new
// generation, as the real controller does when pods come up.
func startFakeController(c dynamic.ResourceInterface) {
	controllerOnce.Do(func() {
		go func() {
			for {
				time.Sleep(150 * time.Millisecond)
				list, err := c.List(context.Background(), metav1.ListOptions{})
				if err != nil {
					continue
				}
				for _, u := range list.Items {
					if _, ok := stuck.Load(u.GetName()); ok {
						continue
					}
					observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
					replicas, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
					ready, _, _ := unstructured.NestedInt64(u.Object, "status", "readyReplicas")
					if observed == u.GetGeneration() && ready == replicas {
						continue
					}
					_ = setStatus(c, u.GetName(), replicas, true)
				}
			}
		}()
	})
}

// setStatus plays the LWS controller: it writes the status through the status subresource.
func setStatus(c dynamic.ResourceInterface, name string, ready int64, available bool) error {
	u, err := c.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	cond := "False"
	if available {
		cond = "True"
	}
	replicas, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	status := map[string]any{
		"observedGeneration": u.GetGeneration(),
		"replicas":           replicas,
		"readyReplicas":      ready,
		"updatedReplicas":    replicas,
		"hpaPodSelector":     "leaderworkerset.sigs.k8s.io/name=" + name + ",leaderworkerset.sigs.k8s.io/worker-index=0",
		"conditions": []any{map[string]any{
			"type": "Available", "status": cond, "reason": "AllGroupsReady", "message": "All replicas are ready",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}},
	}
	u.Object["status"] = status
	_, err = c.UpdateStatus(context.Background(), u, metav1.UpdateOptions{})
	return err
}
