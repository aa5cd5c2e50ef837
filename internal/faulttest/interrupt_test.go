package faulttest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// poolLabel is a node label no node has until a test adds it: pods that
// select it stay Pending, so their rollout wait cannot finish.
const poolLabel = "faults.kubeinfer.dev/pool"

// setPoolLabel adds (value != "") or removes the pool label on the CPU nodes.
func setPoolLabel(ctx context.Context, t *testing.T, c *acctest.TestCluster, value string) {
	t.Helper()
	var v any
	if value != "" {
		v = value
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{poolLabel: v}}})
	for _, n := range acctest.Nodes() {
		if n.GPUs > 0 {
			continue
		}
		if _, err := c.Clientset().CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("labelling node %s: %v", n.Name, err)
		}
	}
}

// planCounts runs `terraform plan` and returns its "N to add, N to change,
// N to destroy" figures ("" for an empty plan).
func planCounts(ctx context.Context, t *testing.T, w *workdir) string {
	t.Helper()
	r := w.run(ctx, "plan", "-input=false", "-no-color", "-lock=false")
	w.checkNoPanic(r)
	if r.code != 0 {
		t.Fatalf("plan failed:\n%s", r)
	}
	if m := regexp.MustCompile(`Plan: (\d+ to add, \d+ to change, \d+ to destroy)`).FindStringSubmatch(r.out); m != nil {
		return m[1]
	}
	if strings.Contains(r.out, "No changes.") {
		return ""
	}
	t.Fatalf("cannot read the plan's figures:\n%s", r)
	return ""
}

