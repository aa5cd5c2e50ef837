package podtemplate_test

import (
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate/podtemplatecorpus"
)

// TestAccParityCombinationsWithAPIServer checks combinations of the corpus's mutations (see
// combinationCorpus) with the provider and with a dry-run StatefulSet create on the test
// cluster's kube-apiserver. Verdicts must agree, and so must the field paths of a rejection once
// the documented divergences are normalized: the provider reports its error on the attribute at
// fault, so a path the server does not name is a diagnostic on the wrong attribute.
// KUBEINFER_PARITY_SEED chooses another corpus, KUBEINFER_PARITY_CASES its size.
func TestAccParityCombinationsWithAPIServer(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	cfg := c.RESTConfig()
	cfg.QPS, cfg.Burst = 1000, 1000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(acctest.ParitySeed(t, 20261207))
	corpus := podtemplatecorpus.Combinations(seed, acctest.EnvInt(t, "KUBEINFER_PARITY_CASES", 3000))

	start := time.Now()
	verdicts := serverVerdicts(cs, corpus)

	var nValid, nAgree int
	for i, cc := range corpus {
		sv := verdicts[i]
		if sv.err != nil {
			t.Errorf("%s: dry-run create failed without a validation verdict: %v", cc.Name, sv.err)
			continue
		}
		if len(sv.other) > 0 {
			t.Errorf("%s: server rejected fields outside the template: %v", cc.Name, sv.other)
		}
		perrs := cc.ProviderErrors()
		if provValid := len(perrs) == 0; provValid != sv.valid {
			t.Errorf("%s: DISAGREEMENT provider valid=%v %v, server valid=%v %v", cc.Name, provValid, perrs.ToAggregate(), sv.valid, sv.fields)
			continue
		}
		nAgree++
		if sv.valid {
			nValid++
			continue
		}
		var pfields []string
		for _, e := range perrs {
			pfields = append(pfields, e.Field)
		}
		nv := len(uniqSorted(cc.VCTNames()))
		ns, np := normalizePaths(uniqSorted(sv.fields), nv, false), normalizePaths(uniqSorted(pfields), nv, true)
		if onlyServer, onlyProvider := diff(ns, np), diff(np, ns); len(onlyServer)+len(onlyProvider) > 0 {
			t.Errorf("%s: field paths differ: server only %v, provider only %v (provider: %v)", cc.Name, onlyServer, onlyProvider, perrs.ToAggregate())
		}
	}
	t.Logf("seed %d: %d combinations, %d valid per the server, %d agreements, in %s",
		seed, len(corpus), nValid, nAgree, time.Since(start).Round(time.Millisecond))
	if nValid*5 < len(corpus) {
		t.Errorf("server accepted %d of %d combinations, want at least 20%%", nValid, len(corpus))
	}
}
