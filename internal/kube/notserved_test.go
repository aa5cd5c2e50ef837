package kube

import (
	"net/http"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestObjectGoneTellsAMissingObjectFromAnUnservedAPI(t *testing.T) {
	gr := schema.GroupResource{Group: "leaderworkerset.x-k8s.io", Resource: "leaderworkersets"}
	// What kube-apiserver answers for a missing object of a served resource.
	missing := apierrors.NewNotFound(gr, "vllm")
	// What it answers for a resource it does not serve (CRD not installed): no object named.
	unserved := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotFound,
		Reason: metav1.StatusReasonNotFound, Message: "the server could not find the requested resource",
		Details: &metav1.StatusDetails{}}}
	unservedNoDetails := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotFound,
		Reason: metav1.StatusReasonNotFound, Message: "404 page not found"}}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"missing object", missing, true},
		{"another object's 404", apierrors.NewNotFound(gr, "other"), false},
		{"unserved API", unserved, false},
		{"unserved API without details", unservedNoDetails, false},
		{"not a 404", apierrors.NewConflict(gr, "vllm", nil), false},
		{"no error", nil, false},
	} {
		if got := objectGone(tc.err, "vllm"); got != tc.want {
			t.Errorf("%s: objectGone = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestAPINotServed(t *testing.T) {
	gr := schema.GroupResource{Group: "leaderworkerset.x-k8s.io", Resource: "leaderworkersets"}
	unserved := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotFound,
		Reason: metav1.StatusReasonNotFound, Message: "the server could not find the requested resource",
		Details: &metav1.StatusDetails{}}}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"unserved API", unserved, true},
		{"missing object", apierrors.NewNotFound(gr, "vllm"), false},
		// A server-side apply into a namespace that does not exist.
		{"missing namespace", apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "inference"), false},
		{"not a 404", apierrors.NewConflict(gr, "vllm", nil), false},
		{"no error", nil, false},
	} {
		if got := apiNotServed(tc.err); got != tc.want {
			t.Errorf("%s: apiNotServed = %v, want %v", tc.name, got, tc.want)
		}
	}
}
