package disaggregatedset

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	disaggutils "sigs.k8s.io/lws/pkg/utils/disaggregatedset"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/lwswait"
)

var (
	leaderWorkerSetsGVR = lwsv1.GroupVersion.WithResource("leaderworkersets")
	podsGVR             = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	servicesGVR         = schema.GroupVersionResource{Version: "v1", Resource: "services"}
)

// statusRecheck is how often the wait re-reads the DisaggregatedSet itself while it follows
// its LeaderWorkerSets: a controller that reports status writes it after the LeaderWorkerSet
// events it reacts to.
const statusRecheck = 3 * time.Second

// rolloutState is how far the rollout of a DisaggregatedSet is, from its LeaderWorkerSets.
type rolloutState struct {
	done   bool
	reason string
	// targets are the LeaderWorkerSets of the current revision, by role.
	targets map[string]*unstructured.Unstructured
}

// RolloutDone reports whether the rollout of ds is over, given the LeaderWorkerSets labelled
// with its name. The DisaggregatedSet controller of sigs.k8s.io/lws v0.9.0 writes no status
// (pkg/controllers/disaggregatedset/disaggregatedset_controller.go): it creates one
// LeaderWorkerSet per role and revision, the revision being disaggutils.ComputeRevision of the
// role templates and the LeaderWorkerSets labelled with it (GenerateLabels), scales the new
// revision up and the old ones down in step (executor.go), and deletes an old revision once
// every role of it is at 0 replicas (cleanupDrainedLWS). So the rollout is over when, for
// every role, the LeaderWorkerSet of the current revision has the role's replicas and is
// rolled out (lwsrules.RolloutDone), and no LeaderWorkerSet of another revision is
// left. A status written by a later controller is honoured too: every role's status updated
// and ready, Available True, and conditions not older than the generation.
func RolloutDone(ds *disaggv1.DisaggregatedSet, lwss []*unstructured.Unstructured) (bool, string) {
	s := rolloutStatus(ds, lwss)
	return s.done, s.reason
}

func rolloutStatus(ds *disaggv1.DisaggregatedSet, lwss []*unstructured.Unstructured) rolloutState {
	revision := rules.ComputeRevision(ds.Spec.Roles)
	state := rolloutState{targets: map[string]*unstructured.Unstructured{}}
	slices := int32(1)
	if ds.Spec.Slices != nil {
		slices = *ds.Spec.Slices
	}
	var problems []string
	for i := range ds.Spec.Roles {
		role := &ds.Spec.Roles[i]
		want := rules.ReplicasOf(role)
		// The current revision's LeaderWorkerSets of the role, by slice: v0.10.0 labels each with
		// disaggregatedset.x-k8s.io/slice (one per slice, named <set>-<slice>-<revision>-<role>);
		// v0.9.0 creates one, unlabelled.
		targets := map[string]*unstructured.Unstructured{}
		old, oldGroups := 0, int64(0)
		var goingAway []string
		for _, u := range lwss {
			labels := u.GetLabels()
			if labels[disaggv1.RoleLabelKey] != role.Name {
				continue
			}
			if labels[disaggv1.RevisionLabelKey] == revision {
				slice := labels[disaggv1.SliceLabelKey]
				if slice == "" && slices > 1 {
					// A v0.9.0 LeaderWorkerSet (no slice label) of the current revision, with slices
					// raised above 1: v0.10.0 deletes it before it creates any other slice and
					// recreates slice 0 in slice-aware form (recreateLegacySlice0,
					// pkg/controllers/disaggregatedset/disaggregatedset_controller.go, lws 2161f38).
					// Slice 0 is done only once its slice-labelled LeaderWorkerSet is, so the wait
					// cannot end before the controller has acted.
					goingAway = append(goingAway, fmt.Sprintf("LeaderWorkerSet %s of v0.9.0 (slice 0, recreated in slice-aware form)", u.GetName()))
					continue
				}
				if !sliceWanted(slice, slices) {
					// A slice beyond spec.slices after a scale-down: the controller deletes its
					// LeaderWorkerSets; the rollout is over when they are gone.
					goingAway = append(goingAway, fmt.Sprintf("slice %s (LeaderWorkerSet %s)", slice, u.GetName()))
					continue
				}
				if u.GetDeletionTimestamp() == nil {
					targets[slice] = u
					continue
				}
			}
			old++
			replicas, found, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
			if !found {
				replicas = 1
			}
			oldGroups += replicas
		}
		prefix := fmt.Sprintf("role %s: ", role.Name)
		sliced := len(targets) > 1 || (len(targets) == 1 && targets[""] == nil)
		switch {
		case len(targets) == 0:
			problems = append(problems, prefix+fmt.Sprintf("no LeaderWorkerSet of revision %s yet (%s on LeaderWorkerSet v0.9.0)",
				revision, disaggutils.GenerateName(ds.Name, role.Name, revision)))
		case sliced && int32(len(targets)) < slices:
			problems = append(problems, prefix+fmt.Sprintf("%d of %d slices have a LeaderWorkerSet of revision %s", len(targets), slices, revision))
		}
		for _, slice := range sortedKeys(targets) {
			target := targets[slice]
			key, p := role.Name, prefix
			if sliced {
				key, p = role.Name+" slice "+slice, fmt.Sprintf("role %s slice %s: ", role.Name, slice)
			}
			state.targets[key] = target
			if rules.External(role) {
				// The role scaler's count (v0.10.0): the controller scales the LeaderWorkerSet to it
				// and ignores the role's own replicas.
				if n, found, _ := unstructured.NestedInt64(target.Object, "spec", "replicas"); found {
					want = int32(n)
				}
			}
			if problem := targetProblem(target, want); problem != "" {
				problems = append(problems, p+problem)
			}
		}
		if old > 0 {
			problems = append(problems, prefix+fmt.Sprintf("%d LeaderWorkerSets of earlier revisions remain (%d groups)", old, oldGroups))
		}
		if len(goingAway) > 0 {
			sort.Strings(goingAway)
			problems = append(problems, prefix+fmt.Sprintf("removed %s not gone yet (spec.slices is %d)",
				strings.Join(goingAway, ", "), slices))
		}
	}
	problems = append(problems, statusProblems(ds)...)
	if len(problems) == 0 {
		state.done = true
		return state
	}
	state.reason = strings.Join(problems, "; ")
	return state
}

