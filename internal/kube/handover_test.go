package kube_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// liveLWS is a LeaderWorkerSet as the server holds it: a worker container with env and ports,
// a label and kubectl's annotation, replicas, status, and the given managed fields.
func liveLWS(entries ...map[string]any) *unstructured.Unstructured {
	obj := map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
		"metadata": map[string]any{"name": "vllm", "namespace": "default", "resourceVersion": "42",
			"labels":      map[string]any{"app": "vllm", "team": "oncall"},
			"annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
		"spec": map[string]any{"replicas": int64(3), "leaderWorkerTemplate": map[string]any{"size": int64(2),
			"workerTemplate": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
				"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
				"env":   []any{map[string]any{"name": "DEBUG", "value": "1"}},
				"ports": []any{map[string]any{"containerPort": int64(8000), "protocol": "TCP"}},
			}}}}}},
		"status": map[string]any{"replicas": int64(3)},
	}
	var managed []any
	for _, e := range entries {
		managed = append(managed, e)
	}
	obj["metadata"].(map[string]any)["managedFields"] = managed
	return &unstructured.Unstructured{Object: obj}
}

const (
	container = `{"f:spec":{"f:leaderWorkerTemplate":{"f:workerTemplate":{"f:spec":{"f:containers":{"k:{\"name\":\"vllm\"}":`
	// the provider's own apply of the body below.
	ownFields = `{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:leaderWorkerTemplate":{"f:size":{},"f:workerTemplate":{"f:spec":{"f:containers":{"k:{\"name\":\"vllm\"}":{".":{},"f:name":{},"f:image":{}}}}}}}}`
	// kubectl patch adding env.
	patchEnv = container + `{"f:env":{".":{},"k:{\"name\":\"DEBUG\"}":{".":{},"f:name":{},"f:value":{}}}}}}}}}}`
	// kubectl apply (client-side) that created the object: everything it wrote.
	csaFields = `{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{},"f:team":{}}},` +
		`"f:spec":{".":{},"f:replicas":{},"f:leaderWorkerTemplate":{".":{},"f:size":{},"f:workerTemplate":{".":{},"f:spec":{".":{},"f:containers":{".":{},"k:{\"name\":\"vllm\"}":{".":{},"f:name":{},"f:image":{},` +
		`"f:ports":{".":{},"k:{\"containerPort\":8000,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}}}}}}}`
	statusFields = `{"f:status":{"f:replicas":{}}}`
)

// applyBody is what the configuration sends: the app label, replicas, size, the container's
// name and image; no env, no ports.
func applyBody() map[string]any {
	return map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
		"metadata": map[string]any{"name": "vllm", "namespace": "default", "labels": map[string]any{"app": "vllm"}},
		"spec": map[string]any{"replicas": float64(3), "leaderWorkerTemplate": map[string]any{"size": float64(2),
			"workerTemplate": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
				"name": "vllm", "image": "vllm/vllm-openai:v0.11.0"}}}}}},
	}
}

