package lwswait

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	upstreamlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// ErrDeleted is the error of a rollout wait whose LeaderWorkerSet was deleted while it waited
// (a watch event or a NotFound read): the object is gone, which a caller following several
// LeaderWorkerSets (a DisaggregatedSet's slices scaled down) may expect.
var ErrDeleted = errors.New("the LeaderWorkerSet was deleted while waiting for its rollout")

// Rollout watches the LeaderWorkerSet u until its rollout is done or ctx ends (the create or
// update timeout). It returns the last object seen so the state holds the latest status even
// when the wait fails.
func Rollout(ctx context.Context, dyn dynamic.Interface, ri dynamic.ResourceInterface, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	// The Warning events on the LeaderWorkerSet, its StatefulSets and its pods are quoted as they
	// come and in the message of a wait that does not finish; a refusal that does not clear by
	// itself (kube.PermanentWarning: the FailedCreate of a StatefulSet or a pod the API server
	// rejects) ends the wait with that event.
	last := u
	err := kube.FailOnWarningEvents(ctx, dyn, u.GetNamespace(), waitStart(), kube.NewFollowedObjects(EventConcerns(u.GetName()), u), func(ctx context.Context) error {
		var err error
		last, err = watchRollout(ctx, ri, u)
		if err == nil && dyn != nil {
			last, err = ConfirmPodsReady(ctx, dyn, ri, last)
		}
		return err
	})
	var timeout *kube.RolloutUnfinished
	if errors.As(err, &timeout) && errors.Is(ctx.Err(), context.Canceled) {
		// Interrupted (Ctrl-C, Terraform stopping the provider): say so, and make no
		// further request.
		timeout.Interrupted = true
		return last, err
	}
	if errors.As(err, &timeout) && dyn != nil {
		// The wait is over; a short fresh context names the groups that are not ready.
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		timeout.Detail = NotReadyGroups(sctx, dyn, last)
	}
	return last, err
}

// waitStart is the time from which a wait counts Warning events: a second early, as the
// controller may react to the apply before the wait lists the events, and core/v1 event
// timestamps have a resolution of one second.
func waitStart() time.Time {
	return time.Now().Add(-time.Second).Truncate(time.Second)
}

// EventConcerns says whether an event is about the LeaderWorkerSet name or one of its
// StatefulSets (and so, kube.FollowedObjects adds, one of their pods): the LeaderWorkerSet controller records its FailedCreate events on the
// LeaderWorkerSet (pod_controller.go, leaderworkerset_controller.go, lws v0.9.0), the
// StatefulSet controller its own on the leader StatefulSet (named as the LeaderWorkerSet) and on
// the worker StatefulSets (<name>-<group index>).
func EventConcerns(name string) kube.EventConcerns {
	return func(kind, obj string) bool {
		switch kind {
		case "LeaderWorkerSet":
			return obj == name
		case "StatefulSet":
			if obj == name {
				return true
			}
			index, found := strings.CutPrefix(obj, name+"-")
			_, err := strconv.Atoi(index)
			return found && err == nil
		}
		return false
	}
}

// ConfirmPodsReady checks the pods themselves once the status says the rollout is done. The
// controller computes status from its informer cache, so a status can count a group Ready
// whose pod the StatefulSet controller has just deleted for the update (seen in a rolling
// update that reverted an edited image), or count a group updated and ready whose worker
// StatefulSet has the new revision but still runs a pod of the former one. Until every group's
// pods are Ready, of one template revision (the set's, from the partition up), of the group's
// current incarnation (see notCurrent), and none is being replaced, it re-reads the object and
// the pods every second (wait.PollUntilContextCancel).
func ConfirmPodsReady(ctx context.Context, dyn dynamic.Interface, ri dynamic.ResourceInterface, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	last := u
	var reason string
	err := wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		lines, checked, lerr := groupsNotReady(ctx, dyn, last)
		if lerr != nil && kube.Transient(lerr) {
			return false, nil // a lost connection: list again at the next tick
		}
		if !checked {
			return true, nil // no group index (hash identity) or no pod list: the status decides
		}
		if len(lines) == 0 {
			return true, nil
		}
		reason = "the status reports the rollout done, but pods are not ready:\n" + strings.Join(lines, "\n")
		cur, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
		switch {
		case err == nil:
			last = cur
			var obj lwsv1.LeaderWorkerSet
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cur.Object, &obj); err == nil {
				if s := rules.RolloutStatus(&obj); !s.Done {
					reason = s.Reason
				}
			}
		case apierrors.IsNotFound(err):
			return false, ErrDeleted
		case !kube.Transient(err):
			return false, err
		}
		return false, nil
	})
	if err != nil && ctx.Err() != nil {
		return last, timeoutError(reason)
	}
	if err != nil {
		return last, err
	}
	// The status may have gone back to not done while the pods were replaced: wait for it again.
	var obj lwsv1.LeaderWorkerSet
	if runtime.DefaultUnstructuredConverter.FromUnstructured(last.Object, &obj) == nil && !rules.RolloutStatus(&obj).Done {
		return watchRollout(ctx, ri, last)
	}
	return last, nil
}