// sliceWanted reports whether a LeaderWorkerSet labelled with slice belongs to a set of slices
// slices: v0.10.0 labels slice i of 0..slices-1 (disaggregatedset.x-k8s.io/slice); v0.9.0
// labels none, its one LeaderWorkerSet per role being slice 0.
func sliceWanted(slice string, slices int32) bool {
	if slice == "" {
		return true
	}
	i, err := strconv.ParseInt(slice, 10, 32)
	return err == nil && i >= 0 && int32(i) < slices
}

// targetProblem says what the role's LeaderWorkerSet of the current revision still lacks
// ("" when it has want groups, rolled out).
func targetProblem(target *unstructured.Unstructured, want int32) string {
	var lws lwsv1.LeaderWorkerSet
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(target.Object, &lws); err != nil {
		return err.Error()
	}
	have := int32(1)
	if lws.Spec.Replicas != nil {
		have = *lws.Spec.Replicas
	}
	if have != want {
		return fmt.Sprintf("the new revision is at %d of %d groups", have, want)
	}
	if done, reason := lwsrules.RolloutDone(&lws); !done {
		return firstSentence(reason)
	}
	return ""
}

// statusProblems checks status.roleStatuses and the conditions, when a controller reports them.
func statusProblems(ds *disaggv1.DisaggregatedSet) []string {
	var problems []string
	// Upstream main (after v0.10.0) reports status.observedGeneration and role statuses summed over
	// every slice (pkg/controllers/disaggregatedset/disaggregatedset_controller.go, updateStatus):
	// a role is done at its per-slice target times spec.slices, an External role's target being
	// its scaler's, which the set does not carry (its LeaderWorkerSets are checked instead).
	if og := ds.Status.ObservedGeneration; og != 0 && og < ds.Generation {
		problems = append(problems, fmt.Sprintf("the controller has observed generation %d, not %d yet", og, ds.Generation))
	}
	slices := int32(1)
	if ds.Spec.Slices != nil {
		slices = *ds.Spec.Slices
	}
	if len(ds.Status.RoleStatuses) > 0 {
		for i := range ds.Spec.Roles {
			role := &ds.Spec.Roles[i]
			want := rules.ReplicasOf(role) * slices
			var st *disaggv1.RoleStatus
			for j := range ds.Status.RoleStatuses {
				if ds.Status.RoleStatuses[j].Name == role.Name {
					st = &ds.Status.RoleStatuses[j]
				}
			}
			if st != nil && rules.External(role) {
				want = st.Replicas
			}
			switch {
			case st == nil:
				problems = append(problems, fmt.Sprintf("role %s: no status yet", role.Name))
			case st.UpdatedReplicas < want || st.ReadyReplicas < want || st.Replicas != want:
				problems = append(problems, fmt.Sprintf("role %s: status reports %d groups, %d updated, %d ready, of %d",
					role.Name, st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, want))
			}
		}
	}
	for _, c := range ds.Status.Conditions {
		if c.ObservedGeneration != 0 && c.ObservedGeneration < ds.Generation {
			problems = append(problems, fmt.Sprintf("condition %s describes generation %d, not %d yet", c.Type, c.ObservedGeneration, ds.Generation))
			continue
		}
		if c.Type == "Available" && c.Status != metav1.ConditionTrue {
			problems = append(problems, fmt.Sprintf("condition Available is %s (%s: %s)", c.Status, c.Reason, c.Message))
		}
	}
	return problems
}

