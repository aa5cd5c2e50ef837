package disaggregatedset

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// ownEventConcerns selects the events of the set u's own objects of the current revision, by
// their exact names (currentRevisionObjects): not those of another set whose names share a
// prefix, of a slice being removed, or of a group beyond the set's count.
func ownEventConcerns(u *unstructured.Unstructured) (kube.EventConcerns, error) {
	var ds disaggv1.DisaggregatedSet
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ds); err != nil {
		return nil, err
	}
	return rules.RevisionObjectConcerns(&ds), nil
}
