package faulttest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// flakyProxy stands between the provider and kube-apiserver, like
// `kubectl proxy` (plain HTTP on loopback in front, the cluster's credentials
// behind) with a bad network in between: it resets some connections as they
// are accepted, cuts others at a random moment (mid-request, mid-response or
// mid-watch) and delays every chunk it forwards. It records the requests that
// reach the server.
//
// With proxyOptions.tls the front speaks TLS, so the provider talks HTTP/2 to
// it as it does to kube-apiserver: every request shares one connection, and a
// reset fails them all at once, with the errors of net/http's HTTP/2 client
// ("http2: client connection force closed via ClientConn.Close" among them).
type flakyProxy struct {
	front, back net.Listener
	server      *http.Server

	resetAtAccept float64       // share of connections reset when accepted
	cut           float64       // share of connections cut later
	cutWithin     time.Duration // a cut comes 20 ms..cutWithin after the accept
	maxDelay      time.Duration // each forwarded chunk waits up to this

	accepted, resets, cuts atomic.Int64

	mu       sync.Mutex
	requests []*url.URL
	methods  []string

	// observe, when set, sees each request as it arrives; the func it returns
	// (if any) is called with the status once the answer is complete.
	observe func(r *http.Request) func(status int)
	caPEM   string // the front's CA certificate (PEM), with tls

	connMu sync.Mutex
	conns  map[*net.TCPConn]bool // the front connections open
}

// proxyOptions configures startFlakyProxyWith.
type proxyOptions struct {
	tls bool // serve the front with TLS (and so HTTP/2)
	// quiet injects no fault of its own (no reset at accept, no cut, no
	// delay): the test resets connections itself (resetAll).
	quiet   bool
	observe func(r *http.Request) func(status int)
}

func startFlakyProxy(t *testing.T, c *acctest.TestCluster) *flakyProxy {
	t.Helper()
	return startFlakyProxyWith(t, c, proxyOptions{})
}

func startFlakyProxyWith(t *testing.T, c *acctest.TestCluster, o proxyOptions) *flakyProxy {
	t.Helper()
	cfg := c.RESTConfig()
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &flakyProxy{resetAtAccept: 0.1, cut: 0.25, cutWithin: 1500 * time.Millisecond, maxDelay: 15 * time.Millisecond,
		observe: o.observe, conns: map[*net.TCPConn]bool{}}
	if o.quiet {
		p.resetAtAccept, p.cut, p.maxDelay = 0, 0, 0
	}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport:     transport,
		FlushInterval: -1, // stream watches
		ErrorLog:      nil,
	}
	p.server = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		u := *r.URL
		p.requests = append(p.requests, &u)
		p.methods = append(p.methods, r.Method)
		p.mu.Unlock()
		var done func(int)
		if p.observe != nil {
			done = p.observe(r)
		}
		sw := &statusWriter{ResponseWriter: w}
		rp.ServeHTTP(sw, r)
		if done != nil {
			done(sw.status)
		}
	}), ReadHeaderTimeout: 10 * time.Second}
	if p.back, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if p.front, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if o.tls {
		cert, caPEM := selfSignedLoopback(t)
		p.caPEM = caPEM
		p.server.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12}
		go func() { _ = p.server.ServeTLS(p.back, "", "") }()
	} else {
		go func() { _ = p.server.Serve(p.back) }()
	}
	go p.acceptLoop()
	t.Cleanup(func() {
		_ = p.front.Close()
		_ = p.server.Close()
	})
	return p
}

// URL is the address the provider's host points at.
func (p *flakyProxy) URL() string {
	if p.caPEM != "" {
		return "https://" + p.front.Addr().String()
	}
	return "http://" + p.front.Addr().String()
}

// resetAll resets (RST) every front connection open and returns how many.
func (p *flakyProxy) resetAll() int {
	p.connMu.Lock()
	defer p.connMu.Unlock()
	n := 0
	for conn := range p.conns {
		_ = conn.SetLinger(0)
		_ = conn.Close()
		delete(p.conns, conn)
		n++
	}
	return n
}

// statusWriter records the status of an answer; Unwrap lets the reverse
// proxy flush a watch's events through it (http.ResponseController).
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// selfSignedLoopback returns a certificate for 127.0.0.1 and localhost, its
// own CA, and that CA in PEM.
func selfSignedLoopback(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kubeinfer fault proxy"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func (p *flakyProxy) acceptLoop() {
	for {
		conn, err := p.front.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		tcp := conn.(*net.TCPConn)
		p.connMu.Lock()
		p.conns[tcp] = true
		p.connMu.Unlock()
		go func() {
			p.handle(tcp)
			p.connMu.Lock()
			delete(p.conns, tcp)
			p.connMu.Unlock()
		}()
	}
}

