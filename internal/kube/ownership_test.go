package kube_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema"
	fsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
	plcrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration/rules"
)

// managedEntry is a metadata.managedFields entry as the API server writes it.
func managedEntry(manager, operation, subresource, fieldsV1 string) map[string]any {
	var fields any
	if err := json.Unmarshal([]byte(fieldsV1), &fields); err != nil {
		panic(err)
	}
	e := map[string]any{"manager": manager, "operation": operation, "apiVersion": "v1",
		"time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields}
	if subresource != "" {
		e["subresource"] = subresource
	}
	return e
}

// Managed fields of the provider's own apply of vllm() (abridged) and of other managers.
const (
	workerContainer = `{"f:spec":{"f:leaderWorkerTemplate":{"f:workerTemplate":{"f:spec":{"f:containers":{"k:{\"name\":\"vllm-worker\"}":`
	ownApply        = `{"f:spec":{"f:leaderWorkerTemplate":{"f:size":{},"f:workerTemplate":{"f:spec":{"f:containers":{"k:{\"name\":\"vllm-worker\"}":{".":{},"f:name":{},"f:resources":{"f:limits":{"f:nvidia.com/gpu":{}}}}}}}}}}`
	workerImage     = workerContainer + `{"f:image":{}}}}}}}}`
	workerGPU       = workerContainer + `{"f:resources":{"f:limits":{"f:nvidia.com/gpu":{}}}}}}}}}}`
)

const takeBack = "The plan sets them back to the configuration and the apply takes ownership of them (force_conflicts = true). Set force_conflicts = false to fail instead."

// TestTakeoverWarning: a refresh that finds attributes of the state changed and owned by another
// field manager warns, naming them, their values and the managers, in a bounded text; attributes
// the resource leaves to others, or that nobody else owns, are not named.
func TestTakeoverWarning(t *testing.T) {
	worker := func(obj map[string]any) map[string]any {
		lwt := obj["spec"].(map[string]any)["leaderWorkerTemplate"].(map[string]any)
		return lwt["workerTemplate"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	}
	setManaged := func(obj map[string]any, entries ...map[string]any) {
		all := []any{managedEntry("kubeinfer", "Apply", "", ownApply)}
		for _, e := range entries {
			all = append(all, e)
		}
		obj["metadata"].(map[string]any)["managedFields"] = all
	}
	for _, c := range []struct {
		name    string
		extras  map[string]tftypes.Value
		drift   func(obj map[string]any)
		summary string // "" for no warning
		detail  string
	}{{
		name: "Update manager",
		drift: func(obj map[string]any) {
			worker(obj)["image"] = "vllm/vllm-openai:v0.12.0"
			setManaged(obj, managedEntry("kubectl-edit", "Update", "", workerImage))
		},
		summary: "Fields changed outside Terraform will be taken back",
		detail: "Since the last apply, other field managers changed attributes this resource manages:\n" +
			`  spec.leader_worker_template.worker_template.spec.containers[0].image = "vllm/vllm-openai:v0.12.0" (was "vllm/vllm-openai:v0.11.0"), owned by "kubectl-edit" (Update)` + "\n" +
			takeBack,
	}, {
		name: "Apply manager, map entry",
		drift: func(obj map[string]any) {
			worker(obj)["resources"] = map[string]any{"limits": map[string]any{"nvidia.com/gpu": "4"}}
			setManaged(obj, managedEntry("someone-else", "Apply", "", workerGPU))
		},
		summary: "Fields changed outside Terraform will be taken back",
		detail: "Since the last apply, other field managers changed attributes this resource manages:\n" +
			`  spec.leader_worker_template.worker_template.spec.containers[0].resources.limits["nvidia.com/gpu"] = "4" (was "8"), owned by "someone-else" (Apply)` + "\n" +
			takeBack,
	}, {
		name:   "opt-out",
		extras: map[string]tftypes.Value{"force_conflicts": tftypes.NewValue(tftypes.Bool, false)},
		drift: func(obj map[string]any) {
			worker(obj)["image"] = "vllm/vllm-openai:v0.12.0"
			setManaged(obj, managedEntry("kubectl-edit", "Update", "", workerImage))
		},
		summary: "Fields changed outside Terraform are owned by another field manager",
		detail: "Since the last apply, other field managers changed attributes this resource manages:\n" +
			`  spec.leader_worker_template.worker_template.spec.containers[0].image = "vllm/vllm-openai:v0.12.0" (was "vllm/vllm-openai:v0.11.0"), owned by "kubectl-edit" (Update)` + "\n" +
			"The plan sets them back to the configuration, but the apply fails with a conflict (force_conflicts = false). Set force_conflicts = true to take ownership, or change them through that manager.",
	}, {
		name: "planned default, autoscaler through the scale subresource, long value",
		drift: func(obj map[string]any) {
			obj["spec"].(map[string]any)["replicas"] = int64(5)
			obj["spec"].(map[string]any)["startupPolicy"] = "LeaderReady"
			worker(obj)["image"] = "registry.example.com/a/very/long/repository/path/vllm-openai:v0.12.0-cuda12.8"
			setManaged(obj,
				managedEntry("horizontal-pod-autoscaler", "Update", "scale", `{"f:spec":{"f:replicas":{}}}`),
				managedEntry("kubectl-edit", "Update", "", `{"f:spec":{"f:startupPolicy":{}}}`),
				managedEntry("kubectl-set", "Update", "", workerImage))
		},
		summary: "Fields changed outside Terraform will be taken back",
		detail: "Since the last apply, other field managers changed attributes this resource manages:\n" +
			`  spec.leader_worker_template.worker_template.spec.containers[0].image = "registry.example.com/a/very/long/repository/path/vllm-op... (was "vllm/vllm-openai:v0.11.0"), owned by "kubectl-set" (Update)` + "\n" +
			`  spec.replicas = 5 (was 1), owned by "horizontal-pod-autoscaler" (Update of the scale subresource)` + "\n" +
			`  spec.startup_policy = "LeaderReady" (was "LeaderCreated"), owned by "kubectl-edit" (Update)` + "\n" +
			takeBack,
	}, {
		name:   "manage_replicas = false: the autoscaler's replicas are never taken",
		extras: map[string]tftypes.Value{"manage_replicas": tftypes.NewValue(tftypes.Bool, false)},
		drift: func(obj map[string]any) {
			obj["spec"].(map[string]any)["replicas"] = int64(5)
			setManaged(obj, managedEntry("horizontal-pod-autoscaler", "Update", "scale", `{"f:spec":{"f:replicas":{}}}`))
		},
	}, {
		name: "labels and annotations others add are not the resource's",
		drift: func(obj map[string]any) {
			meta := obj["metadata"].(map[string]any)
			meta["labels"] = map[string]any{"team": "other"}
			meta["annotations"] = map[string]any{"example.com/note": "x", kube.SettingsAnnotation: "wait_for_rollout=false"}
			setManaged(obj, managedEntry("kubectl-label", "Update", "", `{"f:metadata":{"f:labels":{"f:team":{}},"f:annotations":{"f:example.com/note":{}}}}`))
		},
	}, {
		name: "changed, still owned by the provider alone",
		drift: func(obj map[string]any) {
			worker(obj)["image"] = "vllm/vllm-openai:v0.12.0"
			setManaged(obj)
		},
	}, {
		name: "removed: nobody owns it, the apply restores it without conflict",
		drift: func(obj map[string]any) {
			delete(worker(obj), "resources")
			setManaged(obj, managedEntry("kubectl-edit", "Update", "", workerImage))
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
			extras := map[string]tftypes.Value{"wait_for_rollout": tftypes.NewValue(tftypes.Bool, false)}
			for k, v := range c.extras {
				extras[k] = v
			}
			_, ar := h.create(h.config(vllm(), extras))
			noErrors(t, "apply", ar.Diagnostics)
			obj := h.api.object(lwsPath)
			c.drift(obj)
			obj["metadata"].(map[string]any)["resourceVersion"] = "99"
			assertWarning(t, h.readDiags(h.value(ar.NewState)), c.summary, c.detail)
		})
	}
}

// TestTakeoverWarningAtomicList: a manager that owns an atomic list (FlowSchema rules) owns every
// attribute inside it (the subject's group too); more than five attributes are cut to five and a
// count.
func TestTakeoverWarningAtomicList(t *testing.T) {
	h := newHarness(t, flowschema.Kind, func(obj map[string]any) {
		setDefault(obj["spec"].(map[string]any), "matchingPrecedence", float64(fsrules.DefaultMatchingPrecedence))
		// The APF controller's condition, so the apply does not wait for it.
		obj["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Dangling", "status": "True",
			"reason": "NotFound", "message": `This FlowSchema references the PriorityLevelConfiguration object named "llm-serving" but there is no such object`}}}
	})
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "llm-clients"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "llm-serving"},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: "llm-clients"}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"get", "list", "watch", "create", "update"},
					APIGroups: []string{"leaderworkerset.x-k8s.io"}, Resources: []string{"leaderworkersets"}, Namespaces: []string{"*"}}},
			}},
		},
	}
	_, ar := h.create(h.config(fs, nil))
	noErrors(t, "apply", ar.Diagnostics)
	obj := h.api.object("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/llm-clients")
	spec := obj["spec"].(map[string]any)
	rule := spec["rules"].([]any)[0].(map[string]any)
	rule["subjects"].([]any)[0].(map[string]any)["group"] = map[string]any{"name": "everyone"}
	rr := rule["resourceRules"].([]any)[0].(map[string]any)
	rr["verbs"] = []any{"a", "b", "c", "d", "e"}
	spec["matchingPrecedence"] = int64(700)
	obj["metadata"].(map[string]any)["managedFields"] = []any{
		managedEntry("kubeinfer", "Apply", "", `{"f:spec":{"f:priorityLevelConfiguration":{"f:name":{}}}}`),
		managedEntry("intruder", "Update", "", `{"f:spec":{"f:matchingPrecedence":{},"f:rules":{}}}`),
	}
	obj["metadata"].(map[string]any)["resourceVersion"] = "99"
	assertWarning(t, h.readDiags(h.value(ar.NewState)), "Fields changed outside Terraform will be taken back",
		"Since the last apply, other field managers changed attributes this resource manages:\n"+
			`  spec.matching_precedence = 700 (was 1000), owned by "intruder" (Update)`+"\n"+
			`  spec.rules[0].resource_rules[0].verbs[0] = "a" (was "get"), owned by "intruder" (Update)`+"\n"+
			`  spec.rules[0].resource_rules[0].verbs[1] = "b" (was "list"), owned by "intruder" (Update)`+"\n"+
			`  spec.rules[0].resource_rules[0].verbs[2] = "c" (was "watch"), owned by "intruder" (Update)`+"\n"+
			`  spec.rules[0].resource_rules[0].verbs[3] = "d" (was "create"), owned by "intruder" (Update)`+"\n"+
			"  ... and 2 more\n"+takeBack)
}

