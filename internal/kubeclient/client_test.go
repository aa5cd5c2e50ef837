package kubeclient

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// typedPatchFailure is kube-apiserver's answer to a server-side apply that sets a field the
// installed CRD does not declare (the released LeaderWorkerSet CRD and spec.groupIdentity).
const typedPatchFailure = "failed to create typed patch object (default/vllm; leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet): " +
	".spec.groupIdentity: field not declared in schema"

// statusAnswer answers with a metav1.Status of code, reason and message, as kube-apiserver does.
func statusAnswer(code int, reason metav1.StatusReason, msg string) func(*http.Request) (*http.Response, error) {
	return func(req *http.Request) (*http.Response, error) {
		b, _ := json.Marshal(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: msg})
		h := http.Header{"Content-Type": []string{"application/json"}}
		return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(strings.NewReader(string(b))), Request: req}, nil
	}
}

// A 500 whose Status describes the request itself (server-side apply's typed conversion) is
// answered at once, body intact; 500s of a server in trouble, 502, 503 and 504 are still retried.
func TestRetryRoundTripperDeterministicServerErrors(t *testing.T) {
	for _, msg := range []string{
		typedPatchFailure,
		"failed to create typed patch object (default/vllm; leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet): errors:\n" +
			"  .spec.groupIdentity: field not declared in schema\n  .spec.scheduling: field not declared in schema",
		`failed to create typed patch object (default/x; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:1}`,
		`failed to create typed live object (default/x; apps/v1, Kind=StatefulSet): .spec.template.spec.containers: duplicate entries for key [name="a"]`,
	} {
		s := &scripted{results: []func(*http.Request) (*http.Response, error){statusAnswer(500, "", msg), status(200)}}
		resp, err := fastRetry(s).RoundTrip(applyRequest(t, http.MethodPatch, "application/apply-patch+yaml"))
		if err != nil || resp.StatusCode != 500 || s.calls != 1 {
			t.Errorf("%q: got %v, %v after %d calls, want the 500 after 1", msg, resp, err, s.calls)
			continue
		}
		var st metav1.Status
		if b, _ := io.ReadAll(resp.Body); json.Unmarshal(b, &st) != nil || st.Message != msg {
			t.Errorf("the body reached the caller as %q", b)
		}
	}
	for _, answer := range []func(*http.Request) (*http.Response, error){
		statusAnswer(500, metav1.StatusReasonInternalError, "Internal error occurred: etcdserver: request timed out"),
		statusAnswer(500, metav1.StatusReasonInternalError, "Internal error occurred: etcdserver: leader changed"),
		statusAnswer(500, metav1.StatusReasonInternalError, `Internal error occurred: failed calling webhook "vleaderworkerset.kb.io": connection refused`),
		statusAnswer(503, metav1.StatusReasonServiceUnavailable, "the server is currently unable to handle the request"),
		statusAnswer(504, metav1.StatusReasonTimeout, "Timeout: request did not complete within requested timeout"),
		status(500), // not a Status at all (a proxy's page)
		status(502),
	} {
		s := &scripted{results: []func(*http.Request) (*http.Response, error){answer, status(200)}}
		resp, err := fastRetry(s).RoundTrip(applyRequest(t, http.MethodPatch, "application/apply-patch+yaml"))
		if err != nil || resp.StatusCode != 200 || s.calls != 2 {
			t.Errorf("a transient answer was not retried: %v, %v after %d calls", resp, err, s.calls)
		}
	}
}

// Through client-go with the retry wrapper NewClient installs: a server-side apply rejected for
// an undeclared field is sent once and fails at once with the server's message, where eight
// tries took about 16 s.
func TestClientDoesNotRetryDeterministicServerErrors(t *testing.T) {
	isolate(t)
	var calls atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		resp, _ := statusAnswer(500, "", typedPatchFailure)(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	d, err := NewClient(Settings{Host: srv.URL, Token: "tok", ClusterCACertificate: string(ca)}, "kubeinfer-test/1.0").Dynamic()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	lws := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	_, err = d.Resource(lws).Namespace("default").Patch(ctx, "vllm", types.ApplyPatchType,
		[]byte(`{"apiVersion":"leaderworkerset.x-k8s.io/v1","kind":"LeaderWorkerSet","metadata":{"name":"vllm"},"spec":{"groupIdentity":"Hash"}}`),
		metav1.PatchOptions{FieldManager: "kubeinfer"})
	if err == nil || !strings.Contains(err.Error(), "field not declared in schema") {
		t.Fatalf("Patch error = %v, want the server's message", err)
	}
	if !apierrors.IsInternalError(err) || Transient(err) {
		t.Errorf("error %v: internal %v, transient %v; want an internal error that is not transient",
			err, apierrors.IsInternalError(err), Transient(err))
	}
	if n, took := calls.Load(), time.Since(start); n != 1 || took > 2*time.Second {
		t.Errorf("%d requests in %v, want 1 at once", n, took)
	}
}

// Transient (the waits' retry rule) agrees: the same 500 would repeat, a server in trouble would not.
func TestTransientDeterministicServerErrors(t *testing.T) {
	if Transient(apierrors.NewInternalError(errString(typedPatchFailure))) {
		t.Error("a typed patch failure is transient")
	}
	for _, err := range []error{
		apierrors.NewInternalError(errString("etcdserver: request timed out")),
		apierrors.NewServiceUnavailable("the server is currently unable to handle the request"),
		apierrors.NewTooManyRequests("slow down", 1),
	} {
		if !Transient(err) {
			t.Errorf("%v is not transient", err)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }
