package kube_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema"
	fsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
	plcrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/protocol"
)

// These tests run the provider's apply, refresh and import against an in-process fake API
// server that records every server-side apply body and stores what a server would: the body
// plus the defaults its schema declares (fill). No cluster is needed.

// fakeAPI serves GET and server-side apply PATCH of single objects by URL path.
type fakeAPI struct {
	mu      sync.Mutex
	objects map[string]map[string]any
	bodies  []map[string]any
	forces  []string                 // the force parameter of each apply
	fill    func(obj map[string]any) // the server's structural defaults
	reject  string                   // when set, every apply fails with this 500 message
	rv      int
}

func newFakeAPI(t *testing.T, fill func(map[string]any)) (*fakeAPI, *kube.ProviderData) {
	f := &fakeAPI{objects: map[string]map[string]any{}, fill: fill}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, &kube.ProviderData{Client: kubeclient.NewClientFromRESTConfig(&rest.Config{Host: srv.URL})}
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		obj, ok := f.objects[r.URL.Path]
		if !ok {
			// As kube-apiserver: a missing object's 404 names it in the details.
			name := path.Base(r.URL.Path)
			writeJSON(w, http.StatusNotFound, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
				Message: fmt.Sprintf("%q not found", name), Details: &metav1.StatusDetails{Name: name}})
			return
		}
		writeJSON(w, http.StatusOK, obj)
	case http.MethodPatch:
		if ct := r.Header.Get("Content-Type"); ct != "application/apply-patch+yaml" {
			writeStatus(w, http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, "expected an apply patch, got "+ct)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
			return
		}
		f.bodies = append(f.bodies, body)
		f.forces = append(f.forces, r.URL.Query().Get("force"))
		if f.reject != "" {
			// structured-merge-diff's error reaches the client as a plain 500.
			writeStatus(w, http.StatusInternalServerError, "", f.reject)
			return
		}
		var obj map[string]any
		_ = json.Unmarshal(raw, &obj) // a copy of the body
		if f.fill != nil {
			f.fill(obj)
		}
		f.rv++
		meta := obj["metadata"].(map[string]any)
		meta["uid"] = "6b7e2c1a-0000-4000-8000-000000000001"
		meta["resourceVersion"] = fmt.Sprint(f.rv)
		meta["generation"] = 1
		f.objects[r.URL.Path] = obj
		writeJSON(w, http.StatusOK, obj)
	default:
		writeStatus(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, r.Method)
	}
}

// object returns the stored object at a URL path, for out-of-band changes.
func (f *fakeAPI) object(path string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.objects[path]
}

func (f *fakeAPI) lastBody(t *testing.T) map[string]any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) == 0 {
		t.Fatal("no apply request was sent")
	}
	return f.bodies[len(f.bodies)-1]
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	writeJSON(w, code, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: msg})
}

// harness drives one kind's resource through the fast protocol-6 path, as Terraform does.
type harness struct {
	t    *testing.T
	kind *kube.Kind
	typ  tftypes.Object
	srv  tfprotov6.ProviderServer
	data *kube.ProviderData
	api  *fakeAPI
}

func newHarness(t *testing.T, kind *kube.Kind, fill func(map[string]any)) *harness {
	api, data := newFakeAPI(t, fill)
	var sr resource.SchemaResponse
	kube.NewResource(kind)().Schema(context.Background(), resource.SchemaRequest{}, &sr)
	return &harness{t: t, kind: kind, typ: sr.Schema.Type().TerraformType(context.Background()).(tftypes.Object),
		srv: protocol.NewServer(nil, func() *kube.ProviderData { return data }, "kubeinfer", nil, kind), data: data, api: api}
}

func (h *harness) typeName() string { return "kubeinfer_" + h.kind.TypeName }

