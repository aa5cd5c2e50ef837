package kubeclient

import (
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// A self-signed certificate is not needed: client-go only parses CA data
// when a transport is created, which these tests never do for TLS hosts.
const (
	testCA   = "-----BEGIN CERTIFICATE-----\nTESTCA\n-----END CERTIFICATE-----\n"
	testCert = "-----BEGIN CERTIFICATE-----\nTESTCERT\n-----END CERTIFICATE-----\n"
	testKey  = "-----BEGIN PRIVATE KEY-----\nTESTKEY\n-----END PRIVATE KEY-----\n"
)

const twoContexts = `apiVersion: v1
kind: Config
current-context: ctx-a
clusters:
- name: cluster-a
  cluster:
    server: https://a.example.com:6443
    tls-server-name: a-internal
- name: cluster-b
  cluster:
    server: https://b.example.com:6443
    insecure-skip-tls-verify: true
users:
- name: user-a
  user:
    token: token-a
- name: user-b
  user:
    token: token-b
contexts:
- name: ctx-a
  context:
    cluster: cluster-a
    user: user-a
- name: ctx-b
  context:
    cluster: cluster-b
    user: user-b
`

// isolate makes sure the environment of the machine running the tests does
// not leak into them.
func isolate(t *testing.T) {
	t.Helper()
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustConfig(t *testing.T, s Settings) *rest.Config {
	t.Helper()
	cfg, err := NewClient(s, "test-agent").RESTConfig()
	if err != nil {
		t.Fatalf("RESTConfig: %v", err)
	}
	return cfg
}

func boolPtr(b bool) *bool { return &b }

func TestKubeconfigContexts(t *testing.T) {
	isolate(t)
	path := writeFile(t, "config", twoContexts)

	tests := []struct {
		name                      string
		s                         Settings
		wantHost, wantToken, wSNI string
		wantInsecure              bool
	}{
		{
			name:     "current context",
			s:        Settings{ConfigPath: path},
			wantHost: "https://a.example.com:6443", wantToken: "token-a", wSNI: "a-internal",
		},
		{
			name:     "context override",
			s:        Settings{ConfigPath: path, ConfigContext: "ctx-b"},
			wantHost: "https://b.example.com:6443", wantToken: "token-b", wantInsecure: true,
		},
		{
			name:     "context cluster override",
			s:        Settings{ConfigPath: path, ConfigContextCluster: "cluster-b"},
			wantHost: "https://b.example.com:6443", wantToken: "token-a", wantInsecure: true,
		},
		{
			name:     "context auth info override",
			s:        Settings{ConfigPath: path, ConfigContext: "ctx-a", ConfigContextAuthInfo: "user-b"},
			wantHost: "https://a.example.com:6443", wantToken: "token-b", wSNI: "a-internal",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustConfig(t, tt.s)
			if cfg.Host != tt.wantHost || cfg.BearerToken != tt.wantToken || cfg.Insecure != tt.wantInsecure || cfg.ServerName != tt.wSNI {
				t.Errorf("got host=%q token=%q insecure=%v sni=%q", cfg.Host, cfg.BearerToken, cfg.Insecure, cfg.ServerName)
			}
			if cfg.UserAgent != "test-agent" {
				t.Errorf("UserAgent = %q", cfg.UserAgent)
			}
			if cfg.QPS != DefaultQPS || cfg.Burst != DefaultBurst {
				t.Errorf("QPS/Burst = %v/%v", cfg.QPS, cfg.Burst)
			}
		})
	}

	if _, err := NewClient(Settings{ConfigPath: path, ConfigContext: "nope"}, "").RESTConfig(); err == nil ||
		!strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown context: err = %v", err)
	}
}

func TestConfigPathWinsOverConfigPaths(t *testing.T) {
	isolate(t)
	path := writeFile(t, "config", twoContexts)
	cfg := mustConfig(t, Settings{ConfigPath: path, ConfigPaths: []string{"/does/not/exist"}})
	if cfg.Host != "https://a.example.com:6443" {
		t.Errorf("Host = %q", cfg.Host)
	}
}

