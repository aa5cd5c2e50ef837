// Package kubeclient builds the provider's Kubernetes API client: the
// connection settings (kubeconfig files, KUBE_* values, in-cluster service
// account) through client-go's clientcmd, a client built lazily on first use,
// and the HTTP transport that retries lost connections and server errors. It
// knows nothing about Terraform types: the provider translates its
// configuration (already merged with the KUBE_* environment variables) into
// Settings.
package kubeclient

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	// DefaultQPS is the client-side rate limit used when Settings.QPS is 0.
	// It is higher than client-go's default (5) because a single apply may
	// touch hundreds of objects.
	DefaultQPS float32 = 50
	// DefaultBurst is the client-side burst used when Settings.Burst is 0.
	DefaultBurst = 100
)

// ErrNoConfiguration is returned (wrapped) by Client.RESTConfig when no
// usable cluster configuration was found.
var ErrNoConfiguration = errors.New("no Kubernetes cluster configuration found")

// noConfigurationHelp explains every way to configure the provider.
const noConfigurationHelp = `set one of the following:
  - "host" (or KUBE_HOST) together with credentials: "token" (KUBE_TOKEN), ` +
	`"client_certificate" + "client_key" (KUBE_CLIENT_CERT_DATA + KUBE_CLIENT_KEY_DATA) or "exec";
  - "config_path" (KUBE_CONFIG_PATH) or "config_paths" (KUBE_CONFIG_PATHS), ` +
	`e.g. config_path = "~/.kube/config", optionally with "config_context" (KUBE_CTX);
  - the KUBECONFIG environment variable;
  - or run Terraform inside a Kubernetes cluster (in-cluster service account)`

// inClusterConfig is a seam for tests.
var inClusterConfig = serviceAccountConfig

// ServiceAccountDirEnv names a folder that replaces the in-cluster service account's
// (/var/run/secrets/kubernetes.io/serviceaccount) for its token and ca.crt: for tests that run
// the provider as a runner pod does, and for runners that mount the token elsewhere.
const ServiceAccountDirEnv = "KUBEINFER_SERVICE_ACCOUNT_DIR"

// serviceAccountConfig is rest.InClusterConfig (k8s.io/client-go/rest/config.go, v0.37.2),
// reading the token and CA from $KUBEINFER_SERVICE_ACCOUNT_DIR when it is set.
func serviceAccountConfig() (*rest.Config, error) {
	dir := os.Getenv(ServiceAccountDirEnv)
	if dir == "" {
		return rest.InClusterConfig()
	}
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, rest.ErrNotInCluster
	}
	tokenFile := filepath.Join(dir, "token")
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, err
	}
	cfg := &rest.Config{Host: "https://" + net.JoinHostPort(host, port), BearerToken: string(token), BearerTokenFile: tokenFile}
	if caFile := filepath.Join(dir, "ca.crt"); fileExists(caFile) {
		cfg.CAFile = caFile
	}
	return cfg, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ExecConfig configures a client-go credential (exec) plugin.
type ExecConfig struct {
	APIVersion string
	Command    string
	Args       []string
	Env        map[string]string
}

// Settings is the resolved provider configuration. Empty strings, nil
// slices and nil pointers mean "not set". Values are expected to be already
// merged with the KUBE_* environment variables by the provider.
type Settings struct {
	Host                  string
	ConfigPath            string
	ConfigPaths           []string
	ConfigContext         string
	ConfigContextAuthInfo string
	ConfigContextCluster  string
	Token                 string
	// ClientCertificate, ClientKey and ClusterCACertificate are inline
	// PEM-encoded data, not file names.
	ClientCertificate    string
	ClientKey            string
	ClusterCACertificate string
	Insecure             *bool
	TLSServerName        string
	ProxyURL             string
	Exec                 *ExecConfig

	// QPS and Burst configure client-side rate limiting; 0 selects
	// DefaultQPS / DefaultBurst.
	QPS   float32
	Burst int
}

// kubeconfigPaths returns the configured kubeconfig paths (config_path wins
// over config_paths), with "~" expanded and empty entries removed.
func (s Settings) kubeconfigPaths() ([]string, error) {
	var raw []string
	if s.ConfigPath != "" {
		raw = []string{s.ConfigPath}
	} else {
		raw = s.ConfigPaths
	}
	var out []string
	for _, p := range raw {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		expanded, err := expandHome(p)
		if err != nil {
			return nil, err
		}
		out = append(out, expanded)
	}
	return out, nil
}

