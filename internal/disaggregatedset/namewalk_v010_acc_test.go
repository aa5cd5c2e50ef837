package disaggregatedset_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	dsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// TestAccDisaggregatedSet_v010NameWalk walks set names around the limits of a prefill and a
// decode role of groups of 1 and of 2 pods on the v0.10.0 controller (which names each role's
// LeaderWorkerSet <set>-<slice>-<revision>-<role>) and compares the plan's verdict with what the
// cluster does: a name the plan accepts without a warning comes up, one it rejects never does,
// and for one it warns about, whether it comes up is what the StatefulSets' actual revision
// hashes predict (each label "<statefulset>-<hash>" within 63 characters).
func TestAccDisaggregatedSet_v010NameWalk(t *testing.T) {
	skipUnlessV010Controller(t)
	acctest.SkipAfterFirstCLI(t) // no CLI: the plan's rule against the controller
	c := acctest.Cluster(t)
	ctx := context.Background()
	dsRI := c.Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	lwsRI := c.Dynamic().Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default")
	type walk struct {
		name    string
		size    int64
		verdict string // "ok", "warn" or "error"
	}
	var walks []walk
	for _, size := range []int64{1, 2} {
		from := map[int64]int{1: 31, 2: 29}[size]
		for n := from; n <= from+8; n++ {
			prefix := fmt.Sprintf("w%d-", size)
			name := prefix + strings.Repeat("n", n-len(prefix))
			role := func(r string) any {
				return map[string]any{"name": r, "spec": map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{"size": size,
					"workerTemplate": map[string]any{"spec": map[string]any{"containers": []any{
						map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"}}}}}}}
			}
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": disaggv1.GroupVersion.String(), "kind": "DisaggregatedSet",
				"metadata": map[string]any{"name": name, "namespace": "default"},
				// A placement policy: a v0.10.0 field, so the plan names the objects as v0.10.0 does.
				"spec": map[string]any{"placementPolicy": map[string]any{"type": "None"}, "roles": []any{role("prefill"), role("decode")}},
			}}
			ds := &disaggv1.DisaggregatedSet{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.DeepCopy().Object, ds); err != nil {
				t.Fatal(err)
			}
			dsrules.SetDefaults(ds, k8sschema.NullValue(disaggregatedset.Kind.Node()))
			verdict := "ok"
			for _, e := range dsrules.Validate(ds) {
				if e.Field == "metadata.name" {
					verdict = "error"
				}
			}
			if verdict == "ok" {
				_, warnings := disaggregatedset.Kind.CheckConfig(ds, k8sschema.NullValue(disaggregatedset.Kind.Node()))
				for _, w := range warnings {
					if w.Path.String() == "metadata.name" {
						verdict = "warn"
					}
				}
			}
			walks = append(walks, walk{name, size, verdict})
			if _, err := dsRI.Create(ctx, u, metav1.CreateOptions{}); err != nil {
				t.Fatalf("%s (%d characters): the webhook refused it: %v", name, n, err)
			}
			t.Cleanup(func() { _ = dsRI.Delete(ctx, name, metav1.DeleteOptions{}) })
		}
	}
	// roleLWS is the name of the role's LeaderWorkerSet ("" before the controller made it).
	roleLWS := func(w walk, role string) string {
		l, err := lwsRI.List(ctx, metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + w.name + "," + disaggv1.RoleLabelKey + "=" + role})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) != 1 {
			return ""
		}
		return l.Items[0].GetName()
	}
	podsOf := func(lws string) int {
		if lws == "" {
			return 0
		}
		pods, err := c.Clientset().CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "leaderworkerset.sigs.k8s.io/name=" + lws})
		if err != nil {
			t.Fatal(err)
		}
		return len(pods.Items)
	}
	// revisions are the revision labels of each role's longest StatefulSet (its
	// status.updateRevision, "<statefulset>-<hash>"); fits says whether all are within 63.
	revisions := func(w walk) (fits bool, labels []string) {
		fits = true
		for _, role := range []string{"prefill", "decode"} {
			sts := roleLWS(w, role)
			if sts == "" {
				return false, append(labels, role+": no LeaderWorkerSet")
			}
			if w.size > 1 {
				sts += "-0"
			}
			s, err := c.Clientset().AppsV1().StatefulSets("default").Get(ctx, sts, metav1.GetOptions{})
			if err != nil || s.Status.UpdateRevision == "" {
				return false, append(labels, role+": no StatefulSet revision")
			}
			labels = append(labels, fmt.Sprintf("%s %d", s.Status.UpdateRevision, len(s.Status.UpdateRevision)))
			fits = fits && len(s.Status.UpdateRevision) <= 63
		}
		return fits, labels
	}
	up := func(w walk) bool {
		return podsOf(roleLWS(w, "prefill")) == int(w.size) && podsOf(roleLWS(w, "decode")) == int(w.size)
	}
	expectUp := func(w walk) bool {
		switch w.verdict {
		case "ok":
			return true
		case "warn":
			fits, _ := revisions(w)
			return fits
		}
		return false
	}
	// Wait for every set expected up, and at least 30 s for the others to show themselves.
	start := time.Now()
	for {
		pending := 0
		for _, w := range walks {
			if expectUp(w) && !up(w) {
				pending++
			}
		}
		if (pending == 0 && time.Since(start) > 30*time.Second) || time.Since(start) > 3*time.Minute {
			break
		}
		time.Sleep(2 * time.Second)
	}
	var lines []string
	for _, w := range walks {
		_, labels := revisions(w)
		lines = append(lines, fmt.Sprintf("size %d, %2d characters: plan %-5s, up %-5v, revisions %s", w.size, len(w.name), w.verdict, up(w), strings.Join(labels, ", ")))
		if up(w) != expectUp(w) {
			t.Errorf("size %d, %d characters: the plan says %s (revisions %v), but the groups are up: %v", w.size, len(w.name), w.verdict, labels, up(w))
		}
	}
	t.Logf("the walk on the v0.10.0 controller:\n%s", strings.Join(lines, "\n"))
}

