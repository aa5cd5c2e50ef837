package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	fsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	plcrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration/rules"
)

// The fast path (protocol.NewServer) serves ValidateResourceConfig, PlanResourceChange and
// UpgradeResourceState itself instead of the framework. TestFastPathAgreesWithFramework sends
// every kind's corpus through both servers, RPC by RPC, and requires the same responses:
// validation diagnostics, planned states, replacements and upgraded states, for creates,
// no-change plans, updates and invalid objects. The configurations are the ones
// -generate-config-out writes, so they satisfy the schema: Terraform itself rejects a
// configuration without a required attribute before asking the provider (the framework repeats
// that check; the fast path leaves it to Terraform). ReadResource, ApplyResourceChange and
// ImportResourceState need a cluster: TestAccFastPathAgreesWithFramework_cluster compares them. The framework path is slow on the
// kinds with pod templates (seconds per DisaggregatedSet), which is why the fast path exists and
// why their corpora are short.
func TestFastPathAgreesWithFramework(t *testing.T) {
	ctx := context.Background()
	fast := NewServer("test")()
	framework := providerserver.NewProtocol6(New("test")())()
	sch, err := fast.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := framework.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}

	corpora := differentialCorpora()
	cases := 0
	for _, k := range kinds {
		typeName := TypeName + "_" + k.TypeName
		objects := corpora[k.TypeName]
		if len(objects) < 3 {
			t.Errorf("%s: the differential corpus has %d objects; add at least 3 to differentialCorpora", typeName, len(objects))
			continue
		}
		rs := sch.ResourceSchemas[typeName]
		if rs == nil {
			t.Fatalf("%s: no resource schema", typeName)
		}
		start := time.Now()
		d := differ{t: t, ctx: ctx, fast: fast, framework: framework, typeName: typeName,
			typ: rs.ValueType().(tftypes.Object), version: rs.Version, kind: k}
		for i, obj := range objects {
			name := fmt.Sprintf("%s/%d", typeName, i)
			state := d.state(obj)
			config := d.generatedConfig(name, state)
			d.compare(name+" validate", d.validate(config))
			d.compare(name+" plan create", d.plan(config, d.typed(nil), config))
			d.compare(name+" plan no change", d.plan(config, state, state))
			d.compare(name+" plan carry on wait", d.planPrivate(config, state, state, waitPendingPrivate))
			d.compare(name+" upgrade", d.upgrade(state))
			cases += 5
			// An update: the next object of the corpus under this object's name (a different
			// spec, often a different validity), planned from this object's state.
			next := objects[(i+1)%len(objects)].DeepCopyObject()
			setName(next, obj)
			nextState := d.state(next)
			nextConfig := d.generatedConfig(name+" update", nextState)
			d.compare(name+" plan update", d.plan(nextConfig, state, nextState))
			d.compare(name+" validate update", d.validate(nextConfig))
			cases += 2
		}
		t.Logf("%s: %d objects in %s", typeName, len(objects), time.Since(start).Round(time.Millisecond))
	}
	t.Logf("%d RPC pairs compared across %d kinds", cases, len(kinds))
}

type differ struct {
	t               *testing.T
	ctx             context.Context
	fast, framework tfprotov6.ProviderServer
	typeName        string
	typ             tftypes.Object
	version         int64
	kind            *kube.Kind
}

// rpc is one request sent to both servers; each returns a comparable summary of its response.
type rpc func(s tfprotov6.ProviderServer) (string, error)

func (d differ) compare(name string, call rpc) {
	d.t.Helper()
	f, ferr := call(d.fast)
	w, werr := call(d.framework)
	if (ferr == nil) != (werr == nil) {
		d.t.Errorf("%s: fast path error %v, framework error %v", name, ferr, werr)
		return
	}
	if diff := cmp.Diff(w, f); diff != "" {
		d.t.Errorf("%s: the fast path answers differently from the framework (-framework +fast):\n%s", name, diff)
	}
}

func (d differ) typed(v any) tftypes.Value {
	if v == nil {
		return tftypes.NewValue(d.typ, nil)
	}
	return v.(tftypes.Value)
}

func (d differ) dv(v tftypes.Value) *tfprotov6.DynamicValue {
	d.t.Helper()
	out, err := tfprotov6.NewDynamicValue(d.typ, v)
	if err != nil {
		d.t.Fatal(err)
	}
	return &out
}