// hasCredentials reports whether any explicit credential is set.
func (s Settings) hasCredentials() bool {
	return s.Token != "" || s.ClientCertificate != "" || s.ClientKey != "" || s.Exec != nil
}

// expandHome expands a leading "~" (alone or followed by a path separator).
func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(os.PathSeparator)) {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expanding %q: %w", p, err)
	}
	return filepath.Join(home, p[1:]), nil
}

// overrides translates the explicit settings into clientcmd overrides, which
// take precedence over values read from kubeconfig files.
func (s Settings) overrides() (*clientcmd.ConfigOverrides, error) {
	o := &clientcmd.ConfigOverrides{}
	o.CurrentContext = s.ConfigContext
	o.Context.AuthInfo = s.ConfigContextAuthInfo
	o.Context.Cluster = s.ConfigContextCluster

	if s.Insecure != nil {
		o.ClusterInfo.InsecureSkipTLSVerify = *s.Insecure
	}
	o.ClusterInfo.TLSServerName = s.TLSServerName
	o.ClusterInfo.ProxyURL = s.ProxyURL
	if s.ClusterCACertificate != "" {
		o.ClusterInfo.CertificateAuthorityData = []byte(s.ClusterCACertificate)
	}
	if s.ClientCertificate != "" {
		o.AuthInfo.ClientCertificateData = []byte(s.ClientCertificate)
	}
	if s.ClientKey != "" {
		o.AuthInfo.ClientKeyData = []byte(s.ClientKey)
	}
	o.AuthInfo.Token = s.Token
	o.AuthInfo.Exec = s.execConfig()

	if s.Host != "" {
		// The server must be a full URL: overrides are applied too late for
		// client-go to add a default scheme, so do it here the same way.
		hasCA := len(o.ClusterInfo.CertificateAuthorityData) > 0
		hasCert := len(o.AuthInfo.ClientCertificateData) > 0
		defaultTLS := (hasCA || hasCert) && !o.ClusterInfo.InsecureSkipTLSVerify
		u, _, err := rest.DefaultServerURL(s.Host, "", schema.GroupVersion{}, defaultTLS)
		if err != nil {
			return nil, fmt.Errorf("invalid host %q: %w", s.Host, err)
		}
		o.ClusterInfo.Server = u.String()
	}
	return o, nil
}

// execConfig converts the exec settings into client-go's representation.
func (s Settings) execConfig() *clientcmdapi.ExecConfig {
	if s.Exec == nil {
		return nil
	}
	e := &clientcmdapi.ExecConfig{
		APIVersion:      s.Exec.APIVersion,
		Command:         s.Exec.Command,
		Args:            append([]string(nil), s.Exec.Args...),
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}
	names := make([]string, 0, len(s.Exec.Env))
	for k := range s.Exec.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		e.Env = append(e.Env, clientcmdapi.ExecEnvVar{Name: k, Value: s.Exec.Env[k]})
	}
	return e
}

// buildRESTConfig resolves the settings into a rest.Config. It reads
// kubeconfig files and the in-cluster service account, but never contacts
// the API server. The order is:
//
//  1. config_path / config_paths: load the kubeconfig(s), apply context and
//     explicit overrides;
//  2. host: build from the explicit settings alone;
//  3. KUBECONFIG: load it, apply context and explicit overrides;
//  4. in-cluster service account, with explicit overrides applied;
//  5. otherwise ErrNoConfiguration.
func (s Settings) buildRESTConfig() (*rest.Config, error) {
	paths, err := s.kubeconfigPaths()
	if err != nil {
		return nil, err
	}
	overrides, err := s.overrides()
	if err != nil {
		return nil, err
	}

	var cfg *rest.Config
	switch {
	case len(paths) > 0:
		source := "config_paths"
		if s.ConfigPath != "" {
			source = "config_path"
		}
		cfg, err = fromKubeconfig(paths, source, overrides)
	case s.Host != "":
		cfg, err = fromOverrides(overrides)
	case os.Getenv("KUBECONFIG") != "":
		cfg, err = fromKubeconfig(filepath.SplitList(os.Getenv("KUBECONFIG")), "KUBECONFIG", overrides)
	default:
		cfg, err = s.fromInCluster()
	}
	if err != nil {
		return nil, err
	}

	// clientcmd merges with mergo, which cannot override true with false:
	// an explicit insecure = false must still win over the kubeconfig.
	if s.Insecure != nil && !*s.Insecure {
		cfg.Insecure = false
	}
	if cfg.QPS == 0 {
		cfg.QPS = s.QPS
		if cfg.QPS == 0 {
			cfg.QPS = DefaultQPS
		}
	}
	if cfg.Burst == 0 {
		cfg.Burst = s.Burst
		if cfg.Burst == 0 {
			cfg.Burst = DefaultBurst
		}
	}
	return cfg, nil
}

