package rules

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// te is an expected error: type and JSON path.
type te struct {
	typ  field.ErrorType
	path string
}

func (e te) String() string { return fmt.Sprintf("%s@%s", e.typ, e.path) }

func got(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, te{e.Type, e.Field}.String())
	}
	sort.Strings(out)
	return out
}

func want(es ...te) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, e.String())
	}
	sort.Strings(out)
	return out
}

func p32(v int32) *int32 { return &v }

// baseQueued is a valid user level with queuing; fields left zero get defaulted.
func baseQueued() *flowcontrolv1.PriorityLevelConfiguration {
	return &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "my-level"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				LimitResponse: flowcontrolv1.LimitResponse{
					Type:    flowcontrolv1.LimitResponseTypeQueue,
					Queuing: &flowcontrolv1.QueuingConfiguration{},
				},
			},
		},
	}
}

func queuing(o *flowcontrolv1.PriorityLevelConfiguration) *flowcontrolv1.QueuingConfiguration {
	return o.Spec.Limited.LimitResponse.Queuing
}

func setQH(q, h int32) func(*flowcontrolv1.PriorityLevelConfiguration) {
	return func(o *flowcontrolv1.PriorityLevelConfiguration) {
		queuing(o).Queues = q
		queuing(o).HandSize = h
	}
}

const (
	pQueues   = "spec.limited.limitResponse.queuing.queues"
	pHandSize = "spec.limited.limitResponse.queuing.handSize"
	pQLL      = "spec.limited.limitResponse.queuing.queueLengthLimit"
	pQueuing  = "spec.limited.limitResponse.queuing"
	pLRType   = "spec.limited.limitResponse.type"
)

var (
	req  = field.ErrorTypeRequired
	inv  = field.ErrorTypeInvalid
	ns   = field.ErrorTypeNotSupported
	forb = field.ErrorTypeForbidden
	long = field.ErrorTypeTooLong
)

