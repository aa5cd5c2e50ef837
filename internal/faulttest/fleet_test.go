package faulttest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

var lwsGVR = schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}

const namespace = "default"

// lwsPodSelector selects the pods the LWS controller creates.
const lwsPodSelector = "leaderworkerset.sigs.k8s.io/name"

// diagnoser is a workdir's diagnose for cluster c: the nodes, the pods that
// are not Ready and the components' last output. It has a context of its own,
// as the test's may be what ran out.
func diagnoser(c *acctest.TestCluster) func() string {
	return func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return c.Diagnose(ctx, namespace, lwsPodSelector)
	}
}

// fleet is what a fault case applies: n small LeaderWorkerSets (1 group of a
// leader and a worker, CPU only, so they land on the CPU nodes) named
// <prefix>-<i>.
type fleet struct {
	prefix   string
	n        int
	provider string // the provider block
	wait     bool   // wait_for_rollout
	image    string
	// nodeSelector, when set, is the pods' node selector (capacity that
	// does not exist yet keeps them Pending).
	nodeSelector string
	timeout      string // timeouts.create and update; default 2m
	// noGroups sets replicas = 0: the LWS controller creates no pods, so
	// destroys do not wait for pods to go (for cases about API requests,
	// not rollouts).
	noGroups bool
}

func providerAt(kubeconfig string) string {
	return fmt.Sprintf("provider \"kubeinfer\" {\n  config_path = %q\n}\n", kubeconfig)
}

func (f fleet) config() string {
	image := f.image
	if image == "" {
		image = "vllm/vllm-openai:v0.11.0"
	}
	timeout := f.timeout
	if timeout == "" {
		timeout = "2m"
	}
	replicas := 1
	if f.noGroups {
		replicas = 0
	}
	selector := ""
	if f.nodeSelector != "" {
		k, v, _ := strings.Cut(f.nodeSelector, "=")
		selector = fmt.Sprintf("node_selector = { %q = %q }", k, v)
	}
	return f.provider + fmt.Sprintf(`
resource "kubeinfer_leaderworkerset" "fleet" {
  count            = %[2]d
  wait_for_rollout = %[3]t
  timeouts         = { create = %[6]q, update = %[6]q, delete = %[6]q }
  metadata = {
    name      = "%[1]s-${count.index}"
    namespace = %[7]q
    labels    = { "faults.kubeinfer.dev/case" = %[1]q }
  }
  spec = {
    replicas = %[8]d
    leader_worker_template = {
      size = 2
      worker_template = {
        spec = {
          %[5]s
          containers = [{
            name      = "vllm"
            image     = %[4]q
            resources = { requests = { cpu = "100m", memory = "256Mi" } }
          }]
        }
      }
    }
  }
}
`, f.prefix, f.n, f.wait, image, selector, timeout, namespace, replicas)
}

// liveNames lists the LeaderWorkerSets of a fault case in the cluster, as
// state ids (namespace/name).
func liveNames(ctx context.Context, t *testing.T, dyn dynamic.Interface, prefix string) []string {
	t.Helper()
	l, err := dyn.Resource(lwsGVR).Namespace(namespace).List(ctx, listOpts(prefix))
	if err != nil {
		t.Fatalf("listing LeaderWorkerSets: %v", err)
	}
	var ids []string
	for _, u := range l.Items {
		ids = append(ids, u.GetNamespace()+"/"+u.GetName())
	}
	sort.Strings(ids)
	return ids
}

// agree fails the test unless state and cluster hold the same objects,
// none tainted and none twice; want is how many there should be.
func agree(ctx context.Context, t *testing.T, w *workdir, dyn dynamic.Interface, prefix string, want int) {
	t.Helper()
	state := w.stateIDs(ctx)
	live := liveNames(ctx, t, dyn, prefix)
	var orphans, missing []string
	for _, id := range live {
		if !slices.Contains(state, id) {
			orphans = append(orphans, id)
		}
	}
	for _, id := range state {
		if !slices.Contains(live, id) {
			missing = append(missing, id)
		}
	}
	if len(orphans) > 0 || len(missing) > 0 || len(state) != want {
		t.Fatalf("state and cluster disagree: %d in state, %d in the cluster, want %d; orphans (in the cluster only): %v; missing (in state only): %v",
			len(state), len(live), want, orphans, missing)
	}
}

// waitGone waits until no LeaderWorkerSet of the case is left (foreground
// deletes finish with the garbage collector).
func waitGone(ctx context.Context, t *testing.T, dyn dynamic.Interface, prefix string) {
	t.Helper()
	for {
		if len(liveNames(ctx, t, dyn, prefix)) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("LeaderWorkerSets of %s still exist: %v", prefix, liveNames(context.Background(), t, dyn, prefix))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

var (
	applyArgs   = []string{"apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=10"}
	destroyArgs = []string{"destroy", "-auto-approve", "-input=false", "-no-color", "-parallelism=10"}
)

// summary is the last line Terraform printed that says how a run ended.
func summary(out string) string {
	var last string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Apply complete") || strings.HasPrefix(l, "Destroy complete") || strings.HasPrefix(l, "Error:") ||
			strings.HasPrefix(l, "Warning:") || strings.Contains(l, "Interrupt received") || strings.HasPrefix(l, "Plan:") {
			last = l
		}
	}
	return last
}

func listOpts(prefix string) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: "faults.kubeinfer.dev/case=" + prefix}
}

func deleteOpts() metav1.DeleteOptions {
	policy := metav1.DeletePropagationBackground
	return metav1.DeleteOptions{PropagationPolicy: &policy}
}
