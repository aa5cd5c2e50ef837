package leaderworkerset_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// beforeIssue58Role is the Role of the guide "Running in a pod" before issue 58 (commit 8569998):
// no access to events. Kept as the documented "before" case of TestAccLeastPrivilege_beforeIssue58.
const beforeIssue58Role = "```yaml\n" + `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: kubeinfer-provider
  namespace: inference
rules:
  - apiGroups: ["leaderworkerset.x-k8s.io"]
    resources: ["leaderworkersets"]
    verbs: ["get", "list", "watch", "create", "patch", "delete"]
  - apiGroups: ["disaggregatedset.x-k8s.io"]
    resources: ["disaggregatedsets"]
    verbs: ["get", "list", "watch", "create", "patch", "delete"]
  - apiGroups: ["disaggregatedset.x-k8s.io"]
    resources: ["disaggregatedsetrolescalers"]
    verbs: ["get", "list"]
  - apiGroups: ["apps"]
    resources: ["statefulsets"]
    verbs: ["get", "list", "watch"]
  - apiGroups: [""]
    resources: ["pods", "services"]
    verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: kubeinfer-provider
  namespace: inference
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: kubeinfer-provider
subjects:
  - kind: ServiceAccount
    name: tf-runner
    namespace: flux-system
` + "```\n"

// leastPrivilege is a namespace and a service account bound to a page's RBAC, and the provider
// block that uses the account's token.
type leastPrivilege struct {
	ns, sa string
	config string // the provider block
}

// grant creates the namespace ns and the service account tf-runner in it, applies the RBAC of
// the page as written, in ns and bound to that account (the page's namespace "inference" and
// subject are the only things changed), and returns the provider block with the account's token.
// ClusterRoles and ClusterRoleBindings get the suffix so that two tests do not share them.
func grant(t *testing.T, rbac *acctest.RBAC, ns, suffix string) *leastPrivilege {
	t.Helper()
	c := acctest.Cluster(t)
	cs := c.Clientset()
	ctx := context.Background()
	const sa = "tf-runner"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}}
	for _, r := range rbac.Roles {
		r.Namespace = ns
		if _, err := cs.RbacV1().Roles(ns).Create(ctx, &r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range rbac.RoleBindings {
		b.Namespace, b.Subjects = ns, subjects
		if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range rbac.ClusterRoles {
		r.Name += suffix
		if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(context.Background(), r.Name, metav1.DeleteOptions{}) })
	}
	for _, b := range rbac.ClusterRoleBindings {
		b.Name += suffix
		b.RoleRef.Name += suffix
		b.Subjects = subjects
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), b.Name, metav1.DeleteOptions{})
		})
	}
	tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](7200)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Nothing else names a cluster or credentials: the provider block alone.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "KUBE_") {
			t.Setenv(k, "")
		}
	}
	t.Setenv("KUBECONFIG", "")
	rc := c.RESTConfig()
	return &leastPrivilege{ns: ns, sa: sa, config: acctest.RequiredProviders() + fmt.Sprintf(`provider "kubeinfer" {
  host                   = %q
  token                  = %q
  cluster_ca_certificate = %q
  placement_preview      = "error"
}
`, rc.Host, tok.Status.Token, string(rc.CAData))}
}

// allWarnings are the warnings of the refreshes, plans, applies and data source reads recorded
// since the last call.
func allWarnings(w *kubetest.Warnings) []string {
	return slices.Concat(w.Take(), w.TakePlan(), w.TakeApply(), w.TakeDataSource())
}

// noPermissionWarnings fails on a warning that says the provider lacks a permission, or that the
// placement preview was skipped.
func noPermissionWarnings(warnings *kubetest.Warnings) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, w := range allWarnings(warnings) {
			if strings.Contains(w, "lacks a permission") || strings.Contains(w, "Placement preview skipped") {
				return fmt.Errorf("warning: %s", w)
			}
		}
		return nil
	}
}