func TestValidate(t *testing.T) {
	exemptSpec := func(o *flowcontrolv1.PriorityLevelConfiguration) {
		o.Spec = flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt}
	}
	catchAll := func(o *flowcontrolv1.PriorityLevelConfiguration) {
		o.Name = "catch-all"
		o.Spec, _ = BootstrapSpec("catch-all")
	}
	cases := []struct {
		name   string
		mutate func(o *flowcontrolv1.PriorityLevelConfiguration)
		want   []te
	}{
		{"valid defaults", func(o *flowcontrolv1.PriorityLevelConfiguration) {}, nil},

		// metadata.name
		{"name missing", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name = "" }, []te{{req, "metadata.name"}}},
		{"name not a DNS subdomain", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name = "My_Level" }, []te{{inv, "metadata.name"}}},
		{"name with dots ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name = "team.a-level" }, nil},
		{"name 253 chars ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name = strings.Repeat("a", 253) }, nil},
		{"name 254 chars", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name = strings.Repeat("a", 254) }, []te{{inv, "metadata.name"}}},
		{"generateName only ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name = ""; o.GenerateName = "lvl-" }, nil},
		{"generateName invalid", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name = ""; o.GenerateName = "Lvl-" },
			[]te{{inv, "metadata.generateName"}, {inv, "metadata.name"}}},

		// metadata.namespace: the server clears it on cluster-scoped types (provider rule instead)
		{"namespace is dropped by the server", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Namespace = "default" }, nil},

		// labels
		{"labels ok", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Labels = map[string]string{"example.com/team": "a", "tier": "", "x": strings.Repeat("v", 63)}
		}, nil},
		{"label key invalid", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Labels = map[string]string{"bad key": "v"} }, []te{{inv, "metadata.labels"}}},
		{"label value 64 chars", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Labels = map[string]string{"k": strings.Repeat("v", 64)}
		}, []te{{inv, "metadata.labels"}}},

		// annotations
		{"annotations ok (case-insensitive key)", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Annotations = map[string]string{"Example.com/Note": "anything goes: ~!@#"}
		}, nil},
		{"annotation key invalid", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Annotations = map[string]string{"a b": "v"} }, []te{{inv, "metadata.annotations"}}},
		{"annotations exactly 256KiB ok", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Annotations = map[string]string{"k": strings.Repeat("v", 256*1024-1)}
		}, nil},
		{"annotations too large", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Annotations = map[string]string{"k": strings.Repeat("v", 256*1024)}
		}, []te{{long, "metadata.annotations"}}},
		{"preserve-zero annotation forbidden", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Annotations = map[string]string{"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares": ""}
		}, []te{{forb, "metadata.annotations"}}},

		// finalizers
		{"finalizers ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Finalizers = []string{"example.com/x", "orphan"} }, nil},
		{"finalizer not qualified", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Finalizers = []string{"foo"} }, []te{{inv, "metadata.finalizers[0]"}}},

		// spec.type
		{"type empty", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Spec = flowcontrolv1.PriorityLevelConfigurationSpec{}
		}, []te{{req, "spec.type"}}},
		{"type empty with limited (declarative Forbidden)", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Type = "" },
			[]te{{req, "spec.type"}, {forb, "spec.limited"}}},
		{"type empty with exempt (declarative Forbidden)", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Spec = flowcontrolv1.PriorityLevelConfigurationSpec{Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{}}
		}, []te{{req, "spec.type"}, {forb, "spec.exempt"}}},
		{"type unsupported", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Type = "Unlimited" },
			[]te{{ns, "spec.type"}, {forb, "spec.limited"}}},
		{"type Exempt on a user level", exemptSpec, []te{{inv, "spec.type"}}},
		{"name exempt with type Limited", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name = "exempt" },
			[]te{{inv, "spec.type"}, {inv, "spec"}}},

		// exclusivity
		{"Limited with exempt", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Spec.Exempt = &flowcontrolv1.ExemptPriorityLevelConfiguration{}
		}, []te{{forb, "spec.exempt"}}},
		{"Limited without limited", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited = nil }, []te{{req, "spec.limited"}}},
		{"Exempt with limited", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Name = "exempt"
			o.Spec.Type = flowcontrolv1.PriorityLevelEnablementExempt
		}, []te{{forb, "spec.limited"}, {inv, "spec"}}},
		{"Exempt with limited lacking limitResponse.type (declarative)", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Name = "exempt"
			o.Spec.Type = flowcontrolv1.PriorityLevelEnablementExempt
			o.Spec.Limited.LimitResponse = flowcontrolv1.LimitResponse{}
		}, []te{{forb, "spec.limited"}, {inv, "spec"}, {req, pLRType}}},

		// limited ranges
		{"nominalConcurrencyShares 0 ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited.NominalConcurrencyShares = p32(0) }, nil},
		{"nominalConcurrencyShares -1", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited.NominalConcurrencyShares = p32(-1) },
			[]te{{inv, "spec.limited.nominalConcurrencyShares"}}},
		{"lendablePercent 0 ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited.LendablePercent = p32(0) }, nil},
		{"lendablePercent 100 ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited.LendablePercent = p32(100) }, nil},
		{"lendablePercent -1", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited.LendablePercent = p32(-1) },
			[]te{{inv, "spec.limited.lendablePercent"}}},
		{"lendablePercent 101", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited.LendablePercent = p32(101) },
			[]te{{inv, "spec.limited.lendablePercent"}}},
		{"borrowingLimitPercent 0 ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited.BorrowingLimitPercent = p32(0) }, nil},
		{"borrowingLimitPercent 500 ok (no upper bound)", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited.BorrowingLimitPercent = p32(500) }, nil},
		{"borrowingLimitPercent -1", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited.BorrowingLimitPercent = p32(-1) },
			[]te{{inv, "spec.limited.borrowingLimitPercent"}}},

		// limitResponse
		{"Reject without queuing ok", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Spec.Limited.LimitResponse = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}
		}, nil},
		{"Reject with queuing", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Spec.Limited.LimitResponse.Type = flowcontrolv1.LimitResponseTypeReject
		}, []te{{forb, pQueuing}}},
		{"Queue without queuing", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Spec.Limited.LimitResponse.Queuing = nil },
			[]te{{req, pQueuing}}},
		{"limitResponse.type empty", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Spec.Limited.LimitResponse = flowcontrolv1.LimitResponse{}
		}, []te{{req, pLRType}}},
		{"limitResponse.type empty with queuing (declarative)", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Spec.Limited.LimitResponse.Type = ""
		}, []te{{req, pLRType}, {forb, pQueuing}}},
		{"limitResponse.type unsupported", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Spec.Limited.LimitResponse = flowcontrolv1.LimitResponse{Type: "Drop"}
		}, []te{{ns, pLRType}}},

		// queuing
		{"queueLengthLimit 1 ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { queuing(o).QueueLengthLimit = 1 }, nil},
		{"queueLengthLimit -1", func(o *flowcontrolv1.PriorityLevelConfiguration) { queuing(o).QueueLengthLimit = -1 }, []te{{inv, pQLL}}},
		{"queues 1 handSize 1 ok", setQH(1, 1), nil},
		{"queues -1", setQH(-1, 1), []te{{inv, pQueues}, {inv, pHandSize}}},
		{"queues 10,000,000 ok", setQH(10_000_000, 2), nil},
		{"queues 10,000,001", setQH(10_000_001, 2), []te{{inv, pQueues}}},
		{"handSize -1", setQH(64, -1), []te{{inv, pHandSize}}},
		{"handSize == queues ok", setQH(4, 4), nil},
		{"handSize > queues", setQH(4, 5), []te{{inv, pHandSize}}},
		{"queues 64 handSize 10 ok (60 bits)", setQH(64, 10), nil},
		{"queues 64 handSize 11 (66 bits)", setQH(64, 11), []te{{inv, pHandSize}}},
		{"queues 128 handSize 8 ok", setQH(128, 8), nil},
		{"queues 128 handSize 9", setQH(128, 9), []te{{inv, pHandSize}}},
		{"queues 100 handSize 9 ok (non power of two)", setQH(100, 9), nil},
		{"queues 100 handSize 10", setQH(100, 10), []te{{inv, pHandSize}}},
		{"queues 15 handSize 15 ok", setQH(15, 15), nil},
		{"queues 16 handSize 15 ok", setQH(16, 15), nil},
		{"queues 16 handSize 16 (H>=16 never valid)", setQH(16, 16), []te{{inv, pHandSize}}},
		{"queues 10,000,000 handSize 16", setQH(10_000_000, 16), []te{{inv, pHandSize}}},
		{"queues 1,048,576 handSize 3 ok", setQH(1_048_576, 3), nil},
		{"queues 1,048,577 handSize 3", setQH(1_048_577, 3), []te{{inv, pHandSize}}},
		{"queues 10,000,000 handSize 3", setQH(10_000_000, 3), []te{{inv, pHandSize}}},
		{"queues 10,000,000 default handSize 8", setQH(10_000_000, 0), []te{{inv, pHandSize}}},
		{"queues 4 default handSize 8", setQH(4, 0), []te{{inv, pHandSize}}},

		// mandatory catch-all
		{"catch-all bootstrap spec ok", catchAll, nil},
		{"catch-all with lendablePercent omitted ok", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			catchAll(o)
			o.Spec.Limited.LendablePercent = nil
		}, nil},
		{"catch-all with nominalConcurrencyShares omitted (defaults to 30)", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			catchAll(o)
			o.Spec.Limited.NominalConcurrencyShares = nil
		}, []te{{inv, "spec"}}},
		{"catch-all with borrowingLimitPercent", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			catchAll(o)
			o.Spec.Limited.BorrowingLimitPercent = p32(100)
		}, []te{{inv, "spec"}}},
		{"catch-all queued", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Name = "catch-all"
			o.Spec.Limited.NominalConcurrencyShares = p32(5)
		}, []te{{inv, "spec"}}},

		// mandatory exempt
		{"exempt bootstrap spec ok", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Name = "exempt"
			o.Spec, _ = BootstrapSpec("exempt")
		}, nil},
		{"exempt without spec.exempt ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { exemptSpec(o); o.Name = "exempt" }, nil},
		{"exempt with changed spec.exempt ok", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			exemptSpec(o)
			o.Name = "exempt"
			o.Spec.Exempt = &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: p32(10), LendablePercent: p32(100)}
		}, nil},
		{"exempt nominalConcurrencyShares -1", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			exemptSpec(o)
			o.Name = "exempt"
			o.Spec.Exempt = &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: p32(-1)}
		}, []te{{inv, "spec.exempt.nominalConcurrencyShares"}}},
		{"exempt lendablePercent 101", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			exemptSpec(o)
			o.Name = "exempt"
			o.Spec.Exempt = &flowcontrolv1.ExemptPriorityLevelConfiguration{LendablePercent: p32(101)}
		}, []te{{inv, "spec.exempt.lendablePercent"}}},
		{"user Exempt level with bad exempt values", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			exemptSpec(o)
			o.Spec.Exempt = &flowcontrolv1.ExemptPriorityLevelConfiguration{LendablePercent: p32(-1)}
		}, []te{{inv, "spec.type"}, {inv, "spec.exempt.lendablePercent"}}},

		// suggested names: no server-side spec rule
		{"suggested name with custom spec ok", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Name = "workload-low" }, nil},
		// autoupdate annotation: not a server rule
		{"autoupdate annotation on user level passes Validate", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Annotations = map[string]string{AutoUpdateAnnotation: "true"}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := baseQueued()
			tc.mutate(o)
			SetObjectDefaults_PriorityLevelConfiguration(o)
			errs := ValidatePriorityLevelConfiguration(o)
			g, w := got(errs), want(tc.want...)
			if strings.Join(g, ",") != strings.Join(w, ",") {
				t.Fatalf("got %v\nwant %v\nerrors: %v", g, w, errs)
			}
		})
	}
}

