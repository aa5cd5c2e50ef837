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

var (
	req  = field.ErrorTypeRequired
	inv  = field.ErrorTypeInvalid
	ns   = field.ErrorTypeNotSupported
	forb = field.ErrorTypeForbidden
)

// base is a valid user flow schema; matchingPrecedence 0 gets defaulted.
func base() *flowcontrolv1.FlowSchema {
	return &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "my-schema"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "my-level"},
			DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "alice"}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
					Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}, Namespaces: []string{"default"},
				}},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{
					Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"},
				}},
			}},
		},
	}
}

type fs = flowcontrolv1.FlowSchema

func rule0(o *fs) *flowcontrolv1.PolicyRulesWithSubjects { return &o.Spec.Rules[0] }
func rr0(o *fs) *flowcontrolv1.ResourcePolicyRule        { return &o.Spec.Rules[0].ResourceRules[0] }
func nr0(o *fs) *flowcontrolv1.NonResourcePolicyRule     { return &o.Spec.Rules[0].NonResourceRules[0] }
func subj0(o *fs) *flowcontrolv1.Subject                 { return &o.Spec.Rules[0].Subjects[0] }

func sa(ns, name string) func(o *fs) {
	return func(o *fs) {
		*subj0(o) = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindServiceAccount, ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: ns, Name: name}}
	}
}

func nurl(urls ...string) func(o *fs) { return func(o *fs) { nr0(o).NonResourceURLs = urls } }

