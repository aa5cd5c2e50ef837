package kubeclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// ErrUnknownConfiguration is wrapped by the error a Client created with
// NewUnknownConfigClient returns.
var ErrUnknownConfiguration = errors.New("provider configuration depends on values not known until apply")

// Client lazily builds and memoizes a rest.Config and a dynamic client.
// It is safe for concurrent use. Failed attempts are not memoized, so a
// later call retries (for example once a kubeconfig file has been written
// by an earlier resource).
type Client struct {
	settings  Settings
	userAgent string
	build     func() (*rest.Config, error)

	mu      sync.Mutex
	cfg     *rest.Config
	dynamic dynamic.Interface
}

// NewClient returns a client for the given settings. It performs no I/O.
func NewClient(s Settings, userAgent string) *Client {
	c := &Client{settings: s, userAgent: userAgent}
	c.build = c.buildFromSettings
	return c
}

// NewUnknownConfigClient returns a client whose RESTConfig and Dynamic
// always fail with an error wrapping ErrUnknownConfiguration. The provider
// uses it when part of its configuration is unknown during plan; detail
// names the unknown attributes.
func NewUnknownConfigClient(detail string) *Client {
	err := ErrUnknownConfiguration
	msg := err.Error()
	if detail != "" {
		msg += " (" + detail + ")"
	}
	msg += "; the Kubernetes API cannot be reached during this plan. " +
		"Resources that need to read the cluster will work once those values are known: " +
		"apply the resources they depend on first (for example with -target), or pass known values."
	wrapped := &wrappedError{msg: msg, err: err}
	return &Client{build: func() (*rest.Config, error) { return nil, wrapped }}
}

// NewClientFromRESTConfig returns a client using a copy of cfg as is
// (no retry wrapper, rate limits or user agent added). Intended for tests.
func NewClientFromRESTConfig(cfg *rest.Config) *Client {
	cp := rest.CopyConfig(cfg)
	return &Client{build: func() (*rest.Config, error) { return rest.CopyConfig(cp), nil }}
}

// NewClientFromDynamic returns a client whose Dynamic returns d (for
// example a fake dynamic client) and whose RESTConfig returns cfg, which
// may be nil. Intended for tests.
func NewClientFromDynamic(d dynamic.Interface, cfg *rest.Config) *Client {
	c := &Client{dynamic: d, cfg: cfg}
	c.build = func() (*rest.Config, error) {
		return nil, errors.New("kube: client created with NewClientFromDynamic has no REST config")
	}
	return c
}

type wrappedError struct {
	msg string
	err error
}

func (e *wrappedError) Error() string { return e.msg }
func (e *wrappedError) Unwrap() error { return e.err }

// RESTConfig returns the resolved configuration. The returned value is a
// copy: callers may modify it.
func (c *Client) RESTConfig() (*rest.Config, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cfg, err := c.restConfigLocked()
	if err != nil {
		return nil, err
	}
	return rest.CopyConfig(cfg), nil
}

func (c *Client) restConfigLocked() (*rest.Config, error) {
	if c.cfg != nil {
		return c.cfg, nil
	}
	cfg, err := c.build()
	if err != nil {
		return nil, err
	}
	c.cfg = cfg
	return cfg, nil
}

// Dynamic returns a memoized dynamic client.
func (c *Client) Dynamic() (dynamic.Interface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dynamic != nil {
		return c.dynamic, nil
	}
	cfg, err := c.restConfigLocked()
	if err != nil {
		return nil, err
	}
	d, err := dynamic.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return nil, err
	}
	c.dynamic = d
	return d, nil
}

func (c *Client) buildFromSettings() (*rest.Config, error) {
	cfg, err := c.settings.buildRESTConfig()
	if err != nil {
		return nil, err
	}
	if c.userAgent != "" {
		cfg.UserAgent = c.userAgent
	}
	// client-go already retries 429 and 5xx responses that carry a
	// Retry-After header; this adds a bounded retry for connection errors
	// and other transient server errors on idempotent requests.
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return NewRetryRoundTripper(rt)
	})
	return cfg, nil
}

// Retry parameters of the round-tripper installed by NewClient.
const (
	DefaultRetryAttempts   = 8
	DefaultRetryBaseDelay  = 200 * time.Millisecond
	DefaultRetryMaxDelay   = 4 * time.Second
	applyPatchContentTypes = "application/apply-patch"
)

// RetryRoundTripper retries idempotent requests (GET, HEAD, OPTIONS and
// server-side apply PATCH) that fail with a connection error (refused or
// reset) or a 500/502/503/504 response without Retry-After, with bounded
// exponential backoff. A 500 whose Status says the request itself cannot be
// processed (DeterministicMessage) is returned at once. It honours the
// request context.
type RetryRoundTripper struct {
	Next        http.RoundTripper
	MaxAttempts int           // total attempts, including the first
	BaseDelay   time.Duration // delay before the first retry
	MaxDelay    time.Duration // cap on a single delay
}

