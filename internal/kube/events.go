package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
)

// ErrPermanentWarning is wrapped by the error of a readiness wait that ended on a Warning event
// that will not clear by itself (WarningEventError): waiting longer cannot help, so the apply
// reports an error, not an unfinished wait.
var ErrPermanentWarning = errors.New("a Warning event that will not clear by itself")

// WarningEventError is a permanent Warning event on one of the objects a wait follows.
type WarningEventError struct {
	Kind, Name      string // the event's involved object
	Reason, Message string
	Count           int32
}

func (e *WarningEventError) Error() string {
	times := ""
	if e.Count > 1 {
		times = fmt.Sprintf(" (%d times)", e.Count)
	}
	return fmt.Sprintf("the controller cannot create what the object needs, so the wait stopped without waiting for its timeout: "+
		"Warning %s on %s %s%s: %s\n\nThe object was applied, but the API server rejects what the controller derives from it, "+
		"so it will not become ready as it is: change the configuration (names and label values the controller derives "+
		"are limited to 63 characters).", e.Reason, e.Kind, e.Name, times, e.Message)
}

func (e *WarningEventError) Is(target error) bool { return target == ErrPermanentWarning }

// EventConcerns says whether an event's involved object (kind and name) is one the wait follows,
// by name (FollowedObjects then compares UIDs).
type EventConcerns func(kind, name string) bool

var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// PermanentWarning reports whether ev is a Warning that retrying does not clear: the API
// server rejected an object the controller creates as invalid, e.g. the LeaderWorkerSet
// controller's FailedCreate "Failed to create worker statefulset for leader pod ...: StatefulSet.apps
// "..." is invalid: metadata.labels: ... must be no more than 63 characters" (pod_controller.go,
// lws v0.9.0 and v0.10.0), or the StatefulSet controller's FailedCreate for a pod. The
// controllers retry such a create forever with the same object.
func PermanentWarning(ev *corev1.Event) bool {
	return ev.Type == corev1.EventTypeWarning && strings.Contains(ev.Message, " is invalid: ")
}

// lastSeen is when the event last happened: the events.k8s.io API (the recorder of
// controller-runtime and of the LWS controllers) writes eventTime and series, the older core
// API firstTimestamp and lastTimestamp.
func lastSeen(ev *corev1.Event) time.Time {
	t := ev.CreationTimestamp.Time
	for _, c := range []time.Time{ev.FirstTimestamp.Time, ev.LastTimestamp.Time, ev.EventTime.Time} {
		if c.After(t) {
			t = c
		}
	}
	if ev.Series != nil && ev.Series.LastObservedTime.After(t) {
		t = ev.Series.LastObservedTime.Time
	}
	return t
}

// FailOnWarningEvents runs wait while it follows the namespace's Warning events (a list, then a
// watch from it); when a permanent one (PermanentWarning) on an object the wait follows (followed:
// by name, then by UID) happens at or after since, it cancels wait's context and returns a
// *WarningEventError instead of wait's error (a wait that succeeded anyway returns nil). An event
// that carries no time is not set aside for its age. Events that cannot be read (no permission to
// list them, a lost connection) only leave the wait to its timeout.
func FailOnWarningEvents(ctx context.Context, dyn dynamic.Interface, namespace string, since time.Time, followed *FollowedObjects,
	wait func(context.Context) error) error {
	if dyn == nil {
		return wait(ctx)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		found *WarningEventError
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ev := watchWarnings(wctx, dyn, namespace, since, followed)
		if ev != nil {
			mu.Lock()
			found = ev
			mu.Unlock()
			cancel()
		}
	}()
	err := wait(wctx)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if err != nil && found != nil && ctx.Err() == nil {
		return found
	}
	return err
}

// watchWarnings returns the first permanent Warning event that concerns the wait, or nil when ctx
// ends or the events cannot be read.
func watchWarnings(ctx context.Context, dyn dynamic.Interface, namespace string, since time.Time, followed *FollowedObjects) *WarningEventError {
	ri := dyn.Resource(eventsGVR).Namespace(namespace)
	selector := fields.OneTermEqualSelector("type", corev1.EventTypeWarning).String()
	check := func(u *unstructured.Unstructured) *WarningEventError {
		var ev corev1.Event
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ev); err != nil {
			return nil //nolint:nilerr // an event that does not decode is not one the wait can act on
		}
		if seen := lastSeen(&ev); !PermanentWarning(&ev) || (!seen.IsZero() && seen.Before(since)) || !followed.concerns(ctx, dyn, &ev) {
			return nil
		}
		count := ev.Count
		if ev.Series != nil && ev.Series.Count > count {
			count = ev.Series.Count
		}
		return &WarningEventError{Kind: ev.InvolvedObject.Kind, Name: ev.InvolvedObject.Name, Reason: ev.Reason, Message: ev.Message, Count: count}
	}
	backoff := kubeclient.TransientBackoff()
	for ctx.Err() == nil {
		list, err := ri.List(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || !kubeclient.SleepCtx(ctx, backoff.Step()) {
				return nil
			}
			continue
		}
		for i := range list.Items {
			if found := check(&list.Items[i]); found != nil {
				return found
			}
		}
		// A dropped watch resumes from the last event seen; an expired version lists again.
		var found *WarningEventError
		_, err = Follow(ctx, ri, metav1.ListOptions{FieldSelector: selector}, list.GetResourceVersion(), Follower{
			Event: func(e watch.Event) (bool, error) {
				if u, isObj := e.Object.(*unstructured.Unstructured); isObj && (e.Type == watch.Added || e.Type == watch.Modified) {
					found = check(u)
				}
				return found != nil, nil
			},
		})
		if found != nil {
			return found
		}
		if err != nil && !errors.Is(err, ErrWatchExpired) && (apierrors.IsForbidden(err) || !kubeclient.SleepCtx(ctx, backoff.Step())) {
			return nil
		}
	}
	return nil
}
