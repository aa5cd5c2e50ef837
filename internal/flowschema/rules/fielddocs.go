package rules

import (
	"reflect"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
)

// fieldDocs are the provider's own descriptions of this kind's fields (k8sschema.Options.FieldDocs).
// The resource's Notes (allowed values, ranges) are appended to some of them.
var fieldDocs = map[reflect.Type]map[string]string{
	reflect.TypeOf(flowcontrolv1.FlowSchema{}): {
		"spec": "Desired routing: which requests the schema matches (`rules`), its `matching_precedence`, the priority level they are sent to and how they are split into flows.",
	},
	reflect.TypeOf(flowcontrolv1.FlowSchemaSpec{}): {
		"distinguisherMethod": "How the matching requests are split into flows, which the priority level queues fairly against each other; omit it to put them all in a single flow.",
		"rules":               "Match rules: a request matches the schema when any one rule matches it. An empty or omitted list matches no request.",
	},
	reflect.TypeOf(flowcontrolv1.FlowDistinguisherMethod{}): {
		"type": "What identifies a flow: the requesting user's name (`ByUser`), or the namespace the request acts on (`ByNamespace`; requests that name no namespace, including non-resource ones, then share one flow).",
	},
	reflect.TypeOf(flowcontrolv1.PolicyRulesWithSubjects{}): {
		"subjects":         "Requesters the rule applies to (users, groups, service accounts); at least one, and the rule matches when any of them does. Listing the groups `system:authenticated` and `system:unauthenticated` covers every request.",
		"resourceRules":    "Rules matching API resource requests by verb, API group, resource and namespace. A rule needs at least one entry in `resource_rules` or `non_resource_rules`; it matches when a subject and one of these entries match.",
		"nonResourceRules": "Rules matching requests for non-resource URLs (such as `/healthz`, `/metrics` or `/version`) by verb and path.",
	},
	reflect.TypeOf(flowcontrolv1.Subject{}): {
		"kind":           "Kind of requester this subject matches.",
		"user":           "User to match; set exactly when `kind` is `User`.",
		"group":          "Group to match; set exactly when `kind` is `Group`.",
		"serviceAccount": "Service account to match; set exactly when `kind` is `ServiceAccount`.",
	},
	reflect.TypeOf(flowcontrolv1.UserSubject{}): {
		"name": "Username to match exactly, e.g. `system:kube-scheduler`, or `*` for every user.",
	},
	reflect.TypeOf(flowcontrolv1.GroupSubject{}): {
		"name": "Name of the user group to match, e.g. `system:authenticated`, `system:unauthenticated`, `system:serviceaccounts` or `system:nodes`, or `*` for any group.",
	},
	reflect.TypeOf(flowcontrolv1.ServiceAccountSubject{}): {
		"namespace": "Namespace of the service account, a DNS label (no wildcard).",
		"name":      "Name of the service account, or `*` for every service account in `namespace`.",
	},
	reflect.TypeOf(flowcontrolv1.ResourcePolicyRule{}): {
		"verbs":        "Request verbs to match, from `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection` and `proxy`.",
		"apiGroups":    "API groups to match, e.g. `\"\"` for the core group or `apps`; `*` matches every group and must then be the only entry. Must not be empty.",
		"resources":    "Resources to match, lower-case plural with an optional subresource, e.g. `pods` or `nodes/status` (`pods` does not cover `pods/log`); `*` matches every resource and subresource and must then be the only entry. Must not be empty.",
		"clusterScope": "Also match requests that name no namespace: requests for cluster-scoped resources and those across all namespaces. When false or omitted, `namespaces` must be non-empty.",
		"namespaces":   "Namespaces (DNS labels) whose requests match, or `*` alone for any namespace; `*` does not cover requests that name no namespace (see `cluster_scope`). May be empty only when `cluster_scope` is true.",
	},
	reflect.TypeOf(flowcontrolv1.NonResourcePolicyRule{}): {
		"verbs":           "Verbs to match, from `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection` and `proxy`, or `*` alone for every verb. A non-resource request's verb is its lower-case HTTP method (e.g. `get`). Must not be empty.",
		"nonResourceURLs": "Paths to match: `/healthz` matches that path and everything below it, `/healthz/*` only what is below it, and `*` every non-resource URL; no other wildcard, spaces or `//`.",
	},
	reflect.TypeOf(flowcontrolv1.FlowSchemaStatus{}): {
		"conditions": "Conditions reported by the API server; `Dangling` is `True` while the priority level named in `priority_level_configuration` does not exist.",
	},
	reflect.TypeOf(flowcontrolv1.FlowSchemaCondition{}): {
		"type":               "Kind of condition, e.g. `Dangling`; unique within the list.",
		"status":             "State of the condition: `True`, `False` or `Unknown`.",
		"lastTransitionTime": "When `status` last changed (RFC 3339 timestamp).",
		"reason":             "Machine-readable CamelCase reason for the last change of `status`.",
		"message":            "Human-readable details about the last change of `status`.",
	},
}