// config is the configuration that writes exactly the non-zero fields of obj, plus extras.
func (h *harness) config(obj runtime.Object, extras map[string]tftypes.Value) tftypes.Value {
	var attrs map[string]tftypes.Value
	_ = k8sschema.Encode(h.kind.Node(), obj).As(&attrs)
	var meta map[string]tftypes.Value
	_ = attrs["metadata"].As(&meta)
	for _, computed := range []string{"uid", "resource_version", "generation"} {
		meta[computed] = tftypes.NewValue(meta[computed].Type(), nil)
	}
	attrs["metadata"] = tftypes.NewValue(attrs["metadata"].Type(), meta)
	for name, at := range h.typ.AttributeTypes {
		if _, ok := attrs[name]; !ok || name == "status" || name == "id" {
			attrs[name] = tftypes.NewValue(at, nil)
		}
	}
	for name, v := range extras {
		attrs[name] = v
	}
	return tftypes.NewValue(h.typ, attrs)
}

func (h *harness) dv(v tftypes.Value) *tfprotov6.DynamicValue {
	h.t.Helper()
	dv, err := tfprotov6.NewDynamicValue(h.typ, v)
	if err != nil {
		h.t.Fatal(err)
	}
	return &dv
}

func (h *harness) value(dv *tfprotov6.DynamicValue) tftypes.Value {
	h.t.Helper()
	v, err := dv.Unmarshal(h.typ)
	if err != nil {
		h.t.Fatal(err)
	}
	return v
}

func noErrors(t *testing.T, what string, diags []*tfprotov6.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("%s: %s: %s", what, d.Summary, d.Detail)
		}
	}
}

// plan validates config and plans its creation.
func (h *harness) plan(config tftypes.Value) tftypes.Value {
	h.t.Helper()
	ctx := context.Background()
	vr, _ := h.srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: h.typeName(), Config: h.dv(config)})
	noErrors(h.t, "validate", vr.Diagnostics)
	null := tftypes.NewValue(h.typ, nil)
	pr, _ := h.srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: h.typeName(),
		Config: h.dv(config), ProposedNewState: h.dv(config), PriorState: h.dv(null)})
	noErrors(h.t, "plan", pr.Diagnostics)
	return h.value(pr.PlannedState)
}

// create plans and applies config; it returns the plan and the apply response.
func (h *harness) create(config tftypes.Value) (tftypes.Value, *tfprotov6.ApplyResourceChangeResponse) {
	h.t.Helper()
	planned := h.plan(config)
	null := tftypes.NewValue(h.typ, nil)
	ar, _ := h.srv.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{TypeName: h.typeName(),
		PriorState: h.dv(null), PlannedState: h.dv(planned), Config: h.dv(config)})
	return planned, ar
}

// read refreshes state (or imports, when state holds only the identity).
func (h *harness) read(state tftypes.Value) tftypes.Value {
	h.t.Helper()
	rr, _ := h.srv.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{TypeName: h.typeName(), CurrentState: h.dv(state)})
	noErrors(h.t, "read", rr.Diagnostics)
	return h.value(rr.NewState)
}

// importState is the state ImportState leaves for id before the read: the identity alone.
func (h *harness) importState(name, namespace, id string) tftypes.Value {
	attrs := map[string]tftypes.Value{}
	for n, at := range h.typ.AttributeTypes {
		attrs[n] = tftypes.NewValue(at, nil)
	}
	metaType := h.typ.AttributeTypes["metadata"].(tftypes.Object)
	meta := map[string]tftypes.Value{}
	for n, at := range metaType.AttributeTypes {
		meta[n] = tftypes.NewValue(at, nil)
	}
	meta["name"] = tftypes.NewValue(tftypes.String, name)
	if namespace != "" {
		meta["namespace"] = tftypes.NewValue(tftypes.String, namespace)
	}
	attrs["metadata"] = tftypes.NewValue(metaType, meta)
	attrs["id"] = tftypes.NewValue(tftypes.String, id)
	return tftypes.NewValue(h.typ, attrs)
}

