package examplestest

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// readOnlyRules are the rules of the Role in docs/guides/running-in-a-pod.md with only the
// verbs that read: what plans-in-pull-requests.md says a pull-request plan with data sources needs.
var readOnlyRules = []rbacv1.PolicyRule{
	{APIGroups: []string{"leaderworkerset.x-k8s.io"}, Resources: []string{"leaderworkersets"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"disaggregatedset.x-k8s.io"}, Resources: []string{"disaggregatedsets", "disaggregatedsetrolescalers"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"apps"}, Resources: []string{"statefulsets"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{""}, Resources: []string{"pods", "services"}, Verbs: []string{"get", "list", "watch"}},
}

// TestAccReadOnlyToken_pullRequestPlan checks the claims of the pull-request guide about
// credentials with a real user whose only permissions are those read-only rules:
//   - a plan with -refresh=false of a configuration holding a new LeaderWorkerSet and the data
//     source of an existing one passes with that token, and reads the existing object;
//   - the same configuration without any credentials fails (Terraform reads data sources at plan);
//   - the apply of the plan made with the read-only token fails with the API server's "forbidden",
//     so the token really could not write.
func TestAccReadOnlyToken_pullRequestPlan(t *testing.T) {
	acctest.FirstCLIOnly(t, "RBAC of a pull-request plan (the CLI matrix covers plans)")
	const existing, reader = "pr-existing", "pr-reader"
	c := acctest.Cluster(t)
	ctx := context.Background()

	lws := func(name string) string {
		return `
resource "kubeinfer_leaderworkerset" "` + strings.ReplaceAll(name, "-", "_") + `" {
  metadata = { name = "` + name + `", namespace = "default", labels = { team = "pr" } }
  spec = {
    replicas = 1
    leader_worker_template = {
      size = 1
      worker_template = { spec = { containers = [{ name = "vllm", image = "vllm/vllm-openai:v0.9.0" }] } }
    }
  }
  wait_for_rollout = false
}
`
	}
	admin := acctest.NewWorkspace(t)
	admin.Configure(c, lws(existing))
	admin.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	t.Cleanup(func() { admin.Run("destroy", "-auto-approve", "-input=false", "-no-color") })

	rbac := c.Clientset().RbacV1()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: reader, Namespace: "default"}, Rules: readOnlyRules}
	if _, err := rbac.Roles("default").Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: reader, Namespace: "default"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: reader},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: reader}},
	}
	if _, err := rbac.RoleBindings("default").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = rbac.RoleBindings("default").Delete(ctx, reader, metav1.DeleteOptions{})
		_ = rbac.Roles("default").Delete(ctx, reader, metav1.DeleteOptions{})
	})
	kubeconfig, err := c.UnboundUserKubeconfig(reader)
	if err != nil {
		t.Fatal(err)
	}

	config := lws("pr-new") + `
data "kubeinfer_leaderworkerset" "existing" {
  metadata = { name = "` + existing + `", namespace = "default" }
}

output "existing_replicas" { value = data.kubeinfer_leaderworkerset.existing.spec.replicas }
output "existing_image" {
  value = data.kubeinfer_leaderworkerset.existing.spec.leader_worker_template.worker_template.spec.containers[0].image
}
`
	pr := acctest.NewWorkspace(t)
	pr.ConfigureAs(kubeconfig, config)
	out := pr.MustRun("plan", "-refresh=false", "-input=false", "-no-color", "-out=tfplan")
	t.Logf("plan with the read-only token:\n%s", out)
	for _, want := range []string{"kubeinfer_leaderworkerset.pr_new will be created", "existing_replicas = 1", `existing_image    = "vllm/vllm-openai:v0.9.0"`, "Plan: 1 to add, 0 to change, 0 to destroy"} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan with the read-only token does not say %q", want)
		}
	}

	out, ok := pr.Run("apply", "-input=false", "-no-color", "tfplan")
	t.Logf("apply of that plan with the read-only token:\n%s", out)
	if ok || !strings.Contains(out, "forbidden") || !strings.Contains(out, `"`+reader+`"`) {
		t.Errorf("the apply with a read-only token should fail with the API server's forbidden naming the user %s", reader)
	}

	none := acctest.NewWorkspace(t)
	none.ConfigureAs(t.TempDir()+"/no-kubeconfig", config)
	out, ok = none.Run("plan", "-refresh=false", "-input=false", "-no-color")
	t.Logf("plan without credentials:\n%s", out)
	if ok || !strings.Contains(out, "data.kubeinfer_leaderworkerset.existing") {
		t.Errorf("a plan with data sources and no credentials should fail on the data source")
	}
}
