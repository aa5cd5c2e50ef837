package leaderworkerset_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
)

// TestAccLeaderWorkerSetsDataSource_skipsControlled: the names data source (the adoption path of
// the CLIs without `terraform query`) leaves out a LeaderWorkerSet that a controller owns (an
// ownerReference with controller = true, as the DisaggregatedSet controller owns its roles'
// sets; here a ConfigMap), with the list resource's warning naming the owner, and lists the
// others; include_controlled = true lists it too, with its controller.
func TestAccLeaderWorkerSetsDataSource_skipsControlled(t *testing.T) {
	const label, owner, own, controlled = "acc-names", "acc-names-owner", "acc-names-own", "acc-names-controlled"
	c := lwsClient(t)
	cs := acctest.Cluster(t).Clientset()
	lws := func(name string, refs ...metav1.OwnerReference) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1",
			"kind":       "LeaderWorkerSet",
			"metadata":   map[string]any{"name": name, "namespace": "default", "labels": map[string]any{label: "yes"}},
			"spec": map[string]any{"replicas": int64(0), "leaderWorkerTemplate": map[string]any{"workerTemplate": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0"}},
			}}}},
		}}
		u.SetOwnerReferences(refs)
		return u
	}
	create := func() {
		ctx := context.Background()
		cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: owner}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Deleting the owner lets the garbage collector delete the controlled set.
		t.Cleanup(func() {
			_ = cs.CoreV1().ConfigMaps("default").Delete(context.Background(), owner, metav1.DeleteOptions{})
		})
		ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner, UID: cm.UID, Controller: ptr.To(true)}
		for _, u := range []*unstructured.Unstructured{lws(own), lws(controlled, ref)} {
			if _, err := c.Create(ctx, u, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Delete(context.Background(), u.GetName(), metav1.DeleteOptions{}) })
		}
	}
	item := func(name string, controller knownvalue.Check) knownvalue.Check {
		return knownvalue.ObjectPartial(map[string]knownvalue.Check{
			"name":       knownvalue.StringExact(name),
			"namespace":  knownvalue.StringExact("default"),
			"import_id":  knownvalue.StringExact("default/" + name),
			"identity":   knownvalue.ObjectExact(map[string]knownvalue.Check{"name": knownvalue.StringExact(name), "namespace": knownvalue.StringExact("default")}),
			"controller": controller,
		})
	}
	var w kubetest.Warnings
	// skippedWarning checks that the reads warned once, of the controlled set alone.
	skippedWarning := func(*terraform.State) error {
		got := w.TakeDataSource()
		want := "1 LeaderWorkerSet owned by a ConfigMap was skipped"
		if len(got) != 1 || !strings.HasPrefix(got[0], want+"\n") || !strings.Contains(got[0], "owners: ConfigMap "+owner) ||
			!strings.Contains(got[0], "include_controlled = true") {
			return fmt.Errorf("want one warning %q naming ConfigMap %s; got:%s", want, owner, kubetest.String(got))
		}
		t.Logf("data source warning: %s", got[0])
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{PreConfig: create, Config: acctest.ProviderConfig(t) + fmt.Sprintf(`
data "kubeinfer_leaderworkersets" "adopt" {
  namespace      = "default"
  label_selector = %[1]q
}

data "kubeinfer_leaderworkersets" "all" {
  namespace          = "default"
  label_selector     = %[1]q
  include_controlled = true
}
`, label),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.kubeinfer_leaderworkersets.adopt", tfjsonpath.New("items"),
						knownvalue.ListExact([]knownvalue.Check{item(own, knownvalue.Null())})),
					statecheck.ExpectKnownValue("data.kubeinfer_leaderworkersets.all", tfjsonpath.New("items"), knownvalue.ListExact([]knownvalue.Check{
						item(controlled, knownvalue.StringExact("ConfigMap "+owner)),
						item(own, knownvalue.Null()),
					})),
				},
				Check: skippedWarning,
			},
		},
	})
}