// conformsToPlan reports where state breaks Terraform's rule for the result of an apply: every
// known planned value is the value in state ("Provider produced inconsistent result after apply").
func conformsToPlan(p string, planned, state tftypes.Value) []string {
	if !planned.IsKnown() {
		return nil
	}
	if planned.IsNull() || state.IsNull() || !state.IsKnown() {
		if planned.IsNull() != state.IsNull() || !state.IsKnown() {
			return []string{fmt.Sprintf("%s: planned %v, got %v", p, planned, state)}
		}
		return nil
	}
	var out []string
	switch planned.Type().(type) {
	case tftypes.Object, tftypes.Map:
		var pm, sm map[string]tftypes.Value
		_ = planned.As(&pm)
		_ = state.As(&sm)
		if len(pm) != len(sm) {
			return []string{fmt.Sprintf("%s: planned %d keys, got %d", p, len(pm), len(sm))}
		}
		for k, pv := range pm {
			out = append(out, conformsToPlan(p+"."+k, pv, sm[k])...)
		}
	case tftypes.List:
		var pl, sl []tftypes.Value
		_ = planned.As(&pl)
		_ = state.As(&sl)
		if len(pl) != len(sl) {
			return []string{fmt.Sprintf("%s: planned %d elements, got %d", p, len(pl), len(sl))}
		}
		for i := range pl {
			out = append(out, conformsToPlan(fmt.Sprintf("%s[%d]", p, i), pl[i], sl[i])...)
		}
	default:
		if !planned.Equal(state) {
			out = append(out, fmt.Sprintf("%s: planned %v, got %v", p, planned, state))
		}
	}
	return out
}

// at reads an attribute by Terraform names and list indexes.
func at(t *testing.T, v tftypes.Value, steps ...any) tftypes.Value {
	t.Helper()
	p := tftypes.NewAttributePath()
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			p = p.WithAttributeName(s)
		case int:
			p = p.WithElementKeyInt(s)
		}
	}
	x, _, err := tftypes.WalkAttributePath(v, p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return x.(tftypes.Value)
}

func assertBody(t *testing.T, got map[string]any, wantJSON string) {
	t.Helper()
	withoutCreationToken(t, got)
	var want map[string]any
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("apply body:\n%s\nwant:\n%s", g, w)
	}
}

// withoutCreationToken removes the random creation token a create's body carries (checked by
// TestCreateCarriesCreationToken), after checking its form.
func withoutCreationToken(t *testing.T, body map[string]any) {
	t.Helper()
	meta, _ := body["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	token, ok := ann[kube.CreationTokenAnnotation].(string)
	if !ok {
		return
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(token) {
		t.Errorf("creation token %q is not 128 random bits in hex", token)
	}
	delete(ann, kube.CreationTokenAnnotation)
	if len(ann) == 0 {
		delete(meta, "annotations")
	}
}

// releasedLWSDefaults fills what the structural defaults of the released LeaderWorkerSet CRD
// (sigs.k8s.io/lws v0.9.0) fill, and nothing of the newer API (no groupIdentity, no
// groupReplacementPolicy) and nothing the LWS webhook would add (no rolloutStrategy, no
// networkConfig): the strictest server the provider meets.
func releasedLWSDefaults(obj map[string]any) {
	spec := obj["spec"].(map[string]any)
	setDefault(spec, "replicas", float64(1))
	setDefault(spec, "startupPolicy", "LeaderCreated")
	lwt := spec["leaderWorkerTemplate"].(map[string]any)
	setDefault(lwt, "size", float64(1))
	setDefault(lwt, "restartPolicy", "RecreateGroupOnPodRestart")
	for _, tmpl := range []string{"leaderTemplate", "workerTemplate"} {
		tm, _ := lwt[tmpl].(map[string]any)
		ps, _ := tm["spec"].(map[string]any)
		containers, _ := ps["containers"].([]any)
		for _, c := range containers {
			ports, _ := c.(map[string]any)["ports"].([]any)
			for _, p := range ports {
				setDefault(p.(map[string]any), "protocol", "TCP")
			}
		}
	}
}

func setDefault(m map[string]any, k string, v any) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// vllm is a minimal multi-node vLLM: size 4, one container per template with an image, a GPU
// limit and (leader) a port without protocol; no rollout strategy, no group identity.
func vllm() *lwsv1.LeaderWorkerSet {
	gpu := corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": kresource.MustParse("8")}}
	image := "vllm/vllm-openai:v0.11.0"
	return &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: "vllm"},
		Spec: lwsv1.LeaderWorkerSetSpec{LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
			Size: ptr.To[int32](4),
			LeaderTemplate: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"role": "leader"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "vllm-leader", Image: image,
					Ports: []corev1.ContainerPort{{ContainerPort: 8000}}, Resources: gpu}}},
			},
			WorkerTemplate: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "vllm-worker", Image: image, Resources: gpu}}},
			},
		}},
	}
}