func fieldsOf(t *testing.T, entries []metav1.ManagedFieldsEntry, manager string) map[string]any {
	t.Helper()
	for _, e := range entries {
		if e.Manager == manager && e.Subresource == "" {
			var m map[string]any
			if err := json.Unmarshal(e.FieldsV1.GetRawBytes(), &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	return nil
}

func TestPlanHandover(t *testing.T) {
	envPath := "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].env"
	portsPath := "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].ports"
	manageReplicas := func(b bool) map[string]tftypes.Value {
		return map[string]tftypes.Value{"manage_replicas": tftypes.NewValue(tftypes.Bool, b)}
	}

	t.Run("a field kubectl patch added is taken and removed", func(t *testing.T) {
		live := liveLWS(managedEntry("kubeinfer", "Apply", "", ownFields), managedEntry("kubectl-patch", "Update", "", patchEnv),
			managedEntry("lws-controller", "Update", "status", statusFields))
		entries, stray, _, err := kube.PlanHandover(leaderworkerset.Kind, live, applyBody(), nil, noPrior)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{envPath, envPath + "[0]", envPath + "[0].name", envPath + "[0].value"}; !slices.Equal(stray, want) {
			t.Errorf("stray = %v, want %v", stray, want)
		}
		if fieldsOf(t, entries, "kubectl-patch") != nil {
			t.Errorf("kubectl-patch keeps an entry: %v", entries)
		}
		own, _ := json.Marshal(fieldsOf(t, entries, "kubeinfer"))
		if !json.Valid(own) || !strings.Contains(string(own), `"f:env"`) {
			t.Errorf("the provider's entry lacks env: %s", own)
		}
		if len(entries) != 2 || entries[1].Subresource != "status" {
			t.Errorf("the status entry must stay as it was: %v", entries)
		}
	})

	t.Run("the creator of an imported object hands over what the configuration declares", func(t *testing.T) {
		live := liveLWS(managedEntry("kubectl-client-side-apply", "Update", "", csaFields))
		entries, stray, shared, err := kube.PlanHandover(leaderworkerset.Kind, live, applyBody(), manageReplicas(true), noPrior)
		if err != nil {
			t.Fatal(err)
		}
		if !shared {
			t.Error("kubectl co-owns declared fields: shared must be reported")
		}
		for _, p := range stray {
			if !strings.HasPrefix(p, portsPath) {
				t.Errorf("stray %s: only the ports are left out of the configuration", p)
			}
		}
		if len(stray) == 0 {
			t.Fatal("the ports must be removed")
		}
		left, _ := json.Marshal(fieldsOf(t, entries, "kubectl-client-side-apply"))
		for _, kept := range []string{`f:kubectl.kubernetes.io/last-applied-configuration`, `f:team`} {
			if !strings.Contains(string(left), kept) {
				t.Errorf("kubectl must keep %s (outside the configuration): %s", kept, left)
			}
		}
		for _, taken := range []string{`f:image`, `f:ports`, `f:app`, `f:size`} {
			if strings.Contains(string(left), taken) {
				t.Errorf("kubectl keeps %s: %s", taken, left)
			}
		}
		own, _ := json.Marshal(fieldsOf(t, entries, "kubeinfer"))
		if !strings.Contains(string(own), `f:ports`) || strings.Contains(string(own), `f:image`) {
			t.Errorf("the new provider entry holds the stray fields only (the apply owns what it sends): %s", own)
		}
	})

	t.Run("replicas left to an autoscaler are not taken", func(t *testing.T) {
		live := liveLWS(managedEntry("kubectl-client-side-apply", "Update", "", csaFields))
		body := applyBody()
		delete(body["spec"].(map[string]any), "replicas")
		entries, _, _, err := kube.PlanHandover(leaderworkerset.Kind, live, body, manageReplicas(false), noPrior)
		if err != nil {
			t.Fatal(err)
		}
		left, _ := json.Marshal(fieldsOf(t, entries, "kubectl-client-side-apply"))
		if !strings.Contains(string(left), `f:replicas`) {
			t.Errorf("replicas must stay with their manager: %s", left)
		}
	})

	t.Run("nothing to hand over", func(t *testing.T) {
		live := liveLWS(managedEntry("kubeinfer", "Apply", "", ownFields), managedEntry("kubectl-label", "Update", "",
			`{"f:metadata":{"f:labels":{"f:team":{}}}}`), managedEntry("lws-controller", "Update", "status", statusFields))
		entries, stray, shared, err := kube.PlanHandover(leaderworkerset.Kind, live, applyBody(), nil, noPrior)
		if err != nil || entries != nil || stray != nil || shared {
			t.Errorf("got %v, %v, %v, %v; want nothing: a foreign label and status are outside the configuration", entries, stray, shared, err)
		}
	})
}

// noPrior is the prior state of an apply that starts from nothing the configuration declared
// in the maps others add to.
var noPrior = tftypes.NewValue(tftypes.DynamicPseudoType, nil)

// priorLabels is a prior state whose metadata holds the given labels, as the state of a
// configuration that declared them.
func priorLabels(labels ...string) tftypes.Value {
	labelsType := tftypes.Map{ElementType: tftypes.String}
	metaType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"labels": labelsType}}
	m := map[string]tftypes.Value{}
	for _, l := range labels {
		m[l] = tftypes.NewValue(tftypes.String, "x")
	}
	return tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"metadata": metaType}}, map[string]tftypes.Value{
		"metadata": tftypes.NewValue(metaType, map[string]tftypes.Value{"labels": tftypes.NewValue(labelsType, m)}),
	})
}

