package kube_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// releasedCRDServer answers server-side applies as kube-apiserver does with the released
// LeaderWorkerSet CRD, which lacks the newer fields: a 500 naming, in each object of the body,
// the first undeclared field only (structured-merge-diff's validation stops there), for dry runs
// too; a body without any is handed to next. It counts applies and dry runs.
type releasedCRDServer struct {
	next http.Handler

	mu              sync.Mutex
	applies, probes int
}

// undeclaredByObject lists the newer fields per object of the body, in the order the server
// happens to visit them.
var undeclaredByObject = [][]string{
	{"spec", "groupIdentity", "groupReplacementPolicy", "scheduling"},
	{"spec.leaderWorkerTemplate", "maxGroupRestarts"},
}

func (s *releasedCRDServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPatch {
		s.next.ServeHTTP(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	dryRun := r.URL.Query().Get("dryRun") == "All"
	s.mu.Lock()
	if dryRun {
		s.probes++
	} else {
		s.applies++
	}
	s.mu.Unlock()
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	var errs []string
	for _, obj := range undeclaredByObject {
		m := body
		for _, k := range strings.Split(obj[0], ".") {
			m, _ = m[k].(map[string]any)
		}
		for _, field := range obj[1:] {
			if _, ok := m[field]; ok {
				errs = append(errs, "."+obj[0]+"."+field+": field not declared in schema")
				break
			}
		}
	}
	switch {
	case len(errs) == 1:
		writeStatus(w, http.StatusInternalServerError, "",
			"failed to create typed patch object (default/vllm; leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet): "+errs[0])
	case len(errs) > 1:
		writeStatus(w, http.StatusInternalServerError, "",
			"failed to create typed patch object (default/vllm; leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet): errors:\n  "+
				strings.Join(errs, "\n  "))
	case dryRun:
		writeJSON(w, http.StatusOK, body) // nothing stored
	default:
		r.Body = io.NopCloser(bytes.NewReader(raw))
		s.next.ServeHTTP(w, r)
	}
}

// TestApplyReportsEveryUndeclaredField: a configuration that sets three fields the released CRD
// lacks, two of them in the same object (of which the server names one per request), fails in one
// apply that names all three, each on its attribute: the apply is sent once, not retried (the
// client's retrying transport), and dry runs without the named fields find the rest.
func TestApplyReportsEveryUndeclaredField(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
	srv := &releasedCRDServer{next: h.api}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	cfg := &rest.Config{Host: hs.URL}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return kubeclient.NewRetryRoundTripper(rt) })
	*h.data = kube.ProviderData{Client: kubeclient.NewClientFromRESTConfig(cfg)}

	lws := vllm()
	lws.Spec.GroupIdentity = lwsv1.GroupIdentityHash
	lws.Spec.GroupReplacementPolicy = lwsv1.GroupReplacementImmediate
	lws.Spec.LeaderWorkerTemplate.MaxGroupRestarts = ptr.To[int32](3)
	start := time.Now()
	_, ar := h.create(h.config(lws, noWait))
	took := time.Since(start)

	want := map[string]string{
		`AttributeName("spec").AttributeName("group_identity")`:                                             "spec.groupIdentity",
		`AttributeName("spec").AttributeName("group_replacement_policy")`:                                   "spec.groupReplacementPolicy",
		`AttributeName("spec").AttributeName("leader_worker_template").AttributeName("max_group_restarts")`: "spec.leaderWorkerTemplate.maxGroupRestarts",
	}
	got := map[string]bool{}
	for _, d := range ar.Diagnostics {
		if d.Severity != tfprotov6.DiagnosticSeverityError || d.Attribute == nil {
			t.Errorf("want attribute errors only, got %+v", d)
			continue
		}
		jsonPath, ok := want[d.Attribute.String()]
		if !ok || got[jsonPath] {
			t.Errorf("unexpected or repeated diagnostic on %s", d.Attribute)
			continue
		}
		got[jsonPath] = true
		for _, s := range []string{"does not declare " + jsonPath, "newer LeaderWorkerSet API", jsonPath[strings.LastIndex(jsonPath, ".")+1:] + ": field not declared in schema"} {
			if !strings.Contains(d.Detail, s) {
				t.Errorf("%s: detail lacks %q:\n%s", d.Attribute, s, d.Detail)
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("reported %v, want all of %v", got, want)
	}
	// The first apply names groupIdentity and maxGroupRestarts; a dry run without them names
	// groupReplacementPolicy; a dry run without the three passes.
	if srv.applies != 1 || srv.probes != 2 {
		t.Errorf("%d applies and %d dry runs, want 1 and 2", srv.applies, srv.probes)
	}
	if took > 2*time.Second {
		t.Errorf("the failed apply took %v", took)
	}
	if len(h.api.objects) != 0 {
		t.Errorf("a dry run stored an object: %v", h.api.objects)
	}
	if !h.value(ar.NewState).IsNull() {
		t.Error("a rejected create must leave no state")
	}
}

// TestApplyUndeclaredProbesAreBounded: a server that names a new undeclared field in answer to
// every dry run is asked a bounded number of times.
func TestApplyUndeclaredProbesAreBounded(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
	var mu sync.Mutex
	calls := 0
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPatch {
			h.api.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		writeStatus(w, http.StatusInternalServerError, "", fmt.Sprintf(
			"failed to create typed patch object (default/vllm; leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet): .spec.f%d: field not declared in schema", n))
	}))
	t.Cleanup(hs.Close)
	*h.data = kube.ProviderData{Client: kubeclient.NewClientFromRESTConfig(&rest.Config{Host: hs.URL})}
	_, ar := h.create(h.config(vllm(), noWait))
	if calls != 21 || len(ar.Diagnostics) != 21 {
		t.Errorf("%d requests, %d diagnostics; want the apply and 20 dry runs, each field reported", calls, len(ar.Diagnostics))
	}
}