// state is the object as an import records it: the defaulted object, the extra attributes at
// their defaults and the import ID.
func (d differ) state(obj runtime.Object) tftypes.Value {
	obj = obj.DeepCopyObject()
	d.kind.Defaults(obj, k8sschema.NullValue(d.kind.Node()))
	attrs := objectAttrsOf(k8sschema.Encode(d.kind.Node(), obj))
	m, _ := metaAccessor(obj)
	id := m.GetName()
	if d.kind.Namespaced {
		id = m.GetNamespace() + "/" + id
	}
	attrs["id"] = tftypes.NewValue(tftypes.String, id)
	attrs["force_conflicts"] = tftypes.NewValue(tftypes.Bool, true)
	for k, v := range d.kind.ExtraDefaults {
		attrs[k] = v
	}
	return nullExcept(d.typ, attrs)
}

// userConfig is obj as a user writes it: what obj sets and nothing the server defaults.
func (d differ) userConfig(name string, obj runtime.Object) tftypes.Value {
	var written any
	if raw, err := json.Marshal(obj); err == nil {
		_ = json.Unmarshal(raw, &written)
	}
	attrs := objectAttrsOf(withWrittenZeros(d.kind.Node(), k8sschema.Encode(d.kind.Node(), obj), written))
	m, _ := metaAccessor(obj)
	id := m.GetName()
	if d.kind.Namespaced {
		id = m.GetNamespace() + "/" + id
	}
	attrs["id"] = tftypes.NewValue(tftypes.String, id)
	return d.generatedConfig(name, nullExcept(d.typ, attrs))
}

// generatedConfig is the configuration `terraform plan -generate-config-out` writes for state.
func (d differ) generatedConfig(name string, state tftypes.Value) tftypes.Value {
	d.t.Helper()
	resp, err := d.fast.GenerateResourceConfig(d.ctx, &tfprotov6.GenerateResourceConfigRequest{TypeName: d.typeName, State: d.dv(state)})
	if err != nil || len(resp.Diagnostics) > 0 || resp.Config == nil {
		d.t.Fatalf("%s: GenerateResourceConfig: %v %v", name, err, resp.Diagnostics)
	}
	config, err := resp.Config.Unmarshal(d.typ)
	if err != nil {
		d.t.Fatal(err)
	}
	return config
}

func (d differ) validate(config tftypes.Value) rpc {
	return func(s tfprotov6.ProviderServer) (string, error) {
		resp, err := s.ValidateResourceConfig(d.ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: d.typeName, Config: d.dv(config)})
		if err != nil {
			return "", err
		}
		return diagnosticsSummary(resp.Diagnostics), nil
	}
}

// waitPendingPrivate is the private state an apply leaves when its wait did not finish (the
// framework's encoding: a JSON object of keys to base64 of JSON values).
var waitPendingPrivate = []byte(`{"wait_pending":"dHJ1ZQ=="}`)

func (d differ) plan(config, prior, proposed tftypes.Value) rpc {
	return d.planPrivate(config, prior, proposed, nil)
}

func (d differ) planPrivate(config, prior, proposed tftypes.Value, private []byte) rpc {
	return func(s tfprotov6.ProviderServer) (string, error) {
		resp, err := s.PlanResourceChange(d.ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName: d.typeName, Config: d.dv(config), PriorState: d.dv(prior), ProposedNewState: d.dv(proposed),
			PriorPrivate: private,
		})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString(diagnosticsSummary(resp.Diagnostics))
		if resp.PlannedState != nil {
			planned, err := resp.PlannedState.Unmarshal(d.typ)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "planned: %s\n", planned)
		}
		var replace []string
		for _, p := range resp.RequiresReplace {
			replace = append(replace, p.String())
		}
		sort.Strings(replace)
		fmt.Fprintf(&b, "requires replace: %v\n", replace)
		return b.String(), nil
	}
}

func (d differ) upgrade(state tftypes.Value) rpc {
	return func(s tfprotov6.ProviderServer) (string, error) {
		raw, err := stateJSON(state)
		if err != nil {
			return "", err
		}
		resp, err := s.UpgradeResourceState(d.ctx, &tfprotov6.UpgradeResourceStateRequest{
			TypeName: d.typeName, Version: d.version, RawState: &tfprotov6.RawState{JSON: raw},
		})
		if err != nil {
			return "", err
		}
		out := diagnosticsSummary(resp.Diagnostics)
		if resp.UpgradedState != nil {
			v, err := resp.UpgradedState.Unmarshal(d.typ)
			if err != nil {
				return "", err
			}
			out += fmt.Sprintf("upgraded: %s\n", v)
		}
		return out, nil
	}
}