func TestValidateMessages(t *testing.T) {
	cases := []struct {
		q, h int32
		msg  string
	}{
		{4, 5, "should not be greater than queues (4)"},
		{32, 40, "should not be greater than queues (32); the largest legal handSize for queues 32 is 12"},
		{64, 11, "required entropy bits of deckSize 64 and handSize 11 should not be greater than 60; the largest legal handSize for queues 64 is 10"},
	}
	for _, tc := range cases {
		o := baseQueued()
		setQH(tc.q, tc.h)(o)
		SetObjectDefaults_PriorityLevelConfiguration(o)
		errs := ValidatePriorityLevelConfiguration(o)
		if len(errs) != 1 || errs[0].Detail != tc.msg {
			t.Errorf("queues %d handSize %d: got %v, want detail %q", tc.q, tc.h, errs, tc.msg)
		}
	}

	o := baseQueued()
	o.Name = "catch-all"
	SetObjectDefaults_PriorityLevelConfiguration(o)
	if errs := ValidatePriorityLevelConfiguration(o); len(errs) != 1 || errs[0].Detail != "spec of 'catch-all' must equal the fixed value" {
		t.Errorf("catch-all: %v", errs)
	}
	o = baseQueued()
	o.Name = "exempt"
	SetObjectDefaults_PriorityLevelConfiguration(o)
	errs := ValidatePriorityLevelConfiguration(o)
	found := false
	for _, e := range errs {
		if e.Field == "spec" && e.Detail == "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value" {
			found = true
		}
	}
	if !found {
		t.Errorf("exempt: %v", errs)
	}
	o = baseQueued()
	o.Annotations = map[string]string{PreserveZeroConcurrencySharesAnnotation: "true"}
	SetObjectDefaults_PriorityLevelConfiguration(o)
	if errs := ValidatePriorityLevelConfiguration(o); len(errs) != 1 || errs[0].Detail != "annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' is forbidden" {
		t.Errorf("preserve-zero: %v", errs)
	}
}

