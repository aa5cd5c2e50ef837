package leaderworkerset_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// terraform query (Terraform 1.14+) finds LeaderWorkerSets created outside Terraform (as
// kubectl would), by namespace and label selector, with their identities and, with
// include_resource, the configuration values -generate-config-out writes.
func TestAccLeaderWorkerSet_query(t *testing.T) {
	c := lwsClient(t)
	create := func(name, team string, replicas int64) {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1",
			"kind":       "LeaderWorkerSet",
			"metadata":   map[string]any{"name": name, "namespace": "default", "labels": map[string]any{"team": team}},
			"spec": map[string]any{
				"replicas": replicas,
				"leaderWorkerTemplate": map[string]any{
					"size": int64(1),
					"workerTemplate": map[string]any{"spec": map[string]any{
						"containers": []any{map[string]any{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0"}},
					}},
				},
			},
		}}
		if _, err := c.Create(context.Background(), u, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	pc := acctest.ProviderConfig(t)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					create("acc-query-a", "search", 0)
					create("acc-query-b", "search", 0)
					create("acc-query-other", "ads", 0)
				},
				Config: pc,
			},
			{
				// The query file comes beside the previous step's configuration, which holds
				// the provider block.
				Query: true,
				Config: `
list "kubeinfer_leaderworkerset" "search" {
  provider         = kubeinfer
  include_resource = true
  config {
    namespace      = "default"
    label_selector = "team=search"
  }
}

list "kubeinfer_leaderworkerset" "all" {
  provider = kubeinfer
  config {}
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("kubeinfer_leaderworkerset.search", 2),
					querycheck.ExpectIdentity("kubeinfer_leaderworkerset.search", map[string]knownvalue.Check{
						"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact("acc-query-a"),
					}),
					querycheck.ExpectIdentity("kubeinfer_leaderworkerset.search", map[string]knownvalue.Check{
						"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact("acc-query-b"),
					}),
					querycheck.ExpectResourceDisplayName("kubeinfer_leaderworkerset.search",
						queryfilter.ByResourceIdentity(map[string]knownvalue.Check{
							"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact("acc-query-a"),
						}), knownvalue.StringExact("default/acc-query-a")),
					querycheck.ExpectResourceKnownValues("kubeinfer_leaderworkerset.search",
						queryfilter.ByResourceIdentity(map[string]knownvalue.Check{
							"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact("acc-query-b"),
						}), []querycheck.KnownValueCheck{
							{Path: tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("worker_template").AtMapKey("spec").AtMapKey("containers").AtSliceIndex(0).AtMapKey("image"), KnownValue: knownvalue.StringExact("vllm/vllm-openai:v0.11.0")},
							{Path: tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("size"), KnownValue: knownvalue.Null()}, // 1, the default
							{Path: tfjsonpath.New("metadata").AtMapKey("labels").AtMapKey("team"), KnownValue: knownvalue.StringExact("search")},
							// What -generate-config-out writes: no planned defaults (a newer
							// field the released CRD lacks, webhook defaults), no provider
							// settings at their defaults.
							{Path: tfjsonpath.New("spec").AtMapKey("group_identity"), KnownValue: knownvalue.Null()},
							{Path: tfjsonpath.New("spec").AtMapKey("rollout_strategy"), KnownValue: knownvalue.Null()},
							{Path: tfjsonpath.New("spec").AtMapKey("startup_policy"), KnownValue: knownvalue.Null()},
							{Path: tfjsonpath.New("force_conflicts"), KnownValue: knownvalue.Null()},
							{Path: tfjsonpath.New("spec").AtMapKey("replicas"), KnownValue: knownvalue.Int64Exact(0)},
						}),
					querycheck.ExpectLengthAtLeast("kubeinfer_leaderworkerset.all", 3),
				},
			},
		},
	})
}
