package kube

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// objectGone reports whether a 404 says that the object does not exist. The API server answers
// 404 both for a missing object and for an API it does not serve (a CRD not installed, the wrong
// cluster selected); only the former names the object in the status details. Taking the latter for
// "deleted" would drop the object from state and plan a re-create, or report a destroy that did
// nothing as done.
func objectGone(err error, name string) bool {
	if !apierrors.IsNotFound(err) {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d != nil && d.Name == name
}

// apiNotServed reports a 404 that names no object: the API itself is not served. (A 404 naming
// an object is that object missing, or the namespace of an apply missing.)
func apiNotServed(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d == nil || d.Name == ""
}

// notServedDetail explains a 404 for an API the cluster does not serve.
func notServedDetail(gvr schema.GroupVersionResource, kind string, err error) string {
	return fmt.Sprintf("The cluster does not serve %s (%s): %v\n\n"+
		"Either the %s CRD is not installed, or the provider points at another cluster than the one that holds "+
		"the object (check the provider configuration and context). The object was not treated as deleted: "+
		"the state is kept as it was.", gvr.GroupResource(), gvr.GroupVersion(), err, kind)
}
