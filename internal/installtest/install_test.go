// Package installtest installs the provider the way users do, from the release snapshot
// through a provider mirror, with `terraform init` and `tofu init` and no dev_overrides.
//
// scripts/release-check.sh (part of make test) runs it on the snapshot it builds:
//
//	KUBEINFER_RELEASE_DIST=<goreleaser dist> KUBEINFER_TOFU=<tofu> go test ./internal/installtest/
package installtest_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"golang.org/x/mod/sumdb/dirhash"
)

const project = "terraform-provider-kubeinfer"

// release is the snapshot's artifacts for linux_amd64.
type release struct {
	dir, version                 string
	zip, sums, sumsSig, manifest string // file names in dir
	h1, zh                       string // the zip's hashes as a lock file records them
}

// loadRelease reads the snapshot in dir, checks SHA256SUMS, and signs it with a throwaway key
// made here, as a release signs it with the project's key.
func loadRelease(t *testing.T, dir string) release {
	t.Helper()
	var meta struct{ Version string }
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &meta); err != nil || meta.Version == "" {
		t.Fatalf("metadata.json: %v (version %q)", err, meta.Version)
	}
	r := release{dir: dir, version: meta.Version,
		zip:      fmt.Sprintf("%s_%s_linux_amd64.zip", project, meta.Version),
		sums:     fmt.Sprintf("%s_%s_SHA256SUMS", project, meta.Version),
		manifest: fmt.Sprintf("%s_%s_manifest.json", project, meta.Version)}
	r.sumsSig = r.sums + ".sig"
	zipData, err := os.ReadFile(filepath.Join(dir, r.zip))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(zipData)
	r.zh = "zh:" + hex.EncodeToString(sum[:])
	sums, err := os.ReadFile(filepath.Join(dir, r.sums))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(sums, []byte(hex.EncodeToString(sum[:])+"  "+r.zip+"\n")) {
		t.Fatalf("%s does not list %s with its SHA-256 %x:\n%s", r.sums, r.zip, sum, sums)
	}
	// h1 is the hash of the package's contents (golang.org/x/mod/sumdb/dirhash Hash1), which
	// Terraform and OpenTofu compute for any installation method.
	if r.h1, err = dirhash.HashZip(filepath.Join(dir, r.zip), dirhash.Hash1); err != nil {
		t.Fatal(err)
	}

	key, err := openpgp.NewEntity("kubeinfer release test", "throwaway", "release-test@kubeinfer.invalid", nil)
	if err != nil {
		t.Fatal(err)
	}
	var sig bytes.Buffer
	if err := openpgp.DetachSign(&sig, key, bytes.NewReader(sums), nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, r.sumsSig), sig.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The check the registry protocol's client makes: the signature verifies with the key.
	if _, err := openpgp.CheckDetachedSignature(openpgp.EntityList{key}, bytes.NewReader(sums), bytes.NewReader(sig.Bytes()), nil); err != nil {
		t.Fatalf("the signature of %s does not verify: %v", r.sums, err)
	}
	return r
}

// cli is a Terraform or OpenTofu binary and the registry host its short source addresses use.
type cli struct {
	name, path, host string
}

func clis(t *testing.T) []cli {
	t.Helper()
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		var err error
		if tf, err = exec.LookPath("terraform"); err != nil {
			t.Fatal("terraform is not on PATH and TF_ACC_TERRAFORM_PATH is not set")
		}
	}
	out := []cli{{"terraform", tf, "registry.terraform.io"}}
	if tofu := os.Getenv("KUBEINFER_TOFU"); tofu != "" {
		out = append(out, cli{"tofu", tofu, "registry.opentofu.org"})
	} else {
		t.Log("KUBEINFER_TOFU is not set: OpenTofu is not tried")
	}
	return out
}

