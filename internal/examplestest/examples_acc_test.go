// Package examplestest applies the repository's examples to the real test API server.
package examplestest

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

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
	vars := config.Variables{"wait_for_rollout": config.BoolVariable(false)}
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
				},
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
