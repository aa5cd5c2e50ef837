package leaderworkerset_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// TestAccLeaderWorkerSet_runtimeNameWalk walks names of 45 to 63 characters for one group of
// size 1 and of size 2 on the released controller (v0.9.0) and compares the plan's verdict with
// what the cluster does: a name the plan accepts without a warning comes up, one it rejects
// never does, and for one it warns about, whether it comes up is what the StatefulSet's actual
// revision hash predicts (its label "<statefulset>-<hash>" within 63 characters).
func TestAccLeaderWorkerSet_runtimeNameWalk(t *testing.T) {
	runsBesideOthers(t)
	acctest.SkipAfterFirstCLI(t) // no CLI: the plan's rule against the controller
	c := acctest.Cluster(t)
	lws := lwsClient(t)
	ctx := context.Background()
	type walk struct {
		name    string
		size    int32
		verdict string // "ok", "warn" or "error"
	}
	var walks []walk
	for _, size := range []int32{1, 2} {
		for n := 45; n <= 63; n++ {
			prefix := fmt.Sprintf("walk%d-", size)
			obj := &lwsv1.LeaderWorkerSet{}
			obj.Name = prefix + strings.Repeat("n", n-len(prefix))
			obj.Spec.Replicas = ptr.To[int32](1)
			obj.Spec.LeaderWorkerTemplate.Size = ptr.To(size)
			verdict := "ok"
			for _, e := range lwsrules.ValidateAll(obj) {
				if e.Field == "metadata.name" {
					verdict = "error"
				}
			}
			if verdict == "ok" && len(lwsrules.RuntimeNameWarnings(obj)) > 0 {
				verdict = "warn"
			}
			walks = append(walks, walk{obj.Name, size, verdict})
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
				"metadata": map[string]any{"name": obj.Name, "namespace": "default"},
				"spec": map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{"size": int64(size),
					"workerTemplate": map[string]any{"spec": map[string]any{"containers": []any{
						map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"}}}}}},
			}}
			if _, err := lws.Create(ctx, u, metav1.CreateOptions{}); err != nil {
				t.Fatalf("%s (%d characters): the webhook refused it: %v", obj.Name, n, err)
			}
			t.Cleanup(func() { _ = lws.Delete(ctx, u.GetName(), metav1.DeleteOptions{}) })
		}
	}
	podsOf := func(name string) int {
		pods, err := c.Clientset().CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "leaderworkerset.sigs.k8s.io/name=" + name})
		if err != nil {
			t.Fatal(err)
		}
		return len(pods.Items)
	}
	// hashFits reads the revision the StatefulSet controller named for the group's longest
	// StatefulSet and says whether its label fits 63 characters.
	hashFits := func(w walk) (bool, string) {
		sts := w.name
		if w.size > 1 {
			sts += "-0"
		}
		s, err := c.Clientset().AppsV1().StatefulSets("default").Get(ctx, sts, metav1.GetOptions{})
		if err != nil || s.Status.UpdateRevision == "" {
			return false, ""
		}
		return len(s.Status.UpdateRevision) <= 63, s.Status.UpdateRevision
	}
	start := time.Now()
	expectUp := func(w walk) bool {
		switch w.verdict {
		case "ok":
			return true
		case "warn":
			fits, _ := hashFits(w)
			return fits
		}
		return false
	}
	// Wait for every group expected up, and at least 30 s for the others to show themselves.
	for {
		pending := 0
		for _, w := range walks {
			if expectUp(w) && podsOf(w.name) < int(w.size) {
				pending++
			}
		}
		if pending == 0 && time.Since(start) > 30*time.Second {
			break
		}
		if time.Since(start) > 3*time.Minute {
			break
		}
		time.Sleep(2 * time.Second)
	}
	var lines []string
	for _, w := range walks {
		got := podsOf(w.name)
		up := got == int(w.size)
		_, revision := hashFits(w)
		lines = append(lines, fmt.Sprintf("size %d, %2d characters: plan %-5s, pods %d/%d, revision %s", w.size, len(w.name), w.verdict, got, w.size, revision))
		if up != expectUp(w) {
			t.Errorf("size %d, %d characters: the plan says %s (revision %q), but %d of %d pods were created", w.size, len(w.name), w.verdict, revision, got, w.size)
		}
	}
	t.Logf("the walk on the released controller:\n%s", strings.Join(lines, "\n"))
}
