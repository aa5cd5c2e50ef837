package prioritylevelconfiguration_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	plc "github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
	plcrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration/rules"
)

// parityCase is one generated object. Objects named like a mandatory level are checked with a
// dry-run update of the existing object (a create would only say AlreadyExists); all others
// with a dry-run create under a name no bootstrap object uses.
type parityCase struct {
	desc string
	obj  *flowcontrolv1.PriorityLevelConfiguration
	// want is what the generator meant (a just-valid or just-invalid value); a case where
	// provider and server agree with each other but not with want is logged, not failed.
	want bool
}

func ptr32(v int32) *int32 { return &v }

// TestAccPriorityLevelConfiguration_parity checks the provider's plan-time validation against
// the real API server on a generated corpus: every rule of pkg/apis/flowcontrol/validation (kubernetes v1.37.2) with its
// just-valid and just-invalid values, on several valid bases.
func TestAccPriorityLevelConfiguration_parity(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	t.Parallel()
	cases := plcCorpus()
	if len(cases) < 500 {
		t.Fatalf("corpus has %d objects, want at least 500", len(cases))
	}
	ri := c.Dynamic().Resource(plc.Kind.GVR())
	acctest.RunParity(t, parityCases(ri, cases))
}

// ---- corpus ----

type plcBase struct {
	name string
	make func(name string) *flowcontrolv1.PriorityLevelConfiguration
}

func limited(name string, lr flowcontrolv1.LimitResponse) *flowcontrolv1.PriorityLevelConfiguration {
	return &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type:    flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: lr},
		},
	}
}

var plcBases = []plcBase{
	{"queue-defaults", func(n string) *flowcontrolv1.PriorityLevelConfiguration {
		return limited(n, flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue, Queuing: &flowcontrolv1.QueuingConfiguration{}})
	}},
	{"queue-explicit", func(n string) *flowcontrolv1.PriorityLevelConfiguration {
		o := limited(n, flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
			Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 16, HandSize: 4, QueueLengthLimit: 10}})
		o.Spec.Limited.NominalConcurrencyShares = ptr32(10)
		o.Spec.Limited.LendablePercent = ptr32(20)
		o.Spec.Limited.BorrowingLimitPercent = ptr32(50)
		return o
	}},
	{"reject", func(n string) *flowcontrolv1.PriorityLevelConfiguration {
		return limited(n, flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject})
	}},
	{"reject-jail", func(n string) *flowcontrolv1.PriorityLevelConfiguration {
		o := limited(n, flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject})
		o.Spec.Limited.NominalConcurrencyShares = ptr32(0)
		o.Spec.Limited.LendablePercent = ptr32(100)
		o.Spec.Limited.BorrowingLimitPercent = ptr32(0)
		return o
	}},
}

// plcMutation changes a valid base; it returns false when it does not apply to the base.
type plcMutation struct {
	desc string
	want bool
	fn   func(o *flowcontrolv1.PriorityLevelConfiguration) bool
}

func always(f func(o *flowcontrolv1.PriorityLevelConfiguration)) func(o *flowcontrolv1.PriorityLevelConfiguration) bool {
	return func(o *flowcontrolv1.PriorityLevelConfiguration) bool { f(o); return true }
}

func onQueuing(f func(q *flowcontrolv1.QueuingConfiguration)) func(o *flowcontrolv1.PriorityLevelConfiguration) bool {
	return func(o *flowcontrolv1.PriorityLevelConfiguration) bool {
		if o.Spec.Limited == nil || o.Spec.Limited.LimitResponse.Queuing == nil {
			return false
		}
		f(o.Spec.Limited.LimitResponse.Queuing)
		return true
	}
}

func onLimited(f func(l *flowcontrolv1.LimitedPriorityLevelConfiguration)) func(o *flowcontrolv1.PriorityLevelConfiguration) bool {
	return func(o *flowcontrolv1.PriorityLevelConfiguration) bool {
		if o.Spec.Limited == nil {
			return false
		}
		f(o.Spec.Limited)
		return true
	}
}