func TestMaxHandSize(t *testing.T) {
	table := map[int32]int32{
		-1: 0, 0: 0, 1: 1, 2: 2, 4: 4, 8: 8, 15: 15, 16: 15, 32: 12, 64: 10, 100: 9, 128: 8, 256: 7,
		512: 6, 1000: 6, 1024: 6, 4096: 5, 32768: 4, 65536: 3, 1_048_576: 3, 1_048_577: 2,
		8_388_608: 2, 10_000_000: 2,
	}
	for q, w := range table {
		if g := MaxHandSize(q); g != w {
			t.Errorf("MaxHandSize(%d) = %d, want %d", q, g, w)
		}
	}
	// Largest legal queues per handSize (the shuffle-sharding entropy bound of
	// k8s.io/apiserver v0.37.2 pkg/util/shufflesharding, ValidateParameters).
	maxQ := map[int32]int32{3: 1_048_576, 4: 32_768, 5: 4_096, 6: 1_024, 7: 380, 8: 181, 9: 101, 10: 64, 11: 43, 12: 32, 13: 24, 14: 19, 15: 16}
	for h, q := range maxQ {
		if MaxHandSize(q) < h {
			t.Errorf("queues %d should allow handSize %d", q, h)
		}
		if MaxHandSize(q+1) >= h {
			t.Errorf("queues %d should not allow handSize %d", q+1, h)
		}
	}
	// Consistency with ValidatePriorityLevelConfiguration over a range of queues.
	for _, q := range []int32{1, 2, 3, 5, 7, 9, 15, 16, 17, 31, 33, 63, 65, 101, 102, 181, 182, 380, 381, 1_000_000, 10_000_000} {
		mh := MaxHandSize(q)
		o := baseQueued()
		setQH(q, mh)(o)
		SetObjectDefaults_PriorityLevelConfiguration(o)
		if errs := ValidatePriorityLevelConfiguration(o); len(errs) != 0 {
			t.Errorf("queues %d handSize %d should be valid: %v", q, mh, errs)
		}
		o = baseQueued()
		setQH(q, mh+1)(o)
		SetObjectDefaults_PriorityLevelConfiguration(o)
		if errs := ValidatePriorityLevelConfiguration(o); len(errs) != 1 || errs[0].Field != pHandSize {
			t.Errorf("queues %d handSize %d should be invalid on handSize: %v", q, mh+1, errs)
		}
	}
}