// firstSentence keeps the counts of lwsrules.RolloutDone's reason, without the
// conditions it quotes.
func firstSentence(reason string) string {
	if i := strings.Index(reason, ". "); i >= 0 {
		return reason[:i]
	}
	return reason
}

// waitForRollout waits until the rollout of every role is done (RolloutDone), following the
// set's LeaderWorkerSets with a watch, then confirms each role's LeaderWorkerSet with the
// LeaderWorkerSet rollout wait (lwswait.Rollout: its status, then its pods). It returns the last
// DisaggregatedSet seen.
func waitForRollout(ctx context.Context, dyn dynamic.Interface, ri dynamic.ResourceInterface, u *unstructured.Unstructured, extras map[string]tftypes.Value) (*unstructured.Unstructured, error) {
	if !kindrules.BoolExtra(extras, attrWaitForRollout, true) || dyn == nil {
		return u, nil
	}
	lwsRI := dyn.Resource(leaderWorkerSetsGVR).Namespace(u.GetNamespace())
	var (
		last  *unstructured.Unstructured
		state rolloutState
	)
	concerns, cerr := ownEventConcerns(u)
	if cerr != nil {
		return u, cerr
	}
	followed := kube.NewFollowedObjects(concerns, u)
	// A permanent Warning event on a role's LeaderWorkerSet or its StatefulSets ends the wait.
	err := kube.FailOnWarningEvents(ctx, dyn, u.GetNamespace(), time.Now().Add(-time.Second).Truncate(time.Second), followed,
		func(ctx context.Context) error {
			var err error
			last, state, err = followRoles(ctx, dyn, ri, lwsRI, u, followed)
			return err
		})
	if last == nil {
		last = u
	}
	// A role's own wait (roleWaitError) has already said which of its groups are not ready.
	var timeout *kube.RolloutUnfinished
	var roleErr *roleWaitError
	if errors.As(err, &roleErr) || !errors.As(err, &timeout) {
		return last, err
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		timeout.Interrupted = true // Ctrl-C or Terraform stopping the provider: no further request
		return last, err
	}
	// The wait is over; a short fresh context names each role's groups that are not ready,
	// with the scheduler's reason.
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var lines []string
	for _, r := range sortedKeys(state.targets) {
		if groups := lwswait.NotReadyGroups(sctx, dyn, state.targets[r]); groups != "" {
			lines = append(lines, fmt.Sprintf("Role %s (LeaderWorkerSet %s): %s", r, state.targets[r].GetName(), groups))
		}
	}
	timeout.Detail = strings.Join(lines, "\n")
	return last, err
}

