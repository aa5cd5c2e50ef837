package kube

import (
	"context"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// ownerDepth is how many owner references an event's object may be away from one the
// wait has read: a worker StatefulSet of the LeaderWorkerSet controller is owned by the leader
// pod, the pod by the leader StatefulSet, that by the LeaderWorkerSet (pod_controller.go,
// leaderworkerset_controller.go, lws v0.9.0 and v0.10.0), and that, in a DisaggregatedSet, by the
// set. A pod is one more: a worker pod is owned by its worker StatefulSet.
const ownerDepth = 5

// FollowedObjects is what a wait follows, for its Warning-event filter (FailOnWarningEvents).
// The names come first (byName); an event then concerns the wait only when its involved object is
// the very object the wait follows, by UID: one the wait has read (Read), or one that exists now
// with the event's UID and is owned, through owner references, by one the wait has read. An
// event about an object of the same name that was deleted and created again (a LeaderWorkerSet
// replaced, a StatefulSet of a former one) is not the wait's. Only when the UID cannot be known (the
// event carries none, or the object or an owner cannot be read) does the name decide.
type FollowedObjects struct {
	byName EventConcerns

	mu      sync.Mutex
	names   map[string]types.UID // kind/namespace/name -> UID of the object the wait has read
	uids    map[types.UID]bool   // UIDs of the objects the wait has read or traced to them
	verdict map[types.UID]bool   // an event's involved UID -> whether it is the wait's
}

// NewFollowedObjects returns the objects a wait follows: those byName selects, among which the
// objects read (with their UIDs).
func NewFollowedObjects(byName EventConcerns, read ...metav1.Object) *FollowedObjects {
	f := &FollowedObjects{byName: byName, names: map[string]types.UID{}, uids: map[types.UID]bool{}, verdict: map[types.UID]bool{}}
	for _, o := range read {
		f.Read(kindOf(o), o)
	}
	return f
}

// kindOf is an object's kind when it carries one (an unstructured object does).
func kindOf(o metav1.Object) string {
	if t, ok := o.(interface{ GetKind() string }); ok {
		return t.GetKind()
	}
	return ""
}

func objectKey(kind, namespace, name string) string { return kind + "/" + namespace + "/" + name }

// Read records objects of the given kind the wait has read: an event on an object of the same
// name concerns the wait only when it carries that UID.
func (f *FollowedObjects) Read(kind string, objs ...metav1.Object) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, o := range objs {
		if o == nil || o.GetUID() == "" {
			continue
		}
		f.names[objectKey(kind, o.GetNamespace(), o.GetName())] = o.GetUID()
		f.uids[o.GetUID()] = true
	}
}

// concerns reports whether ev's involved object is one the wait follows (see FollowedObjects).
func (f *FollowedObjects) concerns(ctx context.Context, dyn dynamic.Interface, ev *corev1.Event) bool {
	ref := ev.InvolvedObject
	if !f.byName(ref.Kind, ref.Name) && (ref.Kind != "Pod" || !f.podOfFollowed(ref.Name)) {
		return false
	}
	if ref.Namespace == "" {
		ref.Namespace = ev.Namespace
	}
	if ref.UID == "" {
		return true // no UID to compare: the name decides
	}
	f.mu.Lock()
	known, read := f.names[objectKey(ref.Kind, ref.Namespace, ref.Name)]
	verdict, decided := f.verdict[ref.UID]
	f.mu.Unlock()
	switch {
	case read:
		return known == ref.UID
	case decided:
		return verdict
	case dyn == nil:
		return true
	}
	verdict, decided = f.trace(ctx, dyn, ref, ownerDepth)
	if !decided {
		return true // the object or an owner cannot be read: the name decides
	}
	f.mu.Lock()
	f.verdict[ref.UID] = verdict
	f.mu.Unlock()
	return verdict
}

// podOfFollowed says whether a pod's name is that of a pod of a StatefulSet the wait follows:
// the StatefulSet controller names them <StatefulSet>-<ordinal> (getPodName,
// pkg/controller/statefulset/stateful_set_utils.go, Kubernetes v1.37), the leader pods after the
// leader StatefulSet, the workers after their worker StatefulSet.
func (f *FollowedObjects) podOfFollowed(name string) bool {
	i := strings.LastIndex(name, "-")
	if i < 0 {
		return false
	}
	ordinal, err := strconv.Atoi(name[i+1:])
	return err == nil && ordinal >= 0 && strconv.Itoa(ordinal) == name[i+1:] && f.byName("StatefulSet", name[:i])
}

// trace reads the object ref names and reports whether it still is the object ref's UID names
// and is owned, through at most depth owner references, by an object the wait has read;
// decided is false when an object could not be read for another reason than its absence.
func (f *FollowedObjects) trace(ctx context.Context, dyn dynamic.Interface, ref corev1.ObjectReference, depth int) (verdict, decided bool) {
	f.mu.Lock()
	read := f.uids[ref.UID]
	f.mu.Unlock()
	if read {
		return true, true
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil || ref.Kind == "" || depth < 0 {
		return false, false
	}
	gvr, _ := meta.UnsafeGuessKindToResource(gv.WithKind(ref.Kind))
	cur, err := dyn.Resource(gvr).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, true // gone: the event is about an object deleted since
	case err != nil:
		return false, false
	case cur.GetUID() != ref.UID:
		return false, true // the name is another object's now: the event is about a former one
	}
	// The controllers set controller references (pod_controller.go for the StatefulSets,
	// disaggregatedset/lws_manager.go for a set's LeaderWorkerSets, lws v0.9.0); any owner is
	// traced, so that an owner that only the garbage collector follows counts too.
	decided = true
	for _, owner := range cur.GetOwnerReferences() {
		v, d := f.trace(ctx, dyn, corev1.ObjectReference{
			Kind: owner.Kind, APIVersion: owner.APIVersion, Namespace: ref.Namespace, Name: owner.Name, UID: owner.UID,
		}, depth-1)
		if v {
			f.Read(ref.Kind, cur)
			return true, true
		}
		decided = decided && d
	}
	return false, decided // owned by nothing the wait follows (or, undecided, an owner not readable)
}
