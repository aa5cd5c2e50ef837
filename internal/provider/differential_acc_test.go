package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// TestAccFastPathAgreesWithFramework_cluster is the differential test of the RPCs that need a
// cluster: ReadResource, ApplyResourceChange (create, update, delete) and ImportResourceState,
// with the plans between them, on the ReleasedLWS test cluster. Each valid object of the
// corpus goes through one lifecycle on the fast path (provider.NewServer) and one on the
// framework's own resource methods (providerserver.NewProtocol6), under two names, and every
// response must be the same: diagnostics, states, private state and identities. What the
// server or its controllers set on their own schedule (uid, resourceVersion, timestamps,
// status) is left out of the comparison; the names are made equal.
func TestAccFastPathAgreesWithFramework_cluster(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	ctx := context.Background()
	fast := provider.NewServer("test")()
	framework := providerserver.NewProtocol6(provider.New("test")())()
	var sch *tfprotov6.GetProviderSchemaResponse
	for _, s := range []tfprotov6.ProviderServer{framework, fast} {
		var err error
		if sch, err = s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			t.Fatal(err)
		}
		configureProvider(t, s, sch, c.KubeconfigPath())
	}
	identities, err := fast.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}

	corpora := provider.DifferentialCorpora()
	pairs := 0
	for _, k := range provider.Kinds {
		typeName := provider.TypeName + "_" + k.TypeName
		typ := sch.ResourceSchemas[typeName].ValueType().(tftypes.Object)
		l := lifecycle{t: t, ctx: ctx, typeName: typeName, typ: typ, kind: k,
			identity: identities.IdentitySchemas[typeName].ValueType(),
			differ:   provider.NewDiffer(t, fast, typeName, typ, k)}
		objects := corpora[k.TypeName]
		start := time.Now()
		ran := 0
		for i, obj := range objects {
			next := objects[(i+1)%len(objects)]
			fastSteps, ok := l.run(fast, obj, next, "fast")
			if !ok {
				continue // validation rejects it: TestFastPathAgreesWithFramework compares that
			}
			frameworkSteps, _ := l.run(framework, obj, next, "framework")
			name := fmt.Sprintf("%s/%d", typeName, i)
			if len(fastSteps) != len(frameworkSteps) {
				t.Errorf("%s: %d steps on the fast path, %d on the framework", name, len(fastSteps), len(frameworkSteps))
			}
			for j := 0; j < min(len(fastSteps), len(frameworkSteps)); j++ {
				if diff := cmp.Diff(frameworkSteps[j], fastSteps[j]); diff != "" {
					t.Errorf("%s: the fast path answers differently from the framework (-framework +fast):\n%s", name, diff)
				}
			}
			pairs += len(fastSteps)
			ran++
		}
		if ran == 0 {
			t.Errorf("%s: no valid object in the corpus", typeName)
		}
		t.Logf("%s: %d objects in %s", typeName, ran, time.Since(start).Round(time.Millisecond))
	}
	t.Logf("%d RPC pairs compared across %d kinds", pairs, len(provider.Kinds))
}

