package kube

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// ErrWatchExpired ends Follow when the version to resume from is too old to watch from (410
// Gone: etcd has compacted it) and there is no Resync: the caller lists again.
var ErrWatchExpired = errors.New("the watch's resourceVersion is too old to resume from")

// WatchError is the error of opening a watch that retrying does not clear (not Transient),
// e.g. no permission to watch.
type WatchError struct{ Err error }

func (e *WatchError) Error() string { return e.Err.Error() }
func (e *WatchError) Unwrap() error { return e.Err }

// Follower says what Follow does with what it sees.
type Follower struct {
	// Event handles an Added, Modified or Deleted event (bookmarks and error events never reach
	// it) and says whether the wait is done.
	Event func(watch.Event) (done bool, err error)
	// Resync, when set, runs before every watch but the first: it re-reads what the watch
	// follows and returns the resourceVersion to go on from ("" keeps the last one seen) and
	// whether the wait is done.
	Resync func(ctx context.Context) (rv string, done bool, err error)
	// Tick, when set, runs every TickEvery while a watch is open: a re-read of what the watch
	// does not cover.
	Tick      func(ctx context.Context) (done bool, err error)
	TickEvery time.Duration
}

// Follow is the one watch loop of the waits. It watches ri, with the selectors of opts, from
// resourceVersion rv (of the list or read the wait started from) and hands each event to
// f.Event until that reports done or an error, or ctx ends (false, nil).
//
// A watch the server closes or a lost connection cuts is re-established from the last
// resourceVersion seen (or the one f.Resync returns), so nothing is missed and nothing is seen
// twice: what client-go's RetryWatcher does (k8s.io/client-go v0.37.2
// tools/watch/retrywatcher.go). RetryWatcher itself does not fit the waits: it stops at an
// object without a resourceVersion and retries every error but 401, 403 and 410 once a second
// for ever, where a wait stops at an error that would repeat. Here opening a watch is retried
// after a Transient error with kubeclient.TransientBackoff (RetryTransient); another error ends
// Follow with a *WatchError. A version too old to watch from goes to f.Resync, or without one
// ends Follow with ErrWatchExpired.
func Follow(ctx context.Context, ri dynamic.ResourceInterface, opts metav1.ListOptions, rv string, f Follower) (bool, error) {
	first := true
	expired := false
	for ctx.Err() == nil {
		if !first && f.Resync != nil {
			next, done, err := f.Resync(ctx)
			if done || err != nil {
				return done, err
			}
			if next != "" {
				rv = next
			}
		} else if expired {
			return false, ErrWatchExpired
		}
		first = false
		var w watch.Interface
		err := RetryTransient(ctx, func(ctx context.Context) error {
			o := opts
			o.ResourceVersion = rv
			var werr error
			w, werr = ri.Watch(ctx, o)
			return werr
		})
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return false, nil //nolint:nilerr // an ended wait is the caller's to report
		case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
			expired = true
			continue
		default:
			return false, &WatchError{Err: err}
		}
		var done bool
		done, rv, expired, err = follow(ctx, w, rv, f)
		w.Stop()
		if done || err != nil {
			return done, err
		}
	}
	return false, nil
}

// follow reads one watch until it closes, ctx ends, or f is done or fails; it returns the last
// resourceVersion seen and whether the watch ended on an expired version.
func follow(ctx context.Context, w watch.Interface, rv string, f Follower) (done bool, last string, expired bool, err error) {
	var tick <-chan time.Time
	if f.Tick != nil {
		ticker := time.NewTicker(f.TickEvery)
		defer ticker.Stop()
		tick = ticker.C
	}
	for {
		select {
		case <-ctx.Done():
			return false, rv, false, nil
		case <-tick:
			if done, err := f.Tick(ctx); done || err != nil {
				return done, rv, false, err
			}
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, rv, expired, nil // closed: watch again
			}
			switch ev.Type {
			case watch.Error:
				if err := apierrors.FromObject(ev.Object); apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
					expired = true
				}
				continue
			case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
				if m, merr := apimeta.Accessor(ev.Object); merr == nil && m.GetResourceVersion() != "" {
					rv = m.GetResourceVersion()
				}
			default:
				continue
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			if done, err := f.Event(ev); done || err != nil {
				return done, rv, false, err
			}
		}
	}
}