// fromKubeconfig loads and merges the given kubeconfig files (the first file
// that sets a value wins, as with KUBECONFIG) and applies the overrides.
func fromKubeconfig(paths []string, source string, overrides *clientcmd.ConfigOverrides) (*rest.Config, error) {
	found := false
	for _, p := range paths {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			found = true
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("kubeconfig %q (from %s): %w", p, source, err)
		}
	}
	if !found {
		return nil, fmt.Errorf("kubeconfig file(s) %s (from %s) not found", strings.Join(quoteAll(paths), ", "), source)
	}

	rules := &clientcmd.ClientConfigLoadingRules{Precedence: paths}
	raw, err := rules.Load()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig (from %s): %w", source, err)
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, overrides.CurrentContext, overrides, rules).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("invalid kubeconfig (from %s): %w", source, err)
	}
	return cfg, nil
}

// fromOverrides builds a configuration from the explicit settings only.
func fromOverrides(overrides *clientcmd.ConfigOverrides) (*rest.Config, error) {
	// Context names refer to kubeconfig entries; without a kubeconfig they
	// cannot be resolved, so ignore them rather than fail.
	o := *overrides
	o.CurrentContext = ""
	o.Context = clientcmdapi.Context{}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*clientcmdapi.NewConfig(), "", &o, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("invalid provider configuration: %w", err)
	}
	return cfg, nil
}

// fromInCluster uses the pod's service account, with explicit settings
// applied on top.
func (s Settings) fromInCluster() (*rest.Config, error) {
	cfg, err := inClusterConfig()
	if err != nil {
		if errors.Is(err, rest.ErrNotInCluster) {
			missing := "no host, config_path, config_paths or KUBECONFIG is set and Terraform is not running inside a Kubernetes cluster"
			if s.hasCredentials() {
				missing = "credentials are set but no host, config_path, config_paths or KUBECONFIG is, " +
					"and Terraform is not running inside a Kubernetes cluster"
			}
			return nil, fmt.Errorf("%w: %s; %s", ErrNoConfiguration, missing, noConfigurationHelp)
		}
		return nil, fmt.Errorf("in-cluster configuration: %w", err)
	}
	if s.Token != "" {
		cfg.BearerToken = s.Token
		cfg.BearerTokenFile = ""
	}
	if s.ClusterCACertificate != "" {
		cfg.CAData = []byte(s.ClusterCACertificate)
		cfg.CAFile = ""
	}
	if s.ClientCertificate != "" {
		cfg.CertData = []byte(s.ClientCertificate)
		cfg.CertFile = ""
	}
	if s.ClientKey != "" {
		cfg.KeyData = []byte(s.ClientKey)
		cfg.KeyFile = ""
	}
	if s.Insecure != nil && *s.Insecure {
		cfg.Insecure = true
		if s.ClusterCACertificate == "" {
			cfg.CAData, cfg.CAFile = nil, ""
		}
	}
	if s.TLSServerName != "" {
		cfg.ServerName = s.TLSServerName
	}
	if s.ProxyURL != "" {
		u, err := url.Parse(s.ProxyURL)
		if err != nil {
			return nil, fmt.Errorf("invalid proxy_url: %w", err)
		}
		cfg.Proxy = http.ProxyURL(u)
	}
	if e := s.execConfig(); e != nil {
		cfg.ExecProvider = e
		cfg.BearerToken, cfg.BearerTokenFile = "", ""
	}
	return cfg, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