func metaMutations() []plcMutation {
	setName := func(n string) func(o *flowcontrolv1.PriorityLevelConfiguration) bool {
		return always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name = n })
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	annotate := func(k, v string) func(o *flowcontrolv1.PriorityLevelConfiguration) bool {
		return always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Annotations = map[string]string{k: v} })
	}
	label := func(k, v string) func(o *flowcontrolv1.PriorityLevelConfiguration) bool {
		return always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Labels = map[string]string{k: v} })
	}
	finalizer := func(f string) func(o *flowcontrolv1.PriorityLevelConfiguration) bool {
		return always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Finalizers = []string{f} })
	}
	return []plcMutation{
		{"name: 1 char", true, setName("p")},
		{"name: dotted subdomain", true, setName("parity.plc.example")},
		{"name: 253 chars", true, setName("parity-" + long(246))},
		{"name: 254 chars", false, setName("parity-" + long(247))},
		{"name: upper case", false, setName("Parity-Upper")},
		{"name: leading dash", false, setName("-parity")},
		{"name: trailing dash", false, setName("parity-")},
		{"name: underscore", false, setName("parity_plc")},
		{"name: empty dot label", false, setName("parity..plc")},
		{"name: empty", false, setName("")},
		{"generateName: valid", true, always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name, o.GenerateName = "", "parity-gen-" })},
		{"generateName: upper case", false, always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name, o.GenerateName = "", "Parity-Gen-" })},
		{"namespace: set (the server drops it)", true, always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Namespace = "default" })},
		{"label: prefixed key", true, label("example.com/team", "inference")},
		{"label: value 63 chars", true, label("team", long(63))},
		{"label: value 64 chars", false, label("team", long(64))},
		{"label: key with space", false, label("bad key", "x")},
		{"label: value leading dash", false, label("team", "-x")},
		{"label: empty value", true, label("team", "")},
		{"label: name part 64 chars", false, label(long(64), "x")},
		{"annotation: free text", true, annotate("example.com/note", "any text: at all!")},
		{"annotation: key with space", false, annotate("bad key", "x")},
		{"annotation: total 262144 bytes", true, annotate("a", long(262143))},
		{"annotation: total 262145 bytes", false, annotate("a", long(262144))},
		{"annotation: preserve-zero-concurrency-shares", false, annotate(plcrules.PreserveZeroConcurrencySharesAnnotation, "true")},
		{"annotation: autoupdate-spec false", true, annotate(plcrules.AutoUpdateAnnotation, "false")},
		{"finalizer: qualified", true, finalizer("example.com/keep")},
		{"finalizer: kubernetes", true, finalizer("kubernetes")},
		{"finalizer: unqualified", false, finalizer("keep")},
		{"finalizer: orphan", true, finalizer(metav1.FinalizerOrphanDependents)},
	}
}

