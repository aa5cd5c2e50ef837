package leaderworkerset_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
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

// TestAccLeaderWorkerSet_surgeNameWalk: the case on the released controller (v0.9.0):
// names of 49 to 52 characters, 10 groups of 2 pods, max_surge = 1. Once each set has its
// leader StatefulSet, a template change starts a rolling update whose surge group 10 has the
// worker StatefulSet "<name>-10" and the revision label "<name>-10-<hash>". The plan's verdict
// (ValidateAll and RuntimeNameWarnings, surge groups included) must match what the controller
// does: the surge group's worker pod is created for "ok", never for "error", and for "warn" as
// the StatefulSet's actual revision predicts (within 63 characters or not).
func TestAccLeaderWorkerSet_surgeNameWalk(t *testing.T) {
	runsBesideOthers(t)
	acctest.SkipAfterFirstCLI(t) // no CLI: the plan's rule against the controller
	c := acctest.Cluster(t)
	lws := lwsClient(t)
	ctx := context.Background()
	const replicas, size = 10, 2
	type walk struct{ name, verdict string }
	var walks []walk
	for n := 49; n <= 52; n++ {
		prefix := "surge-"
		obj := &lwsv1.LeaderWorkerSet{}
		obj.Name = prefix + strings.Repeat("s", n-len(prefix))
		obj.Spec.Replicas = ptr.To[int32](replicas)
		obj.Spec.LeaderWorkerTemplate.Size = ptr.To[int32](size)
		obj.Spec.RolloutStrategy.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{
			MaxUnavailable: intstr.FromInt32(1), MaxSurge: intstr.FromInt32(1)}
		verdict := "ok"
		for _, e := range lwsrules.ValidateAll(obj) {
			if e.Field == "metadata.name" {
				verdict = "error"
			}
		}
		if verdict == "ok" && len(lwsrules.RuntimeNameWarnings(obj)) > 0 {
			verdict = "warn"
		}
		walks = append(walks, walk{obj.Name, verdict})
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
			"metadata": map[string]any{"name": obj.Name, "namespace": "default"},
			"spec": map[string]any{"replicas": int64(replicas),
				"rolloutStrategy": map[string]any{"type": "RollingUpdate",
					"rollingUpdateConfiguration": map[string]any{"maxUnavailable": int64(1), "maxSurge": int64(1)}},
				"leaderWorkerTemplate": map[string]any{"size": int64(size),
					"workerTemplate": map[string]any{"spec": map[string]any{"containers": []any{
						map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"}}}}}},
		}}
		if _, err := lws.Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s (%d characters): the webhook refused it: %v", obj.Name, n, err)
		}
		t.Cleanup(func() { _ = lws.Delete(ctx, u.GetName(), metav1.DeleteOptions{}) })
	}
	if got := []string{walks[0].verdict, walks[1].verdict, walks[2].verdict, walks[3].verdict}; strings.Join(got, " ") != "ok warn warn error" {
		t.Fatalf("the plan's verdicts for 49 to 52 characters: %v, want ok warn warn error", got)
	}
	pods := c.Clientset().CoreV1().Pods("default")
	// A template change once the leader StatefulSet exists starts a rolling update at once
	// (rollingUpdateParameters, Case 2: the leader StatefulSet gets replicas + maxSurge while
	// groups are not ready); waiting for the 20 pods first would only slow the test down.
	deadline := time.Now().Add(5 * time.Minute)
	for _, w := range walks {
		for {
			if _, err := c.Clientset().AppsV1().StatefulSets("default").Get(ctx, w.name, metav1.GetOptions{}); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no leader StatefulSet", w.name)
			}
			time.Sleep(time.Second)
		}
	}
	// The surge group's worker pod may come and go within the rollout: watch for it.
	seen := sync.Map{}
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	for _, w := range walks {
		wi, err := pods.Watch(watchCtx, metav1.ListOptions{LabelSelector: "leaderworkerset.sigs.k8s.io/name=" + w.name})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer wi.Stop()
			for ev := range wi.ResultChan() {
				if p, ok := ev.Object.(metav1.Object); ok {
					seen.Store(p.GetName(), true)
				}
			}
		}()
	}
	patch := []byte(`{"spec":{"leaderWorkerTemplate":{"workerTemplate":{"metadata":{"annotations":{"example.com/rollout":"1"}}}}}}`)
	for _, w := range walks {
		if _, err := lws.Patch(ctx, w.name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	surgeWorker := func(w walk) bool { _, ok := seen.Load(w.name + "-10-1"); return ok }
	// revision is the surge group's worker StatefulSet's revision, the last one seen: the
	// StatefulSet goes away when the rolling update ends.
	revisions := map[string]string{}
	revision := func(w walk) string {
		if s, err := c.Clientset().AppsV1().StatefulSets("default").Get(ctx, w.name+"-10", metav1.GetOptions{}); err == nil && s.Status.UpdateRevision != "" {
			revisions[w.name] = s.Status.UpdateRevision
		}
		return revisions[w.name]
	}
	expectUp := func(w walk) bool {
		switch w.verdict {
		case "ok":
			return true
		case "warn":
			rev := revision(w)
			return rev != "" && len(rev) <= 63
		}
		return false
	}
	// Wait for the surge worker pods expected, and at least 30 s after every surge StatefulSet
	// has its revision for the others to show themselves.
	start, allRevisions := time.Now(), time.Time{}
	for time.Since(start) < 4*time.Minute {
		pending, revisions := 0, 0
		for _, w := range walks {
			if revision(w) != "" {
				revisions++
			}
			if expectUp(w) && !surgeWorker(w) {
				pending++
			}
		}
		if revisions == len(walks) && allRevisions.IsZero() {
			allRevisions = time.Now()
		}
		if pending == 0 && !allRevisions.IsZero() && time.Since(allRevisions) > 30*time.Second {
			break
		}
		time.Sleep(time.Second)
	}
	var lines []string
	for _, w := range walks {
		rev := revision(w)
		lines = append(lines, fmt.Sprintf("%d characters: plan %-5s, surge worker pod created %-5v, revision %s (%d)", len(w.name), w.verdict, surgeWorker(w), rev, len(rev)))
		if rev == "" {
			t.Errorf("%d characters: the rolling update made no surge group 10 (no StatefulSet %s-10)", len(w.name), w.name)
		}
		if surgeWorker(w) != expectUp(w) {
			t.Errorf("%d characters: the plan says %s (revision %q), but the surge group's worker pod was created: %v", len(w.name), w.verdict, rev, surgeWorker(w))
		}
	}
	t.Logf("the surge walk on the released controller:\n%s", strings.Join(lines, "\n"))
}