func configureProvider(t *testing.T, s tfprotov6.ProviderServer, sch *tfprotov6.GetProviderSchemaResponse, kubeconfig string) {
	t.Helper()
	typ := sch.Provider.ValueType().(tftypes.Object)
	config, err := tfprotov6.NewDynamicValue(typ, provider.NullExcept(typ, map[string]tftypes.Value{
		"config_path": tftypes.NewValue(tftypes.String, kubeconfig),
	}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.11.4", Config: &config})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("ConfigureProvider: %v %s", err, provider.Diagnostics(resp.Diagnostics))
	}
}

// lifecycle sends one object's requests to one server, the way Terraform orders them.
type lifecycle struct {
	t        *testing.T
	ctx      context.Context
	typeName string
	typ      tftypes.Object
	identity tftypes.Type
	kind     *kube.Kind
	differ   provider.Differ
}

// step is the comparable summary of one response.
type step struct {
	RPC, Response string
}

// run creates obj under its name with suffix appended, reads it, plans it again, updates it
// to next's spec, imports it and destroys it. ok is false when validation rejects obj.
func (l lifecycle) run(s tfprotov6.ProviderServer, obj, next runtime.Object, suffix string) (steps []step, ok bool) {
	t := l.t
	obj = renamed(obj, suffix)
	next = next.DeepCopyObject()
	m, _ := meta.Accessor(obj)
	nm, _ := meta.Accessor(next)
	nm.SetName(m.GetName()) // the update keeps the name
	name := m.GetName()
	id := name
	if l.kind.Namespaced {
		id = m.GetNamespace() + "/" + name
	}
	config := l.differ.GeneratedConfig(name, l.differ.ImportState(obj))
	nextConfig := l.differ.GeneratedConfig(name+" update", l.differ.ImportState(next))
	null := tftypes.NewValue(l.typ, nil)
	record := func(rpc, response string) {
		steps = append(steps, step{rpc, withoutServerText(strings.ReplaceAll(response, name, "NAME"))})
	}

	v, err := s.ValidateResourceConfig(l.ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: l.typeName, Config: l.dv(config)})
	if err != nil {
		t.Fatal(err)
	}
	if hasError(v.Diagnostics) {
		return nil, false
	}

	// Create, read, and a plan that must find nothing to do.
	plan := l.plan(s, config, null, config, nil, nil)
	record("plan create", plan.summary)
	if plan.failed {
		return steps, true
	}
	state, private, identity, applied := l.apply(s, config, null, plan, record, "apply create")
	if !applied {
		return steps, true
	}
	state, private, identity = l.read(s, state, private, identity, record, "read")
	noChange := l.plan(s, config, state, state, private, identity)
	record("plan no change", noChange.summary)
	l.assertNoChange(noChange, state, "after create")

	// An update to next's spec, unless it is invalid or replaces the object.
	update := l.plan(s, nextConfig, state, l.differ.ImportState(next), private, identity)
	record("plan update", update.summary)
	if !update.failed && !update.replaces {
		if st, pr, idn, ok := l.apply(s, nextConfig, state, update, record, "apply update"); ok {
			state, private, identity = l.read(s, st, pr, idn, record, "read after update")
			after := l.plan(s, nextConfig, state, state, private, identity)
			l.assertNoChange(after, state, "after update")
		}
	}

	// Import by ID, and the read that follows it.
	imp, err := s.ImportResourceState(l.ctx, &tfprotov6.ImportResourceStateRequest{TypeName: l.typeName, ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.ImportedResources) == 1 {
		r := imp.ImportedResources[0]
		record("import", provider.Diagnostics(imp.Diagnostics)+l.stateSummary(r.State)+l.identitySummary(r.Identity))
		l.read(s, l.value(r.State), r.Private, r.Identity, record, "read imported")
	} else {
		record("import", fmt.Sprintf("%s%d resources", provider.Diagnostics(imp.Diagnostics), len(imp.ImportedResources)))
	}

	// Destroy: the plan, then the apply, which waits until the object is gone.
	destroy := l.plan(s, null, state, null, private, identity)
	record("plan destroy", destroy.summary)
	if _, _, _, deleted := l.apply(s, null, state, destroy, record, "apply destroy"); deleted {
		// A refresh of a state whose object is gone, as after a deletion out of band.
		l.read(s, state, private, identity, record, "read deleted")
	}
	return steps, true
}

// serverText matches the API server's own words that a diagnostic quotes, with the indented
// lines of a multi-error message. They are not the provider's answer: structured-merge-diff
// reports the fields a schema does not declare in map order, sometimes all in one message and
// sometimes one per request, so two runs of one request can quote it differently.
var serverText = regexp.MustCompile(`(?m)^(\s*)The server said[^\n]*\n(?:\s+\.[^\n]*\n)*`)

func withoutServerText(response string) string {
	return serverText.ReplaceAllString(response, "${1}The server said: (its text)\n")
}

type planned struct {
	state            *tfprotov6.DynamicValue
	private          []byte
	identity         *tfprotov6.ResourceIdentityData
	summary          string
	failed, replaces bool
}

func (l lifecycle) plan(s tfprotov6.ProviderServer, config, prior, proposed tftypes.Value, private []byte, identity *tfprotov6.ResourceIdentityData) planned {
	resp, err := s.PlanResourceChange(l.ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: l.typeName, Config: l.dv(config), PriorState: l.dv(prior), ProposedNewState: l.dv(proposed),
		PriorPrivate: private, PriorIdentity: identity,
	})
	if err != nil {
		l.t.Fatal(err)
	}
	var replace []string
	for _, p := range resp.RequiresReplace {
		replace = append(replace, p.String())
	}
	sort.Strings(replace)
	return planned{
		state: resp.PlannedState, private: resp.PlannedPrivate, identity: resp.PlannedIdentity,
		summary: provider.Diagnostics(resp.Diagnostics) + l.stateSummary(resp.PlannedState) +
			fmt.Sprintf("requires replace: %v\n", replace) + privateSummary(resp.PlannedPrivate) + l.identitySummary(resp.PlannedIdentity),
		failed: hasError(resp.Diagnostics), replaces: len(replace) > 0,
	}
}

