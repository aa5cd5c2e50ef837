package disaggregatedset_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
)

// TestAccDisaggregatedSetRoleScaler_dataSource: the data source reads a role scaler (created here
// as the v0.10.0 controller would, with its status through the status subresource, since no
// controller runs on the newer-fields profile), with the name and selector an autoscaler needs;
// the scale subresource of the generated CRD answers with the same selector; the plural data
// source lists the set's scalers by label selector and leaves another set's out.
func TestAccDisaggregatedSetRoleScaler_dataSource(t *testing.T) {
	c := acctest.ClusterWith(t, acctest.NewerFields)
	ri := c.Dynamic().Resource(disaggregatedset.RoleScalerKind.GVR()).Namespace("default")
	const name = "llama-decode"
	selector := disaggv1.SetNameLabelKey + "=llama," + disaggv1.RoleLabelKey + "=decode,leaderworkerset.sigs.k8s.io/worker-index=0"
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": disaggv1.GroupVersion.String(), "kind": "DisaggregatedSetRoleScaler",
		"metadata": map[string]any{"name": name, "namespace": "default",
			"labels": map[string]any{disaggv1.SetNameLabelKey: "llama", disaggv1.RoleLabelKey: "decode"}},
		"spec": map[string]any{"replicas": int64(3)},
	}}
	created, err := ri.Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ri.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	created.Object["status"] = map[string]any{"replicas": int64(2), "selector": selector, "observedGeneration": created.GetGeneration()}
	if _, err := ri.UpdateStatus(context.Background(), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	scale, err := ri.Get(context.Background(), name, metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(scale.Object, "status", "selector"); got != selector {
		t.Errorf("scale subresource selector %q, want %q", got, selector)
	}
	// Two more scalers, one of the same set and one of another: the plural data source lists
	// the set's by label selector.
	for _, other := range []struct{ set, role string }{{"llama", "prefill"}, {"mistral", "decode"}} {
		o := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": disaggv1.GroupVersion.String(), "kind": "DisaggregatedSetRoleScaler",
			"metadata": map[string]any{"name": other.set + "-" + other.role, "namespace": "default",
				"labels": map[string]any{disaggv1.SetNameLabelKey: other.set, disaggv1.RoleLabelKey: other.role}},
			"spec": map[string]any{"replicas": int64(1)},
		}}
		if _, err := ri.Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ri.Delete(context.Background(), o.GetName(), metav1.DeleteOptions{}) })
	}
	const ds, all = "data.kubeinfer_disaggregatedset_role_scaler.decode", "data.kubeinfer_disaggregatedset_role_scalers.llama"
	item := func(i int) tfjsonpath.Path { return tfjsonpath.New("items").AtSliceIndex(i) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderConfigFor(c) + `
data "kubeinfer_disaggregatedset_role_scaler" "decode" {
  metadata = { name = "llama-decode" }
}

data "kubeinfer_disaggregatedset_role_scalers" "llama" {
  label_selector = "disaggregatedset.x-k8s.io/name=llama"
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("id"), knownvalue.StringExact("default/"+name)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("spec").AtMapKey("replicas"), knownvalue.Int64Exact(3)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("status").AtMapKey("replicas"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("status").AtMapKey("selector"), knownvalue.StringExact(selector)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("metadata").AtMapKey("labels").AtMapKey(disaggv1.RoleLabelKey), knownvalue.StringExact("decode")),
				statecheck.ExpectKnownValue(all, tfjsonpath.New("items"), knownvalue.ListSizeExact(2)),
				statecheck.ExpectKnownValue(all, item(0).AtMapKey("metadata").AtMapKey("name"), knownvalue.StringExact("llama-decode")),
				statecheck.ExpectKnownValue(all, item(0).AtMapKey("status").AtMapKey("selector"), knownvalue.StringExact(selector)),
				statecheck.ExpectKnownValue(all, item(1).AtMapKey("metadata").AtMapKey("name"), knownvalue.StringExact("llama-prefill")),
				statecheck.ExpectKnownValue(all, item(1).AtMapKey("spec").AtMapKey("replicas"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(all, tfjsonpath.New("id"), knownvalue.StringExact("default?disaggregatedset.x-k8s.io/name=llama")),
			},
		}},
	})
}
