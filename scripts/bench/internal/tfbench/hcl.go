package tfbench

import (
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
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
	return acctest.ObjectHCL(leaderworkerset.Kind.Node(), "kubeinfer_leaderworkerset", label, obj, "wait_for_rollout = false")
}