// TestPlanHandoverRemovedLabel: a label the configuration declared (the prior state holds it)
// and no longer declares is taken from every co-owner, so the apply removes it; a label the
// configuration never declared stays with its owner.
func TestPlanHandoverRemovedLabel(t *testing.T) {
	coOwners := map[string]string{
		"client-side apply":      "kubectl-client-side-apply/Update",
		"another apply manager":  "helm/Apply",
		"a plain update (label)": "kubectl-label/Update",
	}
	for name, owner := range coOwners {
		manager, op, _ := strings.Cut(owner, "/")
		t.Run(name, func(t *testing.T) {
			live := liveLWS(managedEntry("kubeinfer", "Apply", "", `{"f:metadata":{"f:labels":{"f:app":{},"f:team":{}}}}`),
				managedEntry(manager, op, "", `{"f:metadata":{"f:labels":{".":{},"f:team":{}}}}`))
			// The configuration declared app and team, and now only app.
			entries, stray, _, err := kube.PlanHandover(leaderworkerset.Kind, live, applyBody(), nil, priorLabels("app", "team"))
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"metadata.labels[team]"}; !slices.Equal(stray, want) {
				t.Errorf("stray = %v, want %v", stray, want)
			}
			left, _ := json.Marshal(fieldsOf(t, entries, manager))
			if strings.Contains(string(left), `f:team`) {
				t.Errorf("%s keeps the removed label: %s", manager, left)
			}
			own, _ := json.Marshal(fieldsOf(t, entries, "kubeinfer"))
			if !strings.Contains(string(own), `f:team`) {
				t.Errorf("the provider must own the label it removes: %s", own)
			}

			// Never declared: the same object, a prior state without team.
			entries, stray, _, err = kube.PlanHandover(leaderworkerset.Kind, live, applyBody(), nil, priorLabels("app"))
			if err != nil || stray != nil {
				t.Fatalf("a label the configuration never declared is to be removed: %v, %v", stray, err)
			}
			if left, _ := json.Marshal(fieldsOf(t, entries, manager)); entries != nil && !strings.Contains(string(left), `f:team`) {
				t.Errorf("a label the configuration never declared was taken from %s: %s", manager, left)
			}
		})
	}
}

// TestPlanHandoverRoleTemplateLabel: a label of a DisaggregatedSet role's pod template that the
// configuration removed is taken from the kubectl that also set it, so the apply removes it.
// Pod template labels are compared key by key (a key others add is drift the plan shows), so
// every key the body leaves out is removed.
func TestPlanHandoverRoleTemplateLabel(t *testing.T) {
	role := func(labels map[string]any) map[string]any {
		return map[string]any{"name": "decode", "spec": map[string]any{"replicas": float64(1), "leaderWorkerTemplate": map[string]any{
			"workerTemplate": map[string]any{"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0"}}}}}}}
	}
	live := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "disaggregatedset.x-k8s.io/v1", "kind": "DisaggregatedSet",
		"metadata": map[string]any{"name": "pd", "namespace": "default", "resourceVersion": "7"},
		"spec":     map[string]any{"roles": []any{role(map[string]any{"component": "decode", "tier": "gpu"})}},
	}}
	roleKey := `"k:{\"name\":\"decode\"}":`
	live.Object["metadata"].(map[string]any)["managedFields"] = []any{
		managedEntry("kubeinfer", "Apply", "", `{"f:spec":{"f:roles":{`+roleKey+`{".":{},"f:name":{},"f:spec":{"f:replicas":{},"f:leaderWorkerTemplate":{"f:workerTemplate":{"f:metadata":{"f:labels":{"f:component":{},"f:tier":{}}},"f:spec":{"f:containers":{}}}}}}}}}`),
		managedEntry("kubectl-label", "Update", "", `{"f:spec":{"f:roles":{`+roleKey+`{"f:spec":{"f:leaderWorkerTemplate":{"f:workerTemplate":{"f:metadata":{"f:labels":{"f:tier":{}}}}}}}}}}`),
	}
	body := map[string]any{"apiVersion": "disaggregatedset.x-k8s.io/v1", "kind": "DisaggregatedSet",
		"metadata": map[string]any{"name": "pd", "namespace": "default"},
		"spec":     map[string]any{"roles": []any{role(map[string]any{"component": "decode"})}}}
	entries, stray, _, err := kube.PlanHandover(disaggregatedset.Kind, live, body, nil, noPrior)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"spec.roles[0].spec.leaderWorkerTemplate.workerTemplate.metadata.labels[tier]"}; !slices.Equal(stray, want) {
		t.Errorf("stray = %v, want %v", stray, want)
	}
	if fieldsOf(t, entries, "kubectl-label") != nil {
		t.Errorf("kubectl-label keeps the removed label: %v", entries)
	}
}