const (
	r0   = "spec.rules[0]"
	s0   = "spec.rules[0].subjects[0]"
	rrp  = "spec.rules[0].resourceRules[0]"
	nrp  = "spec.rules[0].nonResourceRules[0]"
	prec = "spec.matchingPrecedence"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(o *fs)
		want   []te
	}{
		{"valid", func(o *fs) {}, nil},

		// metadata
		{"name missing", func(o *fs) { o.Name = "" }, []te{{req, "metadata.name"}}},
		{"name invalid", func(o *fs) { o.Name = "My Schema" }, []te{{inv, "metadata.name"}}},
		{"name 253 ok", func(o *fs) { o.Name = strings.Repeat("s", 253) }, nil},
		{"name 254", func(o *fs) { o.Name = strings.Repeat("s", 254) }, []te{{inv, "metadata.name"}}},
		{"namespace dropped by server", func(o *fs) { o.Namespace = "kube-system" }, nil},
		{"labels ok", func(o *fs) { o.Labels = map[string]string{"a.b/c": "d"} }, nil},
		{"label invalid", func(o *fs) { o.Labels = map[string]string{"a": "-bad-"} }, []te{{inv, "metadata.labels"}}},
		{"annotation key invalid", func(o *fs) { o.Annotations = map[string]string{"/x": "v"} }, []te{{inv, "metadata.annotations"}}},
		{"preserve-zero annotation is fine on FlowSchema", func(o *fs) {
			o.Annotations = map[string]string{"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares": "true"}
		}, nil},

		// matchingPrecedence
		{"precedence default 1000 ok", func(o *fs) { o.Spec.MatchingPrecedence = 0 }, nil},
		{"precedence 2 ok", func(o *fs) { o.Spec.MatchingPrecedence = 2 }, nil},
		{"precedence 10000 ok", func(o *fs) { o.Spec.MatchingPrecedence = 10000 }, nil},
		{"precedence 10001", func(o *fs) { o.Spec.MatchingPrecedence = 10001 }, []te{{inv, prec}}},
		{"precedence -1", func(o *fs) { o.Spec.MatchingPrecedence = -1 }, []te{{inv, prec}}},
		{"precedence 1 on non-exempt", func(o *fs) { o.Spec.MatchingPrecedence = 1 }, []te{{inv, prec}}},

		// distinguisherMethod
		{"distinguisher nil ok", func(o *fs) { o.Spec.DistinguisherMethod = nil }, nil},
		{"distinguisher ByNamespace ok", func(o *fs) { o.Spec.DistinguisherMethod.Type = flowcontrolv1.FlowDistinguisherMethodByNamespaceType }, nil},
		{"distinguisher unsupported", func(o *fs) { o.Spec.DistinguisherMethod.Type = "ByGroup" }, []te{{ns, "spec.distinguisherMethod.type"}}},
		{"distinguisher empty type", func(o *fs) { o.Spec.DistinguisherMethod.Type = "" }, []te{{ns, "spec.distinguisherMethod.type"}}},

		// priorityLevelConfiguration.name
		{"plc name missing", func(o *fs) { o.Spec.PriorityLevelConfiguration.Name = "" }, []te{{req, "spec.priorityLevelConfiguration.name"}}},
		{"plc name invalid", func(o *fs) { o.Spec.PriorityLevelConfiguration.Name = "Level_1" }, []te{{inv, "spec.priorityLevelConfiguration.name"}}},
		{"plc name with dots ok", func(o *fs) { o.Spec.PriorityLevelConfiguration.Name = "a.b" }, nil},

		// rules
		{"no rules ok", func(o *fs) { o.Spec.Rules = nil }, nil},
		{"subjects missing", func(o *fs) { rule0(o).Subjects = nil }, []te{{req, r0 + ".subjects"}}},
		{"no resource or non-resource rules", func(o *fs) { rule0(o).ResourceRules = nil; rule0(o).NonResourceRules = nil }, []te{{req, r0}}},
		{"only non-resource rules ok", func(o *fs) { rule0(o).ResourceRules = nil }, nil},
		{"only resource rules ok", func(o *fs) { rule0(o).NonResourceRules = nil }, nil},

		// subjects
		{"kind unsupported", func(o *fs) { subj0(o).Kind = "Robot" }, []te{{ns, s0 + ".kind"}}},
		{"kind empty", func(o *fs) { subj0(o).Kind = "" }, []te{{ns, s0 + ".kind"}}},
		{"user missing", func(o *fs) { subj0(o).User = nil }, []te{{req, s0 + ".user"}}},
		{"user name empty", func(o *fs) { subj0(o).User.Name = "" }, []te{{req, s0 + ".user.name"}}},
		{"user with group", func(o *fs) { subj0(o).Group = &flowcontrolv1.GroupSubject{Name: "g"} }, []te{{forb, s0 + ".group"}}},
		{"user with serviceAccount", func(o *fs) {
			subj0(o).ServiceAccount = &flowcontrolv1.ServiceAccountSubject{Namespace: "a", Name: "b"}
		}, []te{{forb, s0 + ".serviceAccount"}}},
		{"group ok", func(o *fs) {
			*subj0(o) = flowcontrolv1.Subject{Kind: "Group", Group: &flowcontrolv1.GroupSubject{Name: "system:authenticated"}}
		}, nil},
		{"group missing", func(o *fs) { *subj0(o) = flowcontrolv1.Subject{Kind: "Group"} }, []te{{req, s0 + ".group"}}},
		{"group name empty", func(o *fs) { *subj0(o) = flowcontrolv1.Subject{Kind: "Group", Group: &flowcontrolv1.GroupSubject{}} }, []te{{req, s0 + ".group.name"}}},
		{"group with user", func(o *fs) {
			*subj0(o) = flowcontrolv1.Subject{Kind: "Group", Group: &flowcontrolv1.GroupSubject{Name: "g"}, User: &flowcontrolv1.UserSubject{Name: "u"}}
		}, []te{{forb, s0 + ".user"}}},
		{"serviceAccount ok", sa("team-a", "builder"), nil},
		{"serviceAccount name * ok", sa("team-a", "*"), nil},
		{"serviceAccount missing", func(o *fs) { *subj0(o) = flowcontrolv1.Subject{Kind: "ServiceAccount"} }, []te{{req, s0 + ".serviceAccount"}}},
		{"serviceAccount name empty", sa("team-a", ""), []te{{req, s0 + ".serviceAccount.name"}}},
		{"serviceAccount name invalid", sa("team-a", "Builder"), []te{{inv, s0 + ".serviceAccount.name"}}},
		{"serviceAccount namespace empty", sa("", "builder"), []te{{req, s0 + ".serviceAccount.namespace"}}},
		{"serviceAccount namespace invalid (not a DNS label)", sa("team.a", "builder"), []te{{inv, s0 + ".serviceAccount.namespace"}}},
		{"serviceAccount namespace * invalid", sa("*", "builder"), []te{{inv, s0 + ".serviceAccount.namespace"}}},
		{"serviceAccount with user and group", func(o *fs) {
			sa("a", "b")(o)
			subj0(o).User = &flowcontrolv1.UserSubject{Name: "u"}
			subj0(o).Group = &flowcontrolv1.GroupSubject{Name: "g"}
		}, []te{{forb, s0 + ".user"}, {forb, s0 + ".group"}}},

		// resourceRules
		{"verbs missing", func(o *fs) { rr0(o).Verbs = nil }, []te{{req, rrp + ".verbs"}}},
		{"verbs * ok", func(o *fs) { rr0(o).Verbs = []string{"*"} }, nil},
		{"verbs * with others", func(o *fs) { rr0(o).Verbs = []string{"*", "get"} }, []te{{inv, rrp + ".verbs"}}},
		{"verbs all supported ok", func(o *fs) {
			rr0(o).Verbs = []string{"get", "list", "create", "update", "delete", "deletecollection", "patch", "watch", "proxy"}
		}, nil},
		{"verb unsupported", func(o *fs) { rr0(o).Verbs = []string{"get", "escalate"} }, []te{{ns, rrp + ".verbs"}}},
		{"verb case-sensitive", func(o *fs) { rr0(o).Verbs = []string{"GET"} }, []te{{ns, rrp + ".verbs"}}},
		{"apiGroups missing", func(o *fs) { rr0(o).APIGroups = nil }, []te{{req, rrp + ".apiGroups"}}},
		{"apiGroups * ok", func(o *fs) { rr0(o).APIGroups = []string{"*"} }, nil},
		{"apiGroups * with others", func(o *fs) { rr0(o).APIGroups = []string{"apps", "*"} }, []te{{inv, rrp + ".apiGroups"}}},
		{"apiGroups arbitrary strings ok", func(o *fs) { rr0(o).APIGroups = []string{"apps", "Not Validated"} }, nil},
		{"resources missing", func(o *fs) { rr0(o).Resources = nil }, []te{{req, rrp + ".resources"}}},
		{"resources * ok", func(o *fs) { rr0(o).Resources = []string{"*"} }, nil},
		{"resources * with others", func(o *fs) { rr0(o).Resources = []string{"*", "pods"} }, []te{{inv, rrp + ".resources"}}},
		{"namespaces missing, not cluster scoped", func(o *fs) { rr0(o).Namespaces = nil }, []te{{req, rrp + ".namespaces"}}},
		{"namespaces missing, cluster scoped ok", func(o *fs) { rr0(o).Namespaces = nil; rr0(o).ClusterScope = true }, nil},
		{"namespaces * ok", func(o *fs) { rr0(o).Namespaces = []string{"*"} }, nil},
		{"namespaces * with others", func(o *fs) { rr0(o).Namespaces = []string{"*", "default"} }, []te{{inv, rrp + ".namespaces"}}},
		{"namespace invalid", func(o *fs) { rr0(o).Namespaces = []string{"default", "Bad_NS"} }, []te{{inv, rrp + ".namespaces[1]"}}},
		{"namespace 63 ok", func(o *fs) { rr0(o).Namespaces = []string{strings.Repeat("n", 63)} }, nil},
		{"namespace 64", func(o *fs) { rr0(o).Namespaces = []string{strings.Repeat("n", 64)} }, []te{{inv, rrp + ".namespaces[0]"}}},

		// nonResourceRules
		{"nr verbs missing", func(o *fs) { nr0(o).Verbs = nil }, []te{{req, nrp + ".verbs"}}},
		{"nr verbs * with others", func(o *fs) { nr0(o).Verbs = []string{"get", "*"} }, []te{{inv, nrp + ".verbs"}}},
		{"nr verb unsupported", func(o *fs) { nr0(o).Verbs = []string{"post"} }, []te{{ns, nrp + ".verbs"}}},
		{"urls missing", nurl(), []te{{req, nrp + ".nonResourceURLs"}}},
		{"urls * ok", nurl("*"), nil},
		{"urls * with others", nurl("*", "/healthz"), []te{{inv, nrp + ".nonResourceURLs"}}},
		{"url / ok", nurl("/"), nil},
		{"url suffix wildcard ok", nurl("/apis/*"), nil},
		{"url empty", nurl(""), []te{{inv, nrp + ".nonResourceURLs[0]"}}},
		{"url no leading slash", nurl("healthz"), []te{{inv, nrp + ".nonResourceURLs[0]"}}},
		{"url white-space", nurl("/health z"), []te{{inv, nrp + ".nonResourceURLs[0]"}}},
		{"url double slash", nurl("/apis//v1"), []te{{inv, nrp + ".nonResourceURLs[0]"}}},
		{"url wildcard not suffix", nurl("/apis/*/v1"), []te{{inv, nrp + ".nonResourceURLs[0]"}}},
		{"url wildcard without slash", nurl("/apis*"), []te{{inv, nrp + ".nonResourceURLs[0]"}}},
		{"url two wildcards", nurl("/*/*"), []te{{inv, nrp + ".nonResourceURLs[0]"}}},
		{"second url invalid", nurl("/ok", "bad"), []te{{inv, nrp + ".nonResourceURLs[1]"}}},

		// mandatory schemas
		{"exempt bootstrap ok", func(o *fs) { o.Name = "exempt"; o.Spec, _ = BootstrapSpec("exempt") }, nil},
		{"exempt precedence 1 ok, anything else differs", func(o *fs) { o.Name = "exempt"; o.Spec.MatchingPrecedence = 1 }, []te{{inv, "spec"}}},
		{"exempt with precedence omitted (defaults to 1000)", func(o *fs) {
			o.Name = "exempt"
			o.Spec, _ = BootstrapSpec("exempt")
			o.Spec.MatchingPrecedence = 0
		}, []te{{inv, "spec"}}},
		{"catch-all bootstrap ok", func(o *fs) { o.Name = "catch-all"; o.Spec, _ = BootstrapSpec("catch-all") }, nil},
		{"catch-all changed distinguisher", func(o *fs) {
			o.Name = "catch-all"
			o.Spec, _ = BootstrapSpec("catch-all")
			o.Spec.DistinguisherMethod = nil
		}, []te{{inv, "spec"}}},
		{"suggested name with custom spec ok", func(o *fs) { o.Name = "global-default" }, nil},
		{"autoupdate annotation on user schema passes Validate", func(o *fs) {
			o.Annotations = map[string]string{AutoUpdateAnnotation: "true"}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := base()
			tc.mutate(o)
			SetObjectDefaults_FlowSchema(o)
			errs := ValidateFlowSchema(o)
			if g, w := got(errs), want(tc.want...); strings.Join(g, ",") != strings.Join(w, ",") {
				t.Fatalf("got %v\nwant %v\nerrors: %v", g, w, errs)
			}
		})
	}
}