// NewRetryRoundTripper wraps next with the default retry parameters.
func NewRetryRoundTripper(next http.RoundTripper) *RetryRoundTripper {
	return &RetryRoundTripper{
		Next:        next,
		MaxAttempts: DefaultRetryAttempts,
		BaseDelay:   DefaultRetryBaseDelay,
		MaxDelay:    DefaultRetryMaxDelay,
	}
}

// WrappedRoundTripper lets client-go's transport utilities see through.
func (r *RetryRoundTripper) WrappedRoundTripper() http.RoundTripper { return r.Next }

// RoundTrip implements http.RoundTripper. Each request is logged at debug level (TF_LOG=debug)
// once it is done: verb, path, status, duration and attempts. Headers (where the bearer token
// travels) and bodies are never logged.
func (r *RetryRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, attempts, err := r.roundTrip(req)
	fields := map[string]any{
		"method":      req.Method,
		"path":        req.URL.Path,
		"duration_ms": time.Since(start).Milliseconds(),
		"attempts":    attempts,
	}
	if q := req.URL.RawQuery; q != "" {
		fields["query"] = q
	}
	if resp != nil {
		fields["status"] = resp.StatusCode
	}
	if err != nil {
		fields["error"] = err.Error()
	}
	tflog.Debug(req.Context(), "Kubernetes API request", fields)
	return resp, err
}

func (r *RetryRoundTripper) roundTrip(req *http.Request) (*http.Response, int, error) {
	if !retryable(req) || r.MaxAttempts <= 1 {
		resp, err := r.Next.RoundTrip(req)
		return resp, 1, err
	}
	ctx := req.Context()
	delay := r.BaseDelay
	for attempt := 1; ; attempt++ {
		try := req
		if attempt > 1 && req.Body != nil && req.Body != http.NoBody {
			body, err := req.GetBody()
			if err != nil {
				return nil, attempt, err
			}
			try = req.Clone(ctx)
			try.Body = body
		}
		resp, err := r.Next.RoundTrip(try)
		if err == nil && !streaming(req) {
			// Read the answer here: a connection cut off mid-body would otherwise surface later,
			// in client-go's decoding ("unexpected error when reading response body"), past
			// the reach of this retry.
			resp, err = buffered(resp)
		}
		if attempt >= r.MaxAttempts || !shouldRetry(resp, err) {
			return resp, attempt, err
		}
		why := ""
		if err != nil {
			why = err.Error()
		} else {
			why = resp.Status
		}
		tflog.Debug(ctx, "Retrying a Kubernetes API request", map[string]any{
			"method": req.Method, "path": req.URL.Path, "attempt": attempt, "reason": why,
		})
		if resp != nil {
			// Drain a little so the connection can be reused, then discard.
			_, _ = io.CopyN(io.Discard, resp.Body, 4096)
			_ = resp.Body.Close()
		}
		wait := delay
		if wait > 0 {
			// Up to 20% jitter so parallel requests do not retry in lockstep.
			wait += time.Duration(rand.Int64N(int64(wait)/5 + 1))
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, attempt, ctx.Err()
		case <-timer.C:
		}
		delay *= 2
		if r.MaxDelay > 0 && delay > r.MaxDelay {
			delay = r.MaxDelay
		}
	}
}

// streaming reports a request whose answer is a stream (a watch), read as events arrive.
func streaming(req *http.Request) bool {
	q := req.URL.Query()
	w := q.Get("watch")
	return w == "true" || w == "1" || q.Get("follow") == "true"
}

// buffered reads resp's body into memory; an error reading it (the connection lost mid-body)
// is returned as the request's error.
func buffered(resp *http.Response) (*http.Response, error) {
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// retryable reports whether req is idempotent and can be re-sent.
func retryable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	case http.MethodDelete:
		// A DELETE sent twice is harmless: the second one finds the object gone (404), which
		// deleteAndWait takes as success, or being deleted.
		return true
	case http.MethodPatch:
		// Server-side apply is declarative and therefore idempotent; other
		// patch types (JSON patch with "add" to a list, ...) are not.
		return strings.HasPrefix(req.Header.Get("Content-Type"), applyPatchContentTypes)
	}
	return false
}

