package faulttest

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// TestAccFault_apiServerKilled kills kube-apiserver (SIGKILL) at two
// delays into an apply of 12 LeaderWorkerSets (parallelism 10: a first wave of
// 10 requests and the rest as slots free up) and into their
// destroy, and restarts it a second later, with fresh controllers (see
// acctest.TestCluster.RestartComponents). Whatever the interrupted run
// reports, the next run converges: state and cluster hold the same 12
// objects, none tainted, none orphaned or duplicated, and nothing panics.
func TestAccFault_apiServerKilled(t *testing.T) {
	// More objects than Terraform's parallelism, so that the kills find requests in flight and
	// waiting. (With 20, each delay took over two minutes of the suite on 2 cores.)
	const fleetSize = 12
	c := acctest.Cluster(t)
	// At once (the first wave of requests in flight) and 2.5 s in (creates answered, the
	// rollout waits polling, and the last creates). Delays of 300 ms and 1 s, in between, were
	// left out for make test's time (each about 80 s of the suite and 30 s of CPU).
	delays := []time.Duration{0, 2500 * time.Millisecond}
	for i, delay := range delays {
		t.Run(fmt.Sprintf("after %s", delay), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			f := fleet{prefix: fmt.Sprintf("kill-%d", i), n: fleetSize, provider: providerAt(c.KubeconfigPath()), wait: true}
			w := newWorkdir(t, f.config())
			w.diagnose = diagnoser(c)
			t.Cleanup(func() { cleanup(t, w, c, f.prefix) })

			killDuring := func(args []string, started *regexp.Regexp) result {
				r := w.start(ctx, args...)
				if !r.waitOutput(started, time.Minute) {
					t.Fatalf("terraform never started the work:\n%s", r.wait())
				}
				time.Sleep(delay)
				if err := c.KillAPIServer(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Second)
				restart := time.Now()
				if err := c.RestartAPIServer(ctx); err != nil {
					t.Fatal(err)
				}
				apiServerBack := time.Since(restart)
				if err := c.RestartComponents(ctx); err != nil {
					t.Fatal(err)
				}
				t.Logf("kube-apiserver ready %s after its restart, the other components %s later", apiServerBack.Round(time.Millisecond), (time.Since(restart) - apiServerBack).Round(time.Millisecond))
				res := r.wait()
				w.checkNoPanic(res)
				t.Logf("%s, kube-apiserver killed %s after the first request: exit %d in %s (%s)", args[0], delay, res.code, res.took.Round(time.Millisecond), summary(res.out))
				return res
			}

			killDuring(applyArgs, regexp.MustCompile(`Creating\.\.\.`))
			start := time.Now()
			w.mustSucceed(ctx, applyArgs...)
			w.planEmpty(ctx)
			agree(ctx, t, w, c.Dynamic(), f.prefix, fleetSize)
			t.Logf("converged in %s: %d in state and cluster, 0 tainted, 0 orphans, 0 duplicates", time.Since(start).Round(time.Millisecond), fleetSize)

			killDuring(destroyArgs, regexp.MustCompile(`Destroying\.\.\.`))
			w.mustSucceed(ctx, destroyArgs...)
			agree(ctx, t, w, c.Dynamic(), f.prefix, 0)
		})
	}
}

// cleanup destroys what a case left (after a failure) and removes its objects.
func cleanup(t *testing.T, w *workdir, c *acctest.TestCluster, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if len(liveNames(ctx, t, c.Dynamic(), prefix)) == 0 {
		return
	}
	if r := w.run(ctx, destroyArgs...); r.code != 0 {
		t.Logf("cleanup destroy failed:\n%s", r)
	}
	_ = c.Dynamic().Resource(lwsGVR).Namespace(namespace).DeleteCollection(ctx, deleteOpts(), listOpts(prefix))
}