var noWait = map[string]tftypes.Value{"wait_for_rollout": tftypes.NewValue(tftypes.Bool, false)}

const lwsPath = "/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets/vllm"

// vllmBody is the apply body of vllm(): what the configuration writes, under the planned
// namespace, with the settings annotation.
const vllmBody = `{
  "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
  "metadata": {"name": "vllm", "namespace": "default",
    "annotations": {"terraform.kubeinfer.io/settings": "wait_for_rollout=false"}},
  "spec": {"leaderWorkerTemplate": {
    "size": 4,
    "leaderTemplate": {"metadata": {"labels": {"role": "leader"}}, "spec": {"containers": [{
      "name": "vllm-leader", "image": "vllm/vllm-openai:v0.11.0",
      "ports": [{"containerPort": 8000}], "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}},
    "workerTemplate": {"spec": {"containers": [{
      "name": "vllm-worker", "image": "vllm/vllm-openai:v0.11.0",
      "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}}
}`

// TestApplyBodyMinimalLeaderWorkerSet: the apply carries what the configuration writes and
// nothing else (no planned defaults, no Go zero values), while the plan still shows the
// defaults; on a released CRD that never returns groupIdentity or groupReplacementPolicy, the
// state after apply equals the plan, and import and refresh equal that state.
func TestApplyBodyMinimalLeaderWorkerSet(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
	planned, ar := h.create(h.config(vllm(), noWait))
	noErrors(t, "apply", ar.Diagnostics)
	assertBody(t, h.api.lastBody(t), vllmBody)

	// The plan shows the defaults the body leaves to the server.
	for _, c := range []struct {
		steps []any
		want  tftypes.Value
	}{
		// Newer-API fields left out are null (the server's default), never planned.
		{[]any{"spec", "group_identity"}, tftypes.NewValue(tftypes.String, nil)},
		{[]any{"spec", "group_replacement_policy"}, tftypes.NewValue(tftypes.String, nil)},
		{[]any{"spec", "startup_policy"}, tftypes.NewValue(tftypes.String, "LeaderCreated")},
		{[]any{"spec", "network_config", "subdomain_policy"}, tftypes.NewValue(tftypes.String, "Shared")},
		{[]any{"spec", "rollout_strategy", "rolling_update_configuration", "max_unavailable"}, tftypes.NewValue(tftypes.String, "1")},
		{[]any{"spec", "leader_worker_template", "leader_template", "spec", "containers", 0, "ports", 0, "protocol"}, tftypes.NewValue(tftypes.String, "TCP")},
	} {
		if got := at(t, planned, c.steps...); !got.Equal(c.want) {
			t.Errorf("plan %v = %v, want %v", c.steps, got, c.want)
		}
	}

	state := h.value(ar.NewState)
	for _, problem := range conformsToPlan("", planned, state) {
		t.Error("state after apply differs from the plan: " + problem)
	}

	imported := h.read(h.importState("vllm", "default", "default/vllm"))
	if !imported.Equal(state) {
		diff, _ := imported.Diff(state)
		t.Errorf("imported state differs from the applied state: %v", diff)
	}

	// A refresh of a changed object (new resourceVersion) reads it again: no drift.
	h.api.object(lwsPath)["metadata"].(map[string]any)["resourceVersion"] = "99"
	refreshed := h.read(state)
	if got := at(t, refreshed, "metadata", "resource_version"); !got.Equal(tftypes.NewValue(tftypes.String, "99")) {
		t.Fatalf("refresh did not read the object again: resource_version %v", got)
	}
	for _, problem := range conformsToPlan("", planned, refreshed) {
		if !strings.HasPrefix(problem, ".metadata.resource_version") {
			t.Error("refresh drifts: " + problem)
		}
	}
}