func diagnosticsSummary(diags []*tfprotov6.Diagnostic) string {
	var lines []string
	for _, d := range diags {
		lines = append(lines, fmt.Sprintf("%v %v: %s | %s", d.Severity, d.Attribute, d.Summary, d.Detail))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// stateJSON is the state as Terraform stores it (attribute names to JSON values). A planned
// state may hold unknown values, which no stored state has: they become "(unknown)".
func stateJSON(v tftypes.Value) ([]byte, error) {
	var convert func(v tftypes.Value) (any, error)
	convert = func(v tftypes.Value) (any, error) {
		if !v.IsKnown() {
			return "(unknown)", nil
		}
		if v.IsNull() {
			return nil, nil
		}
		typ := v.Type()
		switch {
		case typ.Is(tftypes.String):
			var s string
			err := v.As(&s)
			return s, err
		case typ.Is(tftypes.Bool):
			var b bool
			err := v.As(&b)
			return b, err
		case typ.Is(tftypes.Number):
			var n *big.Float
			if err := v.As(&n); err != nil {
				return nil, err
			}
			return json.Number(n.Text('g', -1)), nil
		}
		switch typ.(type) {
		case tftypes.List, tftypes.Set, tftypes.Tuple:
			var elems []tftypes.Value
			if err := v.As(&elems); err != nil {
				return nil, err
			}
			out := make([]any, 0, len(elems))
			for _, e := range elems {
				x, err := convert(e)
				if err != nil {
					return nil, err
				}
				out = append(out, x)
			}
			return out, nil
		default: // Map, Object
			var attrs map[string]tftypes.Value
			if err := v.As(&attrs); err != nil {
				return nil, err
			}
			out := make(map[string]any, len(attrs))
			for k, e := range attrs {
				x, err := convert(e)
				if err != nil {
					return nil, err
				}
				out[k] = x
			}
			return out, nil
		}
	}
	x, err := convert(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

func metaAccessor(obj runtime.Object) (metav1.Object, bool) {
	m, ok := obj.(metav1.Object)
	return m, ok
}

func setName(dst, src runtime.Object) {
	d, _ := metaAccessor(dst)
	s, _ := metaAccessor(src)
	d.SetName(s.GetName())
	d.SetNamespace(s.GetNamespace())
}

// differentialCorpora are the objects of each kind the differential test plans: realistic ones,
// edge cases and some that validation rejects.
func differentialCorpora() map[string][]runtime.Object {
	lws := func(mutate func(*lwsv1.LeaderWorkerSet)) runtime.Object {
		o := lwsfixture.VLLM("vllm", 2, 2)
		if mutate != nil {
			mutate(o)
		}
		return o
	}
	plc := func(name string, spec flowcontrolv1.PriorityLevelConfigurationSpec) runtime.Object {
		return &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	}
	fs := func(name string, mutate func(*flowcontrolv1.FlowSchemaSpec)) runtime.Object {
		spec, _ := fsrules.BootstrapSpec("kube-scheduler")
		spec = *spec.DeepCopy()
		if mutate != nil {
			mutate(&spec)
		}
		return &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": "inference"}}, Spec: spec}
	}
	ds := func(mutate func(*disaggv1.DisaggregatedSet)) runtime.Object {
		o := &disaggv1.DisaggregatedSet{ObjectMeta: metav1.ObjectMeta{Name: "llama", Namespace: "default"}}
		for _, role := range []string{"prefill", "decode"} {
			var spec releasedlwsv1.LeaderWorkerSetSpec
			b, _ := json.Marshal(lwsfixture.VLLM(role, 1, 2).Spec)
			_ = json.Unmarshal(b, &spec)
			o.Spec.Roles = append(o.Spec.Roles, disaggv1.DisaggregatedRoleSpec{Name: role,
				LeaderWorkerSetTemplateSpec: releasedlwsv1.LeaderWorkerSetTemplateSpec{Spec: spec}})
		}
		if mutate != nil {
			mutate(o)
		}
		return o
	}
	limited := func(shares int32, lr flowcontrolv1.LimitResponse) flowcontrolv1.PriorityLevelConfigurationSpec {
		return flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To(shares), LimitResponse: lr}}
	}
	queue := func(queues, hand int32) flowcontrolv1.LimitResponse {
		return flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
			Queuing: &flowcontrolv1.QueuingConfiguration{Queues: queues, HandSize: hand, QueueLengthLimit: 50}}
	}
	globalDefault, _ := plcrules.BootstrapSpec("global-default")
	return map[string][]runtime.Object{
		"leaderworkerset": {
			lws(nil),
			lws(func(o *lwsv1.LeaderWorkerSet) { o.Spec.Replicas = ptr.To[int32](4); o.Labels["tier"] = "gpu" }),
			lws(func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.RolloutStrategy = lwsv1.RolloutStrategy{Type: lwsv1.RollingUpdateStrategyType, RollingUpdateConfiguration: &lwsv1.RollingUpdateConfiguration{
					MaxUnavailable: intstr.FromInt32(1), MaxSurge: intstr.FromString("50%")}}
				o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.12.0"
			}),
			lws(func(o *lwsv1.LeaderWorkerSet) { o.Spec.LeaderWorkerTemplate.Size = ptr.To[int32](0) }), // invalid
			lws(func(o *lwsv1.LeaderWorkerSet) { o.Spec.StartupPolicy = "Sometimes" }),                  // invalid
			lws(func(o *lwsv1.LeaderWorkerSet) { o.Spec.LeaderWorkerTemplate.LeaderTemplate = nil }),    // leader from the worker template
			lws(func(o *lwsv1.LeaderWorkerSet) {
				o.Spec.NetworkConfig = &lwsv1.NetworkConfig{SubdomainPolicy: ptr.To(lwsv1.SubdomainUniquePerReplica)}
			}), // replaces nothing, changes
		},
		"priority_level_configuration": {
			plc("inference", limited(30, queue(64, 8))),
			plc("inference", limited(100, flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject})),
			plc("global-default", globalDefault),
			plc("inference", limited(10, queue(128, 100))),                                                                 // invalid: hand size over queues
			plc("inference", limited(5, queue(1, 1))),                                                                      // one queue
			plc("exempt", flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt}), // reserved name
		},
		"flow_schema": {
			fs("inference-clients", nil),
			fs("inference-clients", func(s *flowcontrolv1.FlowSchemaSpec) { s.MatchingPrecedence = 500 }),
			fs("inference-clients", func(s *flowcontrolv1.FlowSchemaSpec) { s.MatchingPrecedence = 20000 }), // invalid
			fs("inference-clients", func(s *flowcontrolv1.FlowSchemaSpec) { s.DistinguisherMethod = nil }),
			fs("inference-clients", func(s *flowcontrolv1.FlowSchemaSpec) { s.PriorityLevelConfiguration.Name = "bad/name" }), // invalid
		},
		"disaggregatedset": {
			ds(nil),
			ds(func(o *disaggv1.DisaggregatedSet) { o.Spec.Roles = o.Spec.Roles[:1] }),                  // invalid: one role
			ds(func(o *disaggv1.DisaggregatedSet) { o.Spec.Roles[0].Spec.Replicas = ptr.To[int32](0) }), // invalid: zero and non-zero
			ds(func(o *disaggv1.DisaggregatedSet) { o.Spec.Roles[1].Name = "Decode" }),                  // invalid name
			ds(func(o *disaggv1.DisaggregatedSet) { // v0.10.0: an External role (replicas from state), placement
				o.Spec.Roles[1].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingExternal}
				o.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{Type: disaggv1.PlacementExclusiveSlice, Topology: "topology.kubernetes.io/zone"}
			}),
			ds(func(o *disaggv1.DisaggregatedSet) { // invalid: slices > 1 with an External role
				o.Spec.Roles[1].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingExternal}
				o.Spec.Slices = ptr.To[int32](2)
			}),
		},
	}
}

