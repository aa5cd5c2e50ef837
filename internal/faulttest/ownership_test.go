package faulttest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// ownedConfig is one LeaderWorkerSet whose worker container has the extra attributes worker.
func ownedConfig(provider, name, worker string) string {
	return provider + fmt.Sprintf(`
resource "kubeinfer_leaderworkerset" "lws" {
  wait_for_rollout = false
  metadata = {
    name      = %q
    namespace = %q
    labels    = { "faults.kubeinfer.dev/case" = "ownership" }
  }
  spec = {
    replicas = 1
    leader_worker_template = {
      size = 2
      worker_template = {
        spec = { containers = [{ name = "vllm", image = "vllm/vllm-openai:v0.11.0"%s }] }
      }
    }
  }
}
`, name, namespace, worker)
}

// workerHas reports whether the live object's worker container has field.
func workerHas(ctx context.Context, t *testing.T, lws dynamic.ResourceInterface, name, field string) bool {
	t.Helper()
	u, err := lws.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "leaderWorkerTemplate", "workerTemplate", "spec", "containers")
	_, ok := containers[0].(map[string]any)[field]
	return ok
}

// TestAccFault_ownershipStuck: the two sequences that left a resource stuck for good (issue 25),
// run by the CLI itself: a field another writer added during an incident (`kubectl patch
// --type=json`), and a field removed from the configuration of an object created with `kubectl
// apply` (client-side and server-side) and imported with `terraform import`. Each time, one
// apply converges (no "inconsistent result"), the field is gone from the cluster, and the next
// plan is empty.
func TestAccFault_ownershipStuck(t *testing.T) {
	c := acctest.Cluster(t)
	provider := providerAt(c.KubeconfigPath())
	lws := c.Dynamic().Resource(lwsGVR).Namespace(namespace)

	t.Run("a field kubectl patch added", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		const name = "ownership-patched"
		cfg := ownedConfig(provider, name, "")
		w := newWorkdir(t, cfg)
		t.Cleanup(func() { _ = w.run(context.Background(), destroyArgs...) })
		w.mustSucceed(ctx, applyArgs...)
		patch := `[{"op":"add","path":"/spec/leaderWorkerTemplate/workerTemplate/spec/containers/0/env","value":[{"name":"DEBUG","value":"1"}]}]`
		if _, err := lws.Patch(ctx, name, types.JSONPatchType, []byte(patch), metav1.PatchOptions{FieldManager: "kubectl-patch"}); err != nil {
			t.Fatal(err)
		}
		plan := w.run(ctx, "plan", "-input=false", "-no-color", "-lock=false")
		if plan.code != 0 || !strings.Contains(plan.out, "Attributes owned by other field managers will be removed") ||
			!strings.Contains(plan.out, `owned by "kubectl-patch" (Update)`) {
			t.Fatalf("the plan does not say that it removes kubectl-patch's env:\n%s", plan)
		}
		w.mustSucceed(ctx, applyArgs...)
		if workerHas(ctx, t, lws, name, "env") {
			t.Error("the env kubectl patch added is still there after the apply")
		}
		w.planEmpty(ctx)
	})

	for _, serverSide := range []bool{false, true} {
		how := "client-side"
		if serverSide {
			how = "server-side"
		}
		t.Run("removed from an object kubectl apply "+how+" created", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			name := "ownership-kubectl-" + how
			manifest := map[string]any{
				"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
				"metadata": map[string]any{"name": name, "namespace": namespace,
					"labels": map[string]any{"faults.kubeinfer.dev/case": "ownership"}},
				"spec": map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{"size": int64(2),
					"workerTemplate": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
						"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
						"ports": []any{map[string]any{"containerPort": int64(8000)}}}}}}}},
			}
			body, err := json.Marshal(manifest)
			if err != nil {
				t.Fatal(err)
			}
			if serverSide {
				_, err = lws.Patch(ctx, name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "kubectl", Force: ptr.To(true)})
			} else {
				u := &unstructured.Unstructured{Object: manifest}
				u.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(body)})
				_, err = lws.Create(ctx, u, metav1.CreateOptions{FieldManager: "kubectl-client-side-apply"})
			}
			if err != nil {
				t.Fatal(err)
			}
			w := newWorkdir(t, ownedConfig(provider, name, `, ports = [{ container_port = 8000 }]`))
			t.Cleanup(func() { _ = w.run(context.Background(), destroyArgs...) })
			w.mustSucceed(ctx, "import", "-input=false", "-no-color", "kubeinfer_leaderworkerset.lws", namespace+"/"+name)
			// The import records wait_for_rollout from the object (absent: the default);
			// the configuration's false is a change of that setting alone.
			w.mustSucceed(ctx, applyArgs...)
			w.planEmpty(ctx)
			w.write(ownedConfig(provider, name, ""))
			w.mustSucceed(ctx, applyArgs...)
			if workerHas(ctx, t, lws, name, "ports") {
				t.Error("the ports kubectl co-owned are still there after the apply that removed them")
			}
			w.planEmpty(ctx)
		})
	}
}
