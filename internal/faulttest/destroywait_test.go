package faulttest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// resetsAfterDelete resets every connection of the proxy, again and again,
// once a DELETE of a LeaderWorkerSet has succeeded: what the destroy does then
// is wait (the GETs and watches of the LeaderWorkerSet until it is gone, then
// the lists and watches of its pods and StatefulSets until the garbage
// collector has deleted them). It counts the resets that cut a wait's request
// in flight.
type resetsAfterDelete struct {
	p     *flakyProxy
	armed atomic.Bool

	requests, http2 atomic.Int64 // requests, and those that came over HTTP/2

	mu        sync.Mutex
	inflight  map[string]int // wait reads in flight, by what they read
	lastReset time.Time
	resets    int
	hits      map[string]int // resets that cut a read of that kind in flight
}

// waitRead names the kind of a wait's read ("" for anything else): a GET,
// list or watch of LeaderWorkerSets, pods or StatefulSets.
func waitRead(r *http.Request) string {
	if r.Method != http.MethodGet {
		return ""
	}
	for _, kind := range []string{"leaderworkersets", "pods", "statefulsets"} {
		if strings.Contains(r.URL.Path, "/"+kind) {
			return kind
		}
	}
	return ""
}

func (f *resetsAfterDelete) observe(r *http.Request) func(int) {
	f.requests.Add(1)
	if r.ProtoMajor == 2 {
		f.http2.Add(1)
	}
	kind := waitRead(r)
	if kind != "" {
		f.mu.Lock()
		f.inflight[kind]++
		f.mu.Unlock()
		if f.armed.Load() && rand.Float64() < 0.4 {
			// A little later, so the request is in flight when its connection goes
			// (and every other request of the connection with it).
			time.AfterFunc(time.Duration(rand.Int64N(int64(40*time.Millisecond))), f.reset)
		}
	}
	return func(status int) {
		if kind != "" {
			f.mu.Lock()
			f.inflight[kind]--
			f.mu.Unlock()
		}
		if r.Method == http.MethodDelete && strings.Contains(r.URL.Path, "/leaderworkersets/") && status/100 == 2 && f.armed.CompareAndSwap(false, true) {
			// Besides the resets aimed at a wait's request, reset every 100-300 ms
			// while the destroy runs, whatever is in flight.
			go func() {
				for f.armed.Load() {
					time.Sleep(100*time.Millisecond + time.Duration(rand.Int64N(int64(200*time.Millisecond))))
					f.reset()
				}
			}()
		}
	}
}

// reset resets every connection, at most every 100 ms (so that requests get
// through between resets) and at most 100 times a run.
func (f *resetsAfterDelete) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.armed.Load() || time.Since(f.lastReset) < 100*time.Millisecond || f.resets >= 100 {
		return
	}
	if f.p.resetAll() == 0 {
		return
	}
	f.lastReset = time.Now()
	f.resets++
	for kind, n := range f.inflight {
		if n > 0 {
			f.hits[kind]++
		}
	}
}

