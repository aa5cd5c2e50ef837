package disaggregatedset_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	disaggv1 "sigs.k8s.io/lws/api/disaggregatedset/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// TestAccDisaggregatedSet_createOnlyFields: on the released v0.9.0 controller, a change of the
// decode role's labels and startup_policy under allow_group_restarts = false plans an update
// with the warning that it waits for the next rollout, and passes the guard; the apply restarts
// no pod and leaves the running LeaderWorkerSet as it was (the controller only scales it); the
// state keeps the new values and the next plan is empty.
func TestAccDisaggregatedSet_createOnlyFields(t *testing.T) {
	name := "acc-pd-pending"
	pc := acctest.ProviderConfig(t)
	guarded := func(cfg string) string {
		return strings.Replace(cfg, "  spec = {\n    roles = [", "  allow_group_restarts = false\n  spec = {\n    roles = [", 1)
	}
	before := guarded(pair(name, "vllm/vllm-openai:v0.11.0", 2))
	after := strings.Replace(before, `metadata = { labels = { tier = "decode" } }`, `metadata = { labels = { tier = "decode", team = "b" } }`, 1)
	after = strings.Replace(after, "replicas = 2\n", "startup_policy = \"LeaderReady\"\n          replicas = 2\n", 1)
	if after == before || !strings.Contains(after, "LeaderReady") || !strings.Contains(before, "allow_group_restarts = false") {
		t.Fatal("the configurations were not edited")
	}
	var pods string
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		CheckDestroy:             cleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				Config: pc + before,
				Check: func(*terraform.State) error {
					var err error
					pods, err = podUIDs(t, name)
					return err
				},
			},
			{
				PreConfig: func() { w.TakePlan() },
				Config:    pc + after,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					kubetest.PlanWarning(t, &w, "Change of DisaggregatedSet default/"+name+" waits for the next rollout", "No group restarts",
						"spec.roles[1].metadata.labels[\"team\"]", "spec.roles[1].spec.startup_policy"),
					resource.TestCheckResourceAttr(addr, "spec.roles.1.spec.startup_policy", "LeaderReady"),
					resource.TestCheckResourceAttr(addr, "spec.roles.1.metadata.labels.team", "b"),
					func(*terraform.State) error {
						now, err := podUIDs(t, name)
						if err != nil {
							return err
						}
						if now != pods {
							return fmt.Errorf("pods changed:\n%s\nwas\n%s", now, pods)
						}
						sets, err := ownedSets(t, name)
						if err != nil {
							return err
						}
						for _, lws := range sets {
							if lws.Labels[disaggv1.RoleLabelKey] != "decode" {
								continue
							}
							if _, ok := lws.Labels["team"]; ok || lws.Spec.StartupPolicy != "LeaderCreated" {
								return fmt.Errorf("the running LeaderWorkerSet %s was changed: labels %v, startup policy %s", lws.Name, lws.Labels, lws.Spec.StartupPolicy)
							}
						}
						return nil
					},
				),
			},
			{Config: pc + after, PlanOnly: true},
		},
	})
}

// podUIDs lists the set's pods as name=uid lines, sorted.
func podUIDs(t *testing.T, name string) (string, error) {
	list, err := acctest.Cluster(t).Clientset().CoreV1().Pods("default").List(context.Background(),
		metav1.ListOptions{LabelSelector: disaggv1.SetNameLabelKey + "=" + name})
	if err != nil {
		return "", err
	}
	var out []string
	for _, p := range list.Items {
		out = append(out, p.Name+"="+string(p.UID))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "", fmt.Errorf("no pods of %s", name)
	}
	return strings.Join(out, "\n"), nil
}
