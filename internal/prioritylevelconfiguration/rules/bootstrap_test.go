package rules

import (
	"strings"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestBootstrapSpecsPassValidate(t *testing.T) {
	all := append(append([]string{}, MandatoryLevels...), SuggestedLevels...)
	if len(all) != 8 {
		t.Fatalf("want 8 bootstrap levels, got %d", len(all))
	}
	for _, n := range all {
		s, ok := BootstrapSpec(n)
		if !ok {
			t.Fatalf("%s: no bootstrap spec", n)
		}
		o := &flowcontrolv1.PriorityLevelConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: n, Annotations: map[string]string{AutoUpdateAnnotation: "true"}},
			Spec:       s,
		}
		d := o.DeepCopy()
		SetObjectDefaults_PriorityLevelConfiguration(d)
		if !apiequality.Semantic.DeepEqual(o, d) {
			t.Errorf("%s: bootstrap spec is not already defaulted", n)
		}
		if errs := ValidatePriorityLevelConfiguration(d); len(errs) != 0 {
			t.Errorf("%s: %v", n, errs)
		}
		if errs := ValidateProviderRules(d); len(errs) != 0 {
			t.Errorf("%s provider rules: %v", n, errs)
		}
	}
	if _, ok := BootstrapSpec("my-level"); ok {
		t.Error("my-level is not a bootstrap level")
	}
}

func TestBootstrapSpecIsACopy(t *testing.T) {
	s, _ := BootstrapSpec("catch-all")
	*s.Limited.NominalConcurrencyShares = 99
	s2, _ := BootstrapSpec("catch-all")
	if *s2.Limited.NominalConcurrencyShares != 5 {
		t.Fatal("BootstrapSpec returned shared state")
	}
}

func TestBootstrapValues(t *testing.T) {
	// name -> NCS, lendable, queues, handSize (0 = no queuing)
	want := map[string][4]int32{
		"catch-all":       {5, 0, 0, 0},
		"system":          {30, 33, 64, 6},
		"node-high":       {40, 25, 64, 6},
		"leader-election": {10, 0, 16, 4},
		"workload-high":   {40, 50, 128, 6},
		"workload-low":    {100, 90, 128, 6},
		"global-default":  {20, 50, 128, 6},
	}
	for n, w := range want {
		s, _ := BootstrapSpec(n)
		l := s.Limited
		var q, h int32
		if l.LimitResponse.Queuing != nil {
			q, h = l.LimitResponse.Queuing.Queues, l.LimitResponse.Queuing.HandSize
			if l.LimitResponse.Queuing.QueueLengthLimit != 50 {
				t.Errorf("%s: queueLengthLimit", n)
			}
		}
		if got := [4]int32{*l.NominalConcurrencyShares, *l.LendablePercent, q, h}; got != w {
			t.Errorf("%s: got %v want %v", n, got, w)
		}
	}
}

func TestPlanWarnings(t *testing.T) {
	mk := func(name string, ann map[string]string) *flowcontrolv1.PriorityLevelConfiguration {
		return &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann}}
	}
	cases := []struct {
		name     string
		obj      *flowcontrolv1.PriorityLevelConfiguration
		n        int
		path     string
		contains []string
	}{
		{"user level", mk("my-level", nil), 0, "", nil},
		{"user level with autoupdate (error, not warning)", mk("my-level", map[string]string{AutoUpdateAnnotation: "true"}), 0, "", nil},
		{"mandatory exempt", mk("exempt", nil), 1, "metadata.name", []string{"import", "Only spec.exempt"}},
		{"mandatory catch-all", mk("catch-all", nil), 1, "metadata.name", []string{"import", "whole spec is fixed"}},
		{"suggested no annotation", mk("workload-low", nil), 1, "metadata.annotations[apf.kubernetes.io/autoupdate-spec]", []string{"overwrites", "\"false\"", "import"}},
		{"suggested annotation true", mk("system", map[string]string{AutoUpdateAnnotation: "true"}), 1, "metadata.annotations[apf.kubernetes.io/autoupdate-spec]", []string{"overwrites"}},
		{"suggested annotation false", mk("system", map[string]string{AutoUpdateAnnotation: "false"}), 1, "metadata.name", []string{"import"}},
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