// followRoles follows the roles' LeaderWorkerSets until RolloutDone (watchRoles), then confirms
// each target with the LeaderWorkerSet rollout wait (lwswait.Rollout). The targets it has read are recorded
// in followed, so that only events with their UIDs concern the wait.
func followRoles(ctx context.Context, dyn dynamic.Interface, ri, lwsRI dynamic.ResourceInterface, u *unstructured.Unstructured,
	followed *kube.FollowedObjects) (*unstructured.Unstructured, rolloutState, error) {
	last, state, err := watchRoles(ctx, ri, lwsRI, u)
	for err == nil {
		for _, target := range state.targets {
			followed.Read(target.GetKind(), target)
		}
		deleted := false
		for _, r := range sortedKeys(state.targets) {
			target := state.targets[r]
			_, werr := lwswait.Rollout(ctx, dyn, lwsRI, target)
			if errors.Is(werr, lwswait.ErrDeleted) {
				// Deleted since the list: gone, not a failure. Follow the roles again, as the
				// controller has changed them.
				deleted = true
				break
			}
			if werr != nil {
				err = &roleWaitError{role: r, lws: target.GetName(), err: werr}
				break
			}
		}
		if !deleted {
			break
		}
		last, state, err = watchRoles(ctx, ri, lwsRI, u)
	}
	return last, state, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// watchRoles follows the LeaderWorkerSets labelled with the set's name (a list, then a watch
// from its resourceVersion, re-established from the last version seen after a lost connection),
// re-reading the set itself every statusRecheck, until RolloutDone or ctx ends.
func watchRoles(ctx context.Context, ri, lwsRI dynamic.ResourceInterface, u *unstructured.Unstructured) (*unstructured.Unstructured, rolloutState, error) {
	last := u
	var state rolloutState
	selector := disaggv1.SetNameLabelKey + "=" + u.GetName()
	items := map[string]*unstructured.Unstructured{}
	evaluate := func() (bool, error) {
		var ds disaggv1.DisaggregatedSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(last.Object, &ds); err != nil {
			return false, err
		}
		lwss := make([]*unstructured.Unstructured, 0, len(items))
		for _, x := range items {
			lwss = append(lwss, x)
		}
		state = rolloutStatus(&ds, lwss)
		return state.done, nil
	}
	// Each request is retried after a transient error (a lost connection, a restarting API
	// server) until ctx ends (kube.RetryTransient).
	fail := func(err error, what string) error {
		if ctx.Err() != nil {
			return timeoutError(state.reason)
		}
		if what == "" {
			return err
		}
		return fmt.Errorf("cannot %s the LeaderWorkerSets of the DisaggregatedSet: %w", what, err)
	}
	for {
		var cur *unstructured.Unstructured
		err := kube.RetryTransient(ctx, func(ctx context.Context) error {
			var gerr error
			cur, gerr = ri.Get(ctx, u.GetName(), metav1.GetOptions{})
			return gerr
		})
		if err != nil {
			return last, state, fail(err, "")
		}
		last = cur
		var list *unstructured.UnstructuredList
		err = kube.RetryTransient(ctx, func(ctx context.Context) error {
			var lerr error
			list, lerr = lwsRI.List(ctx, metav1.ListOptions{LabelSelector: selector})
			return lerr
		})
		if err != nil {
			return last, state, fail(err, "list")
		}
		clear(items)
		for i := range list.Items {
			items[list.Items[i].GetName()] = &list.Items[i]
		}
		if done, err := evaluate(); done || err != nil {
			return last, state, err
		}
		// A dropped watch resumes from the last event seen (kube.Follow); an expired version
		// lists again. The set itself is re-read every statusRecheck.
		done, err := kube.Follow(ctx, lwsRI, metav1.ListOptions{LabelSelector: selector}, list.GetResourceVersion(), kube.Follower{
			Event: func(ev watch.Event) (bool, error) {
				o, isObj := ev.Object.(*unstructured.Unstructured)
				if !isObj {
					return false, nil
				}
				if ev.Type == watch.Deleted {
					delete(items, o.GetName())
				} else {
					items[o.GetName()] = o
				}
				return evaluate()
			},
			TickEvery: statusRecheck,
			Tick: func(ctx context.Context) (bool, error) {
				cur, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
				switch {
				case err == nil:
					last = cur
				case kube.Transient(err) || ctx.Err() != nil:
					return false, nil //nolint:nilerr // re-read at the next tick, or the wait ends
				default:
					return false, err
				}
				return evaluate()
			},
		})
		var watchErr *kube.WatchError
		switch {
		case done:
			return last, state, nil
		case errors.As(err, &watchErr):
			return last, state, fail(watchErr.Err, "watch")
		case err != nil && !errors.Is(err, kube.ErrWatchExpired):
			return last, state, err
		case ctx.Err() != nil:
			return last, state, timeoutError(state.reason)
		}
		// The watch's version has expired: list again.
	}
}

// timeoutError is the error of a wait that ended before every role's rollout was done.
func timeoutError(reason string) error {
	return &kube.RolloutUnfinished{What: "the rollout of the roles", Reason: reason}
}

// roleWaitError is the leaderworkerset wait's error for one role's LeaderWorkerSet.
type roleWaitError struct {
	role, lws string
	err       error
}

func (e *roleWaitError) Error() string {
	return fmt.Sprintf("role %s (LeaderWorkerSet %s): %v", e.role, e.lws, e.err)
}

func (e *roleWaitError) Unwrap() error { return e.err }

// waitForCleanup waits, once the DisaggregatedSet is gone, until the garbage collector has
// deleted its LeaderWorkerSets, their pods and the set's headless Services: the controller
// labels all three with the set's name (GenerateLabels on the LeaderWorkerSets and in their pod
// templates; ServiceManager.buildService, pkg/controllers/disaggregatedset/service_manager.go,
// lws v0.9.0, for the "<name>-<revision>-<role>-prv" Services), so the GPUs are free and a set
// of the same name can be created when destroy returns.
func waitForCleanup(ctx context.Context, dyn dynamic.Interface, namespace, name string) error {
	selector := disaggv1.SetNameLabelKey + "=" + name
	for _, r := range []struct {
		gvr  schema.GroupVersionResource
		what string
	}{{leaderWorkerSetsGVR, "LeaderWorkerSets"}, {podsGVR, "pods"}, {servicesGVR, "Services"}} {
		if err := kube.WaitNoneLeft(ctx, dyn.Resource(r.gvr).Namespace(namespace), selector, r.what, "DisaggregatedSet"); err != nil {
			return err
		}
	}
	return nil
}
