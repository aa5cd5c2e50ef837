package rules

import (
	"fmt"
	"strconv"
	"strings"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// MaxMatchingPrecedence is the largest legal spec.matchingPrecedence.
// Source: k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/types.go FlowSchemaMaxMatchingPrecedence.
const MaxMatchingPrecedence int32 = 10000

// Values listed in NotSupported errors, sorted as sets.String.List() sorts them.
// Source: k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go (supported* sets).
var (
	supportedDistinguisherMethods = []string{
		string(flowcontrolv1.FlowDistinguisherMethodByNamespaceType),
		string(flowcontrolv1.FlowDistinguisherMethodByUserType),
	}
	supportedVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}
	supportedKinds = []string{
		string(flowcontrolv1.SubjectKindGroup),
		string(flowcontrolv1.SubjectKindServiceAccount),
		string(flowcontrolv1.SubjectKindUser),
	}
)

const nsErrIntro = "each member of this list must be '*' or a DNS-1123 label; "

// ValidateFlowSchema reports what kube-apiserver v1.37 rejects when the (already defaulted, see
// SetObjectDefaults_FlowSchema) object is created or updated. Paths use the JSON names rooted at
// metadata/spec. Provider-only rules are in ValidateProviderRules. (FlowSchema has no forbidden annotation
// and no enforced declarative spec rules in v1.37.) status is not validated.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateFlowSchema.
func ValidateFlowSchema(obj *flowcontrolv1.FlowSchema) field.ErrorList {
	if obj == nil {
		return nil
	}
	name := kindrules.EffectiveName(&obj.ObjectMeta)
	allErrs := kindrules.ValidateClusterScopedObjectMeta(&obj.ObjectMeta)
	specPath := field.NewPath("spec")
	allErrs = append(allErrs, ValidateFlowSchemaSpec(name, &obj.Spec, specPath)...)
	if isMandatory(name) {
		want := bootstrapSpecs[name]
		if !apiequality.Semantic.DeepEqual(obj.Spec, want) {
			allErrs = append(allErrs, field.Invalid(specPath, obj.Spec, fmt.Sprintf("spec of '%s' must equal the fixed value", name)))
		}
	}
	// status is reset by the server on create and kept on update, so it is not validated here.
	return allErrs
}

// ValidateFlowSchemaSpec validates spec.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateFlowSchemaSpec.
func ValidateFlowSchemaSpec(fsName string, spec *flowcontrolv1.FlowSchemaSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.MatchingPrecedence <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("matchingPrecedence"), spec.MatchingPrecedence, "must be a positive value"))
	}
	if spec.MatchingPrecedence > MaxMatchingPrecedence {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("matchingPrecedence"), spec.MatchingPrecedence, fmt.Sprintf("must not be greater than %v", MaxMatchingPrecedence)))
	}
	if spec.MatchingPrecedence == 1 && fsName != flowcontrolv1.FlowSchemaNameExempt {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("matchingPrecedence"), spec.MatchingPrecedence, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if spec.DistinguisherMethod != nil && !contains(supportedDistinguisherMethods, string(spec.DistinguisherMethod.Type)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("distinguisherMethod").Child("type"), spec.DistinguisherMethod.Type, supportedDistinguisherMethods))
	}
	if len(spec.PriorityLevelConfiguration.Name) > 0 {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(spec.PriorityLevelConfiguration.Name, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("priorityLevelConfiguration").Child("name"), spec.PriorityLevelConfiguration.Name, msg))
		}
	} else {
		allErrs = append(allErrs, field.Required(fldPath.Child("priorityLevelConfiguration").Child("name"), "must reference a priority level"))
	}
	for i := range spec.Rules {
		allErrs = append(allErrs, ValidateFlowSchemaPolicyRulesWithSubjects(&spec.Rules[i], fldPath.Child("rules").Index(i))...)
	}
	return allErrs
}

// ValidateFlowSchemaPolicyRulesWithSubjects validates one spec.rules entry.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateFlowSchemaPolicyRulesWithSubjects.
func ValidateFlowSchemaPolicyRulesWithSubjects(rule *flowcontrolv1.PolicyRulesWithSubjects, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(rule.Subjects) > 0 {
		for i := range rule.Subjects {
			allErrs = append(allErrs, ValidateFlowSchemaSubject(&rule.Subjects[i], fldPath.Child("subjects").Index(i))...)
		}
	} else {
		allErrs = append(allErrs, field.Required(fldPath.Child("subjects"), "subjects must contain at least one value"))
	}
	if len(rule.ResourceRules) == 0 && len(rule.NonResourceRules) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i := range rule.ResourceRules {
		allErrs = append(allErrs, ValidateFlowSchemaResourcePolicyRule(&rule.ResourceRules[i], fldPath.Child("resourceRules").Index(i))...)
	}
	for i := range rule.NonResourceRules {
		allErrs = append(allErrs, ValidateFlowSchemaNonResourcePolicyRule(&rule.NonResourceRules[i], fldPath.Child("nonResourceRules").Index(i))...)
	}
	return allErrs
}

