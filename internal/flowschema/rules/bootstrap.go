package rules

import (
	"fmt"
	"strconv"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// AutoUpdateAnnotation is the annotation the APF bootstrap ensurer uses to
// decide whether it may overwrite (or delete) a configuration object.
const AutoUpdateAnnotation = flowcontrolv1.AutoUpdateAnnotationKey // "apf.kubernetes.io/autoupdate-spec"

// MandatorySchemas are the flow schemas the API server always (re)creates
// and whose spec it forces back to the built-in value.
// Source: k8s.io/apiserver@v0.37.2 pkg/apis/flowcontrol/bootstrap/default.go MandatoryFlowSchemas.
var MandatorySchemas = []string{
	flowcontrolv1.FlowSchemaNameExempt,
	flowcontrolv1.FlowSchemaNameCatchAll,
}

// SuggestedSchemas are created by the API server and overwritten while the
// autoupdate-spec annotation allows it.
// Source: k8s.io/apiserver@v0.37.2 pkg/apis/flowcontrol/bootstrap/default.go SuggestedFlowSchemas.
var SuggestedSchemas = []string{
	"system-nodes",
	"system-node-high",
	"probes",
	"system-leader-election",
	"kube-controller-manager",
	"kube-scheduler",
	"kube-system-service-accounts",
	"service-accounts",
	"global-default",
}

// Well-known subjects (k8s.io/apiserver pkg/authentication/user and serviceaccount).
const (
	groupSystemMasters     = "system:masters"
	groupNodes             = "system:nodes"
	groupUnauthenticated   = "system:unauthenticated"
	groupAuthenticated     = "system:authenticated"
	groupServiceAccounts   = "system:serviceaccounts"
	userControllerManager  = "system:kube-controller-manager"
	userScheduler          = "system:kube-scheduler"
	namespaceSystem        = "kube-system"
	apiGroupCore           = ""
	apiGroupCoordination   = "coordination.k8s.io"
	priorityLevelExempt    = "exempt"
	priorityLevelCatchAll  = "catch-all"
	priorityLevelLeaderEl  = "leader-election"
	priorityLevelNodeHigh  = "node-high"
	priorityLevelSystem    = "system"
	priorityLevelWorkHigh  = "workload-high"
	priorityLevelWorkLow   = "workload-low"
	priorityLevelGlobalDef = "global-default"
)

// Port of k8s.io/apiserver@v0.37.2 pkg/apis/flowcontrol/bootstrap/default.go
// (Mandatory*/Suggested* FlowSchema values). These are already defaulted.
var bootstrapSpecs = map[string]flowcontrolv1.FlowSchemaSpec{
	"exempt": spec(priorityLevelExempt, 1, "", flowcontrolv1.PolicyRulesWithSubjects{
		Subjects:         groups(groupSystemMasters),
		ResourceRules:    []flowcontrolv1.ResourcePolicyRule{everyResource()},
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{everyNonResource()},
	}),
	"catch-all": spec(priorityLevelCatchAll, 10000, flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.PolicyRulesWithSubjects{
		Subjects:         groups(groupUnauthenticated, groupAuthenticated),
		ResourceRules:    []flowcontrolv1.ResourcePolicyRule{everyResource()},
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{everyNonResource()},
	}),
	"probes": spec(priorityLevelExempt, 2, "", flowcontrolv1.PolicyRulesWithSubjects{
		Subjects: groups(groupUnauthenticated, groupAuthenticated),
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{
			Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/readyz", "/livez"},
		}},
	}),
	"system-leader-election": spec(priorityLevelLeaderEl, 100, flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.PolicyRulesWithSubjects{
		Subjects: append(users(userControllerManager, userScheduler), kubeSystemServiceAccount(flowcontrolv1.NameAll)...),
		ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
			Verbs: []string{"get", "create", "update"}, APIGroups: []string{apiGroupCoordination}, Resources: []string{"leases"},
			Namespaces: []string{flowcontrolv1.NamespaceEvery},
		}},
	}),
	"system-node-high": spec(priorityLevelNodeHigh, 400, flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.PolicyRulesWithSubjects{
		Subjects: groups(groupNodes),
		ResourceRules: []flowcontrolv1.ResourcePolicyRule{
			{
				Verbs: []string{flowcontrolv1.VerbAll}, APIGroups: []string{apiGroupCore}, Resources: []string{"nodes", "nodes/status"},
				Namespaces: []string{flowcontrolv1.NamespaceEvery}, ClusterScope: true,
			},
			{
				Verbs: []string{flowcontrolv1.VerbAll}, APIGroups: []string{apiGroupCoordination}, Resources: []string{"leases"},
				Namespaces: []string{flowcontrolv1.NamespaceEvery},
			},
		},
	}),
	"system-nodes":                 everything(priorityLevelSystem, 500, flowcontrolv1.FlowDistinguisherMethodByUserType, groups(groupNodes)),
	"kube-controller-manager":      everything(priorityLevelWorkHigh, 800, flowcontrolv1.FlowDistinguisherMethodByNamespaceType, users(userControllerManager)),
	"kube-scheduler":               everything(priorityLevelWorkHigh, 800, flowcontrolv1.FlowDistinguisherMethodByNamespaceType, users(userScheduler)),
	"kube-system-service-accounts": everything(priorityLevelWorkHigh, 900, flowcontrolv1.FlowDistinguisherMethodByNamespaceType, kubeSystemServiceAccount(flowcontrolv1.NameAll)),
	"service-accounts":             everything(priorityLevelWorkLow, 9000, flowcontrolv1.FlowDistinguisherMethodByUserType, groups(groupServiceAccounts)),
	"global-default":               everything(priorityLevelGlobalDef, 9900, flowcontrolv1.FlowDistinguisherMethodByUserType, groups(groupUnauthenticated, groupAuthenticated)),
}