// withWrittenZeros sets in v, node n's value as Encode gives it, each number 0 and each false
// that the object's JSON (written) has: Encode reads a zero as unset, while a field the JSON
// writes out is one the user sets (a preStop sleep of `seconds = 0`).
func withWrittenZeros(n *k8sschema.Node, v tftypes.Value, written any) tftypes.Value {
	if written == nil || !v.IsKnown() {
		return v
	}
	switch n.Kind {
	case k8sschema.KindInt, k8sschema.KindFloat:
		if f, ok := written.(float64); ok && f == 0 && v.IsNull() {
			return tftypes.NewValue(n.TFType(), new(big.Float))
		}
	case k8sschema.KindBool:
		if b, ok := written.(bool); ok && !b && v.IsNull() {
			return tftypes.NewValue(n.TFType(), false)
		}
	case k8sschema.KindObject:
		m, ok := written.(map[string]any)
		if !ok || v.IsNull() {
			return v
		}
		var attrs map[string]tftypes.Value
		_ = v.As(&attrs)
		for _, f := range n.Fields {
			if jv, ok := m[f.JSONName]; ok {
				attrs[f.TFName] = withWrittenZeros(f, attrs[f.TFName], jv)
			}
		}
		return tftypes.NewValue(v.Type(), attrs)
	case k8sschema.KindList:
		l, ok := written.([]any)
		var elems []tftypes.Value
		if !ok || v.IsNull() || v.As(&elems) != nil || len(elems) != len(l) {
			return v
		}
		for i := range elems {
			elems[i] = withWrittenZeros(n.Elem, elems[i], l[i])
		}
		return tftypes.NewValue(v.Type(), elems)
	case k8sschema.KindMap:
		m, ok := written.(map[string]any)
		var elems map[string]tftypes.Value
		if !ok || v.IsNull() || v.As(&elems) != nil {
			return v
		}
		for k, e := range elems {
			elems[k] = withWrittenZeros(n.Elem, e, m[k])
		}
		return tftypes.NewValue(v.Type(), elems)
	}
	return v
}
