package disaggregatedset

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/utils/ptr"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
)

// TestRunningReplicasRecorded: a refresh records an External role's running groups, as the
// controller's updateScalerStatus counts them (disaggregatedset_controller.go, lws 2161f38): the
// role scaler's status.replicas once the controller has written it, not its spec.replicas (what
// an autoscaler asked for), else the status.replicas of the role's LeaderWorkerSets of every
// revision and slice; the footprint counts them; an apply records the planned count where it is
// known.
func TestRunningReplicasRecorded(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.Roles[1].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingExternal}
	ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](1) // what the server holds: ignored by the controller
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	rev := rules.ComputeRevision(ds.Spec.Roles)
	lws := func(name, rev, slice string, replicas int64, deleting bool) runtime.Object {
		l := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
			"metadata": map[string]any{"name": name, "namespace": "default", "labels": map[string]any{
				disaggv1.SetNameLabelKey: "llama", disaggv1.RoleLabelKey: "decode", disaggv1.RevisionLabelKey: rev, disaggv1.SliceLabelKey: slice}},
			"spec":   map[string]any{"replicas": replicas + 10}, // asked for, not running yet
			"status": map[string]any{"replicas": replicas},
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
		fp := rules.Footprint(got)[1]
		gpus := fp.Total(fp.Groups).Requests["nvidia.com/gpu"]
		return int64(*got.Spec.Roles[1].Spec.Replicas), gpus.String()
	}
	ctx := context.Background()
	if n, gpus := decode(withRunningReplicas(ctx, dyn, u)); n != 16 || gpus != "256" {
		t.Errorf("from the LeaderWorkerSets: %d groups, %s GPUs; want 16 (3 + 1 + 5 + 7 created, of every revision), 256", n, gpus)
	}
	if n, _ := decode(u); n != 1 {
		t.Errorf("the object read was changed: %d", n)
	}
	scaler := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": disaggv1.GroupVersion.String(), "kind": "DisaggregatedSetRoleScaler",
		"metadata": map[string]any{"name": "llama-decode", "namespace": "default"},
		"spec":     map[string]any{"replicas": int64(6)},
	}}
	scalers := dyn.Resource(RoleScalerKind.GVR()).Namespace("default")
	if _, err := scalers.Create(ctx, scaler, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Created, its status not written yet: the LeaderWorkerSets still tell.
	if n, _ := decode(withRunningReplicas(ctx, dyn, u)); n != 16 {
		t.Errorf("a scaler without status: %d groups, want 16 from the LeaderWorkerSets", n)
	}
	scaler.Object["status"] = map[string]any{"replicas": int64(2), "observedGeneration": int64(1)}
	if _, err := scalers.Update(ctx, scaler, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, gpus := decode(withRunningReplicas(ctx, dyn, u)); n != 2 || gpus != "32" {
		t.Errorf("from the scaler's status: %d groups, %s GPUs; want 2 (not spec.replicas 6), 32", n, gpus)
	}
	// A status without replicas (omitempty) is 0 groups.
	scaler.Object["status"] = map[string]any{"observedGeneration": int64(1)}
	if _, err := scalers.Update(ctx, scaler, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, _ := decode(withRunningReplicas(ctx, dyn, u)); n != 0 {
		t.Errorf("a scaler at 0: %d groups", n)
	}
	if n, _ := decode(setRunningReplicas(ctx, dyn, u, map[string]int64{"decode": 5})); n != 5 {
		t.Errorf("planned: %d, want 5", n)
	}
	static := dsfixture.Pair()
	obj, _ = runtime.DefaultUnstructuredConverter.ToUnstructured(static)
	su := &unstructured.Unstructured{Object: obj}
	if got := withRunningReplicas(ctx, dyn, su); got != su {
		t.Error("a set without External roles is copied")
	}
}