func TestValidateMessages(t *testing.T) {
	o := base()
	o.Spec.MatchingPrecedence = 1
	if errs := ValidateFlowSchema(o); len(errs) != 1 || errs[0].Detail != "only the schema named 'exempt' may have matchingPrecedence 1" {
		t.Errorf("%v", errs)
	}
	o = base()
	o.Spec.MatchingPrecedence = 10001
	if errs := ValidateFlowSchema(o); len(errs) != 1 || errs[0].Detail != "must not be greater than 10000" {
		t.Errorf("%v", errs)
	}
	o = base()
	rr0(o).Namespaces = []string{"Bad"}
	SetObjectDefaults_FlowSchema(o)
	if errs := ValidateFlowSchema(o); len(errs) != 1 || !strings.HasPrefix(errs[0].Detail, "each member of this list must be '*' or a DNS-1123 label; ") {
		t.Errorf("%v", errs)
	}
	o = base()
	o.Name = "catch-all"
	SetObjectDefaults_FlowSchema(o)
	if errs := ValidateFlowSchema(o); len(errs) != 1 || errs[0].Detail != "spec of 'catch-all' must equal the fixed value" {
		t.Errorf("%v", errs)
	}
	o = base()
	rr0(o).Verbs = []string{"escalate"}
	SetObjectDefaults_FlowSchema(o)
	if errs := ValidateFlowSchema(o); len(errs) != 1 || errs[0].Detail != `supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"` {
		t.Errorf("%v", errs)
	}
}