func specMutations() []plcMutation {
	var out []plcMutation
	add := func(desc string, want bool, fn func(o *flowcontrolv1.PriorityLevelConfiguration) bool) {
		out = append(out, plcMutation{desc, want, fn})
	}
	add("type: empty", false, always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Type = "" }))
	add("type: unknown", false, always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Type = "Bogus" }))
	add("type: Exempt on a level of one's own", false, always(func(o *flowcontrolv1.PriorityLevelConfiguration) {
		o.Spec.Type = flowcontrolv1.PriorityLevelEnablementExempt
	}))
	add("type: Exempt with exempt and no limited", false, always(func(o *flowcontrolv1.PriorityLevelConfiguration) {
		o.Spec.Type = flowcontrolv1.PriorityLevelEnablementExempt
		o.Spec.Limited = nil
		o.Spec.Exempt = &flowcontrolv1.ExemptPriorityLevelConfiguration{}
	}))
	add("limited: missing", false, always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited = nil }))
	add("exempt: set on Limited", false, always(func(o *flowcontrolv1.PriorityLevelConfiguration) {
		o.Spec.Exempt = &flowcontrolv1.ExemptPriorityLevelConfiguration{}
	}))
	add("type empty, limited missing", false, always(func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Type, o.Spec.Limited = "", nil }))
	for _, v := range []int32{-1, 0, 1, 30, math.MaxInt32, math.MinInt32} {
		add(fmt.Sprintf("nominalConcurrencyShares %d", v), v >= 0, onLimited(func(l *flowcontrolv1.LimitedPriorityLevelConfiguration) { l.NominalConcurrencyShares = ptr32(v) }))
	}
	for _, v := range []int32{-1, 0, 1, 99, 100, 101, math.MaxInt32} {
		add(fmt.Sprintf("lendablePercent %d", v), v >= 0 && v <= 100, onLimited(func(l *flowcontrolv1.LimitedPriorityLevelConfiguration) { l.LendablePercent = ptr32(v) }))
	}
	for _, v := range []int32{-1, 0, 1, 100, 101, 1000, math.MaxInt32} {
		add(fmt.Sprintf("borrowingLimitPercent %d", v), v >= 0, onLimited(func(l *flowcontrolv1.LimitedPriorityLevelConfiguration) { l.BorrowingLimitPercent = ptr32(v) }))
	}
	add("limitResponse.type: empty", false, onLimited(func(l *flowcontrolv1.LimitedPriorityLevelConfiguration) { l.LimitResponse.Type = "" }))
	add("limitResponse.type: unknown", false, onLimited(func(l *flowcontrolv1.LimitedPriorityLevelConfiguration) { l.LimitResponse.Type = "Drop" }))
	add("limitResponse: Reject with queuing", false, onLimited(func(l *flowcontrolv1.LimitedPriorityLevelConfiguration) {
		l.LimitResponse = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject, Queuing: &flowcontrolv1.QueuingConfiguration{}}
	}))
	add("limitResponse: Queue without queuing", false, onLimited(func(l *flowcontrolv1.LimitedPriorityLevelConfiguration) {
		l.LimitResponse = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue}
	}))
	add("limitResponse: Queue with empty queuing", true, onLimited(func(l *flowcontrolv1.LimitedPriorityLevelConfiguration) {
		l.LimitResponse = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue, Queuing: &flowcontrolv1.QueuingConfiguration{}}
	}))
	add("limitResponse: empty type with queuing", false, onLimited(func(l *flowcontrolv1.LimitedPriorityLevelConfiguration) {
		l.LimitResponse = flowcontrolv1.LimitResponse{Queuing: &flowcontrolv1.QueuingConfiguration{}}
	}))
	for _, v := range []int32{-1, 0, 1, 8, 10_000_000, 10_000_001, math.MaxInt32} {
		// handSize is set to 1 so that only queues is under test
		want := v == 0 || (v >= 1 && v <= 10_000_000)
		add(fmt.Sprintf("queues %d (handSize 1)", v), want, onQueuing(func(q *flowcontrolv1.QueuingConfiguration) { q.Queues, q.HandSize = v, 1 }))
	}
	for _, v := range []int32{-1, 0, 1} {
		add(fmt.Sprintf("handSize %d", v), v >= 0, onQueuing(func(q *flowcontrolv1.QueuingConfiguration) { q.HandSize = v }))
	}
	// the largest legal handSize for the base's queues (default 64), and the next one
	for _, d := range []int32{0, 1} {
		add(fmt.Sprintf("handSize max+%d for the base's queues", d), d == 0, onQueuing(func(q *flowcontrolv1.QueuingConfiguration) {
			queues := q.Queues
			if queues == 0 {
				queues = plcrules.DefaultQueues
			}
			q.HandSize = plcrules.MaxHandSize(queues) + d
		}))
	}
	for _, v := range []int32{-1, 0, 1, 50, math.MaxInt32} {
		add(fmt.Sprintf("queueLengthLimit %d", v), v >= 0, onQueuing(func(q *flowcontrolv1.QueuingConfiguration) { q.QueueLengthLimit = v }))
	}
	add("handSize above queues", false, onQueuing(func(q *flowcontrolv1.QueuingConfiguration) { q.Queues, q.HandSize = 4, 5 }))
	add("handSize equal to queues", true, onQueuing(func(q *flowcontrolv1.QueuingConfiguration) { q.Queues, q.HandSize = 5, 5 }))
	add("handSize above default queues", true, onQueuing(func(q *flowcontrolv1.QueuingConfiguration) { q.Queues, q.HandSize = 0, 9 }))
	add("everything negative", false, onQueuing(func(q *flowcontrolv1.QueuingConfiguration) { q.Queues, q.HandSize, q.QueueLengthLimit = -1, -1, -1 }))
	return out
}