// TestTakeoverWarningBothPaths: the framework's Read warns as the fast path does, and a refresh
// that finds the resourceVersion of the state (nothing changed) reads nothing and warns nothing.
func TestTakeoverWarningBothPaths(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
	_, ar := h.create(h.config(vllm(), noWait))
	noErrors(t, "apply", ar.Diagnostics)
	state := h.value(ar.NewState)
	obj := h.api.object(lwsPath)
	worker := obj["spec"].(map[string]any)["leaderWorkerTemplate"].(map[string]any)["workerTemplate"].(map[string]any)
	worker["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "vllm/vllm-openai:v0.12.0"
	obj["metadata"].(map[string]any)["managedFields"] = []any{managedEntry("kubectl-edit", "Update", "", workerImage)}

	// Same resourceVersion: the shortcut keeps the state.
	assertWarning(t, h.readDiags(state), "", "")

	obj["metadata"].(map[string]any)["resourceVersion"] = "99"
	fast := h.readDiags(state)
	if len(fast) != 1 {
		t.Fatalf("fast path: want one warning, got %+v", fast)
	}
	ctx := context.Background()
	r := kube.NewResource(leaderworkerset.Kind)()
	r.(resource.ResourceWithConfigure).Configure(ctx, resource.ConfigureRequest{ProviderData: h.data}, &resource.ConfigureResponse{})
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	resp := &resource.ReadResponse{State: tfsdk.State{Schema: sr.Schema, Raw: state}}
	r.Read(ctx, resource.ReadRequest{State: tfsdk.State{Schema: sr.Schema, Raw: state}}, resp)
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Summary() != fast[0].Summary || resp.Diagnostics[0].Detail() != fast[0].Detail {
		t.Errorf("framework Read: %v\nfast path: %s: %s", resp.Diagnostics, fast[0].Summary, fast[0].Detail)
	}
}

// readDiags refreshes state through the fast path and returns the diagnostics.
func (h *harness) readDiags(state tftypes.Value) []*tfprotov6.Diagnostic {
	h.t.Helper()
	rr, _ := h.srv.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{TypeName: h.typeName(), CurrentState: h.dv(state)})
	noErrors(h.t, "read", rr.Diagnostics)
	return rr.Diagnostics
}

