package podtemplatecorpus

import "testing"

// TestParityCorpusProvider replays the corpus offline: the provider must accept
// exactly the templates kube-apiserver accepts (as verified by
// TestAccParityWithAPIServer), except the deliberate divergences, which it must reject.
func TestParityCorpusProvider(t *testing.T) {
	corpus := Build()
	seen := map[string]bool{}
	nValid := 0
	for _, c := range corpus {
		if seen[c.Name] {
			t.Fatalf("duplicate case name %q", c.Name)
		}
		seen[c.Name] = true
		if c.Divergence != "" && !c.WantValid {
			t.Fatalf("%s: a deliberate divergence must be a template the server accepts", c.Name)
		}
		if c.WantValid {
			nValid++
		}
		if c.Tpl.Labels[ParityLabelKey] != ParityLabelValue {
			t.Fatalf("%s: template lost the parity label", c.Name)
		}
		errs := c.ProviderErrors()
		switch {
		case c.Divergence != "" && len(errs) == 0:
			t.Errorf("%s: deliberate divergence %q: provider accepted", c.Name, c.Divergence)
		case c.Divergence == "" && c.WantValid && len(errs) != 0:
			t.Errorf("%s: server accepts, provider rejected: %v", c.Name, errs)
		case !c.WantValid && len(errs) == 0:
			t.Errorf("%s: server rejects, provider accepted", c.Name)
		}
	}
	if len(corpus) < 1000 {
		t.Errorf("corpus has %d templates, want at least 1000", len(corpus))
	}
	if nValid*10 < len(corpus)*3 {
		t.Errorf("corpus has %d valid templates of %d, want at least 30%%", nValid, len(corpus))
	}
	t.Logf("corpus: %d templates, %d valid (%.0f%%), %d invalid", len(corpus), nValid, 100*float64(nValid)/float64(len(corpus)), len(corpus)-nValid)
}
