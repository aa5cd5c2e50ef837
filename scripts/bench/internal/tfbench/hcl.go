package tfbench

import (
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// RequiredProviders is the terraform block of every benchmark configuration.
const RequiredProviders = `terraform {
  required_providers {
    kubeinfer = { source = "kubeinfer/kubeinfer" }
  }
}
`

// OfflineProvider points the provider at a port where nothing listens, so that any request
// fails (after the client's retries) and shows in the time or as an error; validate and a plan
// of new objects need none.
const OfflineProvider = `provider "kubeinfer" {
  host     = "https://127.0.0.1:1"
  token    = "unused"
  insecure = true
}
`

// VLLMLeaderWorkerSet is obj (lwsfixture.VLLM) as the kubeinfer_leaderworkerset resource
// `label`, with waiting for the rollout disabled (the test cluster has no LWS controller).
func VLLMLeaderWorkerSet(label string, obj *lwsv1.LeaderWorkerSet) string {
	return Resource(leaderworkerset.Kind.Node(), "kubeinfer_leaderworkerset", label, obj)
}

// Resource is obj, of the kind whose schema is node, as the resource typeName.label with
// `wait_for_rollout = false` (acctest.ObjectHCL), formatted as terraform fmt writes it.
func Resource(node *k8sschema.Node, typeName, label string, obj any) string {
	return string(hclwrite.Format([]byte(acctest.ObjectHCL(node, typeName, label, obj, "wait_for_rollout = false"))))
}