// TestAccLeastPrivilege runs the provider with a service account's token, the account bound to
// exactly the RBAC of the guide "Running in a pod" as generated into docs/ (parsed from the page):
// a create with the placement preview at "error" (nodes and pods listed at plan) and the rollout
// wait to Ready, an empty plan, import, the singular and plural data sources, a FailedCreate (a
// missing PriorityClass) that ends the wait within seconds quoting the event, and destroy; no
// step warns of a missing permission. Under Terraform 1.14 and later, list resources and the
// restart action too (TestAccLeastPrivilege_queryAndRestart).
func TestAccLeastPrivilege(t *testing.T) {
	acctest.FirstCLIOnly(t, "the API server's RBAC for the documented permissions")
	rbac, err := acctest.GuideRBAC()
	if err != nil {
		t.Fatal(err)
	}
	lp := grant(t, rbac, "acc-least-privilege", "-acc")
	const name = "acc-least-privilege"
	obj := lwsfixture.VLLM(name, 1, 2, lwsfixture.SmallGPU, inNamespace(lp.ns))
	cfg := lp.config + vllm(obj)
	data := fmt.Sprintf(`
data "kubeinfer_leaderworkerset" "one" {
  metadata = {
    name      = kubeinfer_leaderworkerset.test.metadata.name
    namespace = %[1]q
  }
}

data "kubeinfer_leaderworkersets" "all" {
  namespace = %[1]q
}
`, lp.ns)
	refused := lwsfixture.VLLM(name+"-pc", 1, 1, lwsfixture.SmallGPU, inNamespace(lp.ns),
		podSpecs(func(s *corev1.PodSpec) { s.PriorityClassName = "does-not-exist" }))
	refusedHCL := strings.Replace(vllm(refused, `timeouts = { create = "5m" }`), `"kubeinfer_leaderworkerset" "test"`, `"kubeinfer_leaderworkerset" "refused"`, 1)
	var warnings kubetest.Warnings
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: warnings.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{Config: cfg, Check: noPermissionWarnings(&warnings)}, // plan with the placement preview, create, wait to Ready
			{Config: cfg, PlanOnly: true},
			{Config: cfg, ResourceName: addr, ImportState: true, ImportStateId: lp.ns + "/" + name,
				ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "id"},
			{
				Config: cfg + data,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.kubeinfer_leaderworkerset.one", tfjsonpath.New("status").AtMapKey("ready_replicas"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue("data.kubeinfer_leaderworkersets.all", tfjsonpath.New("items"), knownvalue.ListSizeExact(1)),
				},
				Check: noPermissionWarnings(&warnings),
			},
			{ // a refusal that does not clear by itself: the wait ends at once, quoting it
				PreConfig:   func() { started = time.Now() },
				Config:      cfg + data + refusedHCL,
				ExpectError: regexp.MustCompile(`(?s)Warning\s+FailedCreate\s+on\s+StatefulSet\s+` + name + `-pc.*no\s+PriorityClass\s+with\s+name\s+does-not-exist`),
			},
			{
				PreConfig: func() {
					took := time.Since(started)
					t.Logf("the apply with the missing PriorityClass failed after %s (timeout 5m)", took.Round(100*time.Millisecond))
					if took > time.Minute {
						t.Errorf("the wait did not end on the FailedCreate: %s", took)
					}
					for _, w := range allWarnings(&warnings) {
						if strings.Contains(w, "lacks a permission") {
							t.Errorf("warning: %s", w)
						}
					}
				},
				Config: cfg + data, // destroys the refused one
			},
		},
	})
}

