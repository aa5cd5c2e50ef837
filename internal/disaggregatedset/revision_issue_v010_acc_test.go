package disaggregatedset_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// servingSet is a set shaped like a served model's: two slices, and two roles of groups of
// size 2 whose leader and worker templates have containers with ports, resources (GPUs),
// env (values and references), probes and an empty metadata, so that the CRD defaults and the
// JSON of every kind of template field are in the hash. image is the decode containers'.
func servingSet(name, image string) string {
	container := func(image, args string) string {
		return fmt.Sprintf(`{
                name            = "vllm"
                image           = %q
                args            = [%s]
                ports           = [{ name = "http", container_port = 8000 }, { container_port = 5557, protocol = "UDP" }]
                env             = [{ name = "MODEL", value = "llama" }, { name = "POD_IP", value_from = { field_ref = { field_path = "status.podIP" } } }, { name = "EMPTY", value = "" }]
                resources       = { limits = { "nvidia.com/gpu" = "1" }, requests = { "nvidia.com/gpu" = "1", cpu = "1.5", memory = "1Gi" } }
                readiness_probe = { http_get = { path = "/health", port = "http" } }
                startup_probe   = { grpc = { port = 9000 } }
                security_context = {}
              }`, image, args)
	}
	role := func(role, image string) string {
		return fmt.Sprintf(`{
        name = %q
        spec = {
          replicas = 1
          leader_worker_template = {
            size            = 2
            leader_template = {
              metadata = {}
              spec     = { containers = [%s] }
            }
            worker_template = {
              metadata = { labels = { "example.com/role" = %[1]q } }
              spec     = { containers = [%s], termination_grace_period_seconds = 30 }
            }
          }
        }
      }`, role, container(image, `"--leader"`), container(image, ""))
	}
	return fmt.Sprintf(`
resource "kubeinfer_disaggregatedset" "test" {
  timeouts = { create = "3m", update = "3m" }
  metadata = {
    name      = %q
    namespace = "default"
  }
  spec = {
    slices = 2
    roles  = [%s, %s]
  }
}
`, name, role("prefill", "vllm/vllm-openai:v0.11.0"), role("decode", image))
}

// TestAccDisaggregatedSet_v010ServingRevision: on the v0.10.0 controller, a template change of a
// set with two slices of two roles of groups of size 2: the plan's rollout warning names, as the
// revision it moves from, the one the controller labelled the running LeaderWorkerSets with, as
// the one it moves to, the one the controller labels the new ones with, and counts the groups of
// both slices.
func TestAccDisaggregatedSet_v010ServingRevision(t *testing.T) {
	skipUnlessV010Controller(t)
	acctest.SkipAfterFirstCLI(t)
	const name = "serve10"
	c := acctest.Cluster(t)
	pc := acctest.ProviderConfigFor(c)
	lwsRI := c.Dynamic().Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default")
	var w kubetest.Warnings
	var running string // the revision of the LeaderWorkerSets before the change
	rollout := regexp.MustCompile(`moves from revision ([0-9a-f]+) to ([0-9a-f]+)`)
	recordRevision := func(*terraform.State) error {
		rev, err := onlyRevision(lwsRI, name, 4)
		running = rev
		t.Logf("the controller labels revision %s", rev)
		return err
	}
	compare := func(*terraform.State) error {
		var warning string
		for _, s := range w.TakePlan() {
			if rollout.MatchString(s) {
				warning = s
			}
		}
		if warning == "" {
			return fmt.Errorf("no rollout warning in the plan")
		}
		m := rollout.FindStringSubmatch(warning)
		rev, err := onlyRevision(lwsRI, name, 4)
		if err != nil {
			return err
		}
		t.Logf("the plan: from %s to %s; the controller: from %s to %s", m[1], m[2], running, rev)
		if m[1] != running || m[2] != rev {
			return fmt.Errorf("the plan names revisions %s -> %s, the controller labels %s -> %s", m[1], m[2], running, rev)
		}
		if want := "2 slices of 2 groups (4) are replaced"; !strings.Contains(warning, want) {
			return fmt.Errorf("the rollout warning does not say %q: %s", want, warning)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{Config: pc + servingSet(name, "vllm/vllm-openai:v0.11.0"), Check: recordRevision},
			{
				PreConfig: func() { w.TakePlan() },
				Config:    pc + servingSet(name, "vllm/vllm-openai:v0.11.1"),
				Check:     compare,
			},
			{Config: pc + servingSet(name, "vllm/vllm-openai:v0.11.1"), PlanOnly: true},
		},
	})
}

// onlyRevision is the revision label of the set's LeaderWorkerSets, which must be want, all of
// one revision.
func onlyRevision(lwsRI dynamic.ResourceInterface, set string, want int) (string, error) {
	l, err := lwsRI.List(context.Background(), metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + set})
	if err != nil {
		return "", err
	}
	revisions := map[string]bool{}
	var rev string
	for _, u := range l.Items {
		rev = u.GetLabels()[disaggv1.RevisionLabelKey]
		revisions[rev] = true
	}
	if len(revisions) != 1 || len(l.Items) != want {
		return "", fmt.Errorf("%d LeaderWorkerSets of revisions %v, want %d of one revision", len(l.Items), revisions, want)
	}
	return rev, nil
}
