package leaderworkerset

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/lwswait"
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
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
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

// When the status says the rollout is done but a group's pod is not Ready (the controller's
// cache lagging behind a pod just replaced), the wait goes on until the pod is Ready.
func TestRolloutWaitConfirmsPodsReady(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	lws := rolledOutLWS(1, 1)
	pod := func(ready string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "vllm-0", "namespace": "default", "labels": map[string]any{
				"leaderworkerset.sigs.k8s.io/name": "vllm", "leaderworkerset.sigs.k8s.io/group-index": "0"}},
			"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": ready}}},
		}}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
		gvr: "LeaderWorkerSetList", podsGVR: "PodList",
	}, lws, pod("False"))
	waitHoldsUntil(t, dyn, gvr, lws, pod("True"), "the group's pod turned Ready")
}

// rolledOutLWS is a LeaderWorkerSet "vllm" of one group of size pods at generation, whose
// status says the rollout is done.
func rolledOutLWS(generation, size int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
		"metadata": map[string]any{"name": "vllm", "namespace": "default", "resourceVersion": "1", "generation": generation},
		"spec":     map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{"size": size}},
		"status": map[string]any{"observedGeneration": generation, "replicas": int64(1), "readyReplicas": int64(1), "updatedReplicas": int64(1),
			"conditions": []any{map[string]any{"type": "Available", "status": "True", "reason": "AllGroupsReady", "message": "", "lastTransitionTime": "2026-12-01T00:00:00Z"}}},
	}}
}

// waitHoldsUntil runs the rollout wait of lws and, 1.5 s into it, writes the change (a pod or a
// StatefulSet) to the cluster; the wait must return without error, and only after the change (what).
func waitHoldsUntil(t *testing.T, dyn *dynamicfake.FakeDynamicClient, gvr schema.GroupVersionResource, lws, change *unstructured.Unstructured, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	changedAt := make(chan time.Time, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		changed := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
		if change.GetKind() == "StatefulSet" {
			changed = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
		}
		if _, err := dyn.Resource(changed).Namespace("default").Update(ctx, change, metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
		changedAt <- time.Now()
	}()
	_, err := waitForRollout(ctx, dyn, dyn.Resource(gvr).Namespace("default"), lws, nil)
	returned := time.Now()
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	select {
	case at := <-changedAt:
		if returned.Before(at) {
			t.Fatalf("the wait returned %v before %s", at.Sub(returned), what)
		}
	default:
		t.Fatalf("the wait returned before %s", what)
	}
}

// When the status says the rollout is done and every pod is Ready, but a group's worker still
// runs the former template revision (the worker StatefulSet has the new revision and has not
// replaced its pod yet), the wait goes on until the worker runs the leader's revision.
func TestRolloutWaitConfirmsOneRevisionPerGroup(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	lws := rolledOutLWS(2, 2)
	pod := func(name, revision string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": name, "namespace": "default", "labels": map[string]any{
				"leaderworkerset.sigs.k8s.io/name": "vllm", "leaderworkerset.sigs.k8s.io/group-index": "0",
				"leaderworkerset.sigs.k8s.io/template-revision-hash": revision}},
			"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
		}}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
		gvr: "LeaderWorkerSetList", podsGVR: "PodList",
	}, lws, pod("vllm-0", "new"), pod("vllm-0-1", "old"))
	if got := lwswait.NotReadyGroups(context.Background(), dyn, lws); !strings.Contains(got, "group 0: 2 pods ready, of 2 template revisions") {
		t.Errorf("NotReadyGroups = %q, want group 0 named as still being replaced", got)
	}
	waitHoldsUntil(t, dyn, gvr, lws, pod("vllm-0-1", "new"), "the group's worker ran the new revision")
}

