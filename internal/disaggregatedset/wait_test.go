package disaggregatedset

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync/atomic"
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
	disaggutils "sigs.k8s.io/lws/pkg/utils/disaggregatedset"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// lwsOf is a LeaderWorkerSet of the set's role at revision rev, as the controller labels it,
// with replicas groups of which ready are ready and updated.
func lwsOf(ds *disaggv1.DisaggregatedSet, role, rev string, replicas, ready int64) *unstructured.Unstructured {
	labels := map[string]any{}
	for k, v := range disaggutils.GenerateLabels(ds.Name, role, rev) {
		labels[k] = v
	}
	available := "False"
	if ready == replicas {
		available = "True"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": disaggutils.GenerateName(ds.Name, role, rev), "labels": labels, "generation": int64(1)},
		"spec":     map[string]any{"replicas": replicas},
		"status": map[string]any{"replicas": replicas, "readyReplicas": ready, "updatedReplicas": ready, "observedGeneration": int64(1),
			"conditions": []any{map[string]any{"type": "Available", "status": available}}},
	}}
}

func TestRolloutDone(t *testing.T) {
	ds := dsfixture.Pair()
	rules.SetDefaults(ds, k8sschema.NullValue(node()))
	rev := rules.ComputeRevision(ds.Spec.Roles)
	cases := []struct {
		name   string
		sets   []*unstructured.Unstructured
		status func(*disaggv1.DisaggregatedSet)
		done   bool
		reason string
	}{
		{name: "both roles rolled out", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 4, 4)}, done: true},
		{name: "a role not created yet", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2)},
			reason: "role decode: no LeaderWorkerSet of revision " + rev + " yet (llama-" + rev + "-decode on LeaderWorkerSet v0.9.0)"},
		{name: "new revision still scaling up", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 3, 3)},
			reason: "role decode: the new revision is at 3 of 4 groups"},
		{name: "groups not ready", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 1), lwsOf(ds, "decode", rev, 4, 4)},
			reason: "role prefill: 1 of 2 groups updated; 1 of 2 groups ready; condition Available is not True"},
		{name: "old revision left", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 4, 4), lwsOf(ds, "decode", "0ld0ld00", 0, 0)},
			reason: "role decode: 1 LeaderWorkerSets of earlier revisions remain (0 groups)"},
		{name: "a status that says not ready", sets: []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 4, 4)},
			status: func(ds *disaggv1.DisaggregatedSet) {
				ds.Status.RoleStatuses = []disaggv1.RoleStatus{{Name: "prefill", Replicas: 2, ReadyReplicas: 2, UpdatedReplicas: 2}, {Name: "decode", Replicas: 4, ReadyReplicas: 3, UpdatedReplicas: 4}}
			},
			reason: "role decode: status reports 4 groups, 4 updated, 3 ready, of 4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := ds.DeepCopy()
			if tc.status != nil {
				tc.status(obj)
			}
			done, reason := RolloutDone(obj, tc.sets)
			if done != tc.done || !strings.HasPrefix(reason, tc.reason) {
				t.Errorf("RolloutDone = %v, %q; want %v, %q", done, reason, tc.done, tc.reason)
			}
		})
	}
}

// forceClosed is what net/http's HTTP/2 client returns for every request still in flight on a
// connection it closed after a failed write (issue 25, C).
var forceClosed = &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets",
	Err: errors.New("http2: client connection force closed via ClientConn.Close")}

