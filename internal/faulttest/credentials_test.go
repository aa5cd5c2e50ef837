package faulttest

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// serviceAccountToken creates a service account bound to cluster-admin and
// returns a bearer token for it (a TokenRequest, as `kubectl create token`
// makes).
func serviceAccountToken(ctx context.Context, t *testing.T, c *acctest.TestCluster, name string) string {
	t.Helper()
	cs := c.Clientset()
	if _, err := cs.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-cluster-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token: %v", err)
	}
	return tr.Status.Token
}

// TestAccLogs_noCredentials runs apply, plan and destroy with TF_LOG=trace,
// once with a bearer token (in a sensitive variable) and once with a client
// certificate whose key comes from KUBE_CLIENT_KEY_DATA, and checks that no
// log line and no state file holds the token or the key, while the debug log
// does show the provider's API requests (verb, path, status, duration).
func TestAccLogs_noCredentials(t *testing.T) {
	c := acctest.Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	token := serviceAccountToken(ctx, t, c, "kubeinfer-logs")
	userKubeconfig, err := c.UserKubeconfig(ctx, "kubeinfer-logs-cert")
	if err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.LoadFromFile(userKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	kctx := kc.Contexts[kc.CurrentContext]
	cluster, auth := kc.Clusters[kctx.Cluster], kc.AuthInfos[kctx.AuthInfo]
	key := string(auth.ClientKeyData)
	// The key's base64 lines: a log that quoted the PEM in any form would hold one of them.
	var keyLines []string
	for _, l := range strings.Split(key, "\n") {
		if len(l) >= 40 && !strings.HasPrefix(l, "-----") {
			keyLines = append(keyLines, l)
		}
	}
	if len(keyLines) == 0 {
		t.Fatal("the client key has no base64 lines")
	}

	// A server-side apply of a LeaderWorkerSet in the provider's request log (tflog writes the
	// fields in no fixed order).
	applyLogged := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "Kubernetes API request:") && strings.Contains(l, " method=PATCH") &&
				strings.Contains(l, " path=/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets/") &&
				regexp.MustCompile(` status=20[01]( |$)`).MatchString(l) {
				return l
			}
		}
		return ""
	}
	for _, tc := range []struct {
		name, provider string
		env            []string
		secrets        []string
	}{
		{
			name: "token in a sensitive variable",
			provider: fmt.Sprintf(`variable "token" {
  type      = string
  sensitive = true
}
provider "kubeinfer" {
  host                   = %q
  cluster_ca_certificate = %q
  token                  = var.token
}
`, cluster.Server, string(cluster.CertificateAuthorityData)),
			env:     []string{"TF_VAR_token=" + token},
			secrets: []string{token, base64.StdEncoding.EncodeToString([]byte(token))},
		},
		{
			name: "client key in KUBE_CLIENT_KEY_DATA",
			provider: fmt.Sprintf(`provider "kubeinfer" {
  host                   = %q
  cluster_ca_certificate = %q
  client_certificate     = %q
}
`, cluster.Server, string(cluster.CertificateAuthorityData), string(auth.ClientCertificateData)),
			env:     []string{"KUBE_CLIENT_KEY_DATA=" + key},
			secrets: keyLines,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fleet{prefix: "logs-" + strings.Fields(tc.name)[0], n: 1, provider: tc.provider}
			w := newWorkdir(t, f.config())
			w.env = append(w.env, tc.env...)
			w.env = append(w.env, "TF_LOG=trace")
			t.Cleanup(func() { cleanup(t, w, c, f.prefix) })

			var logs strings.Builder
			for _, args := range [][]string{applyArgs, {"plan", "-input=false", "-no-color"}, destroyArgs} {
				r := w.mustSucceed(ctx, args...)
				logs.WriteString(r.out)
			}
			out := logs.String()
			line := applyLogged(out)
			if line == "" {
				t.Fatalf("the trace log shows no server-side apply request of the provider")
			}
			t.Logf("a request in the log: %s", line)
			files := map[string]string{"TF_LOG=trace output": out}
			for _, name := range []string{"terraform.tfstate", "terraform.tfstate.backup"} {
				if b, err := os.ReadFile(filepath.Join(w.dir, name)); err == nil {
					files[name] = string(b)
				}
			}
			for where, text := range files {
				for _, s := range tc.secrets {
					if strings.Contains(text, s) {
						t.Errorf("%s holds the credential (%d bytes of it)", where, len(s))
					}
				}
			}
			t.Logf("%d bytes of trace log and %d state files hold no credential", len(out), len(files)-1)
		})
	}
}