func TestConfigPathsMerge(t *testing.T) {
	isolate(t)
	// The first file defines the current context and a cluster; the second
	// defines the user (and a conflicting cluster entry, which loses).
	first := writeFile(t, "first", `apiVersion: v1
kind: Config
current-context: merged
clusters:
- name: c
  cluster:
    server: https://first.example.com
contexts:
- name: merged
  context:
    cluster: c
    user: u
`)
	second := writeFile(t, "second", `apiVersion: v1
kind: Config
current-context: other
clusters:
- name: c
  cluster:
    server: https://second.example.com
users:
- name: u
  user:
    token: merged-token
`)
	cfg := mustConfig(t, Settings{ConfigPaths: []string{first, "", filepath.Join(t.TempDir(), "missing"), second}})
	if cfg.Host != "https://first.example.com" || cfg.BearerToken != "merged-token" {
		t.Errorf("got host=%q token=%q", cfg.Host, cfg.BearerToken)
	}

	_, err := NewClient(Settings{ConfigPaths: []string{"/nope/a", "/nope/b"}}, "").RESTConfig()
	if err == nil || !strings.Contains(err.Error(), "/nope/a") || !strings.Contains(err.Error(), "config_paths") {
		t.Errorf("missing files: err = %v", err)
	}
}

func TestHomeExpansion(t *testing.T) {
	isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".kube", "config"), []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := mustConfig(t, Settings{ConfigPath: "~/.kube/config"})
	if cfg.Host != "https://a.example.com:6443" {
		t.Errorf("Host = %q", cfg.Host)
	}
}

func TestExplicitHostAndToken(t *testing.T) {
	isolate(t)
	cfg := mustConfig(t, Settings{Host: "https://k8s.example.com:6443", Token: "secret", QPS: 7, Burst: 9})
	if cfg.Host != "https://k8s.example.com:6443" || cfg.BearerToken != "secret" {
		t.Errorf("got host=%q token=%q", cfg.Host, cfg.BearerToken)
	}
	if cfg.QPS != 7 || cfg.Burst != 9 {
		t.Errorf("QPS/Burst = %v/%v", cfg.QPS, cfg.Burst)
	}

	// A host without scheme defaults to https when TLS material is given.
	cfg = mustConfig(t, Settings{Host: "k8s.example.com:6443", ClusterCACertificate: testCA, ClientCertificate: testCert, ClientKey: testKey})
	if cfg.Host != "https://k8s.example.com:6443" {
		t.Errorf("Host = %q", cfg.Host)
	}
	if string(cfg.CertData) != testCert || string(cfg.KeyData) != testKey || string(cfg.CAData) != testCA {
		t.Errorf("TLS data not propagated")
	}
}

func TestHostOverridesKubeconfig(t *testing.T) {
	isolate(t)
	path := writeFile(t, "config", twoContexts)
	cfg := mustConfig(t, Settings{ConfigPath: path, Host: "https://override.example.com", Token: "override-token"})
	if cfg.Host != "https://override.example.com" || cfg.BearerToken != "override-token" {
		t.Errorf("got host=%q token=%q", cfg.Host, cfg.BearerToken)
	}
	// Setting the server clears the kubeconfig's tls-server-name, as kubectl does.
	if cfg.ServerName != "" {
		t.Errorf("ServerName = %q", cfg.ServerName)
	}
}

func TestTLSAndProxySettings(t *testing.T) {
	isolate(t)
	cfg := mustConfig(t, Settings{
		Host:                 "https://k8s.example.com",
		Token:                "t",
		ClusterCACertificate: testCA,
		TLSServerName:        "internal.name",
		ProxyURL:             "http://proxy.example.com:3128",
	})
	if string(cfg.CAData) != testCA || cfg.ServerName != "internal.name" || cfg.Insecure {
		t.Errorf("got CA=%q sni=%q insecure=%v", cfg.CAData, cfg.ServerName, cfg.Insecure)
	}
	if cfg.Proxy == nil {
		t.Fatal("Proxy not set")
	}
	req, _ := http.NewRequest(http.MethodGet, "https://k8s.example.com/api", nil)
	u, err := cfg.Proxy(req)
	if err != nil || u == nil || u.String() != "http://proxy.example.com:3128" {
		t.Errorf("Proxy() = %v, %v", u, err)
	}

	// insecure = true overrides CA data from the kubeconfig.
	kc := writeFile(t, "config", strings.Replace(twoContexts, "    tls-server-name: a-internal\n",
		"    certificate-authority-data: dGVzdA==\n", 1))
	cfg = mustConfig(t, Settings{ConfigPath: kc, Insecure: boolPtr(true)})
	if !cfg.Insecure || len(cfg.CAData) != 0 {
		t.Errorf("insecure override: insecure=%v CA=%q", cfg.Insecure, cfg.CAData)
	}
	// insecure = false overrides insecure-skip-tls-verify from the kubeconfig.
	cfg = mustConfig(t, Settings{ConfigPath: kc, ConfigContext: "ctx-b", Insecure: boolPtr(false)})
	if cfg.Insecure {
		t.Errorf("insecure=false did not override the kubeconfig")
	}
	// tls_server_name and proxy_url override the kubeconfig.
	cfg = mustConfig(t, Settings{ConfigPath: kc, TLSServerName: "sni", ProxyURL: "http://p.example.com", ClusterCACertificate: testCA})
	if cfg.ServerName != "sni" || cfg.Proxy == nil || string(cfg.CAData) != testCA {
		t.Errorf("overrides: sni=%q proxy=%v CA=%q", cfg.ServerName, cfg.Proxy != nil, cfg.CAData)
	}
}