// When the status says the rollout is done and every pod is Ready and of one revision, but the
// pods are not yet what the rollout leaves, the wait goes on: a group's worker StatefulSet still
// belongs to a former leader pod (the group was just recreated and the garbage collector has not
// deleted the former StatefulSet and its worker yet), or a group runs another template revision
// than the one the controller labels the leader StatefulSet with.
func TestRolloutWaitConfirmsCurrentGroups(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	stsGVR := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	owner := func(kind, name, uid string) []any {
		return []any{map[string]any{"apiVersion": "v1", "kind": kind, "name": name, "uid": uid, "controller": true}}
	}
	labels := func(revision string, more ...string) map[string]any {
		l := map[string]any{"leaderworkerset.sigs.k8s.io/name": "vllm", "leaderworkerset.sigs.k8s.io/template-revision-hash": revision}
		for i := 0; i+1 < len(more); i += 2 {
			l[more[i]] = more[i+1]
		}
		return l
	}
	pod := func(name, uid, workerIndex, revision string, ownedBy []any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": name, "namespace": "default", "uid": uid, "ownerReferences": ownedBy,
				"labels": labels(revision, "leaderworkerset.sigs.k8s.io/group-index", "0", "leaderworkerset.sigs.k8s.io/worker-index", workerIndex)},
			"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
		}}
	}
	set := func(name, uid, revision string, ownedBy []any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "StatefulSet",
			"metadata": map[string]any{"name": name, "namespace": "default", "uid": uid, "ownerReferences": ownedBy, "labels": labels(revision)},
		}}
	}
	// observed is s with metadata.generation and status.observedGeneration set.
	observed := func(s *unstructured.Unstructured, generation, observedGeneration int64) *unstructured.Unstructured {
		s = s.DeepCopy()
		s.SetGeneration(generation)
		s.Object["status"] = map[string]any{"observedGeneration": observedGeneration}
		return s
	}
	leaders := set("vllm", "leaders", "a", owner("LeaderWorkerSet", "vllm", "lws"))
	// withTemplate is the leader StatefulSet s with the pod template annotations and the
	// StatefulSet controller's update revision.
	withTemplate := func(s *unstructured.Unstructured, annotations map[string]any, update string) *unstructured.Unstructured {
		s = s.DeepCopy()
		s.Object["spec"] = map[string]any{"template": map[string]any{"metadata": map[string]any{"annotations": annotations}}}
		s.Object["status"] = map[string]any{"updateRevision": update}
		return s
	}
	// stsRevision is the pod p of the StatefulSet revision rev.
	stsRevision := func(p *unstructured.Unstructured, rev string) *unstructured.Unstructured {
		p = p.DeepCopy()
		l := p.GetLabels()
		l["controller-revision-hash"] = rev
		p.SetLabels(l)
		return p
	}
	const exclusive = "leaderworkerset.sigs.k8s.io/exclusive-topology"
	zone := map[string]any{exclusive: "topology.kubernetes.io/zone"}
	for _, tc := range []struct {
		name        string
		size        int64
		annotations map[string]any // of the LeaderWorkerSet
		objects     []runtime.Object
		want        string
		change      *unstructured.Unstructured
		what        string
	}{{
		// A change of an annotation the controller copies into the pod templates makes no new
		// revision and leaves the status as it was: the LWS controller has not acted on it yet.
		name: "copied annotation not in the leader template", size: 1, annotations: zone,
		objects: []runtime.Object{withTemplate(leaders, nil, "sts-1"),
			stsRevision(pod("vllm-0", "leader-1", "0", "a", owner("StatefulSet", "vllm", "leaders")), "sts-1")},
		want:   "pods ready, but the leader StatefulSet's pod template does not carry the set's " + exclusive + " annotation yet",
		change: withTemplate(leaders, zone, "sts-1"),
		what:   "the LWS controller copied the annotation into the leader StatefulSet's template",
	}, {
		// It has, but the StatefulSet controller has not replaced the leader pod yet.
		name: "leader pod of a former StatefulSet revision", size: 1, annotations: zone,
		objects: []runtime.Object{withTemplate(leaders, zone, "sts-2"),
			stsRevision(pod("vllm-0", "leader-1", "0", "a", owner("StatefulSet", "vllm", "leaders")), "sts-1")},
		want:   "group 0: pods ready, but leader pod vllm-0 is not of the leader StatefulSet's update revision sts-2: the StatefulSet controller has not replaced it yet",
		change: stsRevision(pod("vllm-0", "leader-2", "0", "a", owner("StatefulSet", "vllm", "leaders")), "sts-2"),
		what:   "the StatefulSet controller replaced the leader pod",
	}, {
		name: "worker of a former leader",
		size: 2,
		objects: []runtime.Object{leaders, pod("vllm-0", "leader-2", "0", "a", owner("StatefulSet", "vllm", "leaders")),
			pod("vllm-0-1", "worker-1", "1", "a", owner("StatefulSet", "vllm-0", "workers-1")),
			set("vllm-0", "workers-1", "a", owner("Pod", "vllm-0", "leader-1"))},
		want:   "group 0: pods ready, but its worker StatefulSet belongs to a former leader pod: the group is being recreated",
		change: set("vllm-0", "workers-1", "a", owner("Pod", "vllm-0", "leader-2")),
		what:   "the worker StatefulSet was the current leader's",
	}, {
		name:    "former revision",
		size:    1,
		objects: []runtime.Object{leaders, pod("vllm-0", "leader-1", "0", "b", owner("StatefulSet", "vllm", "leaders"))},
		want:    "group 0: pods ready, but pod vllm-0 runs template revision b, not the set's a: the update has not replaced it yet",
		change:  pod("vllm-0", "leader-1", "0", "a", owner("StatefulSet", "vllm", "leaders")),
		what:    "the group ran the set's revision",
	}, {
		name:    "leader StatefulSet not observed",
		size:    1,
		objects: []runtime.Object{observed(leaders, 3, 2), pod("vllm-0", "leader-1", "0", "a", owner("StatefulSet", "vllm", "leaders"))},
		want:    "pods ready, but the leader StatefulSet's latest spec is not acted on yet",
		change:  observed(leaders, 3, 3),
		what:    "the StatefulSet controller acted on the leader StatefulSet's spec",
	}, {
		name: "worker StatefulSet not observed",
		size: 2,
		objects: []runtime.Object{leaders, pod("vllm-0", "leader-1", "0", "a", owner("StatefulSet", "vllm", "leaders")),
			pod("vllm-0-1", "worker-1", "1", "a", owner("StatefulSet", "vllm-0", "workers-1")),
			observed(set("vllm-0", "workers-1", "a", owner("Pod", "vllm-0", "leader-1")), 2, 1)},
		want:   "group 0: pods ready, but its worker StatefulSet's latest spec is not acted on yet",
		change: observed(set("vllm-0", "workers-1", "a", owner("Pod", "vllm-0", "leader-1")), 2, 2),
		what:   "the StatefulSet controller acted on the worker StatefulSet's spec",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			lws := rolledOutLWS(2, tc.size)
			if tc.annotations != nil {
				_ = unstructured.SetNestedMap(lws.Object, tc.annotations, "metadata", "annotations")
			}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
				gvr: "LeaderWorkerSetList", podsGVR: "PodList", stsGVR: "StatefulSetList",
			}, append([]runtime.Object{lws}, tc.objects...)...)
			if got := lwswait.NotReadyGroups(context.Background(), dyn, lws); !strings.Contains(got, tc.want) {
				t.Errorf("NotReadyGroups = %q, want %q", got, tc.want)
			}
			waitHoldsUntil(t, dyn, gvr, lws, tc.change, tc.what)
		})
	}
}

