package leaderworkerset_test

import (
	"context"
	"strings"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	disaggv1 "sigs.k8s.io/lws/api/disaggregatedset/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
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

// The LeaderWorkerSets a DisaggregatedSet creates for its roles (controller ownerReference) are
// left out of `terraform query` by default, with a warning that counts them and names the
// owner's kind: an import block for one would make Terraform re-create an old revision's
// LeaderWorkerSet outside the set. include_controlled = true lists them as well.
func TestAccLeaderWorkerSet_querySkipsControlled(t *testing.T) {
	const label, set = "acc-query", "acc-query-ds"
	c := lwsClient(t)
	cluster := acctest.Cluster(t)
	dsClient := cluster.Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	role := func(name string) any {
		return map[string]any{
			"name":     name,
			"metadata": map[string]any{"labels": map[string]any{label: "controlled"}},
			"spec": map[string]any{"replicas": int64(1), "leaderWorkerTemplate": map[string]any{"size": int64(1), "workerTemplate": map[string]any{
				"spec": map[string]any{"containers": []any{map[string]any{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
					"resources": map[string]any{"requests": map[string]any{"cpu": "10m"}}}}},
			}}},
		}
	}
	ds := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "disaggregatedset.x-k8s.io/v1",
		"kind":       "DisaggregatedSet",
		"metadata":   map[string]any{"name": set, "namespace": "default"},
		"spec":       map[string]any{"roles": []any{role("prefill"), role("decode")}},
	}}
	create := func() {
		ctx := context.Background()
		if _, err := dsClient.Create(ctx, ds, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = dsClient.Delete(context.Background(), set, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)})
		})
		own := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1",
			"kind":       "LeaderWorkerSet",
			"metadata":   map[string]any{"name": "acc-query-own", "namespace": "default", "labels": map[string]any{label: "own"}},
			"spec": map[string]any{"replicas": int64(0), "leaderWorkerTemplate": map[string]any{"workerTemplate": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0"}},
			}}}},
		}}
		if _, err := c.Create(ctx, own, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), "acc-query-own", metav1.DeleteOptions{}) })
		// The set's controller creates one LeaderWorkerSet per role.
		deadline := time.Now().Add(time.Minute)
		for {
			l, err := c.List(ctx, metav1.ListOptions{LabelSelector: label + "=controlled"})
			if err == nil && len(l.Items) == 2 {
				for _, u := range l.Items {
					if ref := metav1.GetControllerOf(&u); ref == nil || ref.Kind != "DisaggregatedSet" || ref.Name != set {
						t.Fatalf("%s is not controlled by the set: %v", u.GetName(), u.GetOwnerReferences())
					}
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the DisaggregatedSet controller made no LeaderWorkerSets for its roles: %v, %v", l, err)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	byName := func(name string) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact(name)}
	}
	pc := acctest.ProviderConfig(t)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{PreConfig: create, Config: pc},
			{
				Query: true,
				Config: `
list "kubeinfer_leaderworkerset" "default" {
  provider         = kubeinfer
  include_resource = true
  config {
    namespace      = "default"
    label_selector = "acc-query"
  }
}

list "kubeinfer_leaderworkerset" "controlled" {
  provider = kubeinfer
  config {
    namespace          = "default"
    label_selector     = "acc-query"
    include_controlled = true
  }
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("kubeinfer_leaderworkerset.default", 1),
					querycheck.ExpectIdentity("kubeinfer_leaderworkerset.default", byName("acc-query-own")),
					querycheck.ExpectLength("kubeinfer_leaderworkerset.controlled", 3),
					querycheck.ExpectIdentity("kubeinfer_leaderworkerset.controlled", byName("acc-query-own")),
					// The names hold the revision the controller computed: known once it ran.
					lazyCheck(func() querycheck.QueryResultCheck {
						return querycheck.ExpectIdentity("kubeinfer_leaderworkerset.controlled", byName(roleLWS(t, c, set, "prefill")))
					}),
					lazyCheck(func() querycheck.QueryResultCheck {
						return querycheck.ExpectResourceDisplayName("kubeinfer_leaderworkerset.controlled",
							queryfilter.ByResourceIdentity(byName(roleLWS(t, c, set, "decode"))),
							knownvalue.StringExact("default/"+roleLWS(t, c, set, "decode")+" (controlled by DisaggregatedSet "+set+")"))
					}),
				},
			},
		},
	})

	// The warning, as the provider streams it to Terraform (terraform-plugin-testing's query
	// checks do not see diagnostics): first in the stream, with no identity.
	for _, include := range []bool{false, true} {
		names, diags := listRPC(t, cluster.KubeconfigPath(), `acc-query`, include)
		var warnings []string
		for _, d := range diags {
			if d.Severity != tfprotov6.DiagnosticSeverityWarning {
				t.Errorf("include_controlled = %v: %s: %s", include, d.Summary, d.Detail)
				continue
			}
			warnings = append(warnings, d.Summary+": "+d.Detail)
		}
		switch {
		case include && (len(names) != 3 || len(warnings) != 0):
			t.Errorf("include_controlled = true: listed %v with warnings %v", names, warnings)
		case !include && (len(names) != 1 || len(warnings) != 1 ||
			!strings.HasPrefix(warnings[0], "2 LeaderWorkerSets owned by a DisaggregatedSet were skipped: ") ||
			!strings.Contains(warnings[0], "DisaggregatedSet "+set) || !strings.Contains(warnings[0], "include_controlled = true")):
			t.Errorf("include_controlled = false: listed %v with warnings %v", names, warnings)
		}
	}
}

// roleLWS is the name of the LeaderWorkerSet the set's controller made for role.
func roleLWS(t *testing.T, c dynamic.ResourceInterface, set, role string) string {
	t.Helper()
	l, err := c.List(context.Background(), metav1.ListOptions{LabelSelector: disaggv1.RoleLabelKey + "=" + role + "," + disaggv1.SetNameLabelKey + "=" + set})
	if err != nil || len(l.Items) != 1 {
		t.Errorf("the LeaderWorkerSet of role %s: %v, %v", role, l, err)
		return ""
	}
	return l.Items[0].GetName()
}

// lazyCheck builds its query check when the query has run.
type lazyCheck func() querycheck.QueryResultCheck

func (l lazyCheck) CheckQuery(ctx context.Context, req querycheck.CheckQueryRequest, resp *querycheck.CheckQueryResponse) {
	check := l()
	if f, ok := check.(querycheck.QueryResultCheckWithFilters); ok {
		var err error
		if req.Query, err = filterQuery(ctx, f, req.Query); err != nil {
			resp.Error = err
			return
		}
	}
	check.CheckQuery(ctx, req, resp)
}

// filterQuery keeps the results that some filter of f includes, as terraform-plugin-testing does
// for a check with filters (helper/resource/query/query_checks.go, runQueryFilters, v1.16.0).
func filterQuery(ctx context.Context, f querycheck.QueryResultCheckWithFilters, results []tfjson.ListResourceFoundData) ([]tfjson.ListResourceFoundData, error) {
	var kept []tfjson.ListResourceFoundData
	for _, r := range results {
		keep := false
		for _, filter := range f.QueryFilters(ctx) {
			var resp queryfilter.FilterQueryResponse
			filter.Filter(ctx, queryfilter.FilterQueryRequest{QueryItem: r}, &resp)
			if resp.Error != nil {
				return nil, resp.Error
			}
			keep = keep || resp.Include
		}
		if keep {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// listRPC runs the provider's ListResource RPC of kubeinfer_leaderworkerset as Terraform does,
// on the default namespace: the display names of the results with an identity, and every
// diagnostic of the stream.
func listRPC(t *testing.T, kubeconfig, selector string, includeControlled bool) ([]string, []*tfprotov6.Diagnostic) {
	t.Helper()
	ctx := context.Background()
	srv := provider.NewServer("test")()
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	dv := func(typ tftypes.Type, set map[string]tftypes.Value) *tfprotov6.DynamicValue {
		attrs := map[string]tftypes.Value{}
		for name, at := range typ.(tftypes.Object).AttributeTypes {
			attrs[name] = tftypes.NewValue(at, nil)
		}
		for name, v := range set {
			attrs[name] = v
		}
		v, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	cr, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.14.3",
		Config: dv(sch.Provider.ValueType(), map[string]tftypes.Value{"config_path": tftypes.NewValue(tftypes.String, kubeconfig)})})
	if err != nil || len(cr.Diagnostics) > 0 {
		t.Fatalf("configure: %v %v", err, cr.Diagnostics)
	}
	ls, ok := srv.(tfprotov6.ProviderServerWithListResource) //nolint:staticcheck // terraform-plugin-go v0.31 serves list resources only through it
	if !ok {
		t.Fatal("the provider server does not serve list resources")
	}
	stream, err := ls.ListResource(ctx, &tfprotov6.ListResourceRequest{TypeName: "kubeinfer_leaderworkerset", Limit: 100,
		Config: dv(sch.ListResourceSchemas["kubeinfer_leaderworkerset"].ValueType(), map[string]tftypes.Value{
			"namespace":          tftypes.NewValue(tftypes.String, "default"),
			"label_selector":     tftypes.NewValue(tftypes.String, selector),
			"include_controlled": tftypes.NewValue(tftypes.Bool, includeControlled),
		})})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var diags []*tfprotov6.Diagnostic
	for res := range stream.Results {
		diags = append(diags, res.Diagnostics...)
		if res.Identity != nil {
			names = append(names, res.DisplayName)
		}
	}
	return names, diags
}
