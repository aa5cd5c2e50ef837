package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// lost is an error as client-go returns it for a request whose connection was lost: the
// transport's error in a *url.Error.
func lost(err error) error {
	return &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets", Err: err}
}

// forceClosed is what net/http's HTTP/2 client returns for every request still in flight on a
// connection it closed after a failed write (seen on the wait after a DELETE, through a proxy
// that resets connections).
var forceClosed = lost(errors.New("http2: client connection force closed via ClientConn.Close"))

func TestTransientCoversConnectionLossesOfEveryKind(t *testing.T) {
	gr := schema.GroupResource{Group: "leaderworkerset.x-k8s.io", Resource: "leaderworkersets"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"http2 force closed", forceClosed, true},
		{"http2 connection lost (ping timeout)", lost(errors.New("http2: client connection lost")), true},
		{"http2 GOAWAY", lost(errors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=3, ErrCode=NO_ERROR, debug=""`)), true},
		{"http2 graceful shutdown GOAWAY", lost(errors.New("http2: Transport received Server's graceful shutdown GOAWAY")), true},
		{"http2 client conn closed", lost(errors.New("http2: client conn is closed")), true},
		{"connection reset", lost(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), true},
		{"connection refused", lost(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), true},
		{"EOF", lost(io.EOF), true},
		{"body cut off", fmt.Errorf("unexpected error when reading response body: %w", io.ErrUnexpectedEOF), true},
		{"service unavailable", apierrors.NewServiceUnavailable("apiserver is shutting down"), true},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), true},
		{"not found", apierrors.NewNotFound(gr, "vllm"), false},
		{"forbidden", apierrors.NewForbidden(gr, "vllm", errors.New("no")), false},
		{"invalid", apierrors.NewBadRequest("spec.replicas: Invalid value"), false},
		{"context canceled", lost(context.Canceled), false},
		{"deadline exceeded", lost(context.DeadlineExceeded), false},
		{"nil", nil, false},
	} {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestRetryTransient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	calls := 0
	err := RetryTransient(ctx, func(context.Context) error {
		calls++
		if calls < 3 {
			return forceClosed
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("two transient errors, then success: err %v after %d calls", err, calls)
	}
	// An error that would repeat ends the retries at once.
	calls = 0
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no"))
	if err := RetryTransient(ctx, func(context.Context) error { calls++; return forbidden }); !apierrors.IsForbidden(err) || calls != 1 {
		t.Fatalf("forbidden: err %v after %d calls", err, calls)
	}
	// When the context ends, the last transient error is returned, promptly.
	short, cancelShort := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancelShort()
	start := time.Now()
	err = RetryTransient(short, func(context.Context) error { return forceClosed })
	if !errors.Is(err, forceClosed) || short.Err() == nil {
		t.Fatalf("at the deadline: err %v, ctx %v", err, short.Err())
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("returned %v after the deadline", took-300*time.Millisecond)
	}
}

// The DELETE and the GETs of the wait after it outlive a connection that is lost under them
// (issue 25, C): the destroy succeeds.
func TestDeleteAndWaitRetriesTransientErrors(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
		"metadata": map[string]any{"name": "vllm", "namespace": "default", "resourceVersion": "1"},
	}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "LeaderWorkerSetList"}, obj)
	var deletes, gets atomic.Int32
	dyn.PrependReactor("delete", "leaderworkersets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if deletes.Add(1) == 1 {
			return true, nil, forceClosed // the first DELETE is lost with its connection
		}
		return false, nil, nil
	})
	dyn.PrependReactor("get", "leaderworkersets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if gets.Add(1) <= 2 {
			return true, nil, forceClosed
		}
		return false, nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := deleteAndWait(ctx, dyn.Resource(gvr).Namespace("default"), "vllm", metav1.DeletePropagationForeground); err != nil {
		t.Fatalf("deleteAndWait: %v", err)
	}
	if deletes.Load() != 2 || gets.Load() != 3 {
		t.Fatalf("want the DELETE sent twice and the GET three times, got %d and %d", deletes.Load(), gets.Load())
	}
	// A DELETE that is refused (not transient) is reported at once.
	dyn2 := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "LeaderWorkerSetList"}, obj.DeepCopy())
	dyn2.PrependReactor("delete", "leaderworkersets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(gvr.GroupResource(), "vllm", errors.New("no delete for you"))
	})
	err := deleteAndWait(ctx, dyn2.Resource(gvr).Namespace("default"), "vllm", metav1.DeletePropagationForeground)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("forbidden DELETE: err %v", err)
	}
}