func watchRollout(ctx context.Context, ri dynamic.ResourceInterface, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return WatchProgress(ctx, ri, u, nil)
}

// WatchProgress is watchRollout that calls progress, when not nil, with each new
// one-line summary of the rollout's state (the restart action's progress events).
func WatchProgress(ctx context.Context, ri dynamic.ResourceInterface, u *unstructured.Unstructured, progress func(summary string)) (*unstructured.Unstructured, error) {
	last := u
	var lastReason, lastSummary string
	check := func(cur *unstructured.Unstructured) (bool, error) {
		last = cur
		var obj lwsv1.LeaderWorkerSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cur.Object, &obj); err != nil {
			return false, err
		}
		s := rules.RolloutStatus(&obj)
		lastReason = s.Reason
		if progress != nil && !s.Done && s.Summary != lastSummary {
			lastSummary = s.Summary
			progress(s.Summary)
		}
		return s.Done, nil
	}
	if done, err := check(u); done || err != nil {
		return last, err
	}
	// A lost connection or a restarting API server interrupts the watch, not the wait: the
	// object is read again and the watch re-established from its resourceVersion (kube.Follow),
	// each request retried with a back-off while the server is away (kube.RetryTransient).
	done, err := kube.Follow(ctx, ri, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", u.GetName()).String()},
		last.GetResourceVersion(), kube.Follower{
			Event: func(ev watch.Event) (bool, error) {
				if ev.Type == watch.Deleted {
					return false, ErrDeleted
				}
				cur, ok := ev.Object.(*unstructured.Unstructured)
				if !ok {
					return false, nil
				}
				return check(cur)
			},
			// The watch closed (server timeout, lost connection, or a resourceVersion too old):
			// re-read and watch again.
			Resync: func(ctx context.Context) (string, bool, error) {
				var cur *unstructured.Unstructured
				err := kube.RetryTransient(ctx, func(ctx context.Context) error {
					var gerr error
					cur, gerr = ri.Get(ctx, u.GetName(), metav1.GetOptions{})
					return gerr
				})
				switch {
				case err != nil && ctx.Err() != nil:
					return "", false, nil //nolint:nilerr // the wait has ended: its timeout error, not the read's
				case apierrors.IsNotFound(err):
					return "", false, ErrDeleted
				case err != nil:
					return "", false, err
				}
				done, err := check(cur)
				return cur.GetResourceVersion(), done, err
			},
		})
	var watchErr *kube.WatchError
	switch {
	case done:
		return last, nil
	case errors.As(err, &watchErr):
		if ctx.Err() != nil {
			return last, timeoutError(lastReason)
		}
		return last, fmt.Errorf("cannot watch the rollout: %w", watchErr.Err)
	case err != nil:
		return last, err
	}
	return last, timeoutError(lastReason)
}

// timeoutError is the error of a rollout wait that ended before the rollout was done.
func timeoutError(reason string) error {
	return &kube.RolloutUnfinished{What: "the rollout", Reason: reason}
}

// The labels the LWS controller puts on every pod of a group.
const (
	labelName        = upstreamlws.SetNameLabelKey
	labelGroupIndex  = upstreamlws.GroupIndexLabelKey
	labelWorkerIndex = upstreamlws.WorkerIndexLabelKey
)

// PodsGVR and StatefulSetsGVR are what the LeaderWorkerSet controller creates for a set.
var (
	PodsGVR         = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	StatefulSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
)

// PodsSelector selects the pods of the LeaderWorkerSet name.
func PodsSelector(name string) string { return labelName + "=" + name }