func TestSetDefaults(t *testing.T) {
	o := base()
	SetObjectDefaults_FlowSchema(o)
	if o.Spec.MatchingPrecedence != 1000 {
		t.Fatalf("got %d", o.Spec.MatchingPrecedence)
	}
	o.Spec.MatchingPrecedence = 7
	SetObjectDefaults_FlowSchema(o)
	SetObjectDefaults_FlowSchema(o)
	if o.Spec.MatchingPrecedence != 7 {
		t.Fatalf("got %d", o.Spec.MatchingPrecedence)
	}
	o.Spec.MatchingPrecedence = -3
	SetObjectDefaults_FlowSchema(o)
	if o.Spec.MatchingPrecedence != -3 {
		t.Fatalf("negative must not be defaulted, got %d", o.Spec.MatchingPrecedence)
	}
	SetObjectDefaults_FlowSchema(nil)
}

func TestValidateProviderRules(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(o *fs)
		want   []te
	}{
		{"plain ok", func(o *fs) {}, nil},
		{"namespace", func(o *fs) { o.Namespace = "default" }, []te{{forb, "metadata.namespace"}}},
		{"autoupdate true on user schema", func(o *fs) { o.Annotations = map[string]string{AutoUpdateAnnotation: "true"} },
			[]te{{forb, "metadata.annotations[apf.kubernetes.io/autoupdate-spec]"}}},
		{"autoupdate T on user schema", func(o *fs) { o.Annotations = map[string]string{AutoUpdateAnnotation: "T"} },
			[]te{{forb, "metadata.annotations[apf.kubernetes.io/autoupdate-spec]"}}},
		{"autoupdate false ok", func(o *fs) { o.Annotations = map[string]string{AutoUpdateAnnotation: "false"} }, nil},
		{"autoupdate malformed ok", func(o *fs) { o.Annotations = map[string]string{AutoUpdateAnnotation: "maybe"} }, nil},
		{"autoupdate true on suggested ok", func(o *fs) {
			o.Name = "probes"
			o.Annotations = map[string]string{AutoUpdateAnnotation: "true"}
		}, nil},
		{"autoupdate true on mandatory ok", func(o *fs) {
			o.Name = "exempt"
			o.Annotations = map[string]string{AutoUpdateAnnotation: "true"}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := base()
			tc.mutate(o)
			errs := ValidateProviderRules(o)
			if g, w := got(errs), want(tc.want...); strings.Join(g, ",") != strings.Join(w, ",") {
				t.Fatalf("got %v want %v", g, w)
			}
			for _, e := range errs {
				if e.Field != "metadata.namespace" && !strings.Contains(e.Detail, "deletes non-bootstrap flow schemas") {
					t.Errorf("detail %q", e.Detail)
				}
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	objs := []*fs{base()}
	for _, n := range append(append([]string{}, MandatorySchemas...), SuggestedSchemas...) {
		s, _ := BootstrapSpec(n)
		objs = append(objs, &fs{ObjectMeta: metav1.ObjectMeta{Name: n}, Spec: s})
	}
	for _, o := range objs {
		SetObjectDefaults_FlowSchema(o)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, o := range objs {
			if errs := ValidateFlowSchema(o); len(errs) != 0 {
				b.Fatal(errs)
			}
		}
	}
}