// TestAccDisaggregatedSet_v010WaitFailsOnFailedCreate: a set name of 33 characters with groups of
// 2 pods is one the plan only warns about on v0.10.0 (it fits only with a revision hash of 8
// characters); with this template the prefill role's pods cannot be created. The wait ends on
// the FailedCreate event with an error that quotes it, long before its timeout.
func TestAccDisaggregatedSet_v010WaitFailsOnFailedCreate(t *testing.T) {
	skipUnlessV010Controller(t)
	acctest.SkipAfterFirstCLI(t)
	name := "failed-create-" + strings.Repeat("n", 33-len("failed-create-"))
	c := acctest.Cluster(t)
	set := strings.NewReplacer("wait_for_rollout = false", `timeouts = { create = "5m", update = "5m" }`,
		`placement_policy = { type = "ExclusiveSlice", topology = "topology.kubernetes.io/zone" }`, `placement_policy = { type = "None" }`,
		"leader_worker_template = {", "leader_worker_template = {\n            size = 2").
		Replace(v010Set(name, `scaling = { mode = "Static" }`, "", "replicas = 1"))
	cfg := acctest.ProviderConfigFor(c) + set
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { started = time.Now() },
				Config:      cfg,
				ExpectError: regexp.MustCompile(`Warning\s+FailedCreate\s+on\s+(LeaderWorkerSet|StatefulSet)\s+` + name + `[\s\S]*is\s+invalid:`),
			},
			{
				PreConfig: func() {
					took := time.Since(started)
					t.Logf("the apply failed after %s (timeout 5m)", took.Round(100*time.Millisecond))
					if took > time.Minute {
						t.Errorf("the apply took %s: the wait did not stop on the event", took)
					}
				},
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}
