package k8sschema_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

func TestSetAttrPath(t *testing.T) {
	specType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"replicas": tftypes.Number, "size": tftypes.Number}}
	objType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"spec": specType}}
	spec := func(replicas tftypes.Value) tftypes.Value {
		return tftypes.NewValue(objType, map[string]tftypes.Value{"spec": tftypes.NewValue(specType, map[string]tftypes.Value{
			"replicas": replicas, "size": tftypes.NewValue(tftypes.Number, 2),
		})})
	}
	three := tftypes.NewValue(tftypes.Number, 3)
	unknown := tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)

	if got, want := k8sschema.SetAttrPath(spec(three), unknown, "spec", "replicas"), spec(unknown); !got.Equal(want) {
		t.Errorf("replace spec.replicas: got %v, want %v", got, want)
	}
	// Nothing to replace: a missing attribute, a null or unknown value on the way.
	for name, v := range map[string]tftypes.Value{
		"missing": spec(three),
		"null":    tftypes.NewValue(objType, map[string]tftypes.Value{"spec": tftypes.NewValue(specType, nil)}),
		"unknown": tftypes.NewValue(objType, tftypes.UnknownValue),
	} {
		names := []string{"spec", "replicas"}
		if name == "missing" {
			names = []string{"spec", "partition"}
		}
		if got := k8sschema.SetAttrPath(v, unknown, names...); !got.Equal(v) {
			t.Errorf("%s: got %v, want the value as it was", name, got)
		}
	}
}
