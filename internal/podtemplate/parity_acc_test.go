package podtemplate_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate/podtemplatecorpus"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// parityWorkers is the number of concurrent dry-run creates.
const parityWorkers = 8

// serverVerdict is the outcome of a dry-run StatefulSet create.
type serverVerdict struct {
	valid  bool
	fields []string // causes under spec.template / spec.volumeClaimTemplates
	other  []string // causes elsewhere (should not happen: the wrapper is valid)
	err    error    // a non-validation failure
}

// statefulSetFor wraps a corpus case the way the LWS controller would: one
// StatefulSet whose selector matches the template's parity label.
func statefulSetFor(i int, c *podtemplatecorpus.Case) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("parity-%04d", i), Namespace: "default"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:             ptr.To[int32](1),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{podtemplatecorpus.ParityLabelKey: podtemplatecorpus.ParityLabelValue}},
			ServiceName:          "svc",
			Template:             *c.Tpl.DeepCopy(),
			VolumeClaimTemplates: c.VCTs,
		},
	}
}

func dryRunCreate(ctx context.Context, cs kubernetes.Interface, sts *appsv1.StatefulSet) serverVerdict {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		_, err = cs.AppsV1().StatefulSets(sts.Namespace).Create(ctx, sts, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || apierrors.IsInvalid(err) || !apierrors.IsServerTimeout(err) && !apierrors.IsTooManyRequests(err) && !apierrors.IsTimeout(err) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err == nil {
		return serverVerdict{valid: true}
	}
	var se *apierrors.StatusError
	if !apierrors.IsInvalid(err) || !errors.As(err, &se) || se.ErrStatus.Details == nil {
		return serverVerdict{err: err}
	}
	v := serverVerdict{}
	for _, cause := range se.ErrStatus.Details.Causes {
		if strings.HasPrefix(cause.Field, "spec.template") || strings.HasPrefix(cause.Field, "spec.volumeClaimTemplates") {
			v.fields = append(v.fields, cause.Field)
		} else {
			v.other = append(v.other, fmt.Sprintf("%s: %s", cause.Field, cause.Message))
		}
	}
	return v
}

// serverVerdicts dry-run creates a StatefulSet for each case, parityWorkers at a time.
func serverVerdicts(cs kubernetes.Interface, corpus []*podtemplatecorpus.Case) []serverVerdict {
	verdicts := make([]serverVerdict, len(corpus))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < parityWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				verdicts[i] = dryRunCreate(ctx, cs, statefulSetFor(i, corpus[i]))
			}
		}()
	}
	for i := range corpus {
		work <- i
	}
	close(work)
	wg.Wait()
	return verdicts
}

