package rules

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

const description = "A FlowSchema (`flowcontrol.apiserver.k8s.io/v1`, cluster-scoped): one routing rule of API " +
	"Priority and Fairness. It matches requests by subject (user, group, service account) and by resource or " +
	"non-resource rule, and sends them to the priority level named in `spec.priority_level_configuration.name` " +
	"(for example a `kubeinfer_priority_level_configuration`, referenced by `metadata.name`). Among the schemas " +
	"that match a request, the one with the lowest `matching_precedence` wins.\n\n" +
	"Every rule kube-apiserver v1.37 applies is checked at plan time, offline: `matching_precedence` between 1 and " +
	"10000 (1 only for the schema named `exempt`), the distinguisher method (`ByUser` or `ByNamespace`), subjects " +
	"(kind and the one matching member), verbs, API groups, resources, namespaces and non-resource URLs (with the " +
	"`*` rules), and the fixed specs of the mandatory schemas `exempt` and `catch-all`. The server default of " +
	"`matching_precedence` (1000) is planned by the provider, so it shows in the plan. The priority level itself is " +
	"not looked up: a schema naming a level that does not exist is accepted by the server and reported as " +
	"`Dangling` in its status.\n\n" +
	"The schemas `exempt`, `catch-all`, `probes`, `system-leader-election`, `system-node-high`, `system-nodes`, " +
	"`kube-controller-manager`, `kube-scheduler`, `kube-system-service-accounts`, `service-accounts` and " +
	"`global-default` are created by the API server itself: import them instead of creating them. The server keeps " +
	"rewriting the suggested ones while their `apf.kubernetes.io/autoupdate-spec` annotation is `\"true\"`; set it to " +
	"`\"false\"` to manage one with Terraform. A schema of your own must not carry that annotation set to `\"true\"`: " +
	"the server deletes such schemas."

// Kind is the offline half of the FlowSchema kind: schema, defaults, validation.
var Kind = &kindrules.Kind{
	TypeName:    "flow_schema",
	GVK:         flowcontrolv1.SchemeGroupVersion.WithKind("FlowSchema"),
	Resource:    "flowschemas",
	Namespaced:  false,
	NewObject:   func() runtime.Object { return &flowcontrolv1.FlowSchema{} },
	Description: description,
	BuildNode:   node,
	Defaults:    func(obj runtime.Object, _ tftypes.Value) { SetObjectDefaults_FlowSchema(asFlowSchema(obj)) },
	Validate:    func(obj runtime.Object) field.ErrorList { return ValidateFlowSchema(asFlowSchema(obj)) },
	CheckConfig: checkConfig,
}

// asFlowSchema is the object the generic resource made with Kind.NewObject (nil otherwise, which
// the rules accept).
func asFlowSchema(obj runtime.Object) *flowcontrolv1.FlowSchema {
	fs, _ := obj.(*flowcontrolv1.FlowSchema)
	return fs
}

// node is the object's schema tree, built once per process.
var node = sync.OnceValue(buildNode)