// ValidateFlowSchemaSubject validates one subject.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateFlowSchemaSubject.
func ValidateFlowSchemaSubject(subject *flowcontrolv1.Subject, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	userForbidden := func() {
		if subject.User != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("user"), "user is forbidden when subject kind is not 'User'"))
		}
	}
	groupForbidden := func() {
		if subject.Group != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("group"), "group is forbidden when subject kind is not 'Group'"))
		}
	}
	saForbidden := func() {
		if subject.ServiceAccount != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("serviceAccount"), "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"))
		}
	}
	switch subject.Kind {
	case flowcontrolv1.SubjectKindServiceAccount:
		allErrs = append(allErrs, ValidateServiceAccountSubject(subject.ServiceAccount, fldPath.Child("serviceAccount"))...)
		userForbidden()
		groupForbidden()
	case flowcontrolv1.SubjectKindUser:
		allErrs = append(allErrs, ValidateUserSubject(subject.User, fldPath.Child("user"))...)
		saForbidden()
		groupForbidden()
	case flowcontrolv1.SubjectKindGroup:
		allErrs = append(allErrs, ValidateGroupSubject(subject.Group, fldPath.Child("group"))...)
		saForbidden()
		userForbidden()
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("kind"), subject.Kind, supportedKinds))
	}
	return allErrs
}

// ValidateServiceAccountSubject validates a serviceAccount subject.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateServiceAccountSubject.
func ValidateServiceAccountSubject(subject *flowcontrolv1.ServiceAccountSubject, fldPath *field.Path) field.ErrorList {
	if subject == nil {
		return field.ErrorList{field.Required(fldPath, "serviceAccount is required when subject kind is 'ServiceAccount'")}
	}
	var allErrs field.ErrorList
	if len(subject.Name) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else if subject.Name != flowcontrolv1.NameAll {
		for _, msg := range apimachineryvalidation.ValidateServiceAccountName(subject.Name, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), subject.Name, msg))
		}
	}
	if len(subject.Namespace) > 0 {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(subject.Namespace, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), subject.Namespace, msg))
		}
	} else {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), "must specify namespace for service account"))
	}
	return allErrs
}

// ValidateUserSubject validates a user subject.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateUserSubject.
func ValidateUserSubject(subject *flowcontrolv1.UserSubject, fldPath *field.Path) field.ErrorList {
	if subject == nil {
		return field.ErrorList{field.Required(fldPath, "user is required when subject kind is 'User'")}
	}
	if len(subject.Name) == 0 {
		return field.ErrorList{field.Required(fldPath.Child("name"), "")}
	}
	return nil
}

// ValidateGroupSubject validates a group subject.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateGroupSubject.
func ValidateGroupSubject(subject *flowcontrolv1.GroupSubject, fldPath *field.Path) field.ErrorList {
	if subject == nil {
		return field.ErrorList{field.Required(fldPath, "group is required when subject kind is 'Group'")}
	}
	if len(subject.Name) == 0 {
		return field.ErrorList{field.Required(fldPath.Child("name"), "")}
	}
	return nil
}

// validateVerbs is the verbs part shared by both rule kinds (upstream repeats it inline).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateFlowSchemaNonResourcePolicyRule
// and ValidateFlowSchemaResourcePolicyRule (verbs part).
func validateVerbs(verbs []string, fldPath *field.Path) field.ErrorList {
	if len(verbs) == 0 {
		return field.ErrorList{field.Required(fldPath, "verbs must contain at least one value")}
	}
	if contains(verbs, flowcontrolv1.VerbAll) {
		if len(verbs) > 1 {
			return field.ErrorList{field.Invalid(fldPath, verbs, "if '*' is present, must not specify other verbs")}
		}
		return nil
	}
	for _, v := range verbs {
		if !contains(supportedVerbs, v) {
			// only supported verbs are allowed
			return field.ErrorList{field.NotSupported(fldPath, verbs, supportedVerbs)}
		}
	}
	return nil
}