func uniqSorted(in []string) []string {
	set := map[string]bool{}
	for _, s := range in {
		set[s] = true
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// diff returns the elements of a missing from b.
func diff(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

var (
	volIndexRe   = regexp.MustCompile(`^spec\.template\.spec\.volumes\[(\d+)\]`)
	tscKeyRe     = regexp.MustCompile(`^(spec\.template\.spec\.topologySpreadConstraints\[\d+\])\[(\d+)\]$`)
	vctNameField = regexp.MustCompile(`^spec\.volumeClaimTemplates\[\d+\]\.metadata\.name$`)
)

// normalizePaths removes the field-path differences that the documented
// divergences explain: the index of a claim-template volume (4: the server
// iterates a map), the server's topologySpreadConstraints[i][k] path for a
// matchLabelKeys overlap (1: reported at matchLabelKeys[k] here) and the
// provider's own check of claim template names (3).
func normalizePaths(fields []string, nVCTVolumes int, provider bool) []string {
	var out []string
	for _, f := range fields {
		if provider && vctNameField.MatchString(f) {
			continue
		}
		if m := volIndexRe.FindStringSubmatch(f); m != nil {
			if n, _ := strconv.Atoi(m[1]); n < nVCTVolumes {
				f = "spec.template.spec.volumes[<claim template>]" + f[len(m[0]):]
			}
		}
		if m := tscKeyRe.FindStringSubmatch(f); m != nil {
			f = m[1] + ".matchLabelKeys[" + m[2] + "]"
		}
		out = append(out, f)
	}
	return uniqSorted(out)
}

type ruleCounts struct{ total, valid, invalid, agree, divergent, pathMismatch int }

// TestAccParityWithAPIServer checks every corpus template with the provider and
// with a dry-run create of an apps/v1 StatefulSet on kube-apiserver v1.37.2.
// Any verdict disagreement fails, except the deliberate divergences (the
// provider must reject them and the server must accept them). Field-path
// differences of rejected templates are logged, not failed.
func TestAccParityWithAPIServer(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	cfg := c.RESTConfig()
	cfg.QPS, cfg.Burst = 1000, 1000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	corpus := podtemplatecorpus.Build()
	start := time.Now()
	verdicts := serverVerdicts(cs, corpus)
	elapsed := time.Since(start)

	var (
		nValid, nInvalid, nAgree, nDivergent, nPathMismatch, nPathUnexplained, nServerErr, nExpect int
		divergences                                                                                []string
		pathLines                                                                                  []string
		perRule                                                                                    = map[string]*ruleCounts{}
	)
	for i, cc := range corpus {
		sv := verdicts[i]
		rc := perRule[cc.Rule]
		if rc == nil {
			rc = &ruleCounts{}
			perRule[cc.Rule] = rc
		}
		rc.total++
		if sv.err != nil {
			nServerErr++
			t.Errorf("%s: dry-run create failed without a validation verdict: %v", cc.Name, sv.err)
			continue
		}
		if len(sv.other) > 0 {
			t.Errorf("%s: server rejected fields outside the template: %v", cc.Name, sv.other)
		}
		if sv.valid {
			nValid++
			rc.valid++
		} else {
			nInvalid++
			rc.invalid++
		}
		if sv.valid != cc.WantValid {
			nExpect++
			t.Errorf("%s: corpus expects server valid=%v, server said valid=%v %v (fix the generator)", cc.Name, cc.WantValid, sv.valid, sv.fields)
		}
		perrs := cc.ProviderErrors()
		provValid := len(perrs) == 0
		if cc.Divergence != "" {
			if provValid || !sv.valid {
				t.Errorf("%s: deliberate divergence %q needs provider=invalid, server=valid; got provider valid=%v, server valid=%v %v",
					cc.Name, cc.Divergence, provValid, sv.valid, sv.fields)
				continue
			}
			nDivergent++
			rc.divergent++
			divergences = append(divergences, fmt.Sprintf("%s [divergence %s]: provider %v", cc.Name, cc.Divergence, perrs.ToAggregate()))
			continue
		}
		if provValid != sv.valid {
			t.Errorf("%s: DISAGREEMENT provider valid=%v %v, server valid=%v %v", cc.Name, provValid, perrs.ToAggregate(), sv.valid, sv.fields)
			continue
		}
		nAgree++
		rc.agree++
		if sv.valid {
			continue
		}
		var pfields []string
		for _, e := range perrs {
			pfields = append(pfields, e.Field)
		}
		sf, pf := uniqSorted(sv.fields), uniqSorted(pfields)
		onlyServer, onlyProvider := diff(sf, pf), diff(pf, sf)
		if len(onlyServer)+len(onlyProvider) > 0 {
			nPathMismatch++
			rc.pathMismatch++
			nv := len(uniqSorted(cc.VCTNames()))
			ns, np := normalizePaths(sf, nv, false), normalizePaths(pf, nv, true)
			how := "explained by a documented divergence"
			if len(diff(ns, np))+len(diff(np, ns)) > 0 {
				nPathUnexplained++
				how = "UNEXPLAINED"
			}
			pathLines = append(pathLines, fmt.Sprintf("%s: server-only %v, provider-only %v (%s)", cc.Name, onlyServer, onlyProvider, how))
		}
	}

	t.Logf("%d dry-run creates with %d workers in %s", len(corpus), parityWorkers, elapsed.Round(time.Millisecond))
	t.Logf("totals: templates=%d valid=%d invalid=%d agreements=%d deliberate-divergences=%d path-mismatches=%d (unexplained=%d) server-errors=%d generator-expectation-errors=%d",
		len(corpus), nValid, nInvalid, nAgree, nDivergent, nPathMismatch, nPathUnexplained, nServerErr, nExpect)
	rules := make([]string, 0, len(perRule))
	for r := range perRule {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		rc := perRule[r]
		t.Logf("  rule %-34s total=%4d valid=%4d invalid=%4d agree=%4d divergent=%3d path-mismatch=%3d",
			r, rc.total, rc.valid, rc.invalid, rc.agree, rc.divergent, rc.pathMismatch)
	}
	t.Logf("deliberate divergences (%d):", len(divergences))
	for _, d := range divergences {
		t.Logf("  %s", d)
	}
	t.Logf("field-path mismatches on agreed rejections (%d):", len(pathLines))
	for _, l := range pathLines {
		t.Logf("  %s", l)
	}
	if len(corpus) < 1000 {
		t.Errorf("corpus has %d templates, want at least 1000", len(corpus))
	}
	if nValid*10 < len(corpus)*3 {
		t.Errorf("server accepted %d of %d templates, want at least 30%%", nValid, len(corpus))
	}
}
