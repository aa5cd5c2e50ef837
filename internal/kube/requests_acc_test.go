package kube_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"k8s.io/client-go/rest"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// requestCounter is a reverse proxy in front of the test cluster that counts the requests the
// provider makes, by method and path class. It adds the credentials, so the provider talks
// plain HTTP to it without any.
type requestCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *requestCounter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.counts
	c.counts = map[string]int{}
	return out
}

// class names a request by method, class (object, collection, discovery, openapi, CRD) and
// path with the object name replaced by {name}, so that an unexpected request stands out.
func class(r *http.Request) string {
	p := r.URL.Path
	if strings.HasPrefix(p, "/openapi") || strings.HasPrefix(p, "/swagger") {
		return r.Method + " openapi " + p
	}
	if strings.Contains(p, "/customresourcedefinitions") {
		return r.Method + " CRD " + p
	}
	seg := strings.Split(strings.Trim(p, "/"), "/")
	// /api/v1/... or /apis/<group>/<version>/...
	var prefix, rest []string
	switch {
	case len(seg) >= 2 && seg[0] == "api":
		prefix, rest = seg[:2], seg[2:]
	case len(seg) >= 3 && seg[0] == "apis":
		prefix, rest = seg[:3], seg[3:]
	default:
		return r.Method + " discovery " + p
	}
	if len(rest) == 0 {
		return r.Method + " discovery " + p
	}
	if rest[0] == "namespaces" && len(rest) >= 3 {
		prefix, rest = append(prefix, rest[:2]...), rest[2:] // namespaced resource
	}
	res := "/" + strings.Join(append(prefix, rest[0]), "/")
	if len(rest) == 1 {
		watch := ""
		if w := r.URL.Query().Get("watch"); w == "true" || w == "1" {
			watch = "?watch"
		}
		return r.Method + " collection " + res + watch
	}
	res += "/{name}"
	if len(rest) > 2 {
		res += "/" + strings.Join(rest[2:], "/") // subresource
	}
	return r.Method + " object " + res
}

func (c *requestCounter) ServeHTTP(w http.ResponseWriter, r *http.Request, next http.Handler) {
	c.mu.Lock()
	c.counts[class(r)]++
	c.mu.Unlock()
	next.ServeHTTP(w, r)
}

// startCountingProxy starts the proxy and writes a kubeconfig pointing at it.
func startCountingProxy(t *testing.T, cfg *rest.Config) (*requestCounter, string) {
	t.Helper()
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(target); pr.Out.Host = target.Host },
		Transport:     rt,
		FlushInterval: -1, // watches stream
	}
	counter := &requestCounter{counts: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { counter.ServeHTTP(w, r, proxy) }))
	t.Cleanup(srv.Close)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster:
    server: %s
users:
- name: proxy
  user: {}
contexts:
- name: proxy
  context: {cluster: proxy, user: proxy}