// NotReadyGroups lists the groups of u (a LeaderWorkerSet) whose pods are missing or not
// ready, from the pods' group-index labels ("" when the pods cannot be listed). The list is
// retried after a transient error (kube.RetryTransient) for as long as ctx lasts.
func NotReadyGroups(ctx context.Context, dyn dynamic.Interface, u *unstructured.Unstructured) string {
	var lines []string
	_ = kube.RetryTransient(ctx, func(ctx context.Context) error {
		var err error
		lines, _, err = groupsNotReady(ctx, dyn, u)
		return err
	})
	if len(lines) == 0 {
		return ""
	}
	const most = 20
	if len(lines) > most {
		lines = append(lines[:most], fmt.Sprintf("  ... and %d more groups", len(lines)-most))
	}
	return "Groups not ready:\n" + strings.Join(lines, "\n")
}

// defaultScheduler is the scheduler name the API server gives a pod that names none
// (SetDefaults_PodSpec, k8s.io/kubernetes v1.37 pkg/apis/core/v1/defaults.go), served by
// kube-scheduler's default profile.
const defaultScheduler = corev1.DefaultSchedulerName

// groupsNotReady describes each group of u that does not have all its pods Ready (terminating
// pods do not count); checked reports whether the pods could be listed and told apart by group,
// err the error of the pod list or of reading u (nil when no list was needed).
func groupsNotReady(ctx context.Context, dyn dynamic.Interface, u *unstructured.Unstructured) (lines []string, checked bool, err error) {
	var obj lwsv1.LeaderWorkerSet
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &obj); err != nil {
		return nil, false, err // not transient: the status decides
	}
	if obj.Spec.GroupIdentity == lwsv1.GroupIdentityHash {
		return nil, false, nil // hash-named groups carry no group index
	}
	replicas, size := int32(1), int32(1)
	if obj.Spec.Replicas != nil {
		replicas = *obj.Spec.Replicas
	}
	if obj.Spec.LeaderWorkerTemplate.Size != nil {
		size = *obj.Spec.LeaderWorkerTemplate.Size
	}
	pods, err := dyn.Resource(PodsGVR).Namespace(obj.Namespace).List(ctx, metav1.ListOptions{LabelSelector: labelName + "=" + obj.Name})
	if err != nil {
		if apierrors.IsForbidden(err) {
			kube.NoteMissingPermission(ctx, "", "pods", "list", obj.Namespace, err)
		}
		return nil, false, err
	}
	if len(pods.Items) == 0 && obj.Status.ReadyReplicas > 0 {
		// Ready groups without a single pod: the status is not the LWS controller's (a test
		// double that only writes status); there are no pods to check.
		return nil, false, nil
	}
	groups := map[string]*groupPods{}
	members := map[string][]*unstructured.Unstructured{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.GetDeletionTimestamp() != nil {
			continue // being replaced: its successor counts
		}
		g := p.GetLabels()[labelGroupIndex]
		c := groups[g]
		if c == nil {
			c = &groupPods{}
			groups[g] = c
		}
		c.add(p)
		members[g] = append(members[g], p)
	}
	for i := int32(0); i < replicas; i++ {
		g := strconv.Itoa(int(i))
		c := groups[g]
		if c == nil {
			lines = append(lines, fmt.Sprintf("  group %s: no pods yet (0/%d)", g, size))
			continue
		}
		if c.ready >= int(size) && len(c.revisions) > 1 {
			// Every pod Ready, but of two template revisions: the worker StatefulSet has the new
			// revision and has not replaced its pods yet, while the LWS controller already
			// counts the group updated and ready (it reads the StatefulSet's revision label and
			// its readyReplicas: replicaStates and updateStatus in
			// pkg/controllers/leaderworkerset_controller.go, lws v0.9.0).
			lines = append(lines, fmt.Sprintf("  group %s: %d pods ready, of %d template revisions: the update is still replacing them", g, c.ready, len(c.revisions)))
			continue
		}
		if c.ready < int(size) {
			line := fmt.Sprintf("  group %s: %d/%d pods ready (%d exist)", g, c.ready, size, c.pods)
			if c.unschedulable != "" {
				line += "; " + c.unschedulable
			}
			for _, name := range slices.Sorted(maps.Keys(c.unserved)) {
				line += "; " + unservedScheduler(c.unserved[name], name)
			}
			lines = append(lines, line)
		}
	}
	if len(lines) > 0 {
		return lines, true, nil
	}
	// Every group looks ready: check that its pods are of the set's current revision and of the
	// group's current incarnation (one more request, made only then).
	lines, err = notCurrent(ctx, dyn, &obj, replicas, size, members)
	if err != nil && kube.Transient(err) {
		return nil, false, err
	}
	if err != nil {
		if apierrors.IsForbidden(err) {
			kube.NoteMissingPermission(ctx, "apps", "statefulsets", "list", obj.Namespace, err)
		}
		return nil, true, nil //nolint:nilerr // no permission to list StatefulSets: the pods and the status decide (said above)
	}
	if len(lines) > 0 {
		return lines, true, nil
	}
	// The StatefulSets were listed after the pods: a replacement the StatefulSet controller
	// began in between (its StatefulSet observed by the second list) shows only in the pods.
	// List them once more and require the same pods, none of them terminating.
	again, err := dyn.Resource(PodsGVR).Namespace(obj.Namespace).List(ctx, metav1.ListOptions{LabelSelector: labelName + "=" + obj.Name})
	if err != nil {
		return nil, false, err
	}
	if changed := podsChanged(pods.Items, again.Items); changed != "" {
		return []string{"  pods ready, but " + changed}, true, nil
	}
	return nil, true, nil
}

