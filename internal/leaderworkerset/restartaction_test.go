package leaderworkerset

import (
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/lwswait"
)

// TestRestartRefusesBeforeChangingAnything: groups the set cannot honour (an index past the
// replicas, a Hash-named set) and a rolling restart that recreates no group (every group below
// the partition) fail naming why, without a single write to the cluster.
func TestRestartRefusesBeforeChangingAnything(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	set := func(spec map[string]any) *unstructured.Unstructured {
		spec["leaderWorkerTemplate"] = map[string]any{"size": int64(2), "workerTemplate": map[string]any{}}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
			"metadata": map[string]any{"name": "vllm", "namespace": "default"},
			"spec":     spec,
		}}
	}
	for _, c := range []struct {
		name     string
		spec     map[string]any
		groups   []int64
		want     string
		badGroup bool
	}{
		{"index past the replicas", map[string]any{"replicas": int64(2)}, []int64{0, 2}, "has 2 groups (0-1); there is no group 2", true},
		{"hash identity", map[string]any{"replicas": int64(2), "groupIdentity": "Hash"}, []int64{0}, `group_identity = "Hash": its groups have no index`, true},
		{"partition above every group", map[string]any{"replicas": int64(2), "rolloutStrategy": map[string]any{
			"type": "RollingUpdate", "rollingUpdateConfiguration": map[string]any{"partition": int64(2), "maxUnavailable": int64(1), "maxSurge": int64(0)},
		}}, nil, "no group of default/vllm would be recreated (replicas = 2, partition = 2)", false},
		{"no group", map[string]any{"replicas": int64(0)}, nil, "replicas = 0", false},
	} {
		dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{{Version: "v1", Resource: "events"}: "EventList",
			gvr: "LeaderWorkerSetList", lwswait.PodsGVR: "PodList",
		}, set(c.spec))
		r := &restart{dyn: dyn, ri: dyn.Resource(gvr).Namespace("default"), ns: "default", name: "vllm", manager: "kubeinfer-restart",
			progress: func(string) {}}
		var err error
		if c.groups != nil {
			_, err = r.groups(context.Background(), c.groups)
		} else {
			_, err = r.rolling(context.Background())
		}
		var bad *badGroupsError
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.As(err, &bad) != c.badGroup {
			t.Errorf("%s: want an error with %q (a groups error: %v), got %v", c.name, c.want, c.badGroup, err)
		}
		for _, a := range dyn.Actions() {
			if v := a.GetVerb(); v != "get" && v != "list" {
				t.Errorf("%s: the refused restart made a %s request", c.name, v)
			}
		}
	}
}
