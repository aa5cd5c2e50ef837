package flowschema_test

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
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema"
	fsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema/rules"
)

// parityCase is one generated object. Objects named like a mandatory schema are checked with a
// dry-run update of the existing object (a create would only say AlreadyExists); all others
// with a dry-run create under a name no bootstrap object uses.
type parityCase struct {
	desc string
	obj  *flowcontrolv1.FlowSchema
	// want is what the generator meant; a case where provider and server agree with each other
	// but not with want is logged, not failed.
	want bool
}

// TestAccFlowSchema_parity checks the provider's plan-time validation against the real API
// server on a generated corpus: every FlowSchema rule with its just-valid and just-invalid
// values, on several valid bases, plus the mandatory schemas.
func TestAccFlowSchema_parity(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	t.Parallel()
	cases := fsCorpus()
	if len(cases) < 200 {
		t.Fatalf("corpus has %d objects, want at least 200", len(cases))
	}
	acctest.RunParity(t, parityCases(c.Dynamic().Resource(flowschema.Kind.GVR()), cases))
}

// ---- corpus ----

type fsBase struct {
	name string
	make func(name string) *flowcontrolv1.FlowSchema
}

func groupSubject(n string) flowcontrolv1.Subject {
	return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: n}}
}

func userSubject(n string) flowcontrolv1.Subject {
	return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: n}}
}

func saSubject(ns, n string) flowcontrolv1.Subject {
	return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindServiceAccount, ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: ns, Name: n}}
}

func schema(name, level string, precedence int32, dm flowcontrolv1.FlowDistinguisherMethodType, rules ...flowcontrolv1.PolicyRulesWithSubjects) *flowcontrolv1.FlowSchema {
	o := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
			MatchingPrecedence:         precedence,
			Rules:                      rules,
		},
	}
	if dm != "" {
		o.Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: dm}
	}
	return o
}

