package kube

import (
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// PlanHandover exposes planHandover to the package's external tests: the managed fields after
// the hand-over, and the Kubernetes field paths the apply then removes.
func PlanHandover(k *Kind, live *unstructured.Unstructured, body map[string]any, extras map[string]tftypes.Value, prior tftypes.Value) ([]metav1.ManagedFieldsEntry, []string, bool, error) {
	r := &Resource{kind: k}
	h, err := r.planHandover(live, body, extras, prior)
	if err != nil || h == nil {
		return nil, nil, false, err
	}
	var stray []string
	for _, s := range h.stray {
		stray = append(stray, s.path)
	}
	return h.managedFields, stray, h.shared, nil
}
