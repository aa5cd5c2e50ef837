package k8sschema_test

import (
	"reflect"
	"strings"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// A typo in an option key would silently leave an attribute's mode or description as it was:
// Build refuses keys that name no field, and accepts every real path (skipped ones included).
func TestBuildRejectsOptionsThatNameNoField(t *testing.T) {
	typ := reflect.TypeOf(flowcontrolv1.PriorityLevelConfiguration{})
	build := func(opts k8sschema.Options) (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg, _ = r.(string)
			}
		}()
		k8sschema.Build(typ, opts)
		return ""
	}
	valid := k8sschema.Options{
		Only:  map[string][]string{"metadata": {"name", "labels"}},
		Skip:  []string{"status"},
		Modes: map[string]k8sschema.Mode{"spec.limited.lendablePercent": k8sschema.OptionalComputed},
		Notes: map[string]string{"spec.type": "Limited or Exempt."},
	}
	if msg := build(valid); msg != "" {
		t.Fatalf("valid options rejected: %s", msg)
	}
	for _, tc := range []struct {
		opts k8sschema.Options
		want string
	}{
		{k8sschema.Options{Skip: []string{"stauts"}}, `Skip["stauts"]`},
		{k8sschema.Options{Modes: map[string]k8sschema.Mode{"spec.limited.lendablePrecent": k8sschema.Computed}}, `Modes["spec.limited.lendablePrecent"]`},
		{k8sschema.Options{Only: map[string][]string{"metdata": {"name"}}}, `Only["metdata"]`},
		{k8sschema.Options{Notes: map[string]string{"spec.typ": "x"}}, `Notes["spec.typ"]`},
		{k8sschema.Options{Descriptions: map[string]string{"spec.exempt.nominalConcurrencyShare": "x"}}, `Descriptions["spec.exempt.nominalConcurrencyShare"]`},
		{k8sschema.Options{Sensitive: []string{"spec.token"}}, `Sensitive["spec.token"]`},
		{k8sschema.Options{KeysFromPrior: []string{"metadata.label"}}, `KeysFromPrior["metadata.label"]`},
		{k8sschema.Options{Equivalents: map[string]map[string]string{"spec.kind": {}}}, `Equivalents["spec.kind"]`},
	} {
		msg := build(tc.opts)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("want a refusal naming %s, got %q", tc.want, msg)
		}
	}
}
