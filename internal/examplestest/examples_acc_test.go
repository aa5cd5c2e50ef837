// Package examplestest applies the repository's examples to the real test API server.
package examplestest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// exampleConfig reads an example folder's main.tf and swaps its environment-configured
// provider block for one that points at the test cluster.
func exampleConfig(t *testing.T, dir string) string {
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "examples", dir, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	src := regexp.MustCompile(`(?s)terraform \{\s*required_providers \{.*?\n\}\n`).ReplaceAllString(string(raw), "")
	src = regexp.MustCompile(`provider "kubeinfer" \{\}`).ReplaceAllString(src, "")
	return acctest.ProviderConfig(t) + src
}

// TestAccExample_inferenceCluster applies examples/inference-cluster as `make demo` does:
// the priority level, the FlowSchema routing to it and the vLLM LeaderWorkerSet.
func TestAccExample_inferenceCluster(t *testing.T) {
	cfg := exampleConfig(t, "inference-cluster")
	// terraform-plugin-testing imports one resource at a time; outputs naming the others would
	// be null there.
	importCfg := regexp.MustCompile(`(?s)\noutput "[^"]+" \{.*?\n\}\n`).ReplaceAllString(cfg, "\n")
	// wait_for_rollout keeps its default: the LWS controller brings the groups up and the
	// scheduler places them on the GPU nodes before the apply returns.
	vars := config.Variables{}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:          cfg,
				ConfigVariables: vars,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubeinfer_leaderworkerset.vllm", tfjsonpath.New("id"), knownvalue.StringExact("default/llama-405b")),
					statecheck.ExpectKnownValue("kubeinfer_flow_schema.inference_controllers",
						tfjsonpath.New("spec").AtMapKey("priority_level_configuration").AtMapKey("name"), knownvalue.StringExact("inference-controllers")),
					statecheck.ExpectKnownOutputValue("leaderworkerset", knownvalue.StringExact("default/llama-405b")),
					// 2 groups of 2 pods with 8 GPUs each, no surge.
					statecheck.ExpectKnownOutputValue("gpus", knownvalue.ObjectExact(map[string]knownvalue.Check{
						"at_replicas": knownvalue.StringExact("32"), "at_peak": knownvalue.StringExact("32")})),
					statecheck.ExpectKnownValue("kubeinfer_leaderworkerset.vllm", tfjsonpath.New("status").AtMapKey("ready_replicas"), knownvalue.Int64Exact(2)),
				},
				Check: leadersSpreadOverZones(t, "llama-405b"),
			},
			{Config: cfg, ConfigVariables: vars, PlanOnly: true},
			// Imports reproduce the state exactly, provider-only settings (wait_for_rollout =
			// false, timeouts) included, with no ignore list.
			{Config: importCfg, ConfigVariables: vars, ResourceName: "kubeinfer_leaderworkerset.vllm", ImportState: true,
				ImportStateId: "default/llama-405b", ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "id"},
			{Config: importCfg, ConfigVariables: vars, ResourceName: "kubeinfer_flow_schema.inference_controllers", ImportState: true,
				ImportStateId: "inference-controllers", ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "id"},
			{Config: importCfg, ConfigVariables: vars, ResourceName: "kubeinfer_priority_level_configuration.inference_controllers", ImportState: true,
				ImportStateId: "inference-controllers", ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "id"},
		},
	})
}

// leadersSpreadOverZones checks that every pod of the LeaderWorkerSet is Ready on a GPU node and
// that the example's topology spread constraint put the groups' leaders in different zones.
func leadersSpreadOverZones(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		cs := acctest.Cluster(t).Clientset()
		ctx := context.Background()
		pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "leaderworkerset.sigs.k8s.io/name=" + name})
		if err != nil {
			return err
		}
		if len(pods.Items) != 4 {
			return fmt.Errorf("%d pods, want 4 (2 groups of 2)", len(pods.Items))
		}
		leaderZones := map[string]string{}
		for _, p := range pods.Items {
			ready := false
			for _, c := range p.Status.Conditions {
				ready = ready || (c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue)
			}
			if !ready || p.Spec.NodeName == "" {
				return fmt.Errorf("pod %s is not Ready on a node", p.Name)
			}
			node, err := cs.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if node.Status.Capacity.Name(acctest.GPUResource, k8sresource.DecimalSI).Value() == 0 {
				return fmt.Errorf("pod %s runs on %s, which has no GPUs", p.Name, node.Name)
			}
			if p.Labels["leaderworkerset.sigs.k8s.io/worker-index"] == "0" {
				leaderZones[p.Name] = node.Labels[acctest.ZoneLabel]
			}
		}
		if len(leaderZones) != 2 || leaderZones[name+"-0"] == leaderZones[name+"-1"] {
			return fmt.Errorf("leaders not spread over the two zones: %v", leaderZones)
		}
		return nil
	}
}