// TestAccLeastPrivilege_queryAndRestart: with the guide's RBAC, `terraform query` lists the
// namespace's LeaderWorkerSets and the restart action restarts a group (it deletes the group's
// leader pod: the Role kubeinfer-provider-restart). Terraform 1.14 and later.
func TestAccLeastPrivilege_queryAndRestart(t *testing.T) {
	acctest.FirstCLIOnly(t, "the API server's RBAC for the documented permissions")
	if acctest.UnderOpenTofu() {
		t.Skip("OpenTofu has no actions nor terraform query")
	}
	rbac, err := acctest.GuideRBAC()
	if err != nil {
		t.Fatal(err)
	}
	lp := grant(t, rbac, "acc-least-privilege-q", "-acc-q")
	const name = "acc-least-privilege-q"
	cfg := lp.config + vllm(lwsfixture.VLLM(name, 2, 1, lwsfixture.SmallGPU, inNamespace(lp.ns)))
	restart := restartTrigger("one", "    groups = [1]")
	cs := acctest.Cluster(t).Clientset()
	group1 := func() map[string]string { // the Ready pods of group 1, name -> UID
		pods, err := cs.CoreV1().Pods(lp.ns).List(context.Background(), metav1.ListOptions{
			LabelSelector: labelName + "=" + name + "," + labelGroupIndex + "=1"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && acctest.PodReady(&p) {
				out[p.Name] = string(p.UID)
			}
		}
		return out
	}
	var before map[string]string
	// The query and the action need the provider server itself: a wrapper that records warnings
	// would hide its list resources and actions.
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				Query: true,
				Config: fmt.Sprintf(`
list "kubeinfer_leaderworkerset" "ns" {
  provider = kubeinfer
  config {
    namespace = %q
  }
}
`, lp.ns),
				QueryResultChecks: []querycheck.QueryResultCheck{querycheck.ExpectLength("kubeinfer_leaderworkerset.ns", 1)},
			},
			{
				PreConfig: func() { before = group1() },
				Config:    cfg + restart,
				Check: func(*terraform.State) error {
					after := group1()
					if len(before) == 0 || len(after) != len(before) {
						return fmt.Errorf("group 1's Ready pods: %v before the restart, %v after", before, after)
					}
					for pod, uid := range before {
						if after[pod] == uid {
							return fmt.Errorf("pod %s of group 1 was not recreated by the restart action", pod)
						}
					}
					return nil
				},
			},
		},
	})
}

// TestAccLeastPrivilege_beforeIssue58: the Role the guide published before issue 58 gives no
// access to events: a create whose pods are refused (a missing PriorityClass) waits out its whole
// timeout instead of ending on the FailedCreate. The provider now says why, with a warning that
// names the missing permission and what it costs, and the timeout's error.
func TestAccLeastPrivilege_beforeIssue58(t *testing.T) {
	acctest.FirstCLIOnly(t, "the API server's RBAC for the documented permissions")
	rbac, err := acctest.ParseRBAC(beforeIssue58Role)
	if err != nil {
		t.Fatal(err)
	}
	lp := grant(t, rbac, "acc-least-privilege-before", "-acc-before")
	const name = "acc-least-privilege-before"
	const timeout = 20 * time.Second // long beside the 2 s the guide's Role takes, short for the suite
	cfg := strings.Replace(lp.config, `  placement_preview      = "error"`+"\n", "", 1) +
		vllm(lwsfixture.VLLM(name, 1, 1, lwsfixture.SmallGPU, inNamespace(lp.ns),
			podSpecs(func(s *corev1.PodSpec) { s.PriorityClassName = "does-not-exist" })), `timeouts = { create = "20s" }`)
	var warnings kubetest.Warnings
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: warnings.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { started = time.Now() },
				Config:      cfg,
				ExpectError: regexp.MustCompile(`(?s)timed\s+out\s+waiting\s+for\s+the\s+rollout.*cannot\s+list\s+events`),
			},
			{
				PreConfig: func() {
					took := time.Since(started)
					t.Logf("with the Role of before issue 58 the apply failed after %s (timeout %s)", took.Round(100*time.Millisecond), timeout)
					if took < timeout {
						t.Errorf("the apply ended after %s, before its timeout: the wait could read the events", took)
					}
					found := false
					for _, w := range allWarnings(&warnings) {
						if strings.Contains(w, "lacks a permission its wait uses") && strings.Contains(w, "the wait cannot end early") {
							found = true
							t.Logf("warning:\n%s", w)
						}
					}
					if !found {
						t.Error("no warning names the missing permission on events")
					}
				},
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}