func (l lifecycle) apply(s tfprotov6.ProviderServer, config, prior tftypes.Value, p planned, record func(string, string), rpc string) (tftypes.Value, []byte, *tfprotov6.ResourceIdentityData, bool) {
	resp, err := s.ApplyResourceChange(l.ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: l.typeName, Config: l.dv(config), PriorState: l.dv(prior), PlannedState: p.state,
		PlannedPrivate: p.private, PlannedIdentity: p.identity,
	})
	if err != nil {
		l.t.Fatal(err)
	}
	record(rpc, provider.Diagnostics(resp.Diagnostics)+l.stateSummary(resp.NewState)+privateSummary(resp.Private)+l.identitySummary(resp.NewIdentity))
	if hasError(resp.Diagnostics) || resp.NewState == nil {
		return tftypes.Value{}, nil, nil, false
	}
	// Terraform's check of the new state against the plan: every value the plan knew is what
	// the apply wrote, or the apply fails with "Provider produced inconsistent result".
	newState := l.value(resp.NewState)
	if p.state != nil {
		for _, e := range provider.AssertCompatible(l.value(p.state), newState) {
			l.t.Errorf("%s %s: inconsistent result after apply: %s", l.typeName, rpc, e)
		}
	}
	return newState, resp.Private, resp.NewIdentity, true
}

// assertNoChange fails when a plan made right after an apply and a read would change anything:
// the state shows what the cluster has, so the configuration it came from plans no change.
func (l lifecycle) assertNoChange(p planned, state tftypes.Value, when string) {
	if p.failed || p.state == nil {
		return
	}
	if p.replaces {
		l.t.Errorf("%s %s: the plan without change replaces the object: %s", l.typeName, when, p.summary)
	}
	if diffs := provider.AssertCompatible(state, l.value(p.state)); len(diffs) > 0 || !l.value(p.state).Equal(state) {
		l.t.Errorf("%s %s: the plan without change plans a change: %v", l.typeName, when, diffs)
	}
}

func (l lifecycle) read(s tfprotov6.ProviderServer, state tftypes.Value, private []byte, identity *tfprotov6.ResourceIdentityData, record func(string, string), rpc string) (tftypes.Value, []byte, *tfprotov6.ResourceIdentityData) {
	resp, err := s.ReadResource(l.ctx, &tfprotov6.ReadResourceRequest{
		TypeName: l.typeName, CurrentState: l.dv(state), Private: private, CurrentIdentity: identity,
	})
	if err != nil {
		l.t.Fatal(err)
	}
	record(rpc, provider.Diagnostics(resp.Diagnostics)+l.stateSummary(resp.NewState)+privateSummary(resp.Private)+l.identitySummary(resp.NewIdentity))
	if hasError(resp.Diagnostics) || resp.NewState == nil {
		return state, private, identity
	}
	return l.value(resp.NewState), resp.Private, resp.NewIdentity
}

func (l lifecycle) dv(v tftypes.Value) *tfprotov6.DynamicValue { return l.differ.DynamicValue(v) }

func (l lifecycle) value(dv *tfprotov6.DynamicValue) tftypes.Value {
	v, err := dv.Unmarshal(l.typ)
	if err != nil {
		l.t.Fatal(err)
	}
	return v
}

// volatile are the attributes the comparison leaves out: set by the server or by controllers
// on their own schedule, so they differ between two objects created one after the other.
var volatile = map[string][]string{
	"metadata": {"uid", "resource_version", "creation_timestamp"},
	"":         {"status"},
}

// stateSummary is the state as JSON without the volatile attributes.
func (l lifecycle) stateSummary(dv *tfprotov6.DynamicValue) string {
	if dv == nil {
		return "state: none\n"
	}
	v := l.value(dv)
	if v.IsNull() {
		return "state: null\n"
	}
	raw, err := provider.StateJSON(v)
	if err != nil {
		l.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		l.t.Fatal(err)
	}
	for _, attr := range volatile[""] {
		if m[attr] != nil {
			m[attr] = "(set)"
		}
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		for _, attr := range volatile["metadata"] {
			if md[attr] != nil {
				md[attr] = "(set)"
			}
		}
	}
	out, _ := json.Marshal(m)
	return "state: " + string(out) + "\n"
}

func (l lifecycle) identitySummary(id *tfprotov6.ResourceIdentityData) string {
	if id == nil || id.IdentityData == nil {
		return "identity: none\n"
	}
	v, err := id.IdentityData.Unmarshal(l.identity)
	if err != nil {
		l.t.Fatal(err)
	}
	return fmt.Sprintf("identity: %s\n", v)
}

// privateSummary decodes the private state (a JSON object in both servers' encoding), so that
// key order does not count.
func privateSummary(b []byte) string {
	if len(b) == 0 {
		return "private: none\n"
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Sprintf("private: %q\n", b)
	}
	for _, k := range []string{"creation_token", "other_configuration"} {
		if _, ok := m[k]; ok {
			m[k] = "(random)" // each create and import draws its own
		}
	}
	out, _ := json.Marshal(m)
	return "private: " + string(out) + "\n"
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// renamed is a copy of obj named <name>-<suffix>.
func renamed(obj runtime.Object, suffix string) runtime.Object {
	obj = obj.DeepCopyObject()
	m, _ := meta.Accessor(obj)
	m.SetName(m.GetName() + "-" + suffix)
	return obj
}
