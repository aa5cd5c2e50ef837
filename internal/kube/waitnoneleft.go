package kube

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
)

// WaitNoneLeft waits until no object of ri matches the label selector: a list, then, while
// some remain, a watch from the list's resourceVersion that counts them down (Follow:
// resumed from the last event seen when the watch closes or the connection is lost, listed again
// when that version has expired). The list is retried after a transient error
// (RetryTransient) and a watch that cannot be opened is replaced by listing again after a
// back-off, until ctx ends. owner names the deleted kind in its messages.
func WaitNoneLeft(ctx context.Context, ri dynamic.ResourceInterface, selector, what, owner string) error {
	var remaining string
	backoff := kubeclient.TransientBackoff()
	for ctx.Err() == nil {
		var list *unstructured.UnstructuredList
		err := RetryTransient(ctx, func(ctx context.Context) error {
			var lerr error
			list, lerr = ri.List(ctx, metav1.ListOptions{LabelSelector: selector})
			return lerr
		})
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return err
		}
		left := map[string]bool{}
		for i := range list.Items {
			left[list.Items[i].GetName()] = true
		}
		describe := func() {
			for n := range left {
				remaining = fmt.Sprintf("%d %s of the %s remain (for example %s)", len(left), what, owner, n)
				return
			}
		}
		if len(left) == 0 {
			return nil
		}
		describe()
		// A dropped watch resumes from the last event seen; an expired version, or a watch that
		// cannot be opened (after a back-off), lists again.
		done, err := Follow(ctx, ri, metav1.ListOptions{LabelSelector: selector}, list.GetResourceVersion(), Follower{
			Event: func(ev watch.Event) (bool, error) {
				o, isObj := ev.Object.(*unstructured.Unstructured)
				if !isObj {
					return false, nil
				}
				switch ev.Type {
				case watch.Added, watch.Modified:
					left[o.GetName()] = true
				case watch.Deleted:
					delete(left, o.GetName())
				}
				if len(left) == 0 {
					return true, nil
				}
				describe()
				return false, nil
			},
		})
		if done {
			return nil
		}
		if err != nil && !errors.Is(err, ErrWatchExpired) && !kubeclient.SleepCtx(ctx, backoff.Step()) {
			break
		}
	}
	msg := "the " + owner + " is deleted, but the garbage collector has not deleted everything it owned yet"
	if remaining != "" {
		msg += ": " + remaining
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return errors.New("interrupted while waiting for the cleanup: " + msg)
	}
	return errors.New("timed out waiting for the cleanup: " + msg + ". Is kube-controller-manager running?")
}