// entropyMutations are the shuffle-sharding boundaries: for each queues value the largest legal
// handSize and the next one, and for each handSize the largest legal queues and the next one.
func entropyMutations() []plcMutation {
	var out []plcMutation
	set := func(q, h int32) func(o *flowcontrolv1.PriorityLevelConfiguration) bool {
		return onQueuing(func(qc *flowcontrolv1.QueuingConfiguration) { qc.Queues, qc.HandSize = q, h })
	}
	for _, q := range []int32{1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 101, 127, 128, 181, 182, 255, 256, 380, 381, 512, 1000,
		1024, 1025, 4096, 4097, 32768, 32769, 65536, 1048576, 1048577, 8388608, 10_000_000} {
		h := plcrules.MaxHandSize(q)
		out = append(out, plcMutation{fmt.Sprintf("entropy: queues %d handSize %d (max)", q, h), true, set(q, h)})
		out = append(out, plcMutation{fmt.Sprintf("entropy: queues %d handSize %d (max+1)", q, h+1), false, set(q, h+1)})
	}
	for h := int32(1); h <= 16; h++ {
		q := maxQueuesFor(h)
		if q > 0 {
			out = append(out, plcMutation{fmt.Sprintf("entropy: handSize %d queues %d (max)", h, q), true, set(q, h)})
		}
		if q < 10_000_000 {
			out = append(out, plcMutation{fmt.Sprintf("entropy: handSize %d queues %d (max+1)", h, q+1), false, set(max(q+1, h), h)})
		}
	}
	return out
}

// maxQueuesFor is the largest queues value (at most 10^7) for which handSize h is legal, 0 if none.
func maxQueuesFor(h int32) int32 {
	if plcrules.RequiredEntropyBits(int(h), int(h)) > plcrules.MaxHashBits {
		return 0
	}
	// legal for queues in [h, max]: search that range
	lo, hi := h, int32(10_000_000)
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if plcrules.RequiredEntropyBits(int(mid), int(h)) <= plcrules.MaxHashBits {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// mandatoryCases are objects named exempt and catch-all, checked by dry-run updates.
func mandatoryCases() []parityCase {
	var out []parityCase
	named := func(name string, spec flowcontrolv1.PriorityLevelConfigurationSpec) *flowcontrolv1.PriorityLevelConfiguration {
		return &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	}
	add := func(desc string, want bool, name string, edit func(s *flowcontrolv1.PriorityLevelConfigurationSpec)) {
		s, _ := plcrules.BootstrapSpec(name)
		edit(&s)
		out = append(out, parityCase{desc: name + ": " + desc, obj: named(name, s), want: want})
	}
	nop := func(*flowcontrolv1.PriorityLevelConfigurationSpec) {}
	add("built-in spec", true, "exempt", nop)
	add("exempt fields changed", true, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
		s.Exempt = &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr32(50), LendablePercent: ptr32(100)}
	})
	add("exempt fields unset", true, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Exempt = nil })
	add("exempt empty", true, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
		s.Exempt = &flowcontrolv1.ExemptPriorityLevelConfiguration{}
	})
	add("exempt shares -1", false, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Exempt.NominalConcurrencyShares = ptr32(-1) })
	add("exempt shares MaxInt32", true, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
		s.Exempt.NominalConcurrencyShares = ptr32(math.MaxInt32)
	})
	add("exempt lendable -1", false, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Exempt.LendablePercent = ptr32(-1) })
	add("exempt lendable 101", false, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Exempt.LendablePercent = ptr32(101) })
	add("exempt lendable 100", true, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Exempt.LendablePercent = ptr32(100) })
	add("type Limited", false, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
		c, _ := plcrules.BootstrapSpec("catch-all")
		*s = c
	})
	add("limited set too", false, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
		c, _ := plcrules.BootstrapSpec("catch-all")
		s.Limited = c.Limited
	})
	add("type empty", false, "exempt", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Type = "" })
	add("built-in spec", true, "catch-all", nop)
	add("shares unset (defaults to 30)", false, "catch-all", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Limited.NominalConcurrencyShares = nil })
	add("shares 6", false, "catch-all", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Limited.NominalConcurrencyShares = ptr32(6) })
	add("shares 4", false, "catch-all", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Limited.NominalConcurrencyShares = ptr32(4) })
	add("lendable unset (defaults to 0)", true, "catch-all", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Limited.LendablePercent = nil })
	add("lendable 1", false, "catch-all", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Limited.LendablePercent = ptr32(1) })
	add("borrowing 0", false, "catch-all", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Limited.BorrowingLimitPercent = ptr32(0) })
	add("Queue", false, "catch-all", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
		s.Limited.LimitResponse = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue, Queuing: &flowcontrolv1.QueuingConfiguration{}}
	})
	add("type Exempt", false, "catch-all", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
		*s = flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt}
	})
	add("exempt set too", false, "catch-all", func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
		s.Exempt = &flowcontrolv1.ExemptPriorityLevelConfiguration{}
	})
	// metadata rules apply to the mandatory objects too
	withMeta := func(desc string, want bool, name string, edit func(o *flowcontrolv1.PriorityLevelConfiguration)) {
		s, _ := plcrules.BootstrapSpec(name)
		o := named(name, s)
		edit(o)
		out = append(out, parityCase{desc: name + ": " + desc, obj: o, want: want})
	}
	for _, n := range plcrules.MandatoryLevels {
		withMeta("label", true, n, func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Labels = map[string]string{"team": "inference"} })
		withMeta("bad label", false, n, func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Labels = map[string]string{"team": "-x"} })
		withMeta("preserve-zero annotation", false, n, func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Annotations = map[string]string{plcrules.PreserveZeroConcurrencySharesAnnotation: ""}
		})
	}
	return out
}