// podsChanged says how the live pods of the list after differ from those of before ("" when
// they are the same pods, by name and UID, and none of them is terminating).
func podsChanged(before, after []unstructured.Unstructured) string {
	live := func(pods []unstructured.Unstructured) map[string]string {
		m := map[string]string{}
		for i := range pods {
			if pods[i].GetDeletionTimestamp() == nil {
				m[pods[i].GetName()] = string(pods[i].GetUID())
			}
		}
		return m
	}
	was, is := live(before), live(after)
	for _, name := range slices.Sorted(maps.Keys(was)) {
		uid, ok := is[name]
		switch {
		case !ok:
			return fmt.Sprintf("pod %s is being replaced", name)
		case uid != was[name]:
			return fmt.Sprintf("pod %s was just replaced", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(is)) {
		if _, ok := was[name]; !ok {
			return fmt.Sprintf("pod %s was just created", name)
		}
	}
	return ""
}

// notCurrent names the groups of obj whose pods, all Ready and of one revision, are not yet
// what the rollout leaves: the controller computes its status from its informer cache, so it
// can count a group updated and ready that it is about to replace. Two cases:
//
//   - Pods of another template revision than the set's: the LeaderWorkerSet controller labels
//     the leader StatefulSet with the revision it rolls out (the template-revision-hash label,
//     applied before the status in Reconcile, pkg/controllers/leaderworkerset_controller.go,
//     lws v0.9.0), and every group from the partition up is rolled to it.
//   - A worker of a former incarnation of the group. When the controller recreates a group (an
//     update that replaces the leader pod, a restart), the new leader pod's worker StatefulSet
//     (named as the leader pod) is created only once the former one, owned by the former leader
//     pod, is gone: until the garbage collector deletes it, its worker pods run on, Ready. The
//     controller tells a group's pods apart by their chain of controller owners, worker pod ->
//     worker StatefulSet -> leader pod by UID (workerPodBelongsToLeader in
//     pkg/controllers/pod_controller.go), and so does this check.
//
// Pods without a StatefulSet as their controller (not the controller's: a test double) are not
// checked.
func notCurrent(ctx context.Context, dyn dynamic.Interface, obj *lwsv1.LeaderWorkerSet, replicas, size int32, members map[string][]*unstructured.Unstructured) ([]string, error) {
	owned := false
	for _, pods := range members {
		for _, p := range pods {
			if owner := metav1.GetControllerOf(p); owner != nil && owner.Kind == "StatefulSet" {
				owned = true
			}
		}
	}
	if !owned {
		return nil, nil
	}
	list, err := dyn.Resource(StatefulSetsGVR).Namespace(obj.Namespace).List(ctx, metav1.ListOptions{LabelSelector: PodsSelector(obj.Name)})
	if err != nil {
		return nil, err
	}
	sets := map[string]*unstructured.Unstructured{}
	for i := range list.Items {
		sets[list.Items[i].GetName()] = &list.Items[i]
	}
	current := ""
	partition := int32(0)
	if c := obj.Spec.RolloutStrategy.RollingUpdateConfiguration; c != nil && c.Partition != nil {
		partition = *c.Partition // the groups below it keep their revision
	}
	if leaders := sets[obj.Name]; leaders != nil {
		current = leaders.GetLabels()[upstreamlws.RevisionKey]
		if notObserved(leaders) {
			// The LWS controller changed the leader StatefulSet and the StatefulSet controller
			// has not acted on it yet: it may still replace leader pods (an out-of-band edit
			// and its revert in quick succession leave the pods' revision as it was).
			return []string{"  pods ready, but the leader StatefulSet's latest spec is not acted on yet"}, nil
		}
		if line := leaderTemplateNotCurrent(obj, leaders, members, replicas, partition); line != "" {
			return []string{line}, nil
		}
	}
	var lines []string
	for i := int32(0); i < replicas; i++ {
		g := strconv.Itoa(int(i))
		if why := groupNotCurrent(members[g], sets, current, i >= partition, size); why != "" {
			lines = append(lines, fmt.Sprintf("  group %s: pods ready, but %s", g, why))
		}
	}
	return lines, nil
}

// leaderTemplateNotCurrent says why the leader StatefulSet's pod template is not yet rolled out
// ("" when it is). A change of an annotation the controller copies into that template
// (rules.CopiedAnnotations) makes no new revision and changes neither the object's generation
// nor its status: until the template carries the object's value the LWS controller has not
// acted on it, and until every leader pod from the partition up is of the StatefulSet's update
// revision (the StatefulSet controller's controller-revision-hash label) the StatefulSet
// controller is still replacing them, and their groups with them.
func leaderTemplateNotCurrent(obj *lwsv1.LeaderWorkerSet, leaders *unstructured.Unstructured, members map[string][]*unstructured.Unstructured, replicas, partition int32) string {
	annotations, _, _ := unstructured.NestedStringMap(leaders.Object, "spec", "template", "metadata", "annotations")
	for _, key := range rules.CopiedAnnotations {
		if want := rules.CopiedAnnotation(obj, key); annotations[key] != want {
			return fmt.Sprintf("  pods ready, but the leader StatefulSet's pod template does not carry the set's %s annotation yet", key)
		}
	}
	update, _, _ := unstructured.NestedString(leaders.Object, "status", "updateRevision")
	if update == "" {
		return "" // a test double without a StatefulSet controller's status
	}
	for i := max(partition, 0); i < replicas; i++ {
		for _, p := range members[strconv.Itoa(int(i))] {
			if p.GetLabels()[labelWorkerIndex] != "0" {
				continue
			}
			if rev, ok := p.GetLabels()[appsv1.ControllerRevisionHashLabelKey]; ok && rev != update {
				return fmt.Sprintf("  group %d: pods ready, but leader pod %s is not of the leader StatefulSet's update revision %s: the StatefulSet controller has not replaced it yet", i, p.GetName(), update)
			}
		}
	}
	return ""
}

// groupNotCurrent says why the pods of one group are not what the rollout leaves ("" when they
// are): see notCurrent. sets are the set's StatefulSets by name, current the revision the set
// rolls out ("" when unknown), updated whether the group is at or above the partition.
func groupNotCurrent(pods []*unstructured.Unstructured, sets map[string]*unstructured.Unstructured, current string, updated bool, size int32) string {
	var leader *unstructured.Unstructured
	for _, p := range pods {
		if rev, ok := p.GetLabels()[upstreamlws.RevisionKey]; ok && updated && current != "" && rev != current {
			return fmt.Sprintf("pod %s runs template revision %s, not the set's %s: the update has not replaced it yet", p.GetName(), rev, current)
		}
		if p.GetLabels()[labelWorkerIndex] == "0" {
			leader = p
		}
	}
	if leader == nil || size == 1 {
		return ""
	}
	const recreated = ": the group is being recreated"
	set := sets[leader.GetName()]
	switch {
	case set == nil:
		return "its worker StatefulSet is gone" + recreated
	case set.GetDeletionTimestamp() != nil:
		return "its worker StatefulSet is being deleted" + recreated
	}
	if owner := metav1.GetControllerOf(set); owner == nil || owner.UID != leader.GetUID() {
		return "its worker StatefulSet belongs to a former leader pod" + recreated
	}
	if notObserved(set) {
		return "its worker StatefulSet's latest spec is not acted on yet"
	}
	for _, p := range pods {
		if p == leader {
			continue
		}
		if owner := metav1.GetControllerOf(p); owner == nil || owner.UID != set.GetUID() {
			return fmt.Sprintf("worker pod %s belongs to a former worker StatefulSet", p.GetName()) + recreated
		}
	}
	return ""
}

// notObserved reports whether the StatefulSet controller has not yet acted on the latest spec
// of the StatefulSet s: its status.observedGeneration is below metadata.generation (the check of
// `kubectl rollout status`, StatefulSetStatusViewer in k8s.io/kubectl/pkg/polymorphichelpers).
// A StatefulSet without an observed generation (a test double) counts as observed.
func notObserved(s *unstructured.Unstructured) bool {
	observed, found, err := unstructured.NestedInt64(s.Object, "status", "observedGeneration")
	return err == nil && found && observed < s.GetGeneration()
}

// PodReady says whether the pod p reports its Ready condition True.
func PodReady(p *unstructured.Unstructured) bool {
	var c groupPods
	c.add(p)
	return c.ready > 0
}

// groupPods counts the pods of one group.
type groupPods struct {
	pods, ready   int
	unschedulable string // the scheduler's reason for the first pod it cannot place
	// unserved counts, by spec.schedulerName, the Pending pods that no scheduler has
	// picked up although they name a scheduler other than the default one.
	unserved map[string]int
	// revisions counts the pods by their template revision (the controller's RevisionKey label).
	revisions map[string]int
}

func (c *groupPods) add(p *unstructured.Unstructured) {
	c.pods++
	if rev, ok := p.GetLabels()[upstreamlws.RevisionKey]; ok {
		if c.revisions == nil {
			c.revisions = map[string]int{}
		}
		c.revisions[rev]++
	}
	schedulerName, _, _ := unstructured.NestedString(p.Object, "spec", "schedulerName")
	if schedulerName == "" {
		schedulerName = defaultScheduler
	}
	nodeName, _, _ := unstructured.NestedString(p.Object, "spec", "nodeName")
	phase, _, _ := unstructured.NestedString(p.Object, "status", "phase")
	scheduledCondition := false
	conds, _, _ := unstructured.NestedSlice(p.Object, "status", "conditions")
	for _, raw := range conds {
		cond, _ := raw.(map[string]any)
		if cond["type"] == "Ready" && cond["status"] == "True" {
			c.ready++
		}
		if cond["type"] != "PodScheduled" {
			continue
		}
		scheduledCondition = true
		// kube-scheduler records why it cannot place a pod in its PodScheduled condition
		// (reason Unschedulable), e.g. "0/10 nodes are available: ..."
		// (handleSchedulingFailure, k8s.io/kubernetes v1.37 pkg/scheduler/schedule_one.go).
		if cond["status"] == "False" && c.unschedulable == "" {
			msg, _ := cond["message"].(string)
			by := ""
			if schedulerName != defaultScheduler {
				by = fmt.Sprintf(" by its scheduler %q", schedulerName)
			}
			c.unschedulable = fmt.Sprintf("pod %s not scheduled%s: %s", p.GetName(), by, msg)
		}
	}
	// A pod is bound to a node (spec.nodeName) only by a scheduler, and only a scheduler whose
	// name the pod gives writes its PodScheduled condition; kube-scheduler serves the profiles it
	// is configured with, "default-scheduler" unless told otherwise (KubeSchedulerProfile,
	// k8s.io/kube-scheduler v0.37 config/v1/types.go). A Pending pod with neither, naming another
	// scheduler, waits for a scheduler that is most likely not installed.
	if nodeName == "" && !scheduledCondition && (phase == "" || phase == string(corev1.PodPending)) && schedulerName != defaultScheduler {
		if c.unserved == nil {
			c.unserved = map[string]int{}
		}
		c.unserved[schedulerName]++
	}
}

// unservedScheduler explains n pending pods that name scheduler and that no scheduler picked up.
func unservedScheduler(n int, scheduler string) string {
	if n == 1 {
		return fmt.Sprintf("1 pod pending: no scheduler has picked it up; its schedulerName %q is not served by this "+
			"cluster's default scheduler (is that scheduler installed?)", scheduler)
	}
	return fmt.Sprintf("%d pods pending: no scheduler has picked them up; their schedulerName %q is not served by this "+
		"cluster's default scheduler (is that scheduler installed?)", n, scheduler)
}