// The wait that follows the roles' LeaderWorkerSets outlives lost connections: the GET of the
// set, the list of its LeaderWorkerSets and the watch are each retried.
func TestWatchRolesRetriesTransientErrors(t *testing.T) {
	ds := dsfixture.Pair()
	rules.SetDefaults(ds, k8sschema.NullValue(node()))
	rev := rules.ComputeRevision(ds.Spec.Roles)
	dsGVR := disaggv1.GroupVersion.WithResource("disaggregatedsets")
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion(disaggv1.GroupVersion.String())
	u.SetKind("DisaggregatedSet")
	inCluster := func(l *unstructured.Unstructured) *unstructured.Unstructured {
		l.SetAPIVersion("leaderworkerset.x-k8s.io/v1")
		l.SetKind("LeaderWorkerSet")
		l.SetNamespace("default")
		return l
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
		dsGVR: "DisaggregatedSetList", leaderWorkerSetsGVR: "LeaderWorkerSetList",
	}, u, inCluster(lwsOf(ds, "prefill", rev, 2, 2)), inCluster(lwsOf(ds, "decode", rev, 4, 3)))
	counter := func(verb, resource string) *atomic.Int32 {
		var calls atomic.Int32
		dyn.PrependReactor(verb, resource, func(k8stesting.Action) (bool, runtime.Object, error) {
			if calls.Add(1) == 1 {
				return true, nil, forceClosed
			}
			return false, nil, nil
		})
		return &calls
	}
	gets, lists := counter("get", "disaggregatedsets"), counter("list", "leaderworkersets")
	var watches atomic.Int32
	dyn.PrependWatchReactor("leaderworkersets", func(k8stesting.Action) (bool, watch.Interface, error) {
		if watches.Add(1) == 1 {
			return true, nil, forceClosed
		}
		return false, nil, nil
	})
	lwsRI := dyn.Resource(leaderWorkerSetsGVR).Namespace("default")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		time.Sleep(time.Second)
		if _, err := lwsRI.Update(ctx, inCluster(lwsOf(ds, "decode", rev, 4, 4)), metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
	}()
	_, state, err := watchRoles(ctx, dyn.Resource(dsGVR).Namespace("default"), lwsRI, u)
	if err != nil || !state.done {
		t.Fatalf("watchRoles: done %v, %v (%s)", state.done, err, state.reason)
	}
	if gets.Load() < 2 || lists.Load() < 2 || watches.Load() < 2 {
		t.Fatalf("want each request retried: %d GETs, %d lists, %d watches", gets.Load(), lists.Load(), watches.Load())
	}
}

// An External role is rolled out at whatever count its scaler gave the LeaderWorkerSet.
func TestRolloutDoneExternalRole(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.Roles[1].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingExternal}
	rules.SetDefaults(ds, k8sschema.NullValue(node()))
	rev := rules.ComputeRevision(ds.Spec.Roles)
	done, reason := RolloutDone(ds, []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 5, 5)})
	if !done {
		t.Errorf("not done: %s", reason)
	}
	if done, _ := RolloutDone(ds, []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 5, 3)}); done {
		t.Errorf("done with 3 of 5 decode groups ready")
	}
}

// With v0.10.0 slices, each slice's LeaderWorkerSet of the current revision counts, and a missing
// slice keeps the rollout open.
func TestRolloutDoneSlices(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.Slices = ptrInt32(2)
	rules.SetDefaults(ds, k8sschema.NullValue(node()))
	rev := rules.ComputeRevision(ds.Spec.Roles)
	sliced := func(role string, slice string, replicas, ready int64) *unstructured.Unstructured {
		u := lwsOf(ds, role, rev, replicas, ready)
		labels := u.GetLabels()
		labels[disaggv1.SliceLabelKey] = slice
		u.SetLabels(labels)
		u.SetName("llama-" + slice + "-" + rev + "-" + role)
		return u
	}
	all := []*unstructured.Unstructured{sliced("prefill", "0", 2, 2), sliced("decode", "0", 4, 4), sliced("prefill", "1", 2, 2), sliced("decode", "1", 4, 4)}
	if done, reason := RolloutDone(ds, all); !done {
		t.Errorf("not done: %s", reason)
	}
	if done, reason := RolloutDone(ds, all[:3]); done || reason != "role decode: 1 of 2 slices have a LeaderWorkerSet of revision "+rev {
		t.Errorf("a missing slice: %v %q", done, reason)
	}
	all[3] = sliced("decode", "1", 4, 1)
	if done, reason := RolloutDone(ds, all); done || !strings.HasPrefix(reason, "role decode slice 1: ") {
		t.Errorf("a slice not ready: %v %q", done, reason)
	}
}