// TestApplyBodyFrameworkPathMatchesFastPath: Create through the framework sends the same body
// as the fast path (one code path).
func TestApplyBodyFrameworkPathMatchesFastPath(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
	config := h.config(vllm(), noWait)
	planned := h.plan(config)

	ctx := context.Background()
	r := kube.NewResource(leaderworkerset.Kind)()
	r.(resource.ResourceWithConfigure).Configure(ctx, resource.ConfigureRequest{ProviderData: h.data}, &resource.ConfigureResponse{})
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	resp := &resource.CreateResponse{State: tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(h.typ, nil)}}
	r.Create(ctx, resource.CreateRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: config},
		Plan: tfsdk.Plan{Schema: sr.Schema, Raw: planned}}, resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	assertBody(t, h.api.lastBody(t), vllmBody)
	if got := at(t, resp.State.Raw, "spec", "group_identity"); !got.IsNull() {
		t.Errorf("state group_identity = %v, want null (left out: the server's default)", got)
	}
}

// TestApplyBodySendsConfiguredNewerFields: a configuration that sets group_identity and
// max_group_restarts sends exactly those on top of the minimal body; group_replacement_policy,
// left out, stays null although a CRD of the newer API stores its default.
func TestApplyBodySendsConfiguredNewerFields(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, func(obj map[string]any) {
		releasedLWSDefaults(obj)
		spec := obj["spec"].(map[string]any)
		setDefault(spec, "groupReplacementPolicy", "PostTermination") // a CRD of the newer API
	})
	lws := vllm()
	lws.Spec.GroupIdentity = lwsv1.GroupIdentityHash
	lws.Spec.LeaderWorkerTemplate.MaxGroupRestarts = ptr.To[int32](3)
	planned, ar := h.create(h.config(lws, noWait))
	noErrors(t, "apply", ar.Diagnostics)

	var want map[string]any
	_ = json.Unmarshal([]byte(vllmBody), &want)
	spec := want["spec"].(map[string]any)
	spec["groupIdentity"] = "Hash"
	spec["leaderWorkerTemplate"].(map[string]any)["maxGroupRestarts"] = float64(3)
	wantJSON, _ := json.Marshal(want)
	assertBody(t, h.api.lastBody(t), string(wantJSON))

	if got := at(t, planned, "spec", "group_replacement_policy"); !got.IsNull() {
		t.Errorf("plan group_replacement_policy = %v, want null", got)
	}
	for _, problem := range conformsToPlan("", planned, h.value(ar.NewState)) {
		t.Error("state after apply differs from the plan: " + problem)
	}
}

// TestApplyUndeclaredFieldNamesTheAttribute: a released CRD rejects the newer fields; the
// error is on each attribute, says which API has it, and keeps the server's message.
func TestApplyUndeclaredFieldNamesTheAttribute(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
	h.api.reject = "failed to create typed patch object (default/vllm; leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet): errors:\n" +
		"  .spec.groupIdentity: field not declared in schema\n" +
		"  .spec.leaderWorkerTemplate.maxGroupRestarts: field not declared in schema"
	lws := vllm()
	lws.Spec.GroupIdentity = lwsv1.GroupIdentityHash
	lws.Spec.LeaderWorkerTemplate.MaxGroupRestarts = ptr.To[int32](3)
	_, ar := h.create(h.config(lws, noWait))

	want := map[string]string{
		`AttributeName("spec").AttributeName("group_identity")`:                                             "spec.groupIdentity",
		`AttributeName("spec").AttributeName("leader_worker_template").AttributeName("max_group_restarts")`: "spec.leaderWorkerTemplate.maxGroupRestarts",
	}
	if len(ar.Diagnostics) != len(want) {
		t.Fatalf("got %d diagnostics, want %d: %+v", len(ar.Diagnostics), len(want), ar.Diagnostics)
	}
	for _, d := range ar.Diagnostics {
		if d.Severity != tfprotov6.DiagnosticSeverityError || d.Attribute == nil {
			t.Errorf("want an attribute error, got %+v", d)
			continue
		}
		jsonPath, ok := want[d.Attribute.String()]
		if !ok {
			t.Errorf("diagnostic on unexpected attribute %s", d.Attribute)
			continue
		}
		for _, s := range []string{
			"does not declare " + jsonPath,
			"newer LeaderWorkerSet API",
			"no released LeaderWorkerSet up to sigs.k8s.io/lws v0.10.0",
			"Install a LeaderWorkerSet CRD",
			"or remove",
			"field not declared in schema", // the server's own message
		} {
			if !strings.Contains(d.Detail, s) {
				t.Errorf("%s: detail lacks %q:\n%s", d.Attribute, s, d.Detail)
			}
		}
	}
	if h.value(ar.NewState).IsNull() != true {
		t.Error("a rejected create must leave no state")
	}
}