func (p *flakyProxy) handle(client *net.TCPConn) {
	if rand.Float64() < p.resetAtAccept {
		p.resets.Add(1)
		_ = client.SetLinger(0) // close with RST, not FIN
		_ = client.Close()
		return
	}
	upstream, err := net.Dial("tcp", p.back.Addr().String())
	if err != nil {
		_ = client.Close()
		return
	}
	var once sync.Once
	closeBoth := func(reset bool) {
		once.Do(func() {
			if reset {
				_ = client.SetLinger(0)
			}
			_ = client.Close()
			_ = upstream.Close()
		})
	}
	if rand.Float64() < p.cut {
		after := 20*time.Millisecond + time.Duration(rand.Int64N(int64(p.cutWithin)))
		time.AfterFunc(after, func() {
			p.cuts.Add(1)
			closeBoth(true)
		})
	}
	go func() { p.copy(upstream, client); closeBoth(false) }()
	p.copy(client, upstream)
	closeBoth(false)
}

// copy forwards src to dst chunk by chunk, each after a random delay.
func (p *flakyProxy) copy(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if p.maxDelay > 0 {
				time.Sleep(time.Duration(rand.Int64N(int64(p.maxDelay))))
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil { // io.EOF or a closed connection
			return
		}
	}
}

// watchStats counts the watches of the rollout and delete waits and those
// that were re-established (a second or later watch of the same path and
// selectors), and
// returns an error if a re-established watch started without a
// resourceVersion or from an older one than before.
func (p *flakyProxy) watchStats() (watches, reestablished int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	lastRV := map[string]int64{}
	for i, u := range p.requests {
		q := u.Query()
		if p.methods[i] != http.MethodGet || q.Get("watch") != "true" && q.Get("watch") != "1" {
			continue
		}
		watches++
		// One watch target is a path with its selectors: the delete waits of
		// 20 sets watch the same pods path with a label selector each.
		key := u.Path + "?fieldSelector=" + q.Get("fieldSelector") + "&labelSelector=" + q.Get("labelSelector")
		// Every rollout wait also watches its namespace's Warning events with the same
		// request, each from the resourceVersion of its own list: 20 waits in parallel send
		// the same path and selectors from different versions, so the order of versions
		// says nothing about one watcher there. They count as watches, not as re-established.
		if strings.HasSuffix(u.Path, "/events") {
			continue
		}
		rv := q.Get("resourceVersion")
		prev, seen := lastRV[key]
		if !seen {
			lastRV[key], _ = strconv.ParseInt(rv, 10, 64)
			continue
		}
		reestablished++
		n, perr := strconv.ParseInt(rv, 10, 64)
		if perr != nil || rv == "" || rv == "0" {
			return watches, reestablished, fmt.Errorf("watch %s re-established without a resourceVersion (%q)", key, rv)
		}
		if n < prev {
			return watches, reestablished, fmt.Errorf("watch %s re-established from resourceVersion %d, older than %d", key, n, prev)
		}
		lastRV[key] = n
	}
	return watches, reestablished, nil
}

// TestAccFault_flakyProxy runs rounds of apply (with the rollout wait),
// plan and destroy of 20 LeaderWorkerSets through flakyProxy. Every command
// succeeds in one run: requests are retried, and waits re-establish their
// watches from the last resourceVersion seen.
func TestAccFault_flakyProxy(t *testing.T) {
	c := acctest.Cluster(t)
	p := startFlakyProxy(t, c)
	provider := fmt.Sprintf("provider \"kubeinfer\" {\n  host = %q\n}\n", p.URL())
	const rounds = 3
	for round := 1; round <= rounds; round++ {
		t.Run(fmt.Sprintf("round %d", round), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			f := fleet{prefix: fmt.Sprintf("flaky-%d", round), n: 20, provider: provider, wait: true}
			w := newWorkdir(t, f.config())
			w.diagnose = diagnoser(c)
			t.Cleanup(func() { cleanup(t, w, c, f.prefix) })
			apply := w.mustSucceed(ctx, applyArgs...)
			agree(ctx, t, w, c.Dynamic(), f.prefix, 20)
			plan := w.run(ctx, "plan", "-detailed-exitcode", "-input=false", "-no-color")
			w.checkNoPanic(plan)
			if plan.code != 0 {
				t.Fatalf("want an empty plan:\n%s", plan)
			}
			destroy := w.mustSucceed(ctx, destroyArgs...)
			agree(ctx, t, w, c.Dynamic(), f.prefix, 0)
			t.Logf("apply %s, plan %s, destroy %s", apply.took.Round(time.Millisecond), plan.took.Round(time.Millisecond), destroy.took.Round(time.Millisecond))
		})
	}
	watches, reestablished, err := p.watchStats()
	if err != nil {
		t.Error(err)
	}
	p.mu.Lock()
	requests := len(p.requests)
	p.mu.Unlock()
	t.Logf("through the proxy: %d connections, %d reset when accepted, %d cut later; %d requests reached the server; %d watches, %d of them re-established",
		p.accepted.Load(), p.resets.Load(), p.cuts.Load(), requests, watches, reestablished)
	if p.resets.Load() == 0 || p.cuts.Load() == 0 {
		t.Errorf("the proxy injected no fault of some kind (resets %d, cuts %d)", p.resets.Load(), p.cuts.Load())
	}
}