// ValidateFlowSchemaNonResourcePolicyRule validates one nonResourceRules entry.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateFlowSchemaNonResourcePolicyRule.
func ValidateFlowSchemaNonResourcePolicyRule(rule *flowcontrolv1.NonResourcePolicyRule, fldPath *field.Path) field.ErrorList {
	allErrs := validateVerbs(rule.Verbs, fldPath.Child("verbs"))
	if len(rule.NonResourceURLs) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("nonResourceURLs"), "nonResourceURLs must contain at least one value"))
	} else if contains(rule.NonResourceURLs, flowcontrolv1.NonResourceAll) {
		if len(rule.NonResourceURLs) > 1 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nonResourceURLs"), rule.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))
		}
	} else {
		for i, u := range rule.NonResourceURLs {
			if err := ValidateNonResourceURLPath(u, fldPath.Child("nonResourceURLs").Index(i)); err != nil {
				allErrs = append(allErrs, err)
			}
		}
	}
	return allErrs
}

// ValidateFlowSchemaResourcePolicyRule validates one resourceRules entry.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateFlowSchemaResourcePolicyRule.
func ValidateFlowSchemaResourcePolicyRule(rule *flowcontrolv1.ResourcePolicyRule, fldPath *field.Path) field.ErrorList {
	allErrs := validateVerbs(rule.Verbs, fldPath.Child("verbs"))

	if len(rule.APIGroups) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiGroups"), "resource rules must supply at least one api group"))
	} else if len(rule.APIGroups) > 1 && contains(rule.APIGroups, flowcontrolv1.APIGroupAll) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroups"), rule.APIGroups, "if '*' is present, must not specify other api groups"))
	}

	if len(rule.Resources) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("resources"), "resource rules must supply at least one resource"))
	} else if len(rule.Resources) > 1 && contains(rule.Resources, flowcontrolv1.ResourceAll) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("resources"), rule.Resources, "if '*' is present, must not specify other resources"))
	}

	if len(rule.Namespaces) == 0 && !rule.ClusterScope {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"))
	} else if contains(rule.Namespaces, flowcontrolv1.NamespaceEvery) {
		if len(rule.Namespaces) > 1 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespaces"), rule.Namespaces, "if '*' is present, must not specify other namespaces"))
		}
	} else {
		for i, ns := range rule.Namespaces {
			for _, msg := range apimachineryvalidation.ValidateNamespaceName(ns, false) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("namespaces").Index(i), ns, nsErrIntro+msg))
			}
		}
	}
	return allErrs
}

// ValidateNonResourceURLPath requires a leading slash, no white-space, no "//", and '*' only as a "/*"
// suffix.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateNonResourceURLPath.
func ValidateNonResourceURLPath(path string, fldPath *field.Path) *field.Error {
	if len(path) == 0 {
		return field.Invalid(fldPath, path, "must not be empty")
	}
	if path == "/" {
		return nil
	}
	if !strings.HasPrefix(path, "/") {
		return field.Invalid(fldPath, path, "must start with slash")
	}
	if strings.Contains(path, " ") {
		return field.Invalid(fldPath, path, "must not contain white-space")
	}
	if strings.Contains(path, "//") {
		return field.Invalid(fldPath, path, "must not contain double slash")
	}
	wildcardCount := strings.Count(path, "*")
	if wildcardCount > 1 || (wildcardCount == 1 && path[len(path)-2:] != "/*") {
		return field.Invalid(fldPath, path, "wildcard can only do suffix matching")
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ValidateProviderRules holds provider-only errors, which the API server
// does not report at admission but which make the configuration unusable:
//   - metadata.namespace set: the type is cluster-scoped and the server
//     silently drops the namespace (rest.EnsureObjectNamespaceMatchesRequestNamespace),
//     so the configuration would never converge.
//   - a non-bootstrap flow schema annotated apf.kubernetes.io/autoupdate-spec
//     with a value that parses as true: the APF bootstrap ensurer deletes it
//     (pkg/registry/flowcontrol/ensurer/strategy.go RemoveUnwantedObjects).
func ValidateProviderRules(obj *flowcontrolv1.FlowSchema) field.ErrorList {
	if obj == nil {
		return nil
	}
	var errs field.ErrorList
	if obj.Namespace != "" {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "namespace"),
			"not allowed on this type: FlowSchema is cluster-scoped and the API server silently drops metadata.namespace; remove it"))
	}
	if v, ok := obj.Annotations[AutoUpdateAnnotation]; ok && !IsBootstrap(obj.Name) {
		if b, err := strconv.ParseBool(v); err == nil && b {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "annotations").Key(AutoUpdateAnnotation),
				fmt.Sprintf("the API server deletes non-bootstrap flow schemas carrying %s=%q (the APF bootstrap ensurer runs every minute); remove the annotation or set it to \"false\"", AutoUpdateAnnotation, v)))
		}
	}
	return errs
}