// TestInstallFromMirrors installs the snapshot from a filesystem mirror and from a network
// mirror on loopback (the provider network mirror protocol, HTTPS), with each CLI, checks the
// lock file's hashes against the artifacts, and plans the inference example with the installed
// provider, offline and without credentials.
func TestInstallFromMirrors(t *testing.T) {
	dist := os.Getenv("KUBEINFER_RELEASE_DIST")
	if dist == "" {
		t.Skip("KUBEINFER_RELEASE_DIST is not set: scripts/release-check.sh sets it to the snapshot it builds")
	}
	r := loadRelease(t, dist)
	t.Logf("snapshot %s: %s %s", r.version, r.h1, r.zh)
	for _, c := range clis(t) {
		t.Run(c.name+"/filesystem_mirror", func(t *testing.T) {
			mirror := t.TempDir()
			pkgDir := filepath.Join(mirror, c.host, "kubeinfer", "kubeinfer")
			if err := os.MkdirAll(pkgDir, 0o755); err != nil {
				t.Fatal(err)
			}
			copyFile(t, filepath.Join(r.dir, r.zip), filepath.Join(pkgDir, r.zip))
			config := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [\"%s/kubeinfer/*\"]\n  }\n}\n", mirror, c.host)
			// A filesystem mirror offers no hashes of its own: the lock file records the h1 of
			// what was installed. Both CLIs read the version of a packed archive from its file
			// name in lower case (getproviders.SearchLocalDirectory), so the snapshot's
			// "-SNAPSHOT-" prerelease is found as "-snapshot-": a release version has no letters.
			installAndPlan(t, c, r, strings.ToLower(r.version), config, nil, []string{r.h1})
		})
		t.Run(c.name+"/network_mirror", func(t *testing.T) {
			srv := networkMirror(t, c.host, r)
			config := fmt.Sprintf("provider_installation {\n  network_mirror {\n    url     = %q\n    include = [\"%s/kubeinfer/*\"]\n  }\n}\n", srv.URL+"/", c.host)
			caFile := writeCA(t, srv)
			// The mirror's index gives both hashes and the CLI checks the archive against them;
			// OpenTofu records both in the lock file, Terraform the h1 it computed.
			want := []string{r.h1}
			if c.name == "tofu" {
				want = append(want, r.zh)
			}
			env := []string{"SSL_CERT_FILE=" + caFile}
			installAndPlan(t, c, r, r.version, config, env, want)

			// An archive that is not the one the mirror vouches for is refused.
			tampered := r
			tampered.zh = "zh:" + strings.Repeat("0", 64)
			tampered.h1 = "h1:" + strings.Repeat("A", 43) + "="
			bad := networkMirror(t, c.host, tampered)
			badConfig := strings.Replace(config, srv.URL, bad.URL, 1)
			if out, err := initOnly(t, c, r.version, badConfig, []string{"SSL_CERT_FILE=" + writeCA(t, bad)}); err == nil ||
				!strings.Contains(strings.ToLower(out), "checksum") {
				t.Errorf("%s init from a mirror whose hashes do not match the archive: err %v\n%s", c.name, err, out)
			}
		})
	}
}