func TestValidateExplicitZeros(t *testing.T) {
	o := baseQueued() // queuing {} : all three are 0
	errs := ValidateExplicitZeros(o)
	if g, w := got(errs), want(te{inv, pQueues}, te{inv, pHandSize}, te{inv, pQLL}); strings.Join(g, ",") != strings.Join(w, ",") {
		t.Fatalf("got %v want %v", g, w)
	}
	for _, e := range errs {
		if !strings.Contains(e.Detail, "silently replaces 0 with its default") || !strings.Contains(e.Detail, "omit the field or set a positive value") {
			t.Errorf("detail: %q", e.Detail)
		}
	}
	if !strings.Contains(errs.ToAggregate().Error(), "(64)") || !strings.Contains(errs.ToAggregate().Error(), "(8)") || !strings.Contains(errs.ToAggregate().Error(), "(50)") {
		t.Errorf("defaults not mentioned: %v", errs)
	}
	setQH(32, 4)(o)
	queuing(o).QueueLengthLimit = 10
	if errs := ValidateExplicitZeros(o); len(errs) != 0 {
		t.Errorf("positive values: %v", errs)
	}
	o = baseQueued()
	if errs := ValidateExplicitZerosFor(o, ExplicitQueuingFields{HandSize: true}); len(errs) != 1 || errs[0].Field != pHandSize {
		t.Errorf("only handSize explicit: %v", errs)
	}
	o.Spec.Limited.LimitResponse = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}
	if errs := ValidateExplicitZeros(o); len(errs) != 0 {
		t.Errorf("no queuing: %v", errs)
	}
	if errs := ValidateExplicitZeros(nil); errs != nil {
		t.Errorf("nil: %v", errs)
	}
}

func TestValidateProviderRules(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(o *flowcontrolv1.PriorityLevelConfiguration)
		want   []te
	}{
		{"plain ok", func(o *flowcontrolv1.PriorityLevelConfiguration) {}, nil},
		{"namespace", func(o *flowcontrolv1.PriorityLevelConfiguration) { o.Namespace = "default" }, []te{{forb, "metadata.namespace"}}},
		{"autoupdate true on user level", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Annotations = map[string]string{AutoUpdateAnnotation: "true"}
		}, []te{{forb, "metadata.annotations[apf.kubernetes.io/autoupdate-spec]"}}},
		{"autoupdate TRUE (ParseBool) on user level", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Annotations = map[string]string{AutoUpdateAnnotation: "1"}
		}, []te{{forb, "metadata.annotations[apf.kubernetes.io/autoupdate-spec]"}}},
		{"autoupdate false on user level ok", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Annotations = map[string]string{AutoUpdateAnnotation: "false"}
		}, nil},
		{"autoupdate malformed on user level ok (ensurer skips it)", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Annotations = map[string]string{AutoUpdateAnnotation: "yes"}
		}, nil},
		{"autoupdate true on suggested level ok", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Name = "global-default"
			o.Annotations = map[string]string{AutoUpdateAnnotation: "true"}
		}, nil},
		{"autoupdate true on mandatory level ok", func(o *flowcontrolv1.PriorityLevelConfiguration) {
			o.Name = "catch-all"
			o.Annotations = map[string]string{AutoUpdateAnnotation: "true"}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := baseQueued()
			tc.mutate(o)
			errs := ValidateProviderRules(o)
			if g, w := got(errs), want(tc.want...); strings.Join(g, ",") != strings.Join(w, ",") {
				t.Fatalf("got %v want %v", g, w)
			}
			for _, e := range errs {
				if e.Field != "metadata.namespace" && !strings.Contains(e.Detail, "deletes non-bootstrap priority levels") {
					t.Errorf("detail: %q", e.Detail)
				}
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	objs := []*flowcontrolv1.PriorityLevelConfiguration{baseQueued()}
	for _, n := range append(append([]string{}, MandatoryLevels...), SuggestedLevels...) {
		s, _ := BootstrapSpec(n)
		objs = append(objs, &flowcontrolv1.PriorityLevelConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{"app.kubernetes.io/name": "x"}},
			Spec:       s,
		})
	}
	for _, o := range objs {
		SetObjectDefaults_PriorityLevelConfiguration(o)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, o := range objs {
			if errs := ValidatePriorityLevelConfiguration(o); len(errs) != 0 {
				b.Fatal(errs)
			}
		}
	}
}