// A set of v0.9.0 (LeaderWorkerSets without the slice label) applied with slices = 2 under
// v0.10.0: the controller deletes the legacy slice 0 and recreates it slice-aware
// (recreateLegacySlice0, disaggregatedset_controller.go, lws 2161f38). Right after the apply,
// before the controller acts, only the legacy LeaderWorkerSets exist, ready: the rollout is not
// done; nor while slice 1 exists beside them; it is once slice 0 is slice-labelled.
func TestRolloutDoneLegacySlice0(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.Slices = ptrInt32(2)
	rules.SetDefaults(ds, k8sschema.NullValue(node()))
	rev := rules.ComputeRevision(ds.Spec.Roles)
	legacy := []*unstructured.Unstructured{lwsOf(ds, "prefill", rev, 2, 2), lwsOf(ds, "decode", rev, 4, 4)}
	done, reason := RolloutDone(ds, legacy)
	if done || !strings.Contains(reason, "role prefill: no LeaderWorkerSet of revision "+rev) ||
		!strings.Contains(reason, "LeaderWorkerSet llama-"+rev+"-prefill of v0.9.0 (slice 0, recreated in slice-aware form) not gone yet") {
		t.Errorf("before the controller acts: %v %q", done, reason)
	}
	withSlice1 := append(legacy, slicedLWS(ds, "prefill", "1", 2, 2), slicedLWS(ds, "decode", "1", 4, 4))
	if done, reason := RolloutDone(ds, withSlice1); done || !strings.Contains(reason, "1 of 2 slices have a LeaderWorkerSet of revision") {
		t.Errorf("slice 1 beside the legacy slice 0: %v %q", done, reason)
	}
	migrated := append(withSlice1[2:], slicedLWS(ds, "prefill", "0", 2, 2), slicedLWS(ds, "decode", "0", 4, 4))
	if done, reason := RolloutDone(ds, migrated); !done {
		t.Errorf("migrated: %q", reason)
	}
	// With one slice, v0.10.0 adopts the legacy LeaderWorkerSets as slice 0 (GetForRole).
	ds.Spec.Slices = nil
	if done, reason := RolloutDone(ds, legacy); !done {
		t.Errorf("one slice, legacy: %q", reason)
	}
}

func ptrInt32(n int32) *int32 { return &n }

// The status of upstream main: observedGeneration, role statuses summed over the slices, an
// External role at whatever count it has.
func TestStatusProblemsMain(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Generation = 3
	ds.Spec.Slices = ptrInt32(2)
	ds.Spec.Roles[1].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingExternal}
	rules.SetDefaults(ds, k8sschema.NullValue(node()))
	ds.Status.ObservedGeneration = 3
	ds.Status.RoleStatuses = []disaggv1.RoleStatus{
		{Name: "prefill", Replicas: 4, ReadyReplicas: 4, UpdatedReplicas: 4}, // 2 per slice
		{Name: "decode", Replicas: 7, ReadyReplicas: 7, UpdatedReplicas: 7},  // the scaler's
	}
	if p := statusProblems(ds); len(p) != 0 {
		t.Errorf("problems: %v", p)
	}
	ds.Status.ObservedGeneration = 2
	ds.Status.RoleStatuses[0].ReadyReplicas = 2
	ds.Status.RoleStatuses[1].ReadyReplicas = 6
	want := []string{
		"the controller has observed generation 2, not 3 yet",
		"role prefill: status reports 4 groups, 4 updated, 2 ready, of 4",
		"role decode: status reports 7 groups, 7 updated, 6 ready, of 7",
	}
	if p := statusProblems(ds); strings.Join(p, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s", strings.Join(p, "\n"))
	}
}

// slicedLWS is the v0.10.0 LeaderWorkerSet of the set's role in slice, at the current revision.
func slicedLWS(ds *disaggv1.DisaggregatedSet, role, slice string, replicas, ready int64) *unstructured.Unstructured {
	rev := rules.ComputeRevision(ds.Spec.Roles)
	u := lwsOf(ds, role, rev, replicas, ready)
	labels := u.GetLabels()
	labels[disaggv1.SliceLabelKey] = slice
	u.SetLabels(labels)
	u.SetName(ds.Name + "-" + slice + "-" + rev + "-" + role)
	u.SetAPIVersion("leaderworkerset.x-k8s.io/v1")
	u.SetKind("LeaderWorkerSet")
	u.SetNamespace("default")
	return u
}

// After slices 3 -> 2 the LeaderWorkerSets of slice 2 are not targets: the rollout waits until
// they are gone, and says which.
func TestRolloutDoneSlicesScaleDown(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.Slices = ptrInt32(2)
	rules.SetDefaults(ds, k8sschema.NullValue(node()))
	var kept []*unstructured.Unstructured
	for _, slice := range []string{"0", "1"} {
		kept = append(kept, slicedLWS(ds, "prefill", slice, 2, 2), slicedLWS(ds, "decode", slice, 4, 4))
	}
	extra := slicedLWS(ds, "decode", "2", 4, 4)
	done, reason := RolloutDone(ds, append(append([]*unstructured.Unstructured{}, kept...), extra))
	want := "role decode: removed slice 2 (LeaderWorkerSet " + extra.GetName() + ") not gone yet (spec.slices is 2)"
	if done || reason != want {
		t.Errorf("slice 2 still there: %v %q, want %q", done, reason, want)
	}
	if done, reason := RolloutDone(ds, kept); !done {
		t.Errorf("slice 2 gone: not done: %s", reason)
	}
}