// spec builds the spec of a bootstrap flow schema. It keeps its own name: upstream newFlowSchema builds the
// whole object.
//
// Port of k8s.io/apiserver@v0.37.2 pkg/apis/flowcontrol/bootstrap/default.go newFlowSchema (spec part).
func spec(plName string, precedence int32, dm flowcontrolv1.FlowDistinguisherMethodType, rules ...flowcontrolv1.PolicyRulesWithSubjects) flowcontrolv1.FlowSchemaSpec {
	var m *flowcontrolv1.FlowDistinguisherMethod
	if dm != "" {
		m = &flowcontrolv1.FlowDistinguisherMethod{Type: dm}
	}
	return flowcontrolv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: plName},
		MatchingPrecedence:         precedence,
		DistinguisherMethod:        m,
		Rules:                      rules,
	}
}

// everything is a schema matching all (non-)resource requests of the subjects.
func everything(plName string, precedence int32, dm flowcontrolv1.FlowDistinguisherMethodType, subjects []flowcontrolv1.Subject) flowcontrolv1.FlowSchemaSpec {
	return spec(plName, precedence, dm, flowcontrolv1.PolicyRulesWithSubjects{
		Subjects:         subjects,
		ResourceRules:    []flowcontrolv1.ResourcePolicyRule{everyResource()},
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{everyNonResource()},
	})
}

func everyResource() flowcontrolv1.ResourcePolicyRule {
	return flowcontrolv1.ResourcePolicyRule{
		Verbs:        []string{flowcontrolv1.VerbAll},
		APIGroups:    []string{flowcontrolv1.APIGroupAll},
		Resources:    []string{flowcontrolv1.ResourceAll},
		Namespaces:   []string{flowcontrolv1.NamespaceEvery},
		ClusterScope: true,
	}
}

func everyNonResource() flowcontrolv1.NonResourcePolicyRule {
	return flowcontrolv1.NonResourcePolicyRule{Verbs: []string{flowcontrolv1.VerbAll}, NonResourceURLs: []string{flowcontrolv1.NonResourceAll}}
}

// groups returns one group subject per name.
//
// Port of k8s.io/apiserver@v0.37.2 pkg/apis/flowcontrol/bootstrap/default.go groups.
func groups(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, len(names))
	for i, n := range names {
		out[i] = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: n}}
	}
	return out
}

// users returns one user subject per name.
//
// Port of k8s.io/apiserver@v0.37.2 pkg/apis/flowcontrol/bootstrap/default.go users.
func users(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, len(names))
	for i, n := range names {
		out[i] = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: n}}
	}
	return out
}