// TestAccFault_resetDuringDestroyWait: a proxy that speaks HTTP/2 (TLS, as
// kube-apiserver does) resets its connections again and again once a DELETE
// has succeeded, during the waits that follow it (issue 25, C: one reset
// connection failed a destroy with "http2: client connection force closed
// via ClientConn.Close" in the list of StatefulSets and pods after the
// DELETE). Every destroy succeeds, leaves no pod or StatefulSet behind, and
// the next apply converges (empty plan).
func TestAccFault_resetDuringDestroyWait(t *testing.T) {
	c := acctest.Cluster(t)
	f := &resetsAfterDelete{inflight: map[string]int{}, hits: map[string]int{}}
	p := startFlakyProxyWith(t, c, proxyOptions{tls: true, quiet: true, observe: f.observe})
	f.p = p
	provider := fmt.Sprintf("provider \"kubeinfer\" {\n  host                   = %q\n  cluster_ca_certificate = %q\n}\n", p.URL(), p.caPEM)
	const rounds, n = 2, 10
	logs := t.TempDir()
	var retried, transportRetries, forceClosed, requests int
	for round := 1; round <= rounds; round++ {
		t.Run(fmt.Sprintf("round %d", round), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			fl := fleet{prefix: fmt.Sprintf("resetwait-%d", round), n: n, provider: provider, wait: true}
			w := newWorkdir(t, fl.config())
			w.diagnose = diagnoser(c)
			t.Cleanup(func() { f.armed.Store(false); cleanup(t, w, c, fl.prefix) })
			f.armed.Store(false)
			apply := w.mustSucceed(ctx, applyArgs...)
			agree(ctx, t, w, c.Dynamic(), fl.prefix, n)
			w.planEmpty(ctx)

			// The destroy, with the provider's debug log, to count the errors it outlived.
			logPath := filepath.Join(logs, fmt.Sprintf("destroy-%d.log", round))
			w.env = append(w.env, "TF_LOG_PROVIDER=DEBUG", "TF_LOG_PATH="+logPath)
			destroy := w.mustSucceed(ctx, destroyArgs...)
			f.armed.Store(false)
			w.env = w.env[:len(w.env)-2]
			agree(ctx, t, w, c.Dynamic(), fl.prefix, 0)
			// The destroy returned only once the garbage collector had deleted the pods and
			// StatefulSets (Hooks.AfterDelete): none may be left.
			for _, r := range []schema.GroupVersionResource{
				{Version: "v1", Resource: "pods"}, {Group: "apps", Version: "v1", Resource: "statefulsets"},
			} {
				left, err := c.Dynamic().Resource(r).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: lwsPodSelector})
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range left.Items {
					if strings.HasPrefix(o.GetName(), fl.prefix+"-") {
						t.Errorf("%s %s left after the destroy returned", r.Resource, o.GetName())
					}
				}
			}
			if log, err := os.ReadFile(logPath); err == nil {
				retried += strings.Count(string(log), "Retrying a Kubernetes API request of a wait after a transient error")
				transportRetries += strings.Count(string(log), "Retrying a Kubernetes API request:")
				forceClosed += strings.Count(string(log), "force closed via ClientConn.Close")
				requests += strings.Count(string(log), "Kubernetes API request:")
			} else {
				t.Logf("no provider log: %v", err)
			}
			t.Logf("apply %s, destroy %s", apply.took.Round(time.Millisecond), destroy.took.Round(time.Millisecond))
		})
		if t.Failed() {
			break
		}
	}
	// The next run converges: the same configuration applies again through the
	// proxy, and plans empty (its own cleanup destroys it).
	t.Run("next run", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		fl := fleet{prefix: "resetwait-1", n: n, provider: provider, wait: true}
		w := newWorkdir(t, fl.config())
		w.diagnose = diagnoser(c)
		t.Cleanup(func() { cleanup(t, w, c, fl.prefix) })
		w.mustSucceed(ctx, applyArgs...)
		agree(ctx, t, w, c.Dynamic(), fl.prefix, n)
		w.planEmpty(ctx)
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	t.Logf("%d connections; %d resets during destroys, cutting reads in flight: %v; in the destroys the provider made %d requests, "+
		"its transport retried %d, its waits retried %d, and it logged %d 'force closed' errors",
		p.accepted.Load(), f.resets, f.hits, requests, transportRetries, retried, forceClosed)
	if f.http2.Load() < f.requests.Load() {
		t.Errorf("%d of %d requests came over HTTP/2: the provider must speak HTTP/2 to the proxy, as to kube-apiserver", f.http2.Load(), f.requests.Load())
	}
	if f.hits["pods"]+f.hits["statefulsets"] == 0 || f.hits["leaderworkersets"] == 0 {
		t.Errorf("no reset cut a wait's read of the LeaderWorkerSet and of its pods or StatefulSets (%v): the case tested nothing", f.hits)
	}
}
