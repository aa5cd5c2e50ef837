package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
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

// WarningEvent is a Warning event on one of the objects a wait follows: the latest of its
// reason.
type WarningEvent struct {
	Kind, Name      string // the event's involved object
	Reason, Message string
	Count           int32
	Seen            time.Time // when it last happened (zero when the event carries no time)
}

// String quotes the event as the waits' messages do.
func (e WarningEvent) String() string {
	times := ""
	if e.Count > 1 {
		times = fmt.Sprintf(" (%d times)", e.Count)
	}
	return fmt.Sprintf("Warning %s on %s %s%s: %s", e.Reason, e.Kind, e.Name, times, e.Message)
}

// WarningEventError is a permanent Warning event on one of the objects a wait follows.
type WarningEventError struct {
	Kind, Name      string // the event's involved object
	Reason, Message string
	Count           int32
	// Others are the other Warning events of the wait, the latest of each reason.
	Others []WarningEvent
}

func (e *WarningEventError) event() WarningEvent {
	return WarningEvent{Kind: e.Kind, Name: e.Name, Reason: e.Reason, Message: e.Message, Count: e.Count}
}

func (e *WarningEventError) Error() string {
	msg := "the API server refuses what the controllers create for the object, a refusal that does not clear by itself, " +
		"so the wait stopped at once, without waiting for its timeout: " + e.event().String() + "\n\nThe object was applied, " +
		"but it will not become ready as it is: " + refusalAdvice(e.Message)
	if len(e.Others) > 0 {
		msg += "\n\n" + quoteEvents(e.Others)
	}
	return msg
}

func (e *WarningEventError) Is(target error) bool { return target == ErrPermanentWarning }

// quoteEvents is the paragraph of a wait's message that quotes its Warning events.
func quoteEvents(events []WarningEvent) string {
	lines := make([]string, len(events))
	for i, e := range events {
		lines[i] = "  " + e.String()
	}
	return "Warning events on the objects the wait follows (the latest of each reason):\n" + strings.Join(lines, "\n")
}

// EventConcerns says whether an event's involved object (kind and name) is one the wait follows,
// by name (FollowedObjects then compares UIDs).
type EventConcerns func(kind, name string) bool

var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// The refusals of the API server that do not clear by themselves: the controllers retry the
// same create for ever, and it fails the same way until someone changes the configuration or
// the cluster. Each is matched by the words of its admission plugin or validation.
var refusals = []struct {
	words  []string // all of them in the message
	except string   // a message with these words clears by itself
	advice string
}{
	// The API server's validation of an object the controller derives: StatusError "<Kind>
	// \"<name>\" is invalid: ..." (apimachinery pkg/api/errors NewInvalid), e.g. the LeaderWorkerSet
	// controller's FailedCreate of a worker StatefulSet whose labels are too long
	// (pod_controller.go, lws v0.9.0 and v0.10.0).
	{words: []string{" is invalid: "}, advice: "change the configuration (names and label values the controller derives " +
		"are limited to 63 characters)."},
	// The Priority admission plugin: "no PriorityClass with name %v was found"
	// (plugin/pkg/admission/priority/admission.go, Kubernetes v1.37).
	{words: []string{"no PriorityClass with name"}, advice: "create the PriorityClass, or change priority_class_name in the pod templates."},
	// The ServiceAccount admission plugin: "error looking up service account %s/%s: ..."
	// (plugin/pkg/admission/serviceaccount/admission.go, Kubernetes v1.37). The namespace's
	// "default" account is created by the service account controller right after the
	// namespace: a refusal for it clears by itself.
	{words: []string{"error looking up service account", "not found"}, except: `serviceaccount "default" not found`,
		advice: "create the ServiceAccount, or change service_account_name in the pod templates."},
	// Pod Security admission: "violates PodSecurity %q: ..." (k8s.io/pod-security-admission
	// admission/admission.go, v0.37).
	{words: []string{"violates PodSecurity"}, advice: "the namespace's Pod Security level (its pod-security.kubernetes.io/enforce " +
		"label) refuses the pods: change the pod templates' security settings to meet it, or the namespace's level."},
}

// refusal returns the advice for a message of a refusal that does not clear by itself, or "".
// A quota exceeded ("exceeded quota", which a freed quota clears) or a scheduling shortage
// (FailedScheduling, which a new node clears) is not one.
func refusal(message string) (advice string, permanent bool) {
next:
	for _, r := range refusals {
		for _, w := range r.words {
			if !strings.Contains(message, w) {
				continue next
			}
		}
		if r.except != "" && strings.Contains(message, r.except) {
			continue
		}
		return r.advice, true
	}
	return "", false
}

func refusalAdvice(message string) string {
	if advice, ok := refusal(message); ok {
		return advice
	}
	return "change the configuration or the cluster."
}

