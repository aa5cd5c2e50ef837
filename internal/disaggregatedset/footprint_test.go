package disaggregatedset

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
)

func TestFootprint(t *testing.T) {
	type role struct {
		groups, peak   int64
		gpus, peakGPUs string
	}
	cases := []struct {
		name string
		edit func(*disaggv1.DisaggregatedSet)
		want map[string]role
	}{
		// Groups of 2 pods with 8 GPUs each; without a rollingUpdateConfiguration a role rolls
		// with one surge group.
		{"prefill 2 and decode 4 groups", func(*disaggv1.DisaggregatedSet) {},
			map[string]role{"prefill": {2, 3, "32", "48"}, "decode": {4, 5, "64", "80"}}},
		{"max_surge 50% of 4 is 2, max_surge 0 adds none", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxSurge: intstr.FromString("50%")}
			ds.Spec.Roles[0].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxUnavailable: intstr.FromInt32(1)}
		}, map[string]role{"prefill": {2, 2, "32", "32"}, "decode": {4, 6, "64", "96"}}},
		{"3 slices copy every role", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Slices = ptr.To[int32](3) },
			map[string]role{"prefill": {6, 9, "96", "144"}, "decode": {12, 15, "192", "240"}}},
		{"roles at zero roll nothing", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.Replicas = ptr.To[int32](0)
			ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](0)
		}, map[string]role{"prefill": {0, 0, "0", "0"}, "decode": {0, 0, "0", "0"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := pair()
			tc.edit(ds)
			roles := Footprint(ds)
			if len(roles) != len(tc.want) {
				t.Fatalf("%d roles", len(roles))
			}
			for _, r := range roles {
				at, peak := r.Total(r.Groups).Requests["nvidia.com/gpu"], r.Total(r.PeakGroups).Requests["nvidia.com/gpu"]
				got := role{r.Groups, r.PeakGroups, at.String(), peak.String()}
				if got != tc.want[r.Name] {
					t.Errorf("%s: %+v, want %+v", r.Name, got, tc.want[r.Name])
				}
			}
		})
	}
}

// TestRunningReplicasRecorded: a refresh records an External role's running groups (the role
// scaler's spec.replicas, else the role's LeaderWorkerSets of the current revision over every
// slice), and the footprint counts them; an apply records the planned count where it is known.
func TestRunningReplicasRecorded(t *testing.T) {
	ds := pair()
	ds.Spec.Roles[1].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingExternal}
	ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](1) // what the server holds: ignored by the controller
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	rev := ComputeRevision(ds.Spec.Roles)
	lws := func(name, rev, slice string, replicas int64, deleting bool) runtime.Object {
		l := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
			"metadata": map[string]any{"name": name, "namespace": "default", "labels": map[string]any{
				disaggv1.SetNameLabelKey: "llama", disaggv1.RoleLabelKey: "decode", disaggv1.RevisionLabelKey: rev, disaggv1.SliceLabelKey: slice}},
			"spec": map[string]any{"replicas": replicas},
		}}
		if deleting {
			now := metav1.Now()
			l.SetDeletionTimestamp(&now)
		}
		return l
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		leaderWorkerSetsGVR: "LeaderWorkerSetList", RoleScalerKind.GVR(): "DisaggregatedSetRoleScalerList",
	}, lws("a", rev, "0", 3, false), lws("b", rev, "1", 1, false), lws("c", "0ld0ld00", "0", 5, false), lws("d", rev, "2", 7, true))
	decode := func(u *unstructured.Unstructured) (int64, string) {
		t.Helper()
		got := &disaggv1.DisaggregatedSet{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, got); err != nil {
			t.Fatal(err)
		}
		fp := Footprint(got)[1]
		gpus := fp.Total(fp.Groups).Requests["nvidia.com/gpu"]
		return int64(*got.Spec.Roles[1].Spec.Replicas), gpus.String()
	}
	ctx := context.Background()
	if n, gpus := decode(withRunningReplicas(ctx, dyn, u)); n != 4 || gpus != "64" {
		t.Errorf("from the LeaderWorkerSets: %d groups, %s GPUs; want 4 (3 + 1 of the current revision), 64", n, gpus)
	}
	if n, _ := decode(u); n != 1 {
		t.Errorf("the object read was changed: %d", n)
	}
	scaler := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": disaggv1.GroupVersion.String(), "kind": "DisaggregatedSetRoleScaler",
		"metadata": map[string]any{"name": "llama-decode", "namespace": "default"},
		"spec":     map[string]any{"replicas": int64(6)},
	}}
	if _, err := dyn.Resource(RoleScalerKind.GVR()).Namespace("default").Create(ctx, scaler, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, gpus := decode(withRunningReplicas(ctx, dyn, u)); n != 6 || gpus != "96" {
		t.Errorf("from the scaler: %d groups, %s GPUs; want 6, 96", n, gpus)
	}
	if n, _ := decode(setRunningReplicas(ctx, dyn, u, map[string]int64{"decode": 5})); n != 5 {
		t.Errorf("planned: %d, want 5", n)
	}
	static := pair()
	obj, _ = runtime.DefaultUnstructuredConverter.ToUnstructured(static)
	su := &unstructured.Unstructured{Object: obj}
	if got := withRunningReplicas(ctx, dyn, su); got != su {
		t.Error("a set without External roles is copied")
	}
}
