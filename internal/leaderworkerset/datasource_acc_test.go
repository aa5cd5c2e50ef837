package leaderworkerset_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// TestAccLeaderWorkerSetDataSource_basic: the data source reads the LeaderWorkerSet the resource
// created, with the same spec (defaults and nested template fields included) and status.
func TestAccLeaderWorkerSetDataSource_basic(t *testing.T) {
	runsBesideOthers(t)
	const name = "acc-vllm-ds"
	const ds = "data.kubeinfer_leaderworkerset.test"
	lwsClient(t) // the LWS controller brings the groups up
	cfg := acctest.ProviderConfig(t) + vllm(lwsfixture.VLLM(name, 2, 4, lwsfixture.SmallGPU)) + `
data "kubeinfer_leaderworkerset" "test" {
  metadata = {
    name      = kubeinfer_leaderworkerset.test.metadata.name
    namespace = "default"
  }
  depends_on = [kubeinfer_leaderworkerset.test]
}
`
	pairs := []string{
		"id",
		"metadata.uid",
		"metadata.labels.app",
		"spec.replicas",
		"spec.startup_policy",
		"spec.leader_worker_template.size",
		"spec.leader_worker_template.restart_policy",
		"spec.rollout_strategy.rolling_update_configuration.max_unavailable",
		"spec.leader_worker_template.leader_template.spec.containers.0.image",
		"spec.leader_worker_template.leader_template.spec.containers.0.resources.limits.nvidia.com/gpu",
		"spec.leader_worker_template.leader_template.spec.containers.0.readiness_probe.tcp_socket.port",
		"spec.leader_worker_template.leader_template.spec.topology_spread_constraints.0.topology_key",
		"spec.leader_worker_template.worker_template.spec.containers.0.env.0.value_from.secret_key_ref.name",
		"spec.leader_worker_template.worker_template.spec.volumes.0.empty_dir.size_limit",
		"status.ready_replicas",
		"status.replicas",
		"status.conditions.0.type",
		"status.conditions.0.status",
	}
	var checks []resource.TestCheckFunc
	for _, p := range pairs {
		checks = append(checks, resource.TestCheckResourceAttrSet(ds, p), resource.TestCheckResourceAttrPair(ds, p, addr, p))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			Check:  resource.ComposeAggregateTestCheckFunc(checks...),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("id"), knownvalue.StringExact("default/"+name)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("worker_template").
					AtMapKey("spec").AtMapKey("containers").AtSliceIndex(0).AtMapKey("name"), knownvalue.StringExact("vllm-worker")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("status").AtMapKey("ready_replicas"), knownvalue.Int64Exact(2)),
				// The CRD default the resource hides is visible in the data source.
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("leader_template").
					AtMapKey("spec").AtMapKey("containers").AtSliceIndex(0).AtMapKey("ports").AtSliceIndex(0).AtMapKey("protocol"), knownvalue.StringExact("TCP")),
			},
		}},
	})
}