// fakeSlices is a fake cluster with the set (slices 2) and its LeaderWorkerSets of slices 0 to 2.
func fakeSlices(t *testing.T) (*dynamicfake.FakeDynamicClient, *disaggv1.DisaggregatedSet, *unstructured.Unstructured) {
	t.Helper()
	ds := dsfixture.Pair()
	ds.Spec.Slices = ptrInt32(2)
	rules.SetDefaults(ds, k8sschema.NullValue(node()))
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion(disaggv1.GroupVersion.String())
	u.SetKind("DisaggregatedSet")
	objs := []runtime.Object{u}
	for _, slice := range []string{"0", "1", "2"} {
		objs = append(objs, slicedLWS(ds, "prefill", slice, 2, 2), slicedLWS(ds, "decode", slice, 4, 4))
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
		disaggv1.GroupVersion.WithResource("disaggregatedsets"): "DisaggregatedSetList", leaderWorkerSetsGVR: "LeaderWorkerSetList",
		podsGVR: "PodList",
	}, objs...)
	return dyn, ds, u
}

// The wait follows the removed slice until the controller has deleted its LeaderWorkerSets.
func TestWatchRolesWaitsForRemovedSlices(t *testing.T) {
	dyn, ds, u := fakeSlices(t)
	lwsRI := dyn.Resource(leaderWorkerSetsGVR).Namespace("default")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The time just before the last delete is sent: the wait cannot have seen slice 2 gone before
	// it. (Taken after the deletes, it could be later than the wait's return, which may follow
	// the last delete's watch event at once.)
	lastDeleteSent := make(chan time.Time, 1)
	go func() {
		time.Sleep(time.Second)
		for i, role := range []string{"prefill", "decode"} {
			if i == 1 {
				lastDeleteSent <- time.Now()
			}
			if err := lwsRI.Delete(ctx, slicedLWS(ds, role, "2", 0, 0).GetName(), metav1.DeleteOptions{}); err != nil {
				t.Error(err)
			}
		}
	}()
	_, state, err := watchRoles(ctx, dyn.Resource(disaggv1.GroupVersion.WithResource("disaggregatedsets")).Namespace("default"), lwsRI, u)
	returned := time.Now()
	if err != nil || !state.done {
		t.Fatalf("watchRoles: done %v, %v (%s)", state.done, err, state.reason)
	}
	if at := <-lastDeleteSent; returned.Before(at) {
		t.Fatal("the wait ended before slice 2 was gone")
	}
	if len(state.targets) != 4 {
		t.Errorf("targets %v, want 2 roles x slices 0 and 1", sortedKeys(state.targets))
	}
}

// A LeaderWorkerSet deleted between the list and its own wait's read (NotFound) is gone, not an
// error: the wait follows the roles again and ends when the set is rolled out.
func TestWaitForRolloutLeaderWorkerSetNotFound(t *testing.T) {
	dyn, ds, u := fakeSlices(t)
	lwsRI := dyn.Resource(leaderWorkerSetsGVR).Namespace("default")
	for _, role := range []string{"prefill", "decode"} {
		if err := lwsRI.Delete(context.Background(), slicedLWS(ds, role, "2", 0, 0).GetName(), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// A pod of slice 0's prefill not ready sends that LeaderWorkerSet's own wait to read it
	// again; the read finds it deleted (and the controller has created it again, without pods).
	target := slicedLWS(ds, "prefill", "0", 2, 2)
	pod := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": target.GetName() + "-0", "namespace": "default", "labels": map[string]any{
			"leaderworkerset.sigs.k8s.io/name": target.GetName(), "leaderworkerset.sigs.k8s.io/group-index": "0"}},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False"}}},
	}}
	podRI := dyn.Resource(podsGVR).Namespace("default")
	if _, err := podRI.Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var notFound atomic.Int32
	dyn.PrependReactor("get", "leaderworkersets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.GetAction).GetName() != target.GetName() || notFound.Add(1) > 1 {
			return false, nil, nil
		}
		tracker := dyn.Tracker()
		if err := tracker.Delete(podsGVR, "default", pod.GetName()); err != nil {
			t.Error(err)
		}
		return true, nil, apierrors.NewNotFound(leaderWorkerSetsGVR.GroupResource(), target.GetName())
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := waitForRollout(ctx, dyn, dyn.Resource(disaggv1.GroupVersion.WithResource("disaggregatedsets")).Namespace("default"), u, nil)
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	if notFound.Load() == 0 {
		t.Fatal("the LeaderWorkerSet's wait never read it (the test did not exercise NotFound)")
	}
}
