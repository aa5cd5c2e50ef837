package disaggregatedset_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	dsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// revisionTemplate is one version of the roles' template for the revision comparison.
type revisionTemplate struct {
	kind                  string // what this step changes
	image, env, cpu, note string
	size                  int
}

// revisionSet is a two-role set (ports, probes and an env reference that the CRD defaults; with
// v010, placement and an External decode role) whose decode template carries t.
func revisionSet(name string, t revisionTemplate, v010 bool) string {
	placement, scaling := "", ""
	if v010 {
		placement = `placement_policy = { type = "ExclusiveSlice", topology = "topology.kubernetes.io/zone" }`
		scaling = `scaling = { mode = "External" }`
	}
	annotations := ""
	if t.note != "" {
		annotations = fmt.Sprintf(`metadata = { annotations = { "example.com/note" = %q } }`, t.note)
	}
	return fmt.Sprintf(`
resource "kubeinfer_disaggregatedset" "test" {
  timeouts = { create = "2m", update = "2m" }
  metadata = {
    name      = %[1]q
    namespace = "default"
  }
  spec = {
    %[7]s
    roles = [
      {
        name = "prefill"
        spec = {
          leader_worker_template = {
            leader_template = { spec = { containers = [{ name = "vllm", image = "vllm/vllm-openai:v0.11.0", args = ["--leader"] }] } }
            worker_template = { spec = { containers = [{
              name            = "vllm"
              image           = "vllm/vllm-openai:v0.11.0"
              ports           = [{ name = "http", container_port = 8000 }]
              readiness_probe = { http_get = { path = "/health", port = "8000" } }
              liveness_probe  = { grpc = { port = 9000 } }
            }] } }
          }
        }
      },
      {
        name = "decode"
        %[8]s
        spec = {
          leader_worker_template = {
            size = %[6]d
            worker_template = {
              %[5]s
              spec = { containers = [{
                name      = "vllm"
                image     = %[2]q
                env       = [{ name = "MODE", value = %[3]q }, { name = "TOKEN", value_from = { secret_key_ref = { name = "hf", key = "token", optional = true } } }]
                resources = { requests = { cpu = %[4]q } }
              }] }
            }
          }
        }
      },
    ]
  }
}
`, name, t.image, t.env, t.cpu, annotations, t.size, placement, scaling)
}

// TestAccDisaggregatedSet_revisionCompare: for template changes of each kind (image, env,
// resources, annotation, size), the revision the plan's rollout warning names is the one the
// released v0.9.0 controller labels the new LeaderWorkerSets with.
func TestAccDisaggregatedSet_revisionCompare(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	revisionCompare(t, "rev09", false)
}

// TestAccDisaggregatedSet_v010RevisionCompare: the same on the v0.10.0 controller, with placement
// and an External role.
func TestAccDisaggregatedSet_v010RevisionCompare(t *testing.T) {
	skipUnlessV010Controller(t)
	acctest.SkipAfterFirstCLI(t)
	revisionCompare(t, "rev10", true)
}

func revisionCompare(t *testing.T, name string, v010 bool) {
	c := acctest.Cluster(t)
	pc := acctest.ProviderConfigFor(c)
	lwsRI := c.Dynamic().Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default")
	dsRI := c.Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	base := revisionTemplate{kind: "base", image: "vllm/vllm-openai:v0.11.0", env: "a", cpu: "1", size: 1}
	edits := []func(revisionTemplate) revisionTemplate{
		func(r revisionTemplate) revisionTemplate {
			r.kind, r.image = "image", "vllm/vllm-openai:v0.11.1"
			return r
		},
		func(r revisionTemplate) revisionTemplate { r.kind, r.env = "env", "b"; return r },
		func(r revisionTemplate) revisionTemplate { r.kind, r.cpu = "resources", "1500m"; return r },
		func(r revisionTemplate) revisionTemplate { r.kind, r.note = "annotation", "x"; return r },
		func(r revisionTemplate) revisionTemplate { r.kind, r.size = "size", 2; return r },
	}
	var w kubetest.Warnings
	toRevision := regexp.MustCompile(`moves from revision ([0-9a-f]+) to ([0-9a-f]+)`)
	labelled := func(kind string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			var planned string
			for _, s := range w.TakePlan() {
				if m := toRevision.FindStringSubmatch(s); m != nil {
					planned = m[2]
				}
			}
			if planned == "" && kind != "base" {
				return fmt.Errorf("%s: no rollout warning in the plan", kind)
			}
			l, err := lwsRI.List(context.Background(), metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name})
			if err != nil {
				return err
			}
			labels := map[string]bool{}
			var names []string
			for _, u := range l.Items {
				labels[u.GetLabels()[disaggv1.RevisionLabelKey]] = true
				names = append(names, u.GetName())
			}
			u, err := dsRI.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			ds := &disaggv1.DisaggregatedSet{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, ds); err != nil {
				return err
			}
			fromServer := dsrules.ComputeRevision(ds.Spec.Roles)
			t.Logf("%s: plan names revision %q; hash of the server's object %s; controller's LeaderWorkerSets %v", kind, planned, fromServer, names)
			if len(labels) != 1 {
				return fmt.Errorf("%s: LeaderWorkerSets of revisions %v, want one", kind, labels)
			}
			if !labels[fromServer] {
				return fmt.Errorf("%s: the controller labels %v, the hash of the server's object is %s", kind, labels, fromServer)
			}
			if planned != "" && !labels[planned] {
				return fmt.Errorf("%s: the plan names revision %s, the controller labels %v", kind, planned, labels)
			}
			return nil
		}
	}
	steps := []resource.TestStep{{Config: pc + revisionSet(name, base, v010), Check: labelled("base")}}
	cur := base
	for _, edit := range edits {
		cur = edit(cur)
		steps = append(steps, resource.TestStep{
			PreConfig: func() { w.TakePlan() },
			Config:    pc + revisionSet(name, cur, v010),
			Check:     labelled(cur.kind),
		})
	}
	steps = append(steps, resource.TestStep{Config: pc + revisionSet(name, cur, v010), PlanOnly: true})
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories), Steps: steps})
}