func buildNode() *k8sschema.Node {
	const (
		rules    = "spec.rules."
		subjects = rules + "subjects."
		resRules = rules + "resourceRules."
		nonRes   = rules + "nonResourceRules."
	)
	opts := k8sschema.Options{
		Modes: map[string]k8sschema.Mode{
			"spec":                                 k8sschema.Required,
			"spec.priorityLevelConfiguration":      k8sschema.Required,
			"spec.priorityLevelConfiguration.name": k8sschema.Required,
			"spec.matchingPrecedence":              k8sschema.OptionalComputed,
			"spec.distinguisherMethod.type":        k8sschema.Required,
			rules + "subjects":                     k8sschema.Required,
			subjects + "kind":                      k8sschema.Required,
			subjects + "user.name":                 k8sschema.Required,
			subjects + "group.name":                k8sschema.Required,
			subjects + "serviceAccount.name":       k8sschema.Required,
			subjects + "serviceAccount.namespace":  k8sschema.Required,
			resRules + "verbs":                     k8sschema.Required,
			resRules + "apiGroups":                 k8sschema.Required,
			resRules + "resources":                 k8sschema.Required,
			nonRes + "verbs":                       k8sschema.Required,
			nonRes + "nonResourceURLs":             k8sschema.Required,
			"status":                               k8sschema.Computed,
		},
		FieldDocs: fieldDocs,
		Notes: map[string]string{
			"spec.distinguisherMethod.type":               "One of `ByUser` or `ByNamespace`.",
			"spec.rules.subjects.kind":                    "One of `User`, `Group` or `ServiceAccount`, with exactly the matching member set.",
			"spec.rules.resourceRules.verbs":              "Non-empty; `*` alone matches every verb.",
			"spec.rules.nonResourceRules.nonResourceURLs": "Non-empty; each a path starting with `/`, optionally ending in `/*`, or `*` alone.",
		},
		Descriptions: map[string]string{
			"spec.priorityLevelConfiguration":      "The priority level that requests matching this schema are sent to.",
			"spec.priorityLevelConfiguration.name": "Name of the priority level, e.g. `kubeinfer_priority_level_configuration.x.metadata.name` (a DNS subdomain). A level that does not exist is accepted and reported as `Dangling` in the status.",
			"spec.matchingPrecedence":              "Which schema wins when several match: the lowest value. Between 1 and 10000; 1 is reserved for the schema named `exempt`. Defaults to 1000 (planned by the provider); an explicit 0 is rejected at plan because the server would silently replace it.",
			"status":                               "Current state reported by the API server (condition `Dangling` says whether the priority level exists).",
		},
	}
	return k8sschema.Build(reflect.TypeOf(flowcontrolv1.FlowSchema{}), k8sschema.WithClusterScopedMetadata(opts, k8sschema.MetadataDocs{
		Metadata:    "Standard object metadata. The schema is cluster-scoped: there is no namespace.",
		Name:        "Name of the flow schema, a DNS subdomain. Changing it replaces the schema. The names of the bootstrap schemas are reserved (see the resource description).",
		Labels:      "Labels of the flow schema. Labels added by others are not reported as drift.",
		Annotations: "Annotations of the flow schema. Annotations added by others are not reported as drift. `apf.kubernetes.io/autoupdate-spec = \"true\"` makes the server delete a schema of your own.",
	}))
}

func checkConfig(obj runtime.Object, config tftypes.Value) (field.ErrorList, []kindrules.Warning) {
	fs := asFlowSchema(obj)
	if fs == nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("expected a FlowSchema, got %T", obj))}, nil
	}
	var errs field.ErrorList
	// The server replaces an explicit 0 by the default 1000: the plan would never converge.
	if v, ok := k8sschema.ValueAt(node(), config, "spec.matchingPrecedence"); ok && !v.IsNull() && fs.Spec.MatchingPrecedence == 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "matchingPrecedence"), 0,
			fmt.Sprintf("the API server silently replaces 0 by the default %d, so the plan would never converge; omit the attribute or set a value between 1 and %d", DefaultMatchingPrecedence, MaxMatchingPrecedence)))
	}
	errs = append(errs, ValidateProviderRules(fs)...)
	var warnings []kindrules.Warning
	for _, w := range PlanWarnings(fs) {
		warnings = append(warnings, kindrules.Warning{Path: w.Path, Summary: w.Summary, Detail: w.Detail})
	}
	warnings = append(warnings, routingWarnings(fs)...)
	return errs, warnings
}

// routingWarnings flags routing that a configuration of one's own rarely means: sending
// requests to the `exempt` level takes them out of API Priority and Fairness altogether.
func routingWarnings(fs *flowcontrolv1.FlowSchema) []kindrules.Warning {
	if IsBootstrap(fs.Name) || fs.Spec.PriorityLevelConfiguration.Name != priorityLevelExempt {
		return nil
	}
	return []kindrules.Warning{{
		Path:    field.NewPath("spec", "priorityLevelConfiguration", "name"),
		Summary: "requests matching this flow schema are exempt from API Priority and Fairness",
		Detail: "The priority level \"exempt\" never queues or rejects: every request this schema matches bypasses the API " +
			"server's flood protection. Route to a Limited level unless the subjects are fully trusted.",
	}}
}