current-context: proxy
`, srv.URL)
	if err := os.WriteFile(kubeconfig, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return counter, kubeconfig
}

// lwsConfig is n vLLM LeaderWorkerSets (lwsfixture.VLLM, as in the leaderworkerset acceptance
// tests) without waiting for the rollout (there is no LWS controller).
func lwsConfig(kubeconfig string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider \"kubeinfer\" {\n  config_path = %q\n}\n", kubeconfig)
	for i := range n {
		b.WriteString("\n" + acctest.ObjectHCL(leaderworkerset.Kind.Node(), "kubeinfer_leaderworkerset", fmt.Sprintf("lws_%d", i),
			lwsfixture.VLLM(fmt.Sprintf("acc-requests-%d", i), 2, 4), "wait_for_rollout = false"))
	}
	return b.String()
}

// phase is what the proxy saw during one Terraform command (or group of commands).
type phase struct {
	name   string
	counts map[string]int
}

func (p phase) total() int {
	n := 0
	for _, c := range p.counts {
		n += c
	}
	return n
}

// matching sums the counts of the classes with the given prefix ("GET object", "PATCH").
func (p phase) matching(prefix string) int {
	n := 0
	for k, c := range p.counts {
		if strings.HasPrefix(k, prefix) {
			n += c
		}
	}
	return n
}

func (p phase) String() string {
	keys := make([]string, 0, len(p.counts))
	for k := range p.counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d request(s)", p.name, p.total())
	for _, k := range keys {
		fmt.Fprintf(&b, "\n    %4d  %s", p.counts[k], k)
	}
	return b.String()
}

// snap records the requests made since the previous snap under a name.
type recorder struct {
	counter *requestCounter
	phases  []phase
}

func (r *recorder) snap(name string) phase {
	p := phase{name: name, counts: r.counter.snapshot()}
	r.phases = append(r.phases, p)
	return p
}

type planSnap struct {
	r    *recorder
	name string
}

func (s planSnap) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, _ *plancheck.CheckPlanResponse) {
	s.r.snap(s.name)
}

type stateSnap struct {
	r    *recorder
	name string
}

func (s stateSnap) CheckState(_ context.Context, _ statecheck.CheckStateRequest, _ *statecheck.CheckStateResponse) {
	s.r.snap(s.name)
}

// TestAccRequests_leaderWorkerSet counts the requests the provider makes to the API server for
// N LeaderWorkerSets: planning new objects makes none, an apply one existence check (GET) and
// one server-side apply (PATCH) per object, a refresh one GET per object, and none of them
// discovery, OpenAPI or CRD requests.
func TestAccRequests_leaderWorkerSet(t *testing.T) {
	acctest.FirstCLIOnly(t, "the requests the provider sends the API server")
	const n = 10
	counter, kubeconfig := startCountingProxy(t, acctest.Cluster(t).RESTConfig())
	rec := &recorder{counter: counter}
	config := lwsConfig(kubeconfig, n)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			rec.snap("destroy (refresh, then DELETE and wait per object)")
			return nil
		},
		Steps: []resource.TestStep{
			{ // a plan of new objects: validation and planned defaults only, offline
				PreConfig:          func() { counter.snapshot() },
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				PreConfig: func() { rec.snap("plan of new objects (two plans, empty state)") },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{planSnap{rec, "pre-apply plan (empty state)"}},
					PostApplyPreRefresh:  []plancheck.PlanCheck{planSnap{rec, "post-apply plan without refresh"}},
					PostApplyPostRefresh: []plancheck.PlanCheck{planSnap{rec, "post-apply plan with refresh (no-change plan)"}},
				},
				ConfigStateChecks: []statecheck.StateCheck{stateSnap{rec, "apply"}},
			},
			{ // terraform refresh
				PreConfig:    func() { counter.snapshot() },
				RefreshState: true,
				Check: func(*terraform.State) error {
					rec.snap("refresh")
					return nil
				},
			},
		},
	})

	byName := map[string]phase{}
	for _, p := range rec.phases {
		t.Log(p)
		byName[p.name] = p
	}
	for _, p := range rec.phases {
		for k := range p.counts {
			for _, bad := range []string{" discovery ", " openapi ", " CRD "} {
				if strings.Contains(k, bad) {
					t.Errorf("%s: unexpected %s request %q", p.name, strings.TrimSpace(bad), k)
				}
			}
		}
	}
	expect := func(phaseName, prefix string, lo, hi int) {
		t.Helper()
		p, ok := byName[phaseName]
		if !ok {
			t.Errorf("no requests recorded for %q", phaseName)
			return
		}
		got := p.total()
		if prefix != "" {
			got = p.matching(prefix)
		}
		if got < lo || got > hi {
			t.Errorf("%s: %d %q request(s), want %d..%d\n%s", phaseName, got, prefix, lo, hi, p)
		}
	}
	expect("plan of new objects (two plans, empty state)", "", 0, 0)
	expect("pre-apply plan (empty state)", "", 0, 0)
	expect("apply", "GET object", n, n)
	expect("apply", "PATCH object", n, n)
	expect("apply", "", 2*n, 2*n)
	expect("post-apply plan without refresh", "", 0, 0)
	expect("post-apply plan with refresh (no-change plan)", "", n, n)
	expect("post-apply plan with refresh (no-change plan)", "GET object", n, n)
	expect("refresh", "", n, n)
	expect("refresh", "GET object", n, n)
	// DELETE, then at most a GET and a watch per object (or a GET that finds it gone), after
	// the refresh's GETs; a LeaderWorkerSet's cleanup wait adds a list of its pods and of its
	// StatefulSets, each with a watch while some remain (never a poll).
	expect("destroy (refresh, then DELETE and wait per object)", "DELETE object", n, n)
	expect("destroy (refresh, then DELETE and wait per object)", "GET collection /api/v1/namespaces/default/pods", n, 2*n)
	expect("destroy (refresh, then DELETE and wait per object)", "", 2*n, 9*n)
}