// The StatefulSet controller can begin replacing a pod between the wait's list of the pods and
// its list of the StatefulSets (which then look observed): the wait lists the pods once more and
// goes on while one of them is terminating, until its successor is Ready.
func TestRolloutWaitSeesAReplacementBetweenItsLists(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	stsGVR := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	pod := func(uid string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "vllm-0", "namespace": "default", "uid": uid,
				"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "vllm", "uid": "leaders", "controller": true}},
				"labels": map[string]any{"leaderworkerset.sigs.k8s.io/name": "vllm", "leaderworkerset.sigs.k8s.io/group-index": "0",
					"leaderworkerset.sigs.k8s.io/worker-index": "0", "leaderworkerset.sigs.k8s.io/template-revision-hash": "a"}},
			"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
		}}
	}
	leaders := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "StatefulSet",
		"metadata": map[string]any{"name": "vllm", "namespace": "default", "uid": "leaders", "generation": int64(2),
			"labels": map[string]any{"leaderworkerset.sigs.k8s.io/name": "vllm", "leaderworkerset.sigs.k8s.io/template-revision-hash": "a"}},
		"status": map[string]any{"observedGeneration": int64(2)},
	}}
	lws := rolledOutLWS(2, 1)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
		gvr: "LeaderWorkerSetList", podsGVR: "PodList", stsGVR: "StatefulSetList",
	}, lws, leaders, pod("leader-1"))
	// The first list of the StatefulSets comes as the StatefulSet controller deletes the pod.
	var once atomic.Bool
	dyn.PrependReactor("list", "statefulsets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if once.CompareAndSwap(false, true) {
			terminating := pod("leader-1")
			terminating.SetDeletionTimestamp(&metav1.Time{Time: time.Now()})
			if err := dyn.Tracker().Update(podsGVR, terminating, "default"); err != nil {
				t.Error(err)
			}
		}
		return false, nil, nil
	})
	if got := lwswait.NotReadyGroups(context.Background(), dyn, lws); !strings.Contains(got, "pods ready, but pod vllm-0 is being replaced") {
		t.Errorf("NotReadyGroups = %q, want the replaced pod named", got)
	}
	waitHoldsUntil(t, dyn, gvr, lws, pod("leader-2"), "the replacement pod was Ready")
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
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
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
	dyn2 := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
		podsGVR: "PodList", stsGVR: "StatefulSetList",
	}, labelled("v1", "Pod", "vllm-0"))
	short, cancel2 := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel2()
	err := waitForCleanup(short, dyn2, "default", "vllm")
	if err == nil || !strings.Contains(err.Error(), "timed out waiting for the cleanup") || !strings.Contains(err.Error(), "vllm-0") {
		t.Fatalf("want a timeout naming the pod, got %v", err)
	}
}