func TestExecSettings(t *testing.T) {
	isolate(t)
	cfg := mustConfig(t, Settings{
		Host: "https://k8s.example.com",
		Exec: &ExecConfig{
			APIVersion: "client.authentication.k8s.io/v1beta1",
			Command:    "aws",
			Args:       []string{"eks", "get-token"},
			Env:        map[string]string{"B": "2", "A": "1"},
		},
	})
	e := cfg.ExecProvider
	if e == nil {
		t.Fatal("ExecProvider not set")
	}
	if e.APIVersion != "client.authentication.k8s.io/v1beta1" || e.Command != "aws" ||
		strings.Join(e.Args, " ") != "eks get-token" || e.InteractiveMode != clientcmdapi.NeverExecInteractiveMode {
		t.Errorf("ExecProvider = %+v", e)
	}
	if len(e.Env) != 2 || e.Env[0] != (clientcmdapi.ExecEnvVar{Name: "A", Value: "1"}) || e.Env[1].Name != "B" {
		t.Errorf("Env = %+v", e.Env)
	}

	// exec replaces the kubeconfig user's credentials.
	path := writeFile(t, "config", strings.ReplaceAll(twoContexts, "    token: token-a\n", "    username: someone\n"))
	cfg = mustConfig(t, Settings{ConfigPath: path, Exec: &ExecConfig{APIVersion: "client.authentication.k8s.io/v1", Command: "get-token"}})
	if cfg.ExecProvider == nil || cfg.ExecProvider.Command != "get-token" {
		t.Errorf("exec with kubeconfig: %+v", cfg.ExecProvider)
	}
}

func TestKubeconfigEnvFallback(t *testing.T) {
	isolate(t)
	path := writeFile(t, "config", twoContexts)
	t.Setenv("KUBECONFIG", string(os.PathListSeparator)+path)
	cfg := mustConfig(t, Settings{ConfigContext: "ctx-b"})
	if cfg.Host != "https://b.example.com:6443" || cfg.BearerToken != "token-b" {
		t.Errorf("got host=%q token=%q", cfg.Host, cfg.BearerToken)
	}
	// An explicit host wins over KUBECONFIG.
	cfg = mustConfig(t, Settings{Host: "https://explicit.example.com", Token: "x"})
	if cfg.Host != "https://explicit.example.com" {
		t.Errorf("Host = %q", cfg.Host)
	}
}

func TestNothingConfigured(t *testing.T) {
	isolate(t)
	for _, s := range []Settings{{}, {Token: "only-a-token"}} {
		_, err := NewClient(s, "").RESTConfig()
		if !errors.Is(err, ErrNoConfiguration) {
			t.Fatalf("err = %v, want ErrNoConfiguration", err)
		}
		msg := err.Error()
		for _, want := range []string{"host", "KUBE_HOST", "config_path", "KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBECONFIG", "in-cluster", "token"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error does not mention %q: %s", want, msg)
			}
		}
		if strings.Contains(msg, "only-a-token") {
			t.Errorf("error leaks the token: %s", msg)
		}
	}
}

