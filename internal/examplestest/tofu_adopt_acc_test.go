package examplestest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// TestAccExample_tofuAdoptWithNamesDataSource runs the migration guide's OpenTofu path (no
// `query`): two LeaderWorkerSets applied outside OpenTofu; an import block with for_each over the
// data source refused by -generate-config-out, as the guide says; a folder whose data source lists them
// by namespace and label selector and whose output writes one import block per object; those
// blocks written to a second folder, `tofu plan -generate-config-out=generated.tf` there writes
// their resource blocks (with each set's image), the apply imports both and creates nothing, and
// the next plan is empty. It runs under OpenTofu alone, the CLI this path is for.
func TestAccExample_tofuAdoptWithNamesDataSource(t *testing.T) {
	if !acctest.UnderOpenTofu() {
		t.Skip("the adoption path without query is OpenTofu's")
	}
	f := newFleet(t, true)
	c := f.clusters[0]
	const label, image = "app.kubernetes.io/name=vllm-adopt", "vllm/vllm-openai:v0.11.0"
	names := []string{"adopt-a", "adopt-b"}
	ctx := context.Background()
	for _, name := range names {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1",
			"kind":       "LeaderWorkerSet",
			"metadata":   map[string]any{"name": name, "namespace": "default", "labels": map[string]any{"app.kubernetes.io/name": "vllm-adopt"}},
			"spec": map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{"size": int64(2), "workerTemplate": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{"name": "vllm", "image": image}},
			}}}},
		}}
		if _, err := c.Dynamic().Resource(lwsGVR).Namespace("default").Create(ctx, u, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = c.Dynamic().Resource(lwsGVR).Namespace("default").Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}

	provider := fmt.Sprintf(`terraform {
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}

provider "kubeinfer" {
  config_path = %q
}
`, c.KubeconfigPath())
	// The guide's data source and output, as it writes them.
	list := provider + fmt.Sprintf(`
data "kubeinfer_leaderworkersets" "inference" {
  namespace      = "default"
  label_selector = %q
}

output "import_blocks" {
  value = join("", [for o in data.kubeinfer_leaderworkersets.inference.items : <<-EOT
    import {
      to = kubeinfer_leaderworkerset.${replace(o.name, "-", "_")}
      id = "${o.import_id}"
    }
    EOT
  ])
}
`, label)
	write := func(folder, file, text string) {
		t.Helper()
		dir := filepath.Join(f.work, "fleet", folder)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("list", "main.tf", list)
	write("adopt", "provider.tf", provider)
	args := []string{"-no-color", "-input=false"}

	// What the guide says first: configuration generation takes no import block with for_each.
	write("foreach", "main.tf", list+`
import {
  for_each = { for o in data.kubeinfer_leaderworkersets.inference.items : o.name => o }
  to       = kubeinfer_leaderworkerset.adopted[each.key]
  id       = each.value.import_id
}
`)
	if out, err := f.run("foreach", append([]string{"plan", "-generate-config-out=generated.tf"}, args...)...); err == nil ||
		!strings.Contains(out, "Configuration generation for count and for_each resources not supported") {
		t.Errorf("an import block with for_each generates configuration now (%v); the migration guide says it does not:\n%s", err, out)
	}

	if out := f.mustRun("list", append([]string{"apply", "-auto-approve"}, args...)...); !strings.Contains(out, "0 added, 0 changed, 0 destroyed") {
		t.Errorf("the listing apply creates something:\n%s", out)
	}
	imports := f.mustRun("list", "output", "-raw", "import_blocks")
	for _, name := range names {
		if want := fmt.Sprintf("to = kubeinfer_leaderworkerset.%s\n  id = \"default/%s\"", strings.ReplaceAll(name, "-", "_"), name); !strings.Contains(imports, want) {
			t.Errorf("the import blocks do not hold %q:\n%s", want, imports)
		}
	}
	write("adopt", "imports.tf", imports)

	f.mustRun("adopt", append([]string{"plan", "-generate-config-out=generated.tf"}, args...)...)
	generated, err := os.ReadFile(filepath.Join(f.work, "fleet", "adopt", "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if want := fmt.Sprintf("resource \"kubeinfer_leaderworkerset\" %q", strings.ReplaceAll(name, "-", "_")); !strings.Contains(string(generated), want) {
			t.Errorf("generated.tf has no %s", want)
		}
	}
	if n := len(regexp.MustCompile(`\bimage +=  *"`+regexp.QuoteMeta(image)+`"`).FindAll(generated, -1)); n != 2 {
		t.Errorf("generated.tf holds the image %d times, want 2:\n%s", n, generated)
	}

	plan := f.mustRun("adopt", append([]string{"plan"}, args...)...)
	if !strings.Contains(plan, "Plan: 2 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("the plan with the generated configuration is not two imports alone:\n%s\ngenerated.tf:\n%s", plan, generated)
	}
	if out := f.mustRun("adopt", append([]string{"apply", "-auto-approve"}, args...)...); !strings.Contains(out, "2 imported, 0 added, 0 changed, 0 destroyed") {
		t.Errorf("apply:\n%s", out)
	}
	if out, err := f.run("adopt", append([]string{"plan", "-detailed-exitcode"}, args...)...); err != nil {
		t.Errorf("the plan after the adoption is not empty (%v):\n%s", err, out)
	}
}