// networkMirror serves the release as the provider network mirror protocol describes
// (developer.hashicorp.com/terraform/internals/provider-network-mirror-protocol):
// <host>/<namespace>/<type>/index.json lists the versions, <version>.json the archives with
// their URL and hashes.
func networkMirror(t *testing.T, host string, r release) *httptest.Server {
	t.Helper()
	base := "/" + host + "/kubeinfer/kubeinfer/"
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+base+"index.json", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"versions": map[string]any{r.version: map[string]any{}}})
	})
	mux.HandleFunc("GET "+base+r.version+".json", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"archives": map[string]any{
			"linux_amd64": map[string]any{"url": r.zip, "hashes": []string{r.h1, r.zh}},
		}})
	})
	mux.HandleFunc("GET "+base+r.zip, func(w http.ResponseWriter, req *http.Request) {
		http.ServeFile(w, req, filepath.Join(r.dir, r.zip))
	})
	for _, name := range []string{r.sums, r.sumsSig, r.manifest} {
		mux.HandleFunc("GET "+base+name, func(w http.ResponseWriter, req *http.Request) {
			http.ServeFile(w, req, filepath.Join(r.dir, name))
		})
	}
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// writeCA writes the test server's certificate where SSL_CERT_FILE can name it: the CLIs
// verify a network mirror's TLS certificate.
func writeCA(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	caFile := filepath.Join(t.TempDir(), "mirror-ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, cert, 0o644); err != nil {
		t.Fatal(err)
	}
	return caFile
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

var lockHashes = regexp.MustCompile(`(?s)provider "([^"]+)" \{.*?version\s*=\s*"([^"]+)".*?hashes\s*=\s*\[(.*?)\]`)

// workspace is a copy of examples/inference-cluster pinned to version, with a CLI
// configuration holding only cliConfig (no dev_overrides), and a function running the CLI there
// without credentials.
func workspace(t *testing.T, c cli, version, cliConfig string, env []string) (dir string, run func(args ...string) (string, error)) {
	t.Helper()
	dir = t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "inference-cluster", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	// Prereleases (the snapshot's version) are installed only when asked for exactly.
	pinned := strings.Replace(string(src), `source = "kubeinfer/kubeinfer"`, fmt.Sprintf("source  = \"kubeinfer/kubeinfer\"\n      version = %q", version), 1)
	if pinned == string(src) {
		t.Fatal(`examples/inference-cluster/main.tf has no source = "kubeinfer/kubeinfer" to pin`)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(pinned), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(t.TempDir(), "cli.tfrc")
	if err := os.WriteFile(cfgFile, []byte(cliConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, func(args ...string) (string, error) {
		cmd := exec.Command(c.path, args...)
		cmd.Dir = dir
		cmd.Env = append(cleanEnv(), append(env, "TF_CLI_CONFIG_FILE="+cfgFile, "KUBECONFIG="+filepath.Join(dir, "no-kubeconfig"),
			"TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

func initOnly(t *testing.T, c cli, version, cliConfig string, env []string) (string, error) {
	t.Helper()
	_, run := workspace(t, c, version, cliConfig, env)
	return run("init", "-no-color", "-input=false")
}

// installAndPlan runs init on the example pinned to version, checks the lock file, then plans
// the example offline with the installed provider.
func installAndPlan(t *testing.T, c cli, r release, version, cliConfig string, env []string, wantHashes []string) {
	t.Helper()
	work, try := workspace(t, c, version, cliConfig, env)
	run := func(args ...string) string {
		t.Helper()
		out, err := try(args...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", c.name, strings.Join(args, " "), err, out)
		}
		return out
	}
	initOut := run("init", "-no-color", "-input=false")
	t.Logf("%s init:\n%s", c.name, indent(initOut))
	lock, err := os.ReadFile(filepath.Join(work, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf(".terraform.lock.hcl:\n%s", indent(string(lock)))
	m := lockHashes.FindStringSubmatch(string(lock))
	if m == nil {
		t.Fatalf("no provider entry with hashes in the lock file")
	}
	if want := c.host + "/kubeinfer/kubeinfer"; m[1] != want || m[2] != version {
		t.Errorf("lock file entry %s %s, want %s %s", m[1], m[2], want, version)
	}
	var got []string
	for _, h := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(m[3], -1) {
		got = append(got, h[1])
	}
	slices.Sort(got)
	want := slices.Clone(wantHashes)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("lock file hashes %v, want %v (the artifacts': %s, %s)", got, want, r.h1, r.zh)
	}
	plan := run("plan", "-refresh=false", "-no-color", "-input=false")
	if !strings.Contains(plan, "Plan: 3 to add, 0 to change, 0 to destroy.") {
		t.Errorf("%s plan of the inference example with the installed provider:\n%s", c.name, plan)
	}
	if strings.Contains(plan, "dev_overrides") || strings.Contains(plan, "development overrides") {
		t.Errorf("the plan ran with development overrides:\n%s", plan)
	}
}

// cleanEnv is the environment without the settings that would change where providers come
// from or which cluster a plan reaches.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TF_") || strings.HasPrefix(name, "KUBE_") || name == "KUBECONFIG" || name == "SSL_CERT_FILE" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