// PermanentWarning reports whether ev is a Warning that retrying does not clear (see
// refusals): the API server rejected an object a controller creates as invalid (the
// LeaderWorkerSet controller's FailedCreate of a StatefulSet, the StatefulSet controller's of a
// pod), or an admission plugin refuses it for a missing PriorityClass or ServiceAccount or the
// namespace's Pod Security level. The controllers retry such a create for ever with the same
// object.
func PermanentWarning(ev *corev1.Event) bool {
	if ev.Type != corev1.EventTypeWarning {
		return false
	}
	_, permanent := refusal(ev.Message)
	return permanent
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
// watch from it) on the objects the wait follows (followed: by name, then by UID) that happen
// at or after since. Each one is quoted in the wait's progress (WaitProgress) as it comes; when
// wait ends unfinished (a *RolloutUnfinished), its message quotes the latest of each reason. A
// permanent one (PermanentWarning) cancels wait's context and is returned, as a
// *WarningEventError, instead of wait's error (a wait that succeeded anyway returns nil). An event
// that carries no time is not set aside for its age. Events that cannot be read for want of
// permission are said so (NoteMissingPermission and the unfinished wait's message): the wait
// then cannot end early.
func FailOnWarningEvents(ctx context.Context, dyn dynamic.Interface, namespace string, since time.Time, followed *FollowedObjects,
	wait func(context.Context) error) error {
	if dyn == nil {
		return wait(ctx)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &warningWatch{dyn: dyn, namespace: namespace, since: since, followed: followed, latest: map[string]WarningEvent{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if w.run(wctx) {
			cancel()
		}
	}()
	err := wait(wctx)
	cancel()
	<-done
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil && w.found != nil && ctx.Err() == nil {
		w.found.Others = w.others(w.found.Reason)
		return w.found
	}
	var unfinished *RolloutUnfinished
	if errors.As(err, &unfinished) {
		unfinished.Events = w.others("")
		unfinished.EventsUnread = w.unread
	}
	return err
}

// warningWatch follows the Warning events of one wait.
type warningWatch struct {
	dyn       dynamic.Interface
	namespace string
	since     time.Time
	followed  *FollowedObjects

	mu     sync.Mutex
	latest map[string]WarningEvent // by reason
	found  *WarningEventError      // the first permanent one
	unread string                  // why the events could not be read, when they could not
}

// others are the latest events of each reason but except, oldest first.
func (w *warningWatch) others(except string) []WarningEvent {
	var out []WarningEvent
	for reason, e := range w.latest {
		if reason != except {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Seen.Equal(out[j].Seen) {
			return out[i].Seen.Before(out[j].Seen)
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

// see records an event that concerns the wait, quotes it in the progress when it is new or has
// changed, and reports whether it is permanent.
func (w *warningWatch) see(ctx context.Context, ev *corev1.Event) bool {
	count := ev.Count
	if ev.Series != nil && ev.Series.Count > count {
		count = ev.Series.Count
	}
	e := WarningEvent{Kind: ev.InvolvedObject.Kind, Name: ev.InvolvedObject.Name, Reason: ev.Reason, Message: ev.Message, Count: count, Seen: lastSeen(ev)}
	w.mu.Lock()
	prev, had := w.latest[e.Reason]
	newer := !had || !e.Seen.Before(prev.Seen)
	if newer {
		w.latest[e.Reason] = e
	}
	permanent := PermanentWarning(ev)
	if permanent && w.found == nil {
		w.found = &WarningEventError{Kind: e.Kind, Name: e.Name, Reason: e.Reason, Message: e.Message, Count: e.Count}
	}
	w.mu.Unlock()
	if newer && (!had || prev.String() != e.String()) {
		WaitProgress(ctx, e.String())
	}
	return permanent
}

// run follows the events until ctx ends, the events cannot be read, or a permanent one comes
// (then it reports true).
func (w *warningWatch) run(ctx context.Context) bool {
	ri := w.dyn.Resource(eventsGVR).Namespace(w.namespace)
	selector := fields.OneTermEqualSelector("type", corev1.EventTypeWarning).String()
	check := func(u *unstructured.Unstructured) bool {
		var ev corev1.Event
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ev); err != nil {
			return false // an event that does not decode is not one the wait can act on
		}
		if seen := lastSeen(&ev); ev.Type != corev1.EventTypeWarning || (!seen.IsZero() && seen.Before(w.since)) || !w.followed.concerns(ctx, w.dyn, &ev) {
			return false
		}
		return w.see(ctx, &ev)
	}
	denied := func(verb string, err error) bool {
		if !apierrors.IsForbidden(err) && !apierrors.IsUnauthorized(err) {
			return false
		}
		note := NoteMissingPermission(ctx, "", "events", verb, w.namespace, err)
		w.mu.Lock()
		w.unread = note
		w.mu.Unlock()
		return true
	}
	backoff := kubeclient.TransientBackoff()
	for ctx.Err() == nil {
		list, err := ri.List(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			if denied("list", err) || !kubeclient.SleepCtx(ctx, backoff.Step()) {
				return false
			}
			continue
		}
		for i := range list.Items {
			if check(&list.Items[i]) {
				return true
			}
		}
		// A dropped watch resumes from the last event seen; an expired version lists again.
		found := false
		_, err = Follow(ctx, ri, metav1.ListOptions{FieldSelector: selector}, list.GetResourceVersion(), Follower{
			Event: func(e watch.Event) (bool, error) {
				if u, isObj := e.Object.(*unstructured.Unstructured); isObj && (e.Type == watch.Added || e.Type == watch.Modified) {
					found = check(u)
				}
				return found, nil
			},
		})
		if found {
			return true
		}
		if err != nil && !errors.Is(err, ErrWatchExpired) && (denied("watch", err) || !kubeclient.SleepCtx(ctx, backoff.Step())) {
			return false
		}
	}
	return false
}
