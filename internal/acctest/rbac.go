package acctest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// GuideRBACPage is the page, as generated into docs/, whose YAML is the least privilege the
// provider documents.
const GuideRBACPage = "docs/guides/running-in-a-pod.md"

// RBAC is the Roles, ClusterRoles and bindings of a page's YAML blocks.
type RBAC struct {
	Roles               []rbacv1.Role
	ClusterRoles        []rbacv1.ClusterRole
	RoleBindings        []rbacv1.RoleBinding
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
}

// GuideRBAC parses every ```yaml block of the guide page under docs/ (GuideRBACPage), as
// users copy it: the tests grant exactly that.
func GuideRBAC() (*RBAC, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	page, err := os.ReadFile(filepath.Join(root, GuideRBACPage))
	if err != nil {
		return nil, err
	}
	return ParseRBAC(string(page))
}

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// ParseRBAC parses the RBAC objects of the ```yaml blocks of a Markdown page; any other kind
// is an error.
func ParseRBAC(page string) (*RBAC, error) {
	out := &RBAC{}
	blocks := yamlBlock.FindAllStringSubmatch(page, -1)
	if len(blocks) == 0 {
		return nil, fmt.Errorf("the page has no yaml block")
	}
	for _, b := range blocks {
		for _, doc := range strings.Split(b[1], "\n---\n") {
			var head struct{ APIVersion, Kind string }
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				return nil, err
			}
			if head.APIVersion != rbacv1.SchemeGroupVersion.String() {
				return nil, fmt.Errorf("apiVersion %q, want %s", head.APIVersion, rbacv1.SchemeGroupVersion)
			}
			var err error
			switch head.Kind {
			case "Role":
				var r rbacv1.Role
				err = yaml.UnmarshalStrict([]byte(doc), &r)
				out.Roles = append(out.Roles, r)
			case "ClusterRole":
				var r rbacv1.ClusterRole
				err = yaml.UnmarshalStrict([]byte(doc), &r)
				out.ClusterRoles = append(out.ClusterRoles, r)
			case "RoleBinding":
				var r rbacv1.RoleBinding
				err = yaml.UnmarshalStrict([]byte(doc), &r)
				out.RoleBindings = append(out.RoleBindings, r)
			case "ClusterRoleBinding":
				var r rbacv1.ClusterRoleBinding
				err = yaml.UnmarshalStrict([]byte(doc), &r)
				out.ClusterRoleBindings = append(out.ClusterRoleBindings, r)
			default:
				return nil, fmt.Errorf("unexpected kind %q", head.Kind)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", head.Kind, err)
			}
		}
	}
	return out, nil
}