// TestStateFromServerValueWins: defaults only fill what the server leaves out; a value the
// server holds (groupIdentity Hash, a restartPolicy "Default" the webhook did not rewrite) is
// imported as it is.
func TestStateFromServerValueWins(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
	_, ar := h.create(h.config(vllm(), noWait))
	noErrors(t, "apply", ar.Diagnostics)
	obj := h.api.object(lwsPath)
	obj["spec"].(map[string]any)["groupIdentity"] = "Hash"
	obj["spec"].(map[string]any)["leaderWorkerTemplate"].(map[string]any)["restartPolicy"] = "Default"

	imported := h.read(h.importState("vllm", "default", "default/vllm"))
	for _, c := range []struct {
		steps []any
		want  string
	}{
		{[]any{"spec", "group_identity"}, "Hash"},
		{[]any{"spec", "leader_worker_template", "restart_policy"}, "Default"},
		{[]any{"spec", "group_replacement_policy"}, ""}, // absent: null, the default
	} {
		want := tftypes.NewValue(tftypes.String, c.want)
		if c.want == "" {
			want = tftypes.NewValue(tftypes.String, nil)
		}
		if got := at(t, imported, c.steps...); !got.Equal(want) {
			t.Errorf("imported %v = %v, want %q", c.steps, got, c.want)
		}
	}
}

// TestApplyBodyPriorityLevelConfiguration: only the configured fields are sent (no
// lendablePercent, handSize or queueLengthLimit), and the built-in defaults the server returns
// equal the plan.
func TestApplyBodyPriorityLevelConfiguration(t *testing.T) {
	h := newHarness(t, prioritylevelconfiguration.Kind, func(obj map[string]any) {
		// The API server's defaulting of the built-in type.
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
	plc := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "llm-serving"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](10),
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
					Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 16}},
			},
		},
	}
	planned, ar := h.create(h.config(plc, nil))
	noErrors(t, "apply", ar.Diagnostics)
	assertBody(t, h.api.lastBody(t), `{
  "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
  "metadata": {"name": "llm-serving"},
  "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 10,
    "limitResponse": {"type": "Queue", "queuing": {"queues": 16}}}}
}`)
	if got := at(t, planned, "spec", "limited", "limit_response", "queuing", "hand_size"); !got.Equal(tftypes.NewValue(tftypes.Number, 8)) {
		t.Errorf("plan hand_size = %v, want the planned default 8", got)
	}
	for _, problem := range conformsToPlan("", planned, h.value(ar.NewState)) {
		t.Error("state after apply differs from the plan: " + problem)
	}

	// The minimal level: shares alone.
	plc.Spec.Limited = &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To[int32](5),
		LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}
	plc.Name = "llm-batch"
	_, ar = h.create(h.config(plc, nil))
	noErrors(t, "apply", ar.Diagnostics)
	assertBody(t, h.api.lastBody(t), `{
  "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
  "metadata": {"name": "llm-batch"},
  "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"}}}
}`)
}

