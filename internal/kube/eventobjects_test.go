package kube

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/utils/ptr"
)

// object is a namespaced object of uid, controlled by owner (apiVersion, kind, name, uid) when
// owner is not nil.
func object(apiVersion, kind, name string, uid types.UID, owner []string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace("default")
	u.SetName(name)
	u.SetUID(uid)
	if owner != nil {
		u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: owner[0], Kind: owner[1], Name: owner[2], UID: types.UID(owner[3]), Controller: ptr.To(true)}})
	}
	return u
}

// eventOn is a permanent Warning event on the object apiVersion/kind/name of uid, last seen at
// (no time at all when at is zero).
func eventOn(name, apiVersion, kind, obj string, uid types.UID, at time.Time) *unstructured.Unstructured {
	ev := warningEvent(name, kind, obj, invalidPod, at)
	ev.Object["involvedObject"] = map[string]any{"apiVersion": apiVersion, "kind": kind, "name": obj, "namespace": "default", "uid": string(uid)}
	if at.IsZero() {
		delete(ev.Object, "lastTimestamp")
	}
	return ev
}

const lwsAPI = "leaderworkerset.x-k8s.io/v1"

// A LeaderWorkerSet vllm (read by the wait) of one group of size 2, as its controller builds
// it: the leader StatefulSet vllm, its pod vllm-0, the worker StatefulSet vllm-0 controlled by
// the pod; and a StatefulSet vllm-1 left by a former LeaderWorkerSet vllm that the garbage
// collector has not deleted yet.
func followedCluster(events ...runtime.Object) (*dynamicfake.FakeDynamicClient, *FollowedObjects) {
	lws := object(lwsAPI, "LeaderWorkerSet", "vllm", "lws-new", nil)
	objs := append([]runtime.Object{
		lws,
		object("apps/v1", "StatefulSet", "vllm", "leader-new", []string{lwsAPI, "LeaderWorkerSet", "vllm", "lws-new"}),
		object("v1", "Pod", "vllm-0", "pod-new", []string{"apps/v1", "StatefulSet", "vllm", "leader-new"}),
		object("apps/v1", "StatefulSet", "vllm-0", "worker-new", []string{"v1", "Pod", "vllm-0", "pod-new"}),
		object("apps/v1", "StatefulSet", "vllm-1", "worker-old", []string{"v1", "Pod", "vllm-1", "pod-old"}),
	}, events...)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		eventsGVR: "EventList",
		{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}: "LeaderWorkerSetList",
		{Group: "apps", Version: "v1", Resource: "statefulsets"}:                         "StatefulSetList",
		{Version: "v1", Resource: "pods"}:                                                "PodList",
	}, objs...)
	byName := func(kind, name string) bool {
		return (kind == "LeaderWorkerSet" && name == "vllm") || (kind == "StatefulSet" && (name == "vllm" || name == "vllm-0" || name == "vllm-1"))
	}
	return dyn, NewFollowedObjects(byName, lws)
}

// waitOn runs FailOnWarningEvents around a wait that lasts until its context ends.
func waitOn(t *testing.T, dyn *dynamicfake.FakeDynamicClient, followed *FollowedObjects, since time.Time, d time.Duration) (error, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	waitErr := errors.New("timed out")
	return FailOnWarningEvents(ctx, dyn, "default", since, followed, func(ctx context.Context) error {
		<-ctx.Done()
		return waitErr
	}), waitErr
}

// TestFollowedObjectsIgnoresSameNameOthers: Warning events whose involved object has the name of a
// followed object but another UID leave the wait to its end: the former LeaderWorkerSet of the
// same name (the wait has read the current one), a former worker StatefulSet of the same name
// (the current one has another UID), a StatefulSet of the former LeaderWorkerSet that still
// exists (controlled by a pod that is gone), and one deleted since.
func TestFollowedObjectsIgnoresSameNameOthers(t *testing.T) {
	now := time.Now()
	dyn, followed := followedCluster(
		eventOn("old-lws", lwsAPI, "LeaderWorkerSet", "vllm", "lws-old", now),
		eventOn("old-worker", "apps/v1", "StatefulSet", "vllm-0", "worker-older", now),
		eventOn("orphan", "apps/v1", "StatefulSet", "vllm-1", "worker-old", now),
		eventOn("gone", "apps/v1", "StatefulSet", "vllm", "leader-old", now),
	)
	if err, waitErr := waitOn(t, dyn, followed, now.Add(-time.Second), 1500*time.Millisecond); err != waitErr {
		t.Fatalf("err = %v, want the wait's own", err)
	}
	for _, uid := range []types.UID{"lws-old", "worker-older", "worker-old", "leader-old"} {
		if followed.verdict[uid] {
			t.Errorf("%s taken for a followed object", uid)
		}
	}
}

// TestFollowedObjectsEndsOnTheFollowedUID: a Warning event on the LeaderWorkerSet the wait has
// read, or on its worker StatefulSet (traced through the leader pod and the leader StatefulSet to
// it), ends the wait with that event; so does one on a followed name with no UID, and an event
// that carries no time is not set aside for its age.
func TestFollowedObjectsEndsOnTheFollowedUID(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		name string
		ev   *unstructured.Unstructured
	}{
		{"the LeaderWorkerSet read", eventOn("lws", lwsAPI, "LeaderWorkerSet", "vllm", "lws-new", now)},
		{"its worker StatefulSet", eventOn("worker", "apps/v1", "StatefulSet", "vllm-0", "worker-new", now)},
		{"no time", eventOn("worker", "apps/v1", "StatefulSet", "vllm-0", "worker-new", time.Time{})},
		{"no UID", eventOn("worker", "apps/v1", "StatefulSet", "vllm-0", "", now)},
	} {
		t.Run(c.name, func(t *testing.T) {
			dyn, followed := followedCluster(
				eventOn("old-lws", lwsAPI, "LeaderWorkerSet", "vllm", "lws-old", now), c.ev)
			err, _ := waitOn(t, dyn, followed, now.Add(-time.Second), 10*time.Second)
			var we *WarningEventError
			if !errors.As(err, &we) {
				t.Fatalf("err = %v, want the event's", err)
			}
			if ref := c.ev.Object["involvedObject"].(map[string]any); we.Name != ref["name"] || we.Kind != ref["kind"] {
				t.Errorf("ended on %s %s, want %s %s", we.Kind, we.Name, ref["kind"], ref["name"])
			}
		})
	}
}
