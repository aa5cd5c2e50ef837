package kube

import (
	"fmt"
	"slices"
	"strings"
)

// Permission is one rule of the least privilege the provider needs: what the guide "Running in
// a pod" grants (its YAML), README.md's table of permissions, and the provider's message when
// the API server refuses one of the requests it makes for a reason other than the object's own
// apply (NoteMissingPermission). TestPermissionsTableIsTheDocs checks the two pages against it,
// and TestAccLeastPrivilege (internal/leastprivilege) runs the provider with the guide's YAML.
type Permission struct {
	// Role is the Role or ClusterRole of the guide that grants it.
	Role string
	// Group is the API group ("" for the core group); Resources and Verbs are the rule's.
	Group     string
	Resources []string
	Verbs     []string
	// For says what needs it; ForShort, in a few words, for the provider's message; Without,
	// what a missing one costs, in the words of that message ("the wait cannot end early ...").
	For, ForShort, Without string
}

// The roles of the guide "Running in a pod": the namespaced ones are Roles, bound with a
// RoleBinding in each namespace the provider manages objects in; the others ClusterRoles.
const (
	RoleProvider  = "kubeinfer-provider"
	RoleRestart   = "kubeinfer-provider-restart"
	RoleAPF       = "kubeinfer-provider-apf"
	RolePlacement = "kubeinfer-provider-placement"
)

// ClusterRole reports whether the guide's role is a ClusterRole.
func ClusterRole(role string) bool { return role == RoleAPF || role == RolePlacement }

var objectVerbs = []string{"get", "list", "watch", "create", "patch", "delete"}

// Permissions is every request the provider makes, by role.
var Permissions = []Permission{
	{Role: RoleProvider, Group: "leaderworkerset.x-k8s.io", Resources: []string{"leaderworkersets"}, Verbs: objectVerbs,
		For: "`kubeinfer_leaderworkerset` and its data sources: server-side apply (`patch`, and `create` for a new object), read, " +
			"import, delete, and the rollout wait's watch; the DisaggregatedSet waits follow its roles' LeaderWorkerSets",
		ForShort: "the LeaderWorkerSet resource, data sources and waits", Without: "the objects cannot be read or applied"},
	{Role: RoleProvider, Group: "disaggregatedset.x-k8s.io", Resources: []string{"disaggregatedsets"}, Verbs: objectVerbs,
		For: "`kubeinfer_disaggregatedset` and its data sources, as above", ForShort: "the DisaggregatedSet resource and data sources", Without: "the objects cannot be read or applied"},
	{Role: RoleProvider, Group: "disaggregatedset.x-k8s.io", Resources: []string{"disaggregatedsetrolescalers"}, Verbs: []string{"get", "list"},
		For: "the DisaggregatedSet role scaler data sources (LWS v0.10.0)", ForShort: "the role scaler data sources", Without: "the role scaler data sources cannot be read"},
	{Role: RoleProvider, Group: "apps", Resources: []string{"statefulsets"}, Verbs: []string{"get", "list", "watch"},
		For:      "the rollout waits (each group's worker StatefulSet and the revision it runs) and destroy's wait until they are gone",
		ForShort: "the rollout waits and destroy", Without: "the wait cannot check that each group runs the set's revision"},
	{Role: RoleProvider, Resources: []string{"pods", "services"}, Verbs: []string{"get", "list", "watch"},
		For:      "the rollout waits (each group's pods Ready; the groups not ready, with the scheduler's reason) and destroy's wait until they are gone",
		ForShort: "the rollout waits and destroy", Without: "the wait cannot confirm that the groups' pods are Ready nor name the groups that are not"},
	{Role: RoleProvider, Resources: []string{"events"}, Verbs: []string{"list", "watch"},
		For: "the rollout waits: they quote the controllers' Warning events and end at once on a refusal that does not clear by " +
			"itself (a missing PriorityClass or ServiceAccount, Pod Security, an invalid object)",
		ForShort: "the rollout waits", Without: "the wait cannot end early on a refusal nor quote the controllers' Warning events: it waits for its whole timeout"},
	{Role: RoleRestart, Resources: []string{"pods"}, Verbs: []string{"delete"},
		For:      "the `kubeinfer_leaderworkerset_restart` action's `groups` (it deletes their leader pods); only where it is used",
		ForShort: "the restart action", Without: "the action cannot restart groups"},
	{Role: RoleAPF, Group: "flowcontrol.apiserver.k8s.io", Resources: []string{"prioritylevelconfigurations", "flowschemas"}, Verbs: objectVerbs,
		For: "`kubeinfer_priority_level_configuration`, `kubeinfer_flow_schema` and their data sources (cluster scoped); only if the " +
			"provider manages them", ForShort: "the API Priority and Fairness resources and data sources", Without: "the objects cannot be read or applied"},
	{Role: RolePlacement, Resources: []string{"nodes", "pods"}, Verbs: []string{"list"},
		For:      "`placement_preview` (`\"warn\"` or `\"error\"`): the plan lists the nodes and the pods bound to them in every namespace",
		ForShort: "the placement preview", Without: "the placement preview is skipped with a warning (an error with `\"error\"`)"},
}

// PermissionFor returns the rule that grants verb on resource of group in role ("" for any).
func PermissionFor(role, group, resource, verb string) (Permission, bool) {
	for _, p := range Permissions {
		if (role == "" || p.Role == role) && p.Group == group && slices.Contains(p.Resources, resource) && slices.Contains(p.Verbs, verb) {
			return p, true
		}
	}
	return Permission{}, false
}

// MissingPermission is the provider's sentence for a request the API server refused: which
// (resource, verb) the credentials lack, where, and what that costs.
func MissingPermission(group, resource, verb, namespace string) string {
	where := "cluster-wide"
	if namespace != "" {
		where = fmt.Sprintf("in namespace %q", namespace)
	}
	gr := resource
	if group != "" {
		gr = resource + "." + group
	}
	msg := fmt.Sprintf("cannot %s %s %s: the provider's credentials lack %q on %q", verb, gr, where, verb, gr)
	// A request across namespaces is a ClusterRole's (the placement preview's pods), one in a
	// namespace a Role's.
	var p Permission
	ok := false
	for _, c := range Permissions {
		if c.Group == group && slices.Contains(c.Resources, resource) && slices.Contains(c.Verbs, verb) &&
			(!ok || ClusterRole(c.Role) == (namespace == "")) {
			p, ok = c, true
		}
	}
	if ok {
		msg += ": " + p.Without + fmt.Sprintf(". Grant %s on %s, which %s use. The guide \"Running in a pod\" lists every permission.",
			strings.Join(p.Verbs, ", "), gr, strings.TrimPrefix(p.ForShort, "the "))
	}
	return msg
}

// PermissionsMarkdown is the table of Permissions as README.md and the guide show it.
func PermissionsMarkdown() string {
	var b strings.Builder
	b.WriteString("| Role | API group | Resources | Verbs | What needs it | Without it |\n|---|---|---|---|---|---|\n")
	for _, p := range Permissions {
		kind := "Role"
		if ClusterRole(p.Role) {
			kind = "ClusterRole"
		}
		group := p.Group
		if group == "" {
			group = "core"
		}
		fmt.Fprintf(&b, "| %s `%s` | `%s` | %s | %s | %s | %s |\n", kind, p.Role, group, codeList(p.Resources), codeList(p.Verbs), p.For, p.Without)
	}
	return b.String()
}

func codeList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = "`" + s + "`"
	}
	return strings.Join(quoted, ", ")
}
