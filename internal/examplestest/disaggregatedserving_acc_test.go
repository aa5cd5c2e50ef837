package examplestest

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// TestAccExample_disaggregatedServing applies examples/disaggregated-serving: both roles'
// groups come up Ready on the GPU nodes before the apply returns, the second plan is empty and
// import reproduces the state.
func TestAccExample_disaggregatedServing(t *testing.T) {
	cfg := exampleConfig(t, "disaggregated-serving")
	const addr = "kubeinfer_disaggregatedset.llama"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("disaggregatedset", knownvalue.StringExact("default/llama-70b")),
				},
				Check: rolesReady(t, "llama-70b", map[string]int{"prefill": 2, "decode": 2}),
			},
			{Config: cfg, PlanOnly: true},
			{Config: cfg, ResourceName: addr, ImportState: true, ImportStateId: "default/llama-70b",
				ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "id"},
		},
	})
}

// rolesReady checks that each role has its number of pods, all Ready on a node.
func rolesReady(t *testing.T, name string, podsPerRole map[string]int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		pods, err := acctest.Cluster(t).Clientset().CoreV1().Pods("default").List(context.Background(),
			metav1.ListOptions{LabelSelector: "disaggregatedset.x-k8s.io/name=" + name})
		if err != nil {
			return err
		}
		ready := map[string]int{}
		for _, p := range pods.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
					ready[p.Labels["disaggregatedset.x-k8s.io/role"]]++
				}
			}
		}
		for role, n := range podsPerRole {
			if ready[role] != n {
				return fmt.Errorf("role %s: %d pods Ready, want %d (all: %v)", role, ready[role], n, ready)
			}
		}
		return nil
	}
}
