package kube

import (
	"context"
	"errors"
	"reflect"
	"sync"
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
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func podAt(name, rv string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "default", "resourceVersion": rv}}}
}

// scriptedWatches answers the n-th watch of pods with the n-th script: an error, or a watch
// that sends the events and then closes (or stays open when the script says so); it records
// the resourceVersion each watch asked for.
type scriptedWatches struct {
	mu  sync.Mutex
	rvs []string
}

type watchScript struct {
	err    error
	events []watch.Event
	open   bool
}

func (s *scriptedWatches) install(dyn *dynamicfake.FakeDynamicClient, scripts ...watchScript) {
	dyn.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		s.mu.Lock()
		n := len(s.rvs)
		s.rvs = append(s.rvs, a.(k8stesting.WatchActionImpl).GetWatchRestrictions().ResourceVersion)
		s.mu.Unlock()
		if n >= len(scripts) {
			return true, watch.NewFake(), nil // open and silent
		}
		sc := scripts[n]
		if sc.err != nil {
			return true, nil, sc.err
		}
		w := watch.NewFakeWithChanSize(len(sc.events), false)
		for _, ev := range sc.events {
			w.Action(ev.Type, ev.Object)
		}
		if !sc.open {
			w.Stop()
		}
		return true, w, nil
	})
}

func (s *scriptedWatches) versions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rvs...)
}

func fakePods() *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{podsGVR: "PodList"})
}

// A dropped watch (closed by the server, a lost connection when opening it again) resumes from
// the last resourceVersion seen, and events are handed over once each.
func TestFollowResumesFromTheLastVersionSeen(t *testing.T) {
	dyn := fakePods()
	var s scriptedWatches
	s.install(dyn,
		watchScript{events: []watch.Event{{Type: watch.Added, Object: podAt("a", "11")}, {Type: watch.Modified, Object: podAt("a", "12")}}},
		watchScript{err: forceClosed},
		watchScript{events: []watch.Event{{Type: watch.Bookmark, Object: podAt("", "15")}}},
		watchScript{events: []watch.Event{{Type: watch.Deleted, Object: podAt("a", "17")}}, open: true},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var seen []string
	done, err := Follow(ctx, dyn.Resource(podsGVR).Namespace("default"), metav1.ListOptions{LabelSelector: "app=x"}, "10", Follower{
		Event: func(ev watch.Event) (bool, error) {
			seen = append(seen, string(ev.Type)+" "+ev.Object.(*unstructured.Unstructured).GetResourceVersion())
			return ev.Type == watch.Deleted, nil
		},
	})
	if !done || err != nil {
		t.Fatalf("Follow = %v, %v", done, err)
	}
	if want := []string{"10", "12", "12", "15"}; !reflect.DeepEqual(s.versions(), want) {
		t.Errorf("watches from versions %q, want %q", s.versions(), want)
	}
	if want := []string{"ADDED 11", "MODIFIED 12", "DELETED 17"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("events %q, want %q", seen, want)
	}
}

// A version too old to resume from ends Follow for the caller to list again, or goes to Resync;
// a watch that cannot be opened for good ends it with a *WatchError; Tick runs while a watch is
// open.
func TestFollowExpiredForbiddenAndTick(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gone := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}
	never := func(watch.Event) (bool, error) { return false, nil }

	dyn := fakePods()
	var s scriptedWatches
	s.install(dyn, watchScript{events: []watch.Event{{Type: watch.Error, Object: gone}}})
	if _, err := Follow(ctx, dyn.Resource(podsGVR).Namespace("default"), metav1.ListOptions{}, "10", Follower{Event: never}); !errors.Is(err, ErrWatchExpired) {
		t.Errorf("expired without Resync: err = %v, want ErrWatchExpired", err)
	}

	dyn = fakePods()
	s = scriptedWatches{}
	s.install(dyn, watchScript{err: apierrors.NewResourceExpired("too old resource version")}, watchScript{})
	resyncs := 0
	done, err := Follow(ctx, dyn.Resource(podsGVR).Namespace("default"), metav1.ListOptions{}, "10", Follower{Event: never,
		Resync: func(context.Context) (string, bool, error) { resyncs++; return "20", resyncs == 2, nil }})
	if !done || err != nil || resyncs != 2 {
		t.Errorf("expired with Resync: %v, %v after %d resyncs", done, err, resyncs)
	}
	if want := []string{"10", "20"}; !reflect.DeepEqual(s.versions(), want) {
		t.Errorf("watches from versions %q, want %q", s.versions(), want)
	}

	dyn = fakePods()
	s = scriptedWatches{}
	forbidden := apierrors.NewForbidden(podsGVR.GroupResource(), "", errors.New("cannot watch pods"))
	s.install(dyn, watchScript{err: forbidden})
	var watchErr *WatchError
	if _, err := Follow(ctx, dyn.Resource(podsGVR).Namespace("default"), metav1.ListOptions{}, "10", Follower{Event: never}); !errors.As(err, &watchErr) || !apierrors.IsForbidden(err) {
		t.Errorf("forbidden: err = %v, want a *WatchError", err)
	}

	dyn = fakePods()
	s = scriptedWatches{}
	s.install(dyn, watchScript{open: true})
	ticks := 0
	done, err = Follow(ctx, dyn.Resource(podsGVR).Namespace("default"), metav1.ListOptions{}, "10", Follower{Event: never,
		TickEvery: 10 * time.Millisecond, Tick: func(context.Context) (bool, error) { ticks++; return ticks == 3, nil }})
	if !done || err != nil || ticks != 3 || len(s.versions()) != 1 {
		t.Errorf("tick: %v, %v after %d ticks and %d watches", done, err, ticks, len(s.versions()))
	}

	// An ended context ends Follow without an error.
	short, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	if done, err := Follow(short, fakePods().Resource(podsGVR).Namespace("default"), metav1.ListOptions{}, "10", Follower{Event: never}); done || err != nil {
		t.Errorf("ended context: %v, %v", done, err)
	}
}
