package disaggregatedset_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	disaggv1 "sigs.k8s.io/lws/api/disaggregatedset/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// pacedPair is a set of 8 prefill groups with max_surge 1 and 2 decode groups with max_surge 2,
// single CPU pods running image.
func pacedPair(name, image string) string {
	role := func(role string, replicas, surge int) string {
		return fmt.Sprintf(`{
        name = %[1]q
        spec = {
          replicas         = %[2]d
          rollout_strategy = { rolling_update_configuration = { max_surge = "%[3]d", max_unavailable = "0" } }
          leader_worker_template = {
            worker_template = { spec = { containers = [{ name = "vllm", image = %[4]q, resources = { requests = { cpu = "100m" } } }] } }
          }
        }
      }`, role, replicas, surge, image)
	}
	return fmt.Sprintf(`
resource "kubeinfer_disaggregatedset" "test" {
  metadata = {
    name      = %q
    namespace = "default"
  }
  spec = {
    roles = [
      %s,
      %s,
    ]
  }
}
`, name, role("prefill", 8, 1), role("decode", 2, 2))
}

// TestAccDisaggregatedSet_rolloutPacing is issue 57's pacing example on the released v0.9.0
// controller: prefill 8 groups at max_surge 1, decode 2 at max_surge 2. The plan says the
// controller moves both roles in 8 shared steps, decode 1 at steps 1 and 5; a watch on the new
// revision's LeaderWorkerSets during the apply sees decode's first new group come with prefill's
// first (step 1) and its second with prefill's fifth (step 5), not both at once.
func TestAccDisaggregatedSet_rolloutPacing(t *testing.T) {
	name := "acc-pd-pace"
	pc := acctest.ProviderConfig(t)
	lwsRI := acctest.Cluster(t).Dynamic().Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default")
	selector := metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name}
	var (
		w        kubetest.Warnings
		first    string
		mu       sync.Mutex
		states   []string // "prefill/decode" new groups, as the watch sees them change
		stop     context.CancelFunc
		watching sync.WaitGroup
	)
	t.Cleanup(func() {
		if stop != nil {
			stop()
		}
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             cleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				Config: pc + pacedPair(name, "vllm/vllm-openai:v0.11.0"),
				Check: func(*terraform.State) error {
					sets, err := ownedSets(t, name)
					if err != nil || len(sets) != 2 {
						return fmt.Errorf("LeaderWorkerSets %v: %v", names(sets), err)
					}
					first = sets[0].Labels[disaggv1.RevisionLabelKey]
					return nil
				},
			},
			{
				PreConfig: func() {
					w.TakePlan()
					list, err := lwsRI.List(context.Background(), selector)
					if err != nil {
						t.Fatal(err)
					}
					var ctx context.Context
					ctx, stop = context.WithCancel(context.Background())
					opts := selector
					opts.ResourceVersion = list.GetResourceVersion()
					watcher, err := lwsRI.Watch(ctx, opts)
					if err != nil {
						t.Fatal(err)
					}
					newGroups := map[string]int64{}
					watching.Add(1)
					go func() {
						defer watching.Done()
						defer watcher.Stop()
						for {
							select {
							case <-ctx.Done():
								return
							case ev, ok := <-watcher.ResultChan():
								if !ok {
									return
								}
								u, isObj := ev.Object.(*unstructured.Unstructured)
								if !isObj || u.GetLabels()[disaggv1.RevisionLabelKey] == first {
									continue
								}
								n, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
								role := u.GetLabels()[disaggv1.RoleLabelKey]
								if newGroups[role] == n {
									continue
								}
								newGroups[role] = n
								mu.Lock()
								states = append(states, fmt.Sprintf("%d/%d", newGroups["prefill"], newGroups["decode"]))
								mu.Unlock()
							}
						}
					}()
				},
				Config: pc + pacedPair(name, "vllm/vllm-openai:v0.11.1"),
				Check: resource.ComposeAggregateTestCheckFunc(
					kubetest.PlanWarning(t, &w, "Rolling update of every role of DisaggregatedSet default/"+name,
						"in 8 steps, one step count shared by every role", "new groups: prefill 1 at each of steps 1-8; decode 1 at steps 1 and 5"),
					func(*terraform.State) error {
						stop()
						watching.Wait()
						mu.Lock()
						defer mu.Unlock()
						seen := strings.Join(states, " ")
						t.Logf("the new revision's groups (prefill/decode) as the controller scaled them: %s", seen)
						firstAt := func(decode int64) string {
							for _, s := range states {
								var p, d int64
								if _, err := fmt.Sscanf(s, "%d/%d", &p, &d); err == nil && d >= decode {
									return s
								}
							}
							return ""
						}
						if firstAt(1) != "1/1" || firstAt(2) != "5/2" || !strings.HasSuffix(seen, "8/2") {
							return fmt.Errorf("the new revision's groups (prefill/decode) went %s; want decode's first new group at prefill's 1st (1/1) and its second at prefill's 5th (5/2), ending 8/2", seen)
						}
						return nil
					},
				),
			},
		},
	})
}