// kubeSystemServiceAccount returns one kube-system service account subject per name.
//
// Port of k8s.io/apiserver@v0.37.2 pkg/apis/flowcontrol/bootstrap/default.go kubeSystemServiceAccount.
func kubeSystemServiceAccount(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, 0, len(names))
	for _, n := range names {
		out = append(out, flowcontrolv1.Subject{
			Kind:           flowcontrolv1.SubjectKindServiceAccount,
			ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Name: n, Namespace: namespaceSystem},
		})
	}
	return out
}

// BootstrapSpec returns a copy of the built-in spec of a mandatory or
// suggested flow schema, and whether name is one.
func BootstrapSpec(name string) (flowcontrolv1.FlowSchemaSpec, bool) {
	s, ok := bootstrapSpecs[name]
	if !ok {
		return flowcontrolv1.FlowSchemaSpec{}, false
	}
	return *s.DeepCopy(), true
}

func isMandatory(name string) bool {
	return name == flowcontrolv1.FlowSchemaNameExempt || name == flowcontrolv1.FlowSchemaNameCatchAll
}

// IsMandatory reports whether name is a mandatory bootstrap flow schema.
func IsMandatory(name string) bool { return isMandatory(name) }

// IsSuggested reports whether name is a suggested bootstrap flow schema.
func IsSuggested(name string) bool { return contains(SuggestedSchemas, name) }

// IsBootstrap reports whether name is a mandatory or suggested flow schema.
func IsBootstrap(name string) bool { return isMandatory(name) || IsSuggested(name) }

// Warning is a plan-time warning (not an error).
type Warning struct {
	Path    *field.Path
	Summary string
	Detail  string
}

// PlanWarnings explains how the API server's APF bootstrap ensurer
// (pkg/registry/flowcontrol/ensurer/strategy.go, rest/storage_flowcontrol.go)
// treats objects that use a bootstrap name. The error for a non-bootstrap
// schema carrying autoupdate-spec=true is in ValidateProviderRules.
func PlanWarnings(obj *flowcontrolv1.FlowSchema) []Warning {
	if obj == nil {
		return nil
	}
	namePath := field.NewPath("metadata", "name")
	switch {
	case isMandatory(obj.Name):
		return []Warning{{
			Path:    namePath,
			Summary: fmt.Sprintf("%q is a mandatory bootstrap flow schema", obj.Name),
			Detail: fmt.Sprintf("The API server creates %q at startup and recreates it if deleted, so it already exists: import it (an `import` block, or `terraform import` / `tofu import`) instead of creating it. Its whole spec is fixed to the built-in value; the server also forces the annotation %s to \"true\" and reverts any spec change within about a minute.",
				obj.Name, AutoUpdateAnnotation),
		}}
	case IsSuggested(obj.Name):
		v, ok := obj.Annotations[AutoUpdateAnnotation]
		if b, err := strconv.ParseBool(v); ok && err == nil && !b {
			return []Warning{{
				Path:    namePath,
				Summary: fmt.Sprintf("%q is a suggested bootstrap flow schema", obj.Name),
				Detail:  fmt.Sprintf("The API server creates %q at startup (and recreates it if deleted), so it normally already exists: import it (an `import` block, or `terraform import` / `tofu import`) instead of creating it. With %s=\"false\" the server leaves its spec alone.", obj.Name, AutoUpdateAnnotation),
			}}
		}
		return []Warning{{
			Path:    field.NewPath("metadata", "annotations").Key(AutoUpdateAnnotation),
			Summary: fmt.Sprintf("the API server overwrites the spec of the suggested flow schema %q", obj.Name),
			Detail: fmt.Sprintf("%q is a suggested bootstrap flow schema: the API server creates it at startup, so it already exists and must be imported (an `import` block, or `terraform import` / `tofu import`). Unless the annotation %s is \"false\", the server's bootstrap ensurer overwrites its spec with the built-in value (always when the annotation parses as true; while metadata.generation is 1 when it is missing or not a boolean), so this configuration would drift. Set %s = \"false\" to keep your spec.",
				obj.Name, AutoUpdateAnnotation, AutoUpdateAnnotation),
		}}
	}
	return nil
}