// TestApplyBodyFlowSchema: no matchingPrecedence (planned 1000), no distinguisherMethod, no
// zero-valued rule fields.
func TestApplyBodyFlowSchema(t *testing.T) {
	h := newHarness(t, flowschema.Kind, func(obj map[string]any) {
		spec := obj["spec"].(map[string]any)
		setDefault(spec, "matchingPrecedence", float64(fsrules.DefaultMatchingPrecedence))
		// The APF controller's condition, so the apply does not wait for it.
		obj["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Dangling", "status": "True",
			"reason": "NotFound", "message": `This FlowSchema references the PriorityLevelConfiguration object named "llm-serving" but there is no such object`}}}
	})
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "llm-clients"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "llm-serving"},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindGroup,
					Group: &flowcontrolv1.GroupSubject{Name: "llm-clients"}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"get"}, APIGroups: []string{"leaderworkerset.x-k8s.io"},
					Resources: []string{"leaderworkersets"}, Namespaces: []string{"*"}}},
			}},
		},
	}
	planned, ar := h.create(h.config(fs, nil))
	noErrors(t, "apply", ar.Diagnostics)
	assertBody(t, h.api.lastBody(t), `{
  "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
  "metadata": {"name": "llm-clients"},
  "spec": {"priorityLevelConfiguration": {"name": "llm-serving"}, "rules": [{
    "subjects": [{"kind": "Group", "group": {"name": "llm-clients"}}],
    "resourceRules": [{"verbs": ["get"], "apiGroups": ["leaderworkerset.x-k8s.io"],
      "resources": ["leaderworkersets"], "namespaces": ["*"]}]}]}
}`)
	if got := at(t, planned, "spec", "matching_precedence"); !got.Equal(tftypes.NewValue(tftypes.Number, 1000)) {
		t.Errorf("plan matching_precedence = %v, want the planned default 1000", got)
	}
	for _, problem := range conformsToPlan("", planned, h.value(ar.NewState)) {
		t.Error("state after apply differs from the plan: " + problem)
	}
}

// TestCarryOnWaitPlansServerAttributesUnknown: after an apply whose wait did not finish, the
// next plan is an update that only waits. The controller writes status (and so a new
// resourceVersion) while that wait runs, so the plan leaves the server's attributes unknown;
// known values there made Terraform report "inconsistent result after apply".
func TestCarryOnWaitPlansServerAttributesUnknown(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, releasedLWSDefaults)
	config := h.config(vllm(), noWait)
	_, ar := h.create(config)
	noErrors(t, "apply", ar.Diagnostics)
	state := h.value(ar.NewState)
	private, _ := json.Marshal(map[string][]byte{"wait_pending": []byte("true")})

	pr, _ := h.srv.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{TypeName: h.typeName(),
		Config: h.dv(config), ProposedNewState: h.dv(state), PriorState: h.dv(state), PriorPrivate: private})
	noErrors(t, "plan", pr.Diagnostics)
	planned := h.value(pr.PlannedState)
	for _, steps := range [][]any{{"metadata", "resource_version"}, {"metadata", "generation"}, {"status"}} {
		if at(t, planned, steps...).IsKnown() {
			t.Errorf("plan of the carried-on wait: %v is known, want unknown", steps)
		}
	}
	for _, steps := range [][]any{{"id"}, {"spec", "replicas"}, {"spec", "startup_policy"}} {
		if got, want := at(t, planned, steps...), at(t, state, steps...); !got.Equal(want) {
			t.Errorf("plan of the carried-on wait changes %v: %v, was %v", steps, got, want)
		}
	}
	warned := false
	for _, d := range pr.Diagnostics {
		warned = warned || (d.Severity == tfprotov6.DiagnosticSeverityWarning && d.Summary == "The last apply did not see the rollout finish")
	}
	if !warned {
		t.Errorf("no warning on the plan of the carried-on wait: %v", pr.Diagnostics)
	}

	// Without the marker, the same request plans no change.
	pr, _ = h.srv.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{TypeName: h.typeName(),
		Config: h.dv(config), ProposedNewState: h.dv(state), PriorState: h.dv(state)})
	noErrors(t, "plan", pr.Diagnostics)
	if planned := h.value(pr.PlannedState); !planned.Equal(state) {
		diff, _ := planned.Diff(state)
		t.Errorf("plan without the marker changes the object: %v", diff)
	}
}
