package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

var getOptions = metav1.GetOptions{}

const applyPatchType = types.ApplyPatchType

func patchOptions(manager string, force bool) metav1.PatchOptions {
	return metav1.PatchOptions{FieldManager: manager, Force: &force}
}

func isNotFound(err error) bool { return err != nil && apierrors.IsNotFound(err) }

// APIErrorDetail explains an API error: the server's own message first, then what to do.
func APIErrorDetail(err error) string { return apiErrorDetail(err) }

// apiErrorDetail explains an API error: the server's own message first, then what to do.
func apiErrorDetail(err error) string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return err.Error()
	}
	s := status.Status()
	msg := s.Message
	var b strings.Builder
	b.WriteString(msg)
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			if c.Field != "" && !strings.Contains(msg, c.Message) {
				fmt.Fprintf(&b, "\n  %s: %s", c.Field, c.Message)
			}
		}
	}
	switch {
	case apierrors.IsConflict(err) && strings.Contains(msg, "Apply failed"):
		// Only an apply with force_conflicts = false gets here.
		b.WriteString("\n\nAnother field manager owns these fields (named above) and force_conflicts = false keeps them " +
			"with it. Set force_conflicts = true (the default) to take ownership, change them with that manager, or remove " +
			"them from the configuration.")
	case apierrors.IsNotFound(err) && strings.Contains(msg, "the server could not find the requested resource"):
		b.WriteString("\n\nThe API is not served by this cluster. For LeaderWorkerSet, install the LeaderWorkerSet CRD and controller first.")
	case apierrors.IsForbidden(err):
		b.WriteString("\n\nThe provider's credentials lack permission for this operation.")
	}
	return b.String()
}

// Transient is the one predicate every wait uses to decide whether a failed read (GET, LIST,
// WATCH) or a repeated DELETE is tried again: kubeclient.Transient, the errors the retrying
// transport and the writes outlive (lost connections, HTTP/2 ones included, and a busy or
// restarting server). A context that ended is never transient.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return kubeclient.Transient(err)
}

// RetryTransient calls try until it succeeds or fails with an error that is not Transient,
// waiting kubeclient.TransientBackoff between attempts, for as long as ctx lasts. It uses
// wait.ExponentialBackoffWithContext (k8s.io/apimachinery v0.37.2 pkg/util/wait/backoff.go),
// whose waits end with the context, rather than retry.OnError (k8s.io/client-go v0.37.2
// util/retry/util.go), whose waits do not: an interrupted wait returns at once. It returns nil,
// try's error that is not transient, or, once ctx has ended, try's last transient error (or
// ctx's error when there was none): callers tell a timeout apart with ctx.Err().
func RetryTransient(ctx context.Context, try func(context.Context) error) error {
	var last error
	err := wait.ExponentialBackoffWithContext(ctx, kubeclient.TransientBackoff(), func(ctx context.Context) (bool, error) {
		last = try(ctx)
		switch {
		case last == nil:
			return true, nil
		case ctx.Err() == nil && Transient(last):
			tflog.Debug(ctx, "Retrying a Kubernetes API request of a wait after a transient error", map[string]any{"error": last.Error()})
			return false, nil
		default:
			return false, last
		}
	})
	if err != nil && ctx.Err() != nil && last != nil {
		return last
	}
	return err
}

// deleteAndWait deletes an object and waits until it is gone (finalizers included), watching
// instead of polling.
//
// With foreground propagation the object stays (with the foregroundDeletion finalizer) until the
// garbage collector has deleted everything it owns, so the wait covers the objects a controller
// created from it too: GPUs are free when destroy returns, and a replacement's pods never meet
// the old ones. A kind whose dependents are waited for by Hooks.AfterDelete uses background
// propagation instead.
//
// Every request is retried after a Transient error until ctx ends: the DELETE too, as sending it
// again is harmless (the second finds the object gone, or being deleted). A lost connection or a
// restarting server interrupts the wait, not the delete.
func deleteAndWait(ctx context.Context, ri dynamic.ResourceInterface, name string, policy metav1.DeletionPropagation) error {
	err := RetryTransient(ctx, func(ctx context.Context) error {
		return ri.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &policy})
	})
	if objectGone(err, name) {
		return nil
	}
	if isNotFound(err) {
		return err // the API is not served: nothing was deleted
	}
	if err != nil {
		return errors.New(apiErrorDetail(err))
	}
	var finalizers []string
	// read re-reads the object: its finalizers for the message, its resourceVersion to watch
	// from, or that it is gone.
	read := func(ctx context.Context) (rv string, gone bool, err error) {
		var u *unstructured.Unstructured
		err = RetryTransient(ctx, func(ctx context.Context) error {
			var gerr error
			u, gerr = ri.Get(ctx, name, getOptions)
			return gerr
		})
		switch {
		case isNotFound(err):
			return "", true, nil
		case err != nil && ctx.Err() != nil:
			return "", false, err
		case err != nil:
			return "", false, errors.New(apiErrorDetail(err))
		}
		finalizers = u.GetFinalizers()
		return u.GetResourceVersion(), false, nil
	}
	for {
		rv, gone, err := read(ctx)
		switch {
		case gone:
			return nil
		case err != nil && ctx.Err() != nil:
			return deleteTimeoutError(finalizers)
		case err != nil:
			return err
		}
		// A closed watch is followed by a GET and watched again from its version (Follow).
		gone, err = Follow(ctx, ri, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}, rv, Follower{
			Event:  func(ev watch.Event) (bool, error) { return ev.Type == watch.Deleted, nil },
			Resync: read,
		})
		var watchErr *WatchError
		switch {
		case gone:
			return nil
		case ctx.Err() != nil:
			return deleteTimeoutError(finalizers)
		case errors.As(err, &watchErr):
			// Fall back to a short sleep when watching is not allowed: the GET above tells again.
			if !kubeclient.SleepCtx(ctx, 500*time.Millisecond) {
				return deleteTimeoutError(finalizers)
			}
		case err != nil:
			return err
		}
	}
}

func deleteTimeoutError(finalizers []string) error {
	if len(finalizers) > 0 {
		return fmt.Errorf("timed out waiting for deletion; the object still has finalizers %v, which the controllers that own them must remove", finalizers)
	}
	return errors.New("timed out waiting for deletion")
}