func TestInCluster(t *testing.T) {
	isolate(t)
	orig := inClusterConfig
	t.Cleanup(func() { inClusterConfig = orig })
	inClusterConfig = func() (*rest.Config, error) {
		return &rest.Config{
			Host:            "https://10.0.0.1:443",
			BearerTokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
			TLSClientConfig: rest.TLSClientConfig{CAFile: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"},
		}, nil
	}
	cfg := mustConfig(t, Settings{})
	if cfg.Host != "https://10.0.0.1:443" || cfg.BearerTokenFile == "" {
		t.Errorf("in-cluster: %+v", cfg)
	}
	cfg = mustConfig(t, Settings{Token: "tok", Insecure: boolPtr(true)})
	if cfg.BearerToken != "tok" || cfg.BearerTokenFile != "" || !cfg.Insecure || cfg.CAFile != "" {
		t.Errorf("in-cluster overrides: %+v", cfg)
	}
}

func TestNewClientDoesNoIO(t *testing.T) {
	isolate(t)
	missing := filepath.Join(t.TempDir(), "does-not-exist")
	c := NewClient(Settings{ConfigPath: missing}, "ua")
	if c == nil {
		t.Fatal("nil client")
	}
	if _, err := c.RESTConfig(); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("RESTConfig err = %v", err)
	}
	if _, err := c.Dynamic(); err == nil {
		t.Fatal("Dynamic: want error")
	}
	// Errors are not memoized: once the file exists the client works.
	if err := os.WriteFile(missing, []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RESTConfig(); err != nil {
		t.Fatalf("RESTConfig after creating the file: %v", err)
	}
	d1, err := c.Dynamic()
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := c.Dynamic()
	if d1 != d2 {
		t.Error("Dynamic is not memoized")
	}
}

func TestUnknownConfigClient(t *testing.T) {
	c := NewUnknownConfigClient("host")
	_, err := c.RESTConfig()
	if !errors.Is(err, ErrUnknownConfiguration) || !strings.Contains(err.Error(), "not known until apply") {
		t.Errorf("RESTConfig err = %v", err)
	}
	if _, err := c.Dynamic(); !errors.Is(err, ErrUnknownConfiguration) {
		t.Errorf("Dynamic err = %v", err)
	}
}

// scripted is a RoundTripper returning canned results in order.
type scripted struct {
	calls   int
	results []func(*http.Request) (*http.Response, error)
	bodies  []string
}

func (s *scripted) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		s.bodies = append(s.bodies, string(b))
	}
	i := s.calls
	s.calls++
	if i >= len(s.results) {
		i = len(s.results) - 1
	}
	return s.results[i](req)
}

func status(code int) func(*http.Request) (*http.Response, error) {
	return func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("x")), Request: req}, nil
	}
}