// narrowRule is a valid rule with every kind of subject and specific rules.
func narrowRule() flowcontrolv1.PolicyRulesWithSubjects {
	return flowcontrolv1.PolicyRulesWithSubjects{
		Subjects: []flowcontrolv1.Subject{userSubject("alice"), saSubject("inference", "router")},
		ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
			Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"leaderworkerset.x-k8s.io", ""},
			Resources: []string{"leaderworkersets", "pods"}, Namespaces: []string{"inference", "default"},
		}},
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics", "/healthz/*"}}},
	}
}

var fsBases = []fsBase{
	{"everything", func(n string) *flowcontrolv1.FlowSchema {
		return schema(n, "workload-low", 5000, flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: []flowcontrolv1.Subject{groupSubject("inference-clients")},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
				Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}, ClusterScope: true,
			}},
			NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
		})
	}},
	{"narrow", func(n string) *flowcontrolv1.FlowSchema {
		return schema(n, "parity-level", 0, flowcontrolv1.FlowDistinguisherMethodByNamespaceType, narrowRule())
	}},
	{"no-rules", func(n string) *flowcontrolv1.FlowSchema {
		return schema(n, "global-default", 200, "")
	}},
	{"cluster-scope", func(n string) *flowcontrolv1.FlowSchema {
		return schema(n, "workload-high", 10000, "", flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: []flowcontrolv1.Subject{saSubject("kube-system", "*")},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
				Verbs: []string{"create"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ClusterScope: true,
			}},
		}, narrowRule())
	}},
}

type fsMutation struct {
	desc string
	want bool
	fn   func(o *flowcontrolv1.FlowSchema)
}

// rule returns the first rule, adding a valid one to a schema without rules.
func rule(o *flowcontrolv1.FlowSchema) *flowcontrolv1.PolicyRulesWithSubjects {
	if len(o.Spec.Rules) == 0 {
		o.Spec.Rules = []flowcontrolv1.PolicyRulesWithSubjects{narrowRule()}
	}
	return &o.Spec.Rules[0]
}

// resRule returns the first resource rule of the first rule, adding one if needed.
func resRule(o *flowcontrolv1.FlowSchema) *flowcontrolv1.ResourcePolicyRule {
	r := rule(o)
	if len(r.ResourceRules) == 0 {
		r.ResourceRules = narrowRule().ResourceRules
	}
	return &r.ResourceRules[0]
}

// nonResRule returns the first non-resource rule of the first rule, adding one if needed.
func nonResRule(o *flowcontrolv1.FlowSchema) *flowcontrolv1.NonResourcePolicyRule {
	r := rule(o)
	if len(r.NonResourceRules) == 0 {
		r.NonResourceRules = narrowRule().NonResourceRules
	}
	return &r.NonResourceRules[0]
}

func long(n int) string { return strings.Repeat("a", n) }

func metaMutations() []fsMutation {
	setName := func(n string) func(o *flowcontrolv1.FlowSchema) {
		return func(o *flowcontrolv1.FlowSchema) { o.Name = n }
	}
	annotate := func(k, v string) func(o *flowcontrolv1.FlowSchema) {
		return func(o *flowcontrolv1.FlowSchema) { o.Annotations = map[string]string{k: v} }
	}
	label := func(k, v string) func(o *flowcontrolv1.FlowSchema) {
		return func(o *flowcontrolv1.FlowSchema) { o.Labels = map[string]string{k: v} }
	}
	finalizer := func(f string) func(o *flowcontrolv1.FlowSchema) {
		return func(o *flowcontrolv1.FlowSchema) { o.Finalizers = []string{f} }
	}
	return []fsMutation{
		{"name: 1 char", true, setName("f")},
		{"name: dotted subdomain", true, setName("parity.fs.example")},
		{"name: 253 chars", true, setName("parity-" + long(246))},
		{"name: 254 chars", false, setName("parity-" + long(247))},
		{"name: upper case", false, setName("Parity-Upper")},
		{"name: leading dash", false, setName("-parity")},
		{"name: underscore", false, setName("parity_fs")},
		{"name: empty", false, setName("")},
		{"generateName: valid", true, func(o *flowcontrolv1.FlowSchema) { o.Name, o.GenerateName = "", "parity-gen-" }},
		{"generateName: upper case", false, func(o *flowcontrolv1.FlowSchema) { o.Name, o.GenerateName = "", "Parity-Gen-" }},
		{"namespace: set (the server drops it)", true, func(o *flowcontrolv1.FlowSchema) { o.Namespace = "default" }},
		{"label: value 63 chars", true, label("team", long(63))},
		{"label: value 64 chars", false, label("team", long(64))},
		{"label: key with space", false, label("bad key", "x")},
		{"annotation: total 262144 bytes", true, annotate("a", long(262143))},
		{"annotation: total 262145 bytes", false, annotate("a", long(262144))},
		{"annotation: key with space", false, annotate("bad key", "x")},
		// the PriorityLevelConfiguration-only forbidden annotation is fine on a FlowSchema
		{"annotation: preserve-zero-concurrency-shares", true, annotate("flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares", "")},
		{"finalizer: qualified", true, finalizer("example.com/keep")},
		{"finalizer: unqualified", false, finalizer("keep")},
	}
}

func specMutations() []fsMutation {
	var out []fsMutation
	add := func(desc string, want bool, fn func(o *flowcontrolv1.FlowSchema)) {
		out = append(out, fsMutation{desc, want, fn})
	}

	for _, v := range []int32{math.MinInt32, -1, 0, 1, 2, 9999, 10000, 10001, math.MaxInt32} {
		add(fmt.Sprintf("matchingPrecedence %d", v), v == 0 || (v >= 2 && v <= 10000), func(o *flowcontrolv1.FlowSchema) { o.Spec.MatchingPrecedence = v })
	}
	for _, v := range []string{"ByUser", "ByNamespace", "", "ByGroup", "byuser"} {
		add(fmt.Sprintf("distinguisherMethod %q", v), v == "ByUser" || v == "ByNamespace", func(o *flowcontrolv1.FlowSchema) {
			o.Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodType(v)}
		})
	}
	add("distinguisherMethod unset", true, func(o *flowcontrolv1.FlowSchema) { o.Spec.DistinguisherMethod = nil })
	for _, c := range []struct {
		v    string
		want bool
	}{{"", false}, {"a", true}, {"exempt", true}, {"catch-all", true}, {"does-not-exist", true}, {"Bad_Name", false}, {"x..y", false},
		{long(253), true}, {long(254), false}} {
		add(fmt.Sprintf("priorityLevelConfiguration.name %.20q", c.v), c.want, func(o *flowcontrolv1.FlowSchema) { o.Spec.PriorityLevelConfiguration.Name = c.v })
	}
	add("rules: none", true, func(o *flowcontrolv1.FlowSchema) { o.Spec.Rules = nil })
	add("rules: second rule invalid", false, func(o *flowcontrolv1.FlowSchema) {
		rule(o)
		bad := narrowRule()
		bad.Subjects = nil
		o.Spec.Rules = append(o.Spec.Rules, bad)
	})
	add("rule: no subjects", false, func(o *flowcontrolv1.FlowSchema) { rule(o).Subjects = nil })
	add("rule: no resource and no non-resource rules", false, func(o *flowcontrolv1.FlowSchema) {
		r := rule(o)
		r.ResourceRules, r.NonResourceRules = nil, nil
	})
	add("rule: only non-resource rules", true, func(o *flowcontrolv1.FlowSchema) { rule(o).ResourceRules = nil; nonResRule(o) })
	add("rule: only resource rules", true, func(o *flowcontrolv1.FlowSchema) { rule(o).NonResourceRules = nil; resRule(o) })

	// subjects
	subj := func(desc string, want bool, s flowcontrolv1.Subject) {
		add("subject: "+desc, want, func(o *flowcontrolv1.FlowSchema) { rule(o).Subjects = []flowcontrolv1.Subject{s} })
	}
	subj("User", true, userSubject("alice"))
	subj("User without user", false, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser})
	subj("User with empty name", false, userSubject(""))
	subj("User with any name", true, userSubject("system:serviceaccount:Any Thing"))
	subj("User with group too", false, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "a"}, Group: &flowcontrolv1.GroupSubject{Name: "g"}})
	subj("User with serviceAccount too", false, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "a"},
		ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: "default", Name: "x"}})
	subj("Group", true, groupSubject("system:authenticated"))
	subj("Group without group", false, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup})
	subj("Group with empty name", false, groupSubject(""))
	subj("Group with user too", false, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: "g"}, User: &flowcontrolv1.UserSubject{Name: "a"}})
	subj("ServiceAccount all", true, saSubject("kube-system", "*"))
	subj("ServiceAccount named", true, saSubject("default", "builder"))
	subj("ServiceAccount name 253 chars", true, saSubject("default", long(253)))
	subj("ServiceAccount name 254 chars", false, saSubject("default", long(254)))
	subj("ServiceAccount bad name", false, saSubject("default", "Bad_Name"))
	subj("ServiceAccount empty name", false, saSubject("default", ""))
	subj("ServiceAccount empty namespace", false, saSubject("", "builder"))
	subj("ServiceAccount namespace 63 chars", true, saSubject(long(63), "builder"))
	subj("ServiceAccount namespace 64 chars", false, saSubject(long(64), "builder"))
	subj("ServiceAccount bad namespace", false, saSubject("Bad_NS", "builder"))
	subj("ServiceAccount dotted namespace", false, saSubject("a.b", "builder"))
	subj("ServiceAccount without serviceAccount", false, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindServiceAccount})
	subj("ServiceAccount with group too", false, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindServiceAccount,
		ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: "default", Name: "x"}, Group: &flowcontrolv1.GroupSubject{Name: "g"}})
	subj("kind empty", false, flowcontrolv1.Subject{User: &flowcontrolv1.UserSubject{Name: "a"}})
	subj("kind unknown", false, flowcontrolv1.Subject{Kind: "Robot", User: &flowcontrolv1.UserSubject{Name: "a"}})
	subj("kind lower case", false, flowcontrolv1.Subject{Kind: "group", Group: &flowcontrolv1.GroupSubject{Name: "g"}})

	// verbs (both rule kinds)
	verbCases := []struct {
		v    []string
		want bool
	}{{nil, false}, {[]string{"*"}, true}, {[]string{"*", "get"}, false}, {[]string{"get", "bogus"}, false}, {[]string{"GET"}, false},
		{[]string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}, true}, {[]string{""}, false}}
	for _, c := range verbCases {
		add(fmt.Sprintf("resourceRule verbs %q", c.v), c.want, func(o *flowcontrolv1.FlowSchema) { resRule(o).Verbs = c.v })
		add(fmt.Sprintf("nonResourceRule verbs %q", c.v), c.want, func(o *flowcontrolv1.FlowSchema) { nonResRule(o).Verbs = c.v })
	}
	list := func(desc string, want bool, v []string, set func(r *flowcontrolv1.ResourcePolicyRule, v []string)) {
		add(fmt.Sprintf("resourceRule %s %q", desc, v), want, func(o *flowcontrolv1.FlowSchema) { set(resRule(o), v) })
	}
	groups := func(r *flowcontrolv1.ResourcePolicyRule, v []string) { r.APIGroups = v }
	resources := func(r *flowcontrolv1.ResourcePolicyRule, v []string) { r.Resources = v }
	list("apiGroups", false, nil, groups)
	list("apiGroups", true, []string{"*"}, groups)
	list("apiGroups", false, []string{"*", "apps"}, groups)
	list("apiGroups", true, []string{""}, groups)
	list("apiGroups", true, []string{"Not A Group"}, groups) // not checked by the server either
	list("resources", false, nil, resources)
	list("resources", true, []string{"*"}, resources)
	list("resources", false, []string{"pods", "*"}, resources)
	list("resources", true, []string{"pods/status", "pods/log"}, resources)
	for _, c := range []struct {
		ns           []string
		clusterScope bool
		want         bool
	}{
		{nil, false, false}, {nil, true, true}, {[]string{"*"}, false, true}, {[]string{"*", "default"}, false, false},
		{[]string{"default", "kube-system"}, false, true}, {[]string{"Bad_NS"}, false, false}, {[]string{long(63)}, false, true},
		{[]string{long(64)}, true, false}, {[]string{""}, false, false}, {[]string{"a.b"}, false, false}, {[]string{"ok", "-bad"}, true, false},
	} {
		add(fmt.Sprintf("resourceRule namespaces %.30q clusterScope %v", c.ns, c.clusterScope), c.want, func(o *flowcontrolv1.FlowSchema) {
			r := resRule(o)
			r.Namespaces, r.ClusterScope = c.ns, c.clusterScope
		})
	}
	for _, c := range []struct {
		urls []string
		want bool
	}{
		{nil, false}, {[]string{"*"}, true}, {[]string{"*", "/healthz"}, false}, {[]string{""}, false}, {[]string{"healthz"}, false},
		{[]string{"/"}, true}, {[]string{"/a b"}, false}, {[]string{"//a"}, false}, {[]string{"/a/*"}, true}, {[]string{"/a*"}, false},
		{[]string{"/*/a"}, false}, {[]string{"/a/**"}, false}, {[]string{"/*"}, true}, {[]string{"/healthz/"}, true},
		{[]string{"/metrics", "/livez", "/readyz"}, true}, {[]string{"/ok", "bad"}, false},
	} {
		add(fmt.Sprintf("nonResourceRule URLs %q", c.urls), c.want, func(o *flowcontrolv1.FlowSchema) { nonResRule(o).NonResourceURLs = c.urls })
	}
	add("everything broken at once", false, func(o *flowcontrolv1.FlowSchema) {
		o.Spec.MatchingPrecedence = -5
		o.Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: "x"}
		o.Spec.PriorityLevelConfiguration.Name = ""
		o.Spec.Rules = []flowcontrolv1.PolicyRulesWithSubjects{{
			Subjects:         []flowcontrolv1.Subject{{Kind: "x"}, {Kind: flowcontrolv1.SubjectKindServiceAccount}},
			ResourceRules:    []flowcontrolv1.ResourcePolicyRule{{}},
			NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{}, {Verbs: []string{"get"}, NonResourceURLs: []string{"x", "/y", "//z"}}},
		}}
	})
	return out
}

// mandatoryCases are objects named exempt and catch-all, checked by dry-run updates.
func mandatoryCases() []parityCase {
	var out []parityCase
	add := func(name, desc string, want bool, edit func(o *flowcontrolv1.FlowSchema)) {
		s, _ := fsrules.BootstrapSpec(name)
		o := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: s}
		edit(o)
		out = append(out, parityCase{desc: name + ": " + desc, obj: o, want: want})
	}
	for _, n := range fsrules.MandatorySchemas {
		add(n, "built-in spec", true, func(*flowcontrolv1.FlowSchema) {})
		add(n, "label", true, func(o *flowcontrolv1.FlowSchema) { o.Labels = map[string]string{"team": "inference"} })
		add(n, "bad label", false, func(o *flowcontrolv1.FlowSchema) { o.Labels = map[string]string{"team": "-x"} })
		add(n, "precedence changed", false, func(o *flowcontrolv1.FlowSchema) { o.Spec.MatchingPrecedence = 9000 })
		add(n, "precedence 0 (defaults to 1000)", false, func(o *flowcontrolv1.FlowSchema) { o.Spec.MatchingPrecedence = 0 })
		add(n, "priority level changed", false, func(o *flowcontrolv1.FlowSchema) { o.Spec.PriorityLevelConfiguration.Name = "workload-low" })
		add(n, "distinguisher ByNamespace", false, func(o *flowcontrolv1.FlowSchema) {
			o.Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByNamespaceType}
		})
		add(n, "extra subject", false, func(o *flowcontrolv1.FlowSchema) {
			o.Spec.Rules[0].Subjects = append(o.Spec.Rules[0].Subjects, groupSubject("extra"))
		})
		add(n, "rules removed", false, func(o *flowcontrolv1.FlowSchema) { o.Spec.Rules = nil })
		add(n, "invalid and changed", false, func(o *flowcontrolv1.FlowSchema) {
			o.Spec.Rules[0].NonResourceRules[0].NonResourceURLs = []string{"bad"}
		})
	}
	add("exempt", "precedence 1 kept", true, func(o *flowcontrolv1.FlowSchema) { o.Spec.MatchingPrecedence = 1 })
	add("catch-all", "precedence 1", false, func(o *flowcontrolv1.FlowSchema) { o.Spec.MatchingPrecedence = 1 })
	return out
}

func fsCorpus() []parityCase {
	var cases []parityCase
	for bi, b := range fsBases {
		cases = append(cases, parityCase{desc: b.name + ": unchanged", obj: b.make(fmt.Sprintf("parity-fs-%d-base", bi)), want: true})
	}
	i := 0
	for _, muts := range [][]fsMutation{metaMutations(), specMutations()} {
		for bi, b := range fsBases {
			for _, m := range muts {
				i++
				o := b.make(fmt.Sprintf("parity-fs-%d-%04d", bi, i))
				m.fn(o)
				cases = append(cases, parityCase{desc: b.name + ": " + m.desc, obj: o, want: m.want})
			}
		}
	}
	// a metadata rule and a spec rule at once: both errors must be reported
	meta := metaMutations()
	for k, a := range specMutations() {
		b := meta[(k*7)%len(meta)]
		i++
		o := fsBases[1].make(fmt.Sprintf("parity-fs-pair-%04d", i))
		a.fn(o)
		b.fn(o)
		cases = append(cases, parityCase{desc: "pair: " + a.desc + " + " + b.desc, obj: o, want: a.want && b.want})
	}
	return append(cases, mandatoryCases()...)
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

func providerVerdict(o *flowcontrolv1.FlowSchema) acctest.Verdict {
	d := o.DeepCopy()
	fsrules.SetObjectDefaults_FlowSchema(d)
	return acctest.VerdictFromFieldErrors(fsrules.ValidateFlowSchema(d))
}

// serverVerdict dry-runs a create, or for a mandatory name an update of the existing object.
func serverVerdict(ctx context.Context, ri dynamic.ResourceInterface, o *flowcontrolv1.FlowSchema) (acctest.Verdict, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return acctest.Verdict{}, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(flowschema.Kind.GVK.GroupVersion().String())
	u.SetKind(flowschema.Kind.GVK.Kind)
	dryRun := []string{metav1.DryRunAll}
	if !fsrules.IsMandatory(o.Name) {
		_, err = ri.Create(ctx, u, metav1.CreateOptions{DryRun: dryRun})
	} else {
		var readErr error
		if err, readErr = acctest.DryRunReplace(ctx, ri, u); readErr != nil {
			return acctest.Verdict{}, readErr
		}
	}
	return acctest.VerdictFromError(err)
}