// forceClosed is what net/http's HTTP/2 client returns for every request still in flight on a
// connection it closed after a failed write: the error a destroy failed on under a proxy that
// resets connections (issue 25, C).
var forceClosed = &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api/v1/namespaces/default/pods",
	Err: errors.New("http2: client connection force closed via ClientConn.Close")}

// failFirst makes the first n requests of verb on resource fail with err.
func failFirst(dyn *dynamicfake.FakeDynamicClient, verb, resource string, n int32, err error) *atomic.Int32 {
	var calls atomic.Int32
	dyn.PrependReactor(verb, resource, func(k8stesting.Action) (bool, runtime.Object, error) {
		if calls.Add(1) <= n {
			return true, nil, err
		}
		return false, nil, nil
	})
	return &calls
}

// The wait after a DELETE lists the set's pods and StatefulSets; a list whose connection is
// lost is listed again, and the destroy succeeds.
func TestCleanupRetriesTransientListErrors(t *testing.T) {
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	stsGVR := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
		podsGVR: "PodList", stsGVR: "StatefulSetList",
	})
	podLists := failFirst(dyn, "list", "pods", 2, forceClosed)
	stsLists := failFirst(dyn, "list", "statefulsets", 1, forceClosed)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := waitForCleanup(ctx, dyn, "default", "vllm"); err != nil {
		t.Fatalf("waitForCleanup: %v", err)
	}
	if podLists.Load() != 3 || stsLists.Load() != 2 {
		t.Fatalf("want 3 pod lists and 2 StatefulSet lists, got %d and %d", podLists.Load(), stsLists.Load())
	}
	// An error that would repeat (forbidden) ends the wait at once, with the server's message.
	dyn2 := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
		podsGVR: "PodList", stsGVR: "StatefulSetList",
	})
	failFirst(dyn2, "list", "pods", 100, apierrors.NewForbidden(podsGVR.GroupResource(), "", errors.New("cannot list pods")))
	err := waitForCleanup(ctx, dyn2, "default", "vllm")
	if !apierrors.IsForbidden(err) || ctx.Err() != nil {
		t.Fatalf("want the forbidden error at once, got %v", err)
	}
}

// The rollout wait's reads outlive lost connections: the watch, the GET after it closes, and
// the pod list that confirms the status.
func TestRolloutWaitRetriesTransientErrors(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	lws := func(ready int64) *unstructured.Unstructured {
		available := "False"
		if ready == 1 {
			available = "True"
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
			"metadata": map[string]any{"name": "vllm", "namespace": "default", "resourceVersion": "1", "generation": int64(1)},
			"spec":     map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{"size": int64(1)}},
			"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "readyReplicas": ready, "updatedReplicas": ready,
				"conditions": []any{map[string]any{"type": "Available", "status": available, "reason": "R", "message": "", "lastTransitionTime": "2026-12-01T00:00:00Z"}}},
		}}
	}
	pod := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "vllm-0", "namespace": "default", "labels": map[string]any{
			"leaderworkerset.sigs.k8s.io/name": "vllm", "leaderworkerset.sigs.k8s.io/group-index": "0"}},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
	}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
		gvr: "LeaderWorkerSetList", podsGVR: "PodList",
	}, lws(0), pod)
	podLists := failFirst(dyn, "list", "pods", 1, forceClosed)
	// The first watch fails, the second closes at once (a connection cut mid-watch), the third
	// sees the rollout; the GET after the closed watch fails once too.
	var watches atomic.Int32
	dyn.PrependWatchReactor("leaderworkersets", func(k8stesting.Action) (bool, watch.Interface, error) {
		switch watches.Add(1) {
		case 1:
			return true, nil, forceClosed
		case 2:
			w := watch.NewFake()
			w.Stop()
			return true, w, nil
		}
		return false, nil, nil
	})
	gets := failFirst(dyn, "get", "leaderworkersets", 1, forceClosed)
	ri := dyn.Resource(gvr).Namespace("default")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		time.Sleep(time.Second)
		if _, err := ri.Update(ctx, lws(1), metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
	}()
	if _, err := waitForRollout(ctx, dyn, ri, lws(0), nil); err != nil {
		t.Fatalf("wait: %v", err)
	}
	// The pod lists: the failed one, the one after it and the one that confirms no pod was
	// replaced meanwhile.
	if watches.Load() != 3 || gets.Load() != 2 || podLists.Load() != 3 {
		t.Fatalf("want a failed watch, a closed one and one that saw the rollout, a failed GET and one more, and the pod list three times; "+
			"got %d watches, %d GETs, %d pod lists", watches.Load(), gets.Load(), podLists.Load())
	}
}

