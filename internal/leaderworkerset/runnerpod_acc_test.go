package leaderworkerset_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// publishedRBAC is the Role and ClusterRole the guide "Running in a pod" publishes as what the
// provider needs (its first yaml block), so that the test grants exactly what users copy.
func publishedRBAC(t *testing.T) (*rbacv1.Role, *rbacv1.ClusterRole) {
	t.Helper()
	guide, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "running-in-a-pod.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(guide)
	if m == nil {
		t.Fatal("the guide has no yaml block")
	}
	var role rbacv1.Role
	var clusterRole rbacv1.ClusterRole
	for _, doc := range strings.Split(string(m[1]), "\n---\n") {
		var kind struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &kind); err != nil {
			t.Fatal(err)
		}
		switch kind.Kind {
		case "Role":
			err = yaml.UnmarshalStrict([]byte(doc), &role)
		case "ClusterRole":
			err = yaml.UnmarshalStrict([]byte(doc), &clusterRole)
		default:
			t.Fatalf("unexpected kind %q in the guide's RBAC", kind.Kind)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(role.Rules) == 0 || len(clusterRole.Rules) == 0 {
		t.Fatal("the guide's RBAC has no Role or no ClusterRole rules")
	}
	return &role, &clusterRole
}

// TestAccLeaderWorkerSet_runnerPod runs the provider as a GitOps runner pod does: no
// kubeconfig, no KUBE_* settings, only KUBERNETES_SERVICE_HOST/PORT and a service account's
// token and CA (in a folder named by KUBEINFER_SERVICE_ACCOUNT_DIR instead of
// /var/run/secrets/kubernetes.io/serviceaccount), the service account bound to the Role the
// docs publish. Create (with the rollout wait), plan, import and destroy pass; without the
// delete permission the destroy fails naming the verb and the resource.
func TestAccLeaderWorkerSet_runnerPod(t *testing.T) {
	acctest.FirstCLIOnly(t, "the API server's RBAC for a service account")
	const name, sa = "acc-runner-pod", "tf-runner"
	c := acctest.Cluster(t)
	cs := c.Clientset()
	ctx := context.Background()
	role, clusterRole := publishedRBAC(t)
	role.Name, role.Namespace = "kubeinfer-provider-test", "default"
	clusterRole.Name = "kubeinfer-provider-apf-test"
	roles := cs.RbacV1().Roles("default")
	if _, err := roles.Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, clusterRole, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: "default"}}
	if _, err := cs.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name}, Subjects: subject,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRole.Name}, Subjects: subject,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole.Name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = cs.RbacV1().RoleBindings("default").Delete(ctx, role.Name, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, clusterRole.Name, metav1.DeleteOptions{})
		_ = roles.Delete(ctx, role.Name, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(ctx, clusterRole.Name, metav1.DeleteOptions{})
		_ = cs.CoreV1().ServiceAccounts("default").Delete(ctx, sa, metav1.DeleteOptions{})
	})

	// The files a pod has at /var/run/secrets/kubernetes.io/serviceaccount.
	tok, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	saDir := t.TempDir()
	rc := c.RESTConfig()
	if err := os.WriteFile(filepath.Join(saDir, "token"), []byte(tok.Status.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(saDir, "ca.crt"), rc.CAData, 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(rc.Host)
	if err != nil {
		t.Fatal(err)
	}
	// The runner pod's environment: the service's address, nothing else that names a cluster.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "KUBE_") {
			t.Setenv(k, "")
		}
	}
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", u.Hostname())
	t.Setenv("KUBERNETES_SERVICE_PORT", u.Port())
	t.Setenv(kubeclient.ServiceAccountDirEnv, saDir)

	setDelete := func(allowed bool) func() {
		return func() {
			r, err := roles.Get(ctx, role.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i, rule := range r.Rules {
				if len(rule.Resources) == 1 && rule.Resources[0] == "leaderworkersets" {
					verbs := []string{"get", "list", "watch", "create", "patch"}
					if allowed {
						verbs = append(verbs, "delete")
					}
					r.Rules[i].Verbs = verbs
				}
			}
			if _, err := roles.Update(ctx, r, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	pc := "provider \"kubeinfer\" {}\n"
	cfg := pc + vllm(lwsfixture.VLLM(name, 1, 2, lwsfixture.SmallGPU))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: cfg}, // create, and wait for the rollout (StatefulSets, pods)
			{Config: cfg, PlanOnly: true},
			{Config: cfg, ResourceName: addr, ImportState: true, ImportStateId: "default/" + name,
				ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "id"},
			{ // without delete on leaderworkersets the destroy names the verb and the resource
				PreConfig:   setDelete(false),
				Config:      pc,
				ExpectError: regexp.MustCompile(`(?s)system:serviceaccount:default:` + sa + `.*cannot\s+delete\s+resource\s+"leaderworkersets"`),
			},
			{PreConfig: setDelete(true), Config: pc},
		},
	})
}
