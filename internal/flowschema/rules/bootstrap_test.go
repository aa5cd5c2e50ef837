package rules

import (
	"strings"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestBootstrapSpecsPassValidate(t *testing.T) {
	all := append(append([]string{}, MandatorySchemas...), SuggestedSchemas...)
	if len(all) != 11 {
		t.Fatalf("want 11 bootstrap schemas, got %d", len(all))
	}
	for _, n := range all {
		s, ok := BootstrapSpec(n)
		if !ok {
			t.Fatalf("%s: no bootstrap spec", n)
		}
		o := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: n, Annotations: map[string]string{AutoUpdateAnnotation: "true"}}, Spec: s}
		d := o.DeepCopy()
		SetObjectDefaults_FlowSchema(d)
		if !apiequality.Semantic.DeepEqual(o, d) {
			t.Errorf("%s: not already defaulted", n)
		}
		if errs := ValidateFlowSchema(d); len(errs) != 0 {
			t.Errorf("%s: %v", n, errs)
		}
		if errs := ValidateProviderRules(d); len(errs) != 0 {
			t.Errorf("%s provider rules: %v", n, errs)
		}
	}
	if _, ok := BootstrapSpec("my-schema"); ok {
		t.Error("my-schema is not a bootstrap schema")
	}
}

func TestBootstrapValues(t *testing.T) {
	want := map[string]struct {
		pl   string
		prec int32
		dm   string
	}{
		"exempt": {"exempt", 1, ""}, "catch-all": {"catch-all", 10000, "ByUser"},
		"probes": {"exempt", 2, ""}, "system-leader-election": {"leader-election", 100, "ByUser"},
		"system-node-high": {"node-high", 400, "ByUser"}, "system-nodes": {"system", 500, "ByUser"},
		"kube-controller-manager": {"workload-high", 800, "ByNamespace"}, "kube-scheduler": {"workload-high", 800, "ByNamespace"},
		"kube-system-service-accounts": {"workload-high", 900, "ByNamespace"}, "service-accounts": {"workload-low", 9000, "ByUser"},
		"global-default": {"global-default", 9900, "ByUser"},
	}
	for n, w := range want {
		s, _ := BootstrapSpec(n)
		dm := ""
		if s.DistinguisherMethod != nil {
			dm = string(s.DistinguisherMethod.Type)
		}
		if s.PriorityLevelConfiguration.Name != w.pl || s.MatchingPrecedence != w.prec || dm != w.dm {
			t.Errorf("%s: got %s/%d/%s", n, s.PriorityLevelConfiguration.Name, s.MatchingPrecedence, dm)
		}
	}
	s, _ := BootstrapSpec("exempt")
	s.Rules[0].Subjects[0].Group.Name = "mutated"
	s2, _ := BootstrapSpec("exempt")
	if s2.Rules[0].Subjects[0].Group.Name != "system:masters" {
		t.Error("BootstrapSpec returned shared state")
	}
}

func TestPlanWarnings(t *testing.T) {
	mk := func(name string, ann map[string]string) *flowcontrolv1.FlowSchema {
		return &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann}}
	}
	cases := []struct {
		name     string
		obj      *flowcontrolv1.FlowSchema
		n        int
		path     string
		contains []string
	}{
		{"user schema", mk("mine", nil), 0, "", nil},
		{"user schema with autoupdate (error, not warning)", mk("mine", map[string]string{AutoUpdateAnnotation: "true"}), 0, "", nil},
		{"mandatory exempt", mk("exempt", nil), 1, "metadata.name", []string{"import", "whole spec is fixed"}},
		{"mandatory catch-all", mk("catch-all", nil), 1, "metadata.name", []string{"import"}},
		{"suggested no annotation", mk("probes", nil), 1, "metadata.annotations[apf.kubernetes.io/autoupdate-spec]", []string{"overwrites", "\"false\"", "import"}},
		{"suggested annotation false", mk("kube-scheduler", map[string]string{AutoUpdateAnnotation: "false"}), 1, "metadata.name", []string{"import"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := PlanWarnings(tc.obj)
			if len(ws) != tc.n {
				t.Fatalf("got %d warnings: %+v", len(ws), ws)
			}
			if tc.n == 0 {
				return
			}
			if ws[0].Path.String() != tc.path {
				t.Errorf("path %s", ws[0].Path)
			}
			text := ws[0].Summary + " " + ws[0].Detail
			for _, c := range tc.contains {
				if !strings.Contains(text, c) {
					t.Errorf("%q does not contain %q", text, c)
				}
			}
		})
	}
	if PlanWarnings(nil) != nil {
		t.Error("nil")
	}
}