func assertWarning(t *testing.T, diags []*tfprotov6.Diagnostic, summary, detail string) {
	t.Helper()
	if summary == "" {
		for _, d := range diags {
			t.Errorf("unexpected %v: %s\n%s", d.Severity, d.Summary, d.Detail)
		}
		return
	}
	if len(diags) != 1 {
		var b strings.Builder
		for _, d := range diags {
			fmt.Fprintf(&b, "\n%s: %s", d.Summary, d.Detail)
		}
		t.Fatalf("want one warning, got %d:%s", len(diags), b.String())
	}
	d := diags[0]
	if d.Severity != tfprotov6.DiagnosticSeverityWarning || d.Summary != summary || d.Detail != detail {
		t.Errorf("got %v %q:\n%s\nwant %q:\n%s", d.Severity, d.Summary, d.Detail, summary, detail)
	}
}

// TestApplyForcesByDefault: an apply takes ownership (force) unless force_conflicts = false,
// which the settings annotation records so that an import restores it; an object without the
// annotation imports with the default.
func TestApplyForcesByDefault(t *testing.T) {
	for _, c := range []struct {
		name       string
		extras     map[string]tftypes.Value
		force      string
		annotation string
	}{
		{"default", noWait, "true", "wait_for_rollout=false"},
		{"opt-out", map[string]tftypes.Value{"wait_for_rollout": tftypes.NewValue(tftypes.Bool, false),
			"force_conflicts": tftypes.NewValue(tftypes.Bool, false)}, "false", "force_conflicts=false,wait_for_rollout=false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
			_, ar := h.create(h.config(vllm(), c.extras))
			noErrors(t, "apply", ar.Diagnostics)
			if got := h.api.forces[len(h.api.forces)-1]; got != c.force {
				t.Errorf("force = %q, want %q", got, c.force)
			}
			ann := h.api.lastBody(t)["metadata"].(map[string]any)["annotations"].(map[string]any)
			if got := ann[kube.SettingsAnnotation]; got != c.annotation {
				t.Errorf("settings annotation = %q, want %q", got, c.annotation)
			}
			imported := h.read(h.importState("vllm", "default", "default/vllm"))
			if want := tftypes.NewValue(tftypes.Bool, c.force == "true"); !at(t, imported, "force_conflicts").Equal(want) {
				t.Errorf("imported force_conflicts = %v, want %v", at(t, imported, "force_conflicts"), want)
			}
		})
	}
}