func shouldRetry(resp *http.Response, err error) bool {
	if err != nil {
		return connectionLost(err)
	}
	switch resp.StatusCode {
	case http.StatusInternalServerError:
		// A 500 is also how the API server answers a request it cannot process at all (see
		// DeterministicMessage): sent again, it fails again, so it is not retried.
		if resp.Header.Get("Retry-After") != "" || DeterministicMessage(statusMessage(resp)) {
			return false
		}
		return true
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		// Responses with Retry-After are retried by client-go itself.
		return resp.Header.Get("Retry-After") == ""
	}
	return false
}

// maxStatusBody bounds how much of an error response statusMessage reads.
const maxStatusBody = 64 << 10

// statusMessage is the message of the metav1.Status an error response carries ("" when the body
// is not one), read without consuming the body: the caller still reads it whole.
func statusMessage(resp *http.Response) string {
	if resp == nil || resp.Body == nil || resp.Body == http.NoBody {
		return ""
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, maxStatusBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	if err != nil {
		return ""
	}
	var st metav1.Status
	if json.Unmarshal(head, &st) != nil || st.Kind != "Status" {
		return ""
	}
	return st.Message
}

// deterministicServerErrors are the messages of 500 answers that describe the request itself,
// not the server's state: the same request gets the same answer, so retrying only delays the
// error (eight tries took about 16 s). All come from server-side apply's typed conversion, which
// kube-apiserver returns as a plain error, hence a 500 with no reason
// (k8s.io/apiserver v0.37.2 pkg/endpoints/handlers/responsewriters/status.go ErrorToAPIStatus).
var deterministicServerErrors = []string{
	// k8s.io/apimachinery v0.37.2 pkg/util/managedfields/internal/structuredmerge.go
	// (structuredMergeManager.Apply and Update): the applied body or the stored object does not
	// fit the object's schema.
	"failed to create typed patch object",
	"failed to create typed live object",
	"to smd typed",
	// sigs.k8s.io/structured-merge-diff/v6 v6.4.2 typed/validate.go (visitMapItems,
	// visitListItems, validateScalar) and typed/merge.go: a field the schema (an older CRD)
	// lacks, a list key sent twice, a value of the wrong type.
	"field not declared in schema",
	"duplicate entries for key",
	"expected numeric (int or float), got",
	"expected string, got",
	"expected boolean, got",
}

// DeterministicMessage reports a server error message that describes the request itself (see
// deterministicServerErrors): sending the request again fails the same way.
func DeterministicMessage(msg string) bool {
	if msg == "" {
		return false
	}
	for _, s := range deterministicServerErrors {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// connectionLost reports an error of a request whose connection was refused, reset, or cut off
// mid-response (a server restarting, a proxy dropping the connection): the request may not have
// reached the server, or its answer was lost. Retrying is safe for idempotent requests.
func connectionLost(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "server closed idle connection") ||
		utilnet.IsProbableEOF(err) || utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err) {
		return true
	}
	msg := err.Error()
	for _, lost := range http2ConnectionLost {
		if strings.Contains(msg, lost) {
			return true
		}
	}
	return false
}

// http2ConnectionLost are the messages of net/http's HTTP/2 client for a connection closed
// under its requests, which apimachinery's IsProbableEOF and IsHTTP2ConnectionLost
// (k8s.io/apimachinery v0.37.2 pkg/util/net/http.go) do not all name: a failed write or a
// GOAWAY closes the connection and every stream on it fails with one of them
// (http2errClientConnForceClosed, http2errClientConnGotGoAway, http2errClientConnClosed,
// http2errClientConnUnusable; Go 1.26 src/net/http/h2_bundle.go). None is an answer from the
// server: the request may not have reached it, or its answer was lost.
var http2ConnectionLost = []string{
	"http2: client connection lost",
	"http2: client connection force closed via ClientConn.Close",
	"http2: Transport received Server's graceful shutdown GOAWAY",
	"http2: server sent GOAWAY",
	"http2: client conn is closed",
	"http2: client conn not usable",
}

// Transient reports an error that a wait should outlive by trying again (with a back-off, until
// its timeout): a lost connection, or the server saying it is busy, restarting or timed out.
// Other errors (not found, forbidden, invalid, a 500 that describes the request itself:
// DeterministicMessage) would repeat.
func Transient(err error) bool {
	if connectionLost(err) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() && !errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) && DeterministicMessage(status.Status().Message) {
		return false
	}
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) || apierrors.IsUnexpectedServerError(err)
}

// TransientBackoff is the back-off of waits between tries after a transient error: from 200 ms
// doubling to 5 s, so a wait follows a restarted API server within seconds of its return.
func TransientBackoff() wait.Backoff {
	return wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: math.MaxInt32, Cap: 5 * time.Second}
}

// SleepCtx sleeps for d or until ctx ends; it reports whether the full time passed.
func SleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
