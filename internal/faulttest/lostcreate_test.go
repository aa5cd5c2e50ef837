package faulttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// answerDropper carries a request to the API server and then drops the answer
// (the handler aborts, so the client's connection or stream is reset): the
// server applied the request, the client never learns it. While armed it does
// so to every request of a LeaderWorkerSet of a prefix from its first PATCH
// on: the create's server-side apply, its retries and the GETs that would
// confirm it (the GET before the create, which finds nothing, goes through).
type answerDropper struct {
	target    *url.URL
	transport http.RoundTripper
	prefix    string
	armed     atomic.Bool
	dropped   atomic.Int64
	patched   sync.Map // object paths whose create was sent
}

func (d *answerDropper) observe(r *http.Request) func(int) {
	if !d.armed.Load() || !strings.Contains(r.URL.Path, "/leaderworkersets/"+d.prefix) {
		return nil
	}
	if r.Method == http.MethodPatch {
		d.patched.Store(r.URL.Path, true)
	}
	if _, sent := d.patched.Load(r.URL.Path); !sent {
		return nil
	}
	body, _ := io.ReadAll(r.Body)
	out := r.Clone(context.Background())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = d.target.Scheme, d.target.Host
	out.Host = d.target.Host
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	if resp, err := d.transport.RoundTrip(out); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	d.dropped.Add(1)
	panic(http.ErrAbortHandler) // the answer never reaches the provider
}

// TestAccFault_lostCreateAnswers: the API server carries out the creates of
// three LeaderWorkerSets, but every answer is lost (and so are the GETs that
// would confirm them). The apply records them as not yet confirmed, with their
// creation tokens, without tainting them. Then the LWS controller writes their
// status (issue 25, A: adoption stopped working once a controller had written
// status), and another configuration replaces one of them with an object of
// the same name and the same field manager (issue 25, B). The next plan adopts
// the two that carry this configuration's tokens (carrying on their waits),
// drops the third from the state and plans its creation, which fails with
// "already exists" while the other configuration's object is there; once that
// is gone, the apply converges and the plan is empty.
func TestAccFault_lostCreateAnswers(t *testing.T) {
	c := acctest.Cluster(t)
	cfg := c.RESTConfig()
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const prefix, n = "lostcreate", 3
	d := &answerDropper{target: target, transport: transport, prefix: prefix}
	p := startFlakyProxyWith(t, c, proxyOptions{tls: true, quiet: true, observe: d.observe})
	provider := fmt.Sprintf("provider \"kubeinfer\" {\n  host                   = %q\n  cluster_ca_certificate = %q\n}\n", p.URL(), p.caPEM)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	fl := fleet{prefix: prefix, n: n, provider: provider, wait: true}
	w := newWorkdir(t, fl.config())
	w.diagnose = diagnoser(c)
	t.Cleanup(func() { d.armed.Store(false); cleanup(t, w, c, prefix) })

	d.armed.Store(true)
	res := w.run(ctx, applyArgs...)
	d.armed.Store(false)
	w.checkNoPanic(res)
	if res.code != 0 {
		t.Fatalf("an apply whose create answers were lost failed (it must record the objects unconfirmed, untainted):\n%s", res)
	}
	if got := strings.Count(res.out, "may not have been created"); got != n {
		t.Errorf("want %d warnings that the creates are unconfirmed, got %d:\n%s", n, got, res)
	}
	if got := len(w.stateIDs(ctx)); got != n { // stateIDs fails the test on a tainted object
		t.Fatalf("%d objects in state after the lost answers, want %d", got, n)
	}
	t.Logf("%d answers dropped", d.dropped.Load())

	// The LWS controller writes status (a manager of the status subresource).
	lws := c.Dynamic().Resource(lwsGVR).Namespace(namespace)
	deadline := time.Now().Add(time.Minute)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		for {
			u, err := lws.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("the server did not carry out the create of %s: %v", name, err)
			}
			if hasStatusManager(u.GetManagedFields()) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the LWS controller wrote no status to %s", name)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	// Another configuration's object takes the place of the second one: the same
	// name, the same (default) field manager, no creation token of ours.
	other := fmt.Sprintf("%s-1", prefix)
	if err := lws.Delete(ctx, other, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDeleted(ctx, t, func() error { _, err := lws.Get(ctx, other, metav1.GetOptions{}); return err })
	body, _ := json.Marshal(map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
		"metadata": map[string]any{"name": other, "namespace": namespace, "labels": map[string]any{"owner": "other-configuration"}},
		"spec": map[string]any{"replicas": 0, "leaderWorkerTemplate": map[string]any{"size": 1,
			"workerTemplate": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "other", "image": "busybox"}}}}}},
	})
	if _, err := lws.Patch(ctx, other, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: kube.DefaultFieldManager, Force: ptr.To(true)}); err != nil {
		t.Fatal(err)
	}

	plan := w.run(ctx, "plan", "-input=false", "-no-color", "-lock=false")
	w.checkNoPanic(plan)
	if plan.code != 0 {
		t.Fatalf("plan failed:\n%s", plan)
	}
	for _, want := range []string{"Plan: 1 to add, 2 to change, 0 to destroy"} {
		if !strings.Contains(plan.out, want) {
			t.Errorf("the plan after the lost answers lacks %q:\n%s", want, plan)
		}
	}
	if got := strings.Count(plan.out, "Adopted LeaderWorkerSet"); got != n-1 {
		t.Errorf("want %d objects adopted by their creation token, got %d:\n%s", n-1, got, plan)
	}
	if !strings.Contains(plan.out, fmt.Sprintf("LeaderWorkerSet %q was not created by this resource", namespace+"/"+other)) {
		t.Errorf("the plan does not say that %s is another configuration's:\n%s", other, plan)
	}

	res = w.run(ctx, applyArgs...)
	w.checkNoPanic(res)
	if res.code == 0 || !strings.Contains(res.out, "already exists") {
		t.Fatalf("the apply must refuse to take the other configuration's %s:\n%s", other, res)
	}
	u, err := lws.Get(ctx, other, metav1.GetOptions{})
	if err != nil || u.GetLabels()["owner"] != "other-configuration" {
		t.Fatalf("the other configuration's object was changed or deleted: %v, %v", err, u)
	}
	// Once the other configuration's object is gone, the next apply converges.
	if err := lws.Delete(ctx, other, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDeleted(ctx, t, func() error { _, err := lws.Get(ctx, other, metav1.GetOptions{}); return err })
	w.mustSucceed(ctx, applyArgs...)
	w.planEmpty(ctx)
	agree(ctx, t, w, c.Dynamic(), prefix, n)
	for i := 0; i < n; i++ {
		u, err := lws.Get(ctx, fmt.Sprintf("%s-%d", prefix, i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := u.GetAnnotations()[kube.CreationTokenAnnotation]; !ok {
			// Every apply carries the state's token: it tells this configuration's objects from
			// another's.
			t.Errorf("%s lost its creation token in the update that adopted it", u.GetName())
		}
	}
}

func hasStatusManager(entries []metav1.ManagedFieldsEntry) bool {
	for _, e := range entries {
		if e.Subresource == "status" {
			return true
		}
	}
	return false
}

// waitDeleted polls get until it fails (NotFound), for a minute.
func waitDeleted(ctx context.Context, t *testing.T, get func() error) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); get() == nil; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatal("the object was not deleted within a minute")
		}
	}
}