// TestPlanSettingBackDefaultIsAChange: when another manager changed a field the configuration
// leaves to its default, Terraform proposes no change (the attribute is optional and computed),
// but the planned default sets it back: the plan is a change, with the server's computed
// attributes unknown, so the apply's new resourceVersion is no inconsistent result.
func TestPlanSettingBackDefaultIsAChange(t *testing.T) {
	h := newHarness(t, prioritylevelconfiguration.Kind, func(obj map[string]any) {
		var plc flowcontrolv1.PriorityLevelConfiguration
		_ = runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &plc)
		plcrules.SetObjectDefaults_PriorityLevelConfiguration(&plc)
		u, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&plc)
		for k := range obj {
			delete(obj, k)
		}
		for k, v := range u {
			obj[k] = v
		}
	})
	config := h.config(&flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "llm-serving"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To[int32](10),
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}},
	}, nil)
	_, ar := h.create(config)
	noErrors(t, "apply", ar.Diagnostics)
	obj := h.api.object("/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/llm-serving")
	obj["spec"].(map[string]any)["limited"].(map[string]any)["lendablePercent"] = int64(40)
	obj["metadata"].(map[string]any)["resourceVersion"] = "99"
	state := h.read(h.value(ar.NewState))

	plan := func(proposed tftypes.Value) tftypes.Value {
		pr, _ := h.srv.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{TypeName: h.typeName(),
			Config: h.dv(config), ProposedNewState: h.dv(proposed), PriorState: h.dv(state)})
		noErrors(t, "plan", pr.Diagnostics)
		return h.value(pr.PlannedState)
	}
	planned := plan(state) // Terraform's proposal: the prior value of every optional+computed attribute
	if got := at(t, planned, "spec", "limited", "lendable_percent"); !got.Equal(tftypes.NewValue(tftypes.Number, 0)) {
		t.Errorf("planned lendable_percent = %v, want the default 0", got)
	}
	for _, p := range [][]any{{"metadata", "resource_version"}, {"metadata", "generation"}} {
		if got := at(t, planned, p...); got.IsKnown() {
			t.Errorf("planned %v = %v, want unknown", p, got)
		}
	}
	if got := at(t, planned, "id"); !got.Equal(tftypes.NewValue(tftypes.String, "llm-serving")) {
		t.Errorf("planned id = %v, want the prior id", got)
	}

	// Without the drift the plan is the state: no change.
	obj["spec"].(map[string]any)["limited"].(map[string]any)["lendablePercent"] = int64(0)
	obj["metadata"].(map[string]any)["resourceVersion"] = "100"
	state = h.read(state)
	if planned := plan(state); !planned.Equal(state) {
		diff, _ := planned.Diff(state)
		t.Errorf("a plan without drift changes: %v", diff)
	}
}