// unscheduledPod is a Pending pod of group 0 that names schedulerName and carries conditions.
func unscheduledPod(name, schedulerName string, conditions ...any) *unstructured.Unstructured {
	spec := map[string]any{"containers": []any{}}
	if schedulerName != "" {
		spec["schedulerName"] = schedulerName
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "default", "labels": map[string]any{
			"leaderworkerset.sigs.k8s.io/name": "vllm", "leaderworkerset.sigs.k8s.io/group-index": "0"}},
		"spec":   spec,
		"status": map[string]any{"phase": "Pending", "conditions": conditions},
	}}
}

// A rollout that waits for a scheduler that is not installed (issue 25, 6) says so, naming the
// pods' schedulerName, instead of only counting pods that are not ready.
func TestNotReadyGroupsNamesAnUnservedScheduler(t *testing.T) {
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	lws := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
		"metadata": map[string]any{"name": "vllm", "namespace": "default"},
		"spec":     map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{"size": int64(4)}},
	}}
	unschedulable := map[string]any{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
		"message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}
	for _, tc := range []struct {
		name      string
		pods      []runtime.Object
		want, not string
	}{
		{
			name: "volcano not installed",
			pods: []runtime.Object{unscheduledPod("vllm-0", "volcano"), unscheduledPod("vllm-0-1", "volcano"),
				unscheduledPod("vllm-0-2", "volcano"), unscheduledPod("vllm-0-3", "volcano")},
			want: `group 0: 0/4 pods ready (4 exist); 4 pods pending: no scheduler has picked them up; their schedulerName "volcano" ` +
				`is not served by this cluster's default scheduler (is that scheduler installed?)`,
		},
		{
			name: "one pod",
			pods: []runtime.Object{unscheduledPod("vllm-0", "volcano")},
			want: `group 0: 0/4 pods ready (1 exist); 1 pod pending: no scheduler has picked it up; its schedulerName "volcano"`,
		},
		{
			name: "default scheduler not done yet",
			pods: []runtime.Object{unscheduledPod("vllm-0", ""), unscheduledPod("vllm-0-1", "default-scheduler")},
			want: "group 0: 0/4 pods ready (2 exist)",
			not:  "schedulerName",
		},
		{
			name: "the named scheduler answered",
			pods: []runtime.Object{unscheduledPod("vllm-0", "volcano", unschedulable)},
			want: `pod vllm-0 not scheduled by its scheduler "volcano": 0/3 nodes are available`,
			not:  "is that scheduler installed",
		},
		{
			name: "the default scheduler answered",
			pods: []runtime.Object{unscheduledPod("vllm-0", "", unschedulable)},
			want: "pod vllm-0 not scheduled: 0/3 nodes are available",
			not:  "schedulerName",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList", podsGVR: "PodList"}, tc.pods...)
			// The list that names the groups is retried after a lost connection too.
			failFirst(dyn, "list", "pods", 1, forceClosed)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got := lwswait.NotReadyGroups(ctx, dyn, lws)
			if !strings.Contains(got, tc.want) || tc.not != "" && strings.Contains(got, tc.not) {
				t.Fatalf("NotReadyGroups:\n%s\nwant it to contain %q and not %q", got, tc.want, tc.not)
			}
		})
	}
}