func refused(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

func fastRetry(next http.RoundTripper) *RetryRoundTripper {
	return &RetryRoundTripper{Next: next, MaxAttempts: 5, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond}
}

func applyRequest(t *testing.T, method, contentType string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, "https://k8s.example.com/api/v1/namespaces/default/configmaps/x", bytes.NewReader([]byte(`{"a":1}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	return req
}

func TestRetryRoundTripper(t *testing.T) {
	t.Run("connection refused and 503 then success", func(t *testing.T) {
		s := &scripted{results: []func(*http.Request) (*http.Response, error){refused, status(503), status(200)}}
		resp, err := fastRetry(s).RoundTrip(applyRequest(t, http.MethodPatch, "application/apply-patch+yaml"))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("got %v, %v", resp, err)
		}
		if s.calls != 3 {
			t.Errorf("calls = %d, want 3", s.calls)
		}
		for i, b := range s.bodies {
			if b != `{"a":1}` {
				t.Errorf("attempt %d body = %q", i+1, b)
			}
		}
	})
	t.Run("gives up after the bound", func(t *testing.T) {
		s := &scripted{results: []func(*http.Request) (*http.Response, error){status(503)}}
		req, _ := http.NewRequest(http.MethodGet, "https://k8s.example.com/api", nil)
		resp, err := fastRetry(s).RoundTrip(req)
		if err != nil || resp.StatusCode != 503 {
			t.Fatalf("got %v, %v", resp, err)
		}
		if s.calls != 5 {
			t.Errorf("calls = %d, want 5", s.calls)
		}
		s = &scripted{results: []func(*http.Request) (*http.Response, error){refused}}
		if _, err := fastRetry(s).RoundTrip(req); !errors.Is(err, syscall.ECONNREFUSED) || s.calls != 5 {
			t.Errorf("refused: err=%v calls=%d", err, s.calls)
		}
	})
	t.Run("does not retry non-idempotent requests", func(t *testing.T) {
		for _, tc := range []struct{ method, ct string }{
			{http.MethodPost, "application/json"},
			{http.MethodPatch, "application/merge-patch+json"},
			{http.MethodPut, "application/json"},
		} {
			s := &scripted{results: []func(*http.Request) (*http.Response, error){refused, status(200)}}
			_, err := fastRetry(s).RoundTrip(applyRequest(t, tc.method, tc.ct))
			if err == nil || s.calls != 1 {
				t.Errorf("%s %s: err=%v calls=%d, want 1 call", tc.method, tc.ct, err, s.calls)
			}
		}
	})
	t.Run("retries DELETE and cut-off responses of server-side apply", func(t *testing.T) {
		eof := func(*http.Request) (*http.Response, error) { return nil, io.ErrUnexpectedEOF }
		for _, tc := range []struct {
			method, ct string
			fail       func(*http.Request) (*http.Response, error)
		}{
			{http.MethodDelete, "application/json", refused},
			{http.MethodDelete, "application/json", eof},
			{http.MethodPatch, "application/apply-patch+yaml", eof},
		} {
			s := &scripted{results: []func(*http.Request) (*http.Response, error){tc.fail, status(200)}}
			resp, err := fastRetry(s).RoundTrip(applyRequest(t, tc.method, tc.ct))
			if err != nil || resp.StatusCode != 200 || s.calls != 2 {
				t.Errorf("%s %s: err=%v calls=%d, want success on the 2nd call", tc.method, tc.ct, err, s.calls)
			}
		}
	})
	t.Run("leaves Retry-After and 4xx to the caller", func(t *testing.T) {
		withRetryAfter := func(req *http.Request) (*http.Response, error) {
			r, _ := status(503)(req)
			r.Header.Set("Retry-After", "1")
			return r, nil
		}
		for _, f := range []func(*http.Request) (*http.Response, error){withRetryAfter, status(404), status(409)} {
			s := &scripted{results: []func(*http.Request) (*http.Response, error){f, status(200)}}
			req, _ := http.NewRequest(http.MethodGet, "https://k8s.example.com/api", nil)
			if _, err := fastRetry(s).RoundTrip(req); err != nil || s.calls != 1 {
				t.Errorf("err=%v calls=%d, want 1 call", err, s.calls)
			}
		}
	})
	t.Run("honours context cancellation", func(t *testing.T) {
		s := &scripted{results: []func(*http.Request) (*http.Response, error){refused}}
		rt := &RetryRoundTripper{Next: s, MaxAttempts: 5, BaseDelay: time.Hour, MaxDelay: time.Hour}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://k8s.example.com/api", nil)
		start := time.Now()
		if _, err := rt.RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v", err)
		}
		if time.Since(start) > 5*time.Second || s.calls != 1 {
			t.Errorf("took %v with %d calls", time.Since(start), s.calls)
		}
	})
	t.Run("real connection refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		var calls atomic.Int32
		counting := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			calls.Add(1)
			return http.DefaultTransport.RoundTrip(req)
		})
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api", nil)
		if _, err := fastRetry(counting).RoundTrip(req); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("err = %v", err)
		}
		if calls.Load() != 5 {
			t.Errorf("calls = %d, want 5", calls.Load())
		}
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestClientEndToEnd checks that NewClient installs the retry wrapper and
// the user agent on real client-go requests.
func TestClientEndToEnd(t *testing.T) {
	isolate(t)
	var calls atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != "kubeinfer-test/1.0" {
			t.Errorf("User-Agent = %q", r.Header.Get("User-Agent"))
		}
		if r.Header.Get("Authorization") != "Bearer tok" {
			t.Errorf("Authorization header missing")
		}
		if calls.Add(1) <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{},"items":[]}`)
	}))
	defer srv.Close()

	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	// client-go only sends credentials over TLS.
	c := NewClient(Settings{Host: srv.URL, Token: "tok", ClusterCACertificate: string(ca)}, "kubeinfer-test/1.0")
	d, err := c.Dynamic()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if calls.Load() != 3 {
		t.Errorf("calls = %d, want 3", calls.Load())
	}
}

// resetReader gives some bytes, then fails as a connection reset by the peer does.
type resetReader struct{ sent bool }

func (r *resetReader) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		return copy(p, `{"kind":`), nil
	}
	return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

func cutMidBody(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(&resetReader{}), Request: req}, nil
}

// A response cut off mid-body (found by the fault suite's flaky proxy: "unexpected error when
// reading response body") is retried like a lost connection; a watch's stream is left to the
// watcher, which re-establishes it.
func TestRetryRoundTripperBodyCutOff(t *testing.T) {
	s := &scripted{results: []func(*http.Request) (*http.Response, error){cutMidBody, status(200)}}
	req, _ := http.NewRequest(http.MethodGet, "https://k8s.example.com/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets/x", nil)
	resp, err := fastRetry(s).RoundTrip(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %v, %v", resp, err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != "x" || s.calls != 2 {
		t.Errorf("body %q after %d calls, want %q after 2", b, s.calls, "x")
	}

	s = &scripted{results: []func(*http.Request) (*http.Response, error){cutMidBody, status(200)}}
	watch, _ := http.NewRequest(http.MethodGet, "https://k8s.example.com/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets?watch=true", nil)
	resp, err = fastRetry(s).RoundTrip(watch)
	if err != nil || s.calls != 1 {
		t.Fatalf("a watch was buffered or retried: %v, %d calls", err, s.calls)
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("the watch's stream error did not reach the watcher")
	}
}