func plcCorpus() []parityCase {
	var cases []parityCase
	for bi, b := range plcBases {
		cases = append(cases, parityCase{desc: b.name + ": unchanged", obj: b.make(fmt.Sprintf("parity-plc-%d-base", bi)), want: true})
	}
	i := 0
	apply := func(muts []plcMutation, bases []plcBase) {
		for bi, b := range bases {
			for _, m := range muts {
				i++
				o := b.make(fmt.Sprintf("parity-plc-%d-%04d", bi, i))
				if !m.fn(o) {
					continue
				}
				cases = append(cases, parityCase{desc: b.name + ": " + m.desc, obj: o, want: m.want})
			}
		}
	}
	apply(metaMutations(), plcBases)
	apply(specMutations(), plcBases)
	apply(entropyMutations(), plcBases[:2])
	// a metadata rule and a spec rule at once: both errors must be reported
	meta := metaMutations()
	for k, a := range specMutations() {
		b := meta[(k*7)%len(meta)]
		i++
		o := plcBases[1].make(fmt.Sprintf("parity-plc-pair-%04d", i))
		if a.fn(o) && b.fn(o) {
			cases = append(cases, parityCase{desc: "pair: " + a.desc + " + " + b.desc, obj: o, want: a.want && b.want})
		}
	}
	cases = append(cases, mandatoryCases()...)
	return cases
}

// ---- verdicts ----

// parityCases binds each generated object to its provider and server verdicts.
func parityCases(ri dynamic.ResourceInterface, cases []parityCase) []acctest.ParityCase {
	out := make([]acctest.ParityCase, len(cases))
	for i, c := range cases {
		out[i] = acctest.ParityCase{Desc: c.desc, Want: c.want,
			Provider: func() acctest.Verdict { return providerVerdict(c.obj) },
			Server:   func(ctx context.Context) (acctest.Verdict, error) { return serverVerdict(ctx, ri, c.obj) }}
	}
	return out
}

func providerVerdict(o *flowcontrolv1.PriorityLevelConfiguration) acctest.Verdict {
	d := o.DeepCopy()
	plcrules.SetObjectDefaults_PriorityLevelConfiguration(d)
	return acctest.VerdictFromFieldErrors(plcrules.ValidatePriorityLevelConfiguration(d))
}

func toUnstructured(o runtime.Object) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(plc.Kind.GVK.GroupVersion().String())
	u.SetKind(plc.Kind.GVK.Kind)
	return u, nil
}

// serverVerdict dry-runs a create, or for a mandatory name an update of the existing object.
func serverVerdict(ctx context.Context, ri dynamic.ResourceInterface, o *flowcontrolv1.PriorityLevelConfiguration) (acctest.Verdict, error) {
	u, err := toUnstructured(o)
	if err != nil {
		return acctest.Verdict{}, err
	}
	dryRun := []string{metav1.DryRunAll}
	if !plcrules.IsMandatory(o.Name) {
		_, err = ri.Create(ctx, u, metav1.CreateOptions{DryRun: dryRun})
	} else {
		var readErr error
		if err, readErr = acctest.DryRunReplace(ctx, ri, u); readErr != nil {
			return acctest.Verdict{}, readErr
		}
	}
	return acctest.VerdictFromError(err)
}
