package kube_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// TestPermissionsTableIsTheDocs: README.md and the guide "Running in a pod" (as generated into
// docs/) show the table of kube.Permissions as it is, and the guide's YAML grants exactly
// those rules, each in its role, and binds every role to the runner's service account with a
// binding of the right kind.
func TestPermissionsTableIsTheDocs(t *testing.T) {
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	table := kube.PermissionsMarkdown()
	for _, page := range []string{"README.md", acctest.GuideRBACPage} {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), table) {
			t.Errorf("%s does not show the permissions table as kube.PermissionsMarkdown writes it:\n%s", page, table)
		}
	}
	rbac, err := acctest.GuideRBAC()
	if err != nil {
		t.Fatal(err)
	}
	granted := map[string][]rbacv1.PolicyRule{}
	for _, r := range rbac.Roles {
		granted[r.Name] = r.Rules
	}
	for _, r := range rbac.ClusterRoles {
		if _, dup := granted[r.Name]; dup {
			t.Errorf("the guide names a Role and a ClusterRole %s", r.Name)
		}
		granted[r.Name] = r.Rules
	}
	want := map[string][]rbacv1.PolicyRule{}
	for _, p := range kube.Permissions {
		want[p.Role] = append(want[p.Role], rbacv1.PolicyRule{APIGroups: []string{p.Group}, Resources: p.Resources, Verbs: p.Verbs})
	}
	for role, rules := range want {
		got, ok := granted[role]
		if !ok {
			t.Errorf("the guide's YAML has no role %s", role)
			continue
		}
		if !slices.EqualFunc(got, rules, sameRule) {
			t.Errorf("role %s grants %+v, want %+v", role, got, rules)
		}
	}
	for role := range granted {
		if _, ok := want[role]; !ok {
			t.Errorf("the guide's YAML has a role %s that kube.Permissions does not know", role)
		}
	}
	kinds := map[string]string{}
	for _, r := range rbac.Roles {
		kinds[r.Name] = "Role"
	}
	for _, r := range rbac.ClusterRoles {
		kinds[r.Name] = "ClusterRole"
	}
	bound := map[string]bool{}
	for _, b := range rbac.RoleBindings {
		if b.RoleRef.Kind != "Role" || kinds[b.RoleRef.Name] != "Role" {
			t.Errorf("RoleBinding %s binds %s %s, not a Role of the guide", b.Name, b.RoleRef.Kind, b.RoleRef.Name)
		}
		bound[b.RoleRef.Name] = true
	}
	for _, b := range rbac.ClusterRoleBindings {
		if b.RoleRef.Kind != "ClusterRole" || kinds[b.RoleRef.Name] != "ClusterRole" {
			t.Errorf("ClusterRoleBinding %s binds %s %s, not a ClusterRole of the guide", b.Name, b.RoleRef.Kind, b.RoleRef.Name)
		}
		bound[b.RoleRef.Name] = true
	}
	for role, kind := range kinds {
		if !bound[role] {
			t.Errorf("%s %s has no binding in the guide", kind, role)
		}
		if kube.ClusterRole(role) != (kind == "ClusterRole") {
			t.Errorf("the guide's %s is a %s, kube.ClusterRole says otherwise", role, kind)
		}
	}
}

func sameRule(a, b rbacv1.PolicyRule) bool {
	return slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources) && slices.Equal(a.Verbs, b.Verbs) &&
		len(a.ResourceNames) == 0 && len(a.NonResourceURLs) == 0
}

// The provider's sentence for a missing permission names the (resource, verb), where, and what
// it costs, from the same table.
func TestMissingPermission(t *testing.T) {
	got := kube.MissingPermission("", "events", "watch", "inference")
	for _, want := range []string{`cannot watch events in namespace "inference"`, `lack "watch" on "events"`,
		"the wait cannot end early on a refusal", "Grant list, watch on events"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if got := kube.MissingPermission("", "pods", "list", ""); !strings.Contains(got, "cluster-wide") || !strings.Contains(got, "placement preview is skipped") {
		t.Errorf("a cluster-wide list of pods is the placement preview's: %q", got)
	}
}