// TestUpgradeFromOldDefaultPlansForce: a state written when force_conflicts defaulted to false
// plans the new default for a configuration that does not set it, and keeps an explicit false.
func TestUpgradeFromOldDefaultPlansForce(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
	_, ar := h.create(h.config(vllm(), noWait))
	noErrors(t, "apply", ar.Diagnostics)
	attrs := map[string]tftypes.Value{}
	_ = h.value(ar.NewState).As(&attrs)
	attrs["force_conflicts"] = tftypes.NewValue(tftypes.Bool, false) // the old default
	old := tftypes.NewValue(h.typ, attrs)
	for _, c := range []struct {
		config tftypes.Value
		want   bool
	}{
		{h.config(vllm(), noWait), true},
		{h.config(vllm(), map[string]tftypes.Value{"wait_for_rollout": tftypes.NewValue(tftypes.Bool, false),
			"force_conflicts": tftypes.NewValue(tftypes.Bool, false)}), false},
	} {
		// Terraform proposes the prior value of an optional+computed attribute left null.
		var configured map[string]tftypes.Value
		_ = c.config.As(&configured) // the value's own map: copy before changing
		proposed := map[string]tftypes.Value{}
		for name, v := range configured {
			proposed[name] = v
			if v.IsNull() {
				proposed[name] = attrs[name]
			}
		}
		pr, _ := h.srv.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{TypeName: h.typeName(),
			Config: h.dv(c.config), ProposedNewState: h.dv(tftypes.NewValue(h.typ, proposed)), PriorState: h.dv(old)})
		noErrors(t, "plan", pr.Diagnostics)
		if got := at(t, h.value(pr.PlannedState), "force_conflicts"); !got.Equal(tftypes.NewValue(tftypes.Bool, c.want)) {
			t.Errorf("planned force_conflicts = %v, want %v", got, c.want)
		}
	}
}