// TestAccFault_interrupt sends SIGINT (Ctrl-C) to Terraform and the provider
// during the rollout wait of a create, during the creates themselves and
// during a destroy, and lets a create's wait time out. Each time the run ends
// promptly, the state holds every object that exists, nothing is tainted, and
// the next run converges without replacing anything: an unfinished wait shows
// as an in-place update that only waits.
func TestAccFault_interrupt(t *testing.T) {
	c := acctest.Cluster(t)

	t.Run("during the rollout wait", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		const n = 20
		f := fleet{prefix: "sigint-wait", n: n, provider: providerAt(c.KubeconfigPath()), wait: true,
			nodeSelector: poolLabel + "=later", timeout: "2m"}
		w := newWorkdir(t, f.config())
		w.diagnose = diagnoser(c)
		t.Cleanup(func() { setPoolLabel(context.Background(), t, c, ""); cleanup(t, w, c, f.prefix) })

		r := w.start(ctx, applyArgs...)
		if !r.waitOutput(regexp.MustCompile(`Creating\.\.\.`), time.Minute) {
			t.Fatalf("terraform never started creating:\n%s", r.wait())
		}
		time.Sleep(3 * time.Second)
		sent := time.Now()
		r.interrupt()
		res := r.wait()
		w.checkNoPanic(res)
		t.Logf("SIGINT 3 s into the rollout waits: exit %d %s after the signal (%s)", res.code, time.Since(sent).Round(time.Millisecond), summary(res.out))
		if time.Since(sent) > 30*time.Second {
			t.Errorf("terraform took %s to stop after SIGINT", time.Since(sent).Round(time.Second))
		}
		if !strings.Contains(res.out, "interrupted while waiting for the rollout") {
			t.Errorf("the output does not report the interrupt as an interrupt:\n%s", res)
		}
		if strings.Contains(res.out, "timed out waiting") {
			t.Errorf("an interrupt reported as a timeout:\n%s", res)
		}
		// Terraform starts 10 creates at a time: those waiting when the signal came are
		// recorded, the others never started.
		made := len(w.stateIDs(ctx))
		if made == 0 {
			t.Fatalf("no object recorded after the interrupt:\n%s", res)
		}
		agree(ctx, t, w, c.Dynamic(), f.prefix, made) // none tainted, none orphaned

		if got, want := planCounts(ctx, t, w), fmt.Sprintf("%d to add, %d to change, 0 to destroy", n-made, made); got != want {
			t.Fatalf("after the interrupt the plan is %q, want %q (the interrupted waits as updates that only wait)", got, want)
		}
		setPoolLabel(ctx, t, c, "later") // the pods can now be placed
		res = w.mustSucceed(ctx, applyArgs...)
		if !strings.Contains(res.out, fmt.Sprintf("%d added, %d changed, 0 destroyed", n-made, made)) {
			t.Errorf("want the %d carried-on waits as in-place changes and %d creates:\n%s", made, n-made, res)
		}
		w.planEmpty(ctx)
		agree(ctx, t, w, c.Dynamic(), f.prefix, n)
		w.mustSucceed(ctx, destroyArgs...)
		agree(ctx, t, w, c.Dynamic(), f.prefix, 0)
	})

	t.Run("wait timeout", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		const n = 3
		f := fleet{prefix: "wait-timeout", n: n, provider: providerAt(c.KubeconfigPath()), wait: true,
			nodeSelector: poolLabel + "=timeout", timeout: "5s"}
		w := newWorkdir(t, f.config())
		w.diagnose = diagnoser(c)
		t.Cleanup(func() { setPoolLabel(context.Background(), t, c, ""); cleanup(t, w, c, f.prefix) })

		// A rollout that did not finish is an error (a pipeline can tell), and Terraform taints
		// what a create that errs leaves: the next plan would replace them.
		res := w.mustFailWith(ctx, "timed out waiting for the rollout", applyArgs...)
		if got := strings.Count(res.out, "timed out waiting for the rollout"); got < n {
			t.Errorf("want %d timeout errors, got %d:\n%s", n, got, res)
		}
		if got, want := planCounts(ctx, t, w), fmt.Sprintf("%d to add, 0 to change, %d to destroy", n, n); got != want {
			t.Fatalf("after the timeout the plan is %q, want %q (the tainted objects replaced)", got, want)
		}
		// `terraform untaint` keeps them, as the wait_for_rollout description says: the next
		// plan carries the waits on as in-place updates.
		for i := range n {
			w.mustSucceed(ctx, "untaint", fmt.Sprintf("kubeinfer_leaderworkerset.fleet[%d]", i))
		}
		agree(ctx, t, w, c.Dynamic(), f.prefix, n)
		if got, want := planCounts(ctx, t, w), fmt.Sprintf("0 to add, %d to change, 0 to destroy", n); got != want {
			t.Fatalf("after the untaint the plan is %q, want %q", got, want)
		}
		setPoolLabel(ctx, t, c, "timeout")
		w.write(strings.ReplaceAll(f.config(), `"5s"`, `"2m"`))
		w.mustSucceed(ctx, applyArgs...)
		w.planEmpty(ctx)
		agree(ctx, t, w, c.Dynamic(), f.prefix, n)
	})

	t.Run("during the creates", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		const n = 20
		f := fleet{prefix: "sigint-create", n: n, provider: providerAt(c.KubeconfigPath())}
		w := newWorkdir(t, f.config())
		w.diagnose = diagnoser(c)
		t.Cleanup(func() { cleanup(t, w, c, f.prefix) })

		r := w.start(ctx, applyArgs...)
		if !r.waitOutput(regexp.MustCompile(`Creating\.\.\.`), time.Minute) {
			t.Fatalf("terraform never started creating:\n%s", r.wait())
		}
		r.interrupt()
		res := r.wait()
		w.checkNoPanic(res)
		if strings.Contains(res.out, "Cannot apply") && !strings.Contains(res.out, "Interrupted: Terraform was stopped") {
			t.Errorf("an apply cut off by the interrupt is not reported as an interrupt:\n%s", res)
		}
		made := len(w.stateIDs(ctx)) // fails the test on a tainted object
		live := len(liveNames(ctx, t, c.Dynamic(), f.prefix))
		t.Logf("SIGINT at the first create: exit %d, %d of %d in state, %d in the cluster (%s)", res.code, made, n, live, summary(res.out))
		// A create cut off before the server answered is recorded unconfirmed, with its
		// creation token: the refresh keeps the objects that exist and carry it (an update that
		// carries on their wait) and drops the others, which the plan creates. No object of the
		// cluster is left out of the state, none is replaced.
		got, want := planCounts(ctx, t, w), fmt.Sprintf("%d to add, ", n-live)
		if (got != "" || live != n) && (!strings.HasPrefix(got, want) || !strings.HasSuffix(got, " 0 to destroy")) {
			t.Fatalf("after the interrupt the plan is %q, want %q... 0 to destroy (%d objects in the cluster)", got, want, live)
		}
		w.mustSucceed(ctx, applyArgs...)
		w.planEmpty(ctx)
		agree(ctx, t, w, c.Dynamic(), f.prefix, n)

		r = w.start(ctx, destroyArgs...)
		if !r.waitOutput(regexp.MustCompile(`Destroying\.\.\.`), time.Minute) {
			t.Fatalf("terraform never started destroying:\n%s", r.wait())
		}
		r.interrupt()
		res = r.wait()
		w.checkNoPanic(res)
		left := w.stateIDs(ctx)
		t.Logf("SIGINT at the first destroy: exit %d, %d of %d left in state (%s)", res.code, len(left), n, summary(res.out))
		// An object whose delete was interrupted may still be on its way out
		// (a foreground delete waits for its pods): the next destroy finishes it.
		w.mustSucceed(ctx, destroyArgs...)
		waitGone(ctx, t, c.Dynamic(), f.prefix)
		agree(ctx, t, w, c.Dynamic(), f.prefix, 0)
	})
}
