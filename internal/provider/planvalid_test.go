package provider

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Terraform checks every planned state a provider returns against the configuration and the
// prior state, and fails the plan with "Provider produced invalid plan" when the provider changed
// a configured value or planned a value for an attribute it does not compute
// (AssertPlanValid, hashicorp/terraform v1.16 internal/plans/objchange/plan_valid.go). The fast
// path (protocol.NewServer) plans every resource itself, so FuzzPlanResourceChange sends it
// fuzzed configurations of each kind, as a create and as an update of an object of the kind's
// corpus, and requires: no panic, no RPC error, a planned state of the schema's type, and a plan
// that Terraform's check accepts. The configurations satisfy the schema as Terraform's own
// validation leaves them (computed-only attributes null, required ones set).

// planFuzzStrings are the strings a fuzzed attribute takes: values the kinds' rules tell apart
// (enums, quantities, percentages, names) and some that no rule accepts.
var planFuzzStrings = []string{
	"", "x", "vllm", "default", "500m", "16Gi", "8", "1.5", "-1", "0", "10%", "101%", "abc%", "2147483648",
	"30s", "RollingUpdate", "LeaderReady", "LeaderCreated", "Default", "None", "RecreateGroupAfterStart", "Ordinal",
	"Hash", "Immediate", "LeaderWorker", "LeaderExcluded", "TCP", "Always", "DoNotSchedule", "Exists", "In",
	"nvidia.com/gpu", "cpu", "topology.kubernetes.io/zone", "prefill", "decode", "External", "Limited", "Exempt",
	"Reject", "Queue", "ByUser", "ByNamespace", "ServiceAccount", "User", "Group", "*", "get", "leaderworkersets",
	"/healthz", "system:authenticated", "UPPER", "a.b", "${x}", "\xff",
}

var planFuzzNumbers = []*big.Float{
	big.NewFloat(0), big.NewFloat(1), big.NewFloat(2), big.NewFloat(4), big.NewFloat(-1), big.NewFloat(0.5),
	big.NewFloat(100), big.NewFloat(2147483647), big.NewFloat(2147483648), big.NewFloat(1e20),
}

// planFuzzer builds configuration values from fuzz input: each byte decides whether a value is
// null, unknown or set, the length of a collection and which string or number a leaf holds.
// Once the input is used up, the rest is null.
type planFuzzer struct{ data []byte }

func (f *planFuzzer) next() (byte, bool) {
	if len(f.data) == 0 {
		return 0, false
	}
	b := f.data[0]
	f.data = f.data[1:]
	return b, true
}

// block is the configuration value of a block's attributes and nested blocks.
func (f *planFuzzer) block(b *tfprotov6.SchemaBlock, depth int) tftypes.Value {
	attrs := map[string]tftypes.Value{}
	for _, a := range b.Attributes {
		attrs[a.Name] = f.attribute(a, depth)
	}
	for _, nb := range b.BlockTypes {
		typ := nb.ValueType()
		switch nb.Nesting {
		case tfprotov6.SchemaNestedBlockNestingModeSingle, tfprotov6.SchemaNestedBlockNestingModeGroup:
			if x, ok := f.next(); ok && x%2 == 0 {
				attrs[nb.TypeName] = f.block(nb.Block, depth+1)
			} else {
				attrs[nb.TypeName] = tftypes.NewValue(typ, nil)
			}
		default: // a block list, set or map is empty when no block is written
			attrs[nb.TypeName] = emptyCollection(typ)
		}
	}
	return tftypes.NewValue(b.ValueType(), attrs)
}

func emptyCollection(typ tftypes.Type) tftypes.Value {
	switch typ.(type) {
	case tftypes.Map:
		return tftypes.NewValue(typ, map[string]tftypes.Value{})
	default:
		return tftypes.NewValue(typ, []tftypes.Value{})
	}
}

// attribute is the configuration value of one attribute.
func (f *planFuzzer) attribute(a *tfprotov6.SchemaAttribute, depth int) tftypes.Value {
	typ := a.ValueType()
	if a.Computed && !a.Optional {
		return tftypes.NewValue(typ, nil) // Terraform rejects a value for it
	}
	b, ok := f.next()
	if !ok || depth > 30 {
		if a.Required {
			return tftypes.NewValue(typ, tftypes.UnknownValue)
		}
		return tftypes.NewValue(typ, nil)
	}
	switch b % 8 {
	case 0:
		if !a.Required {
			return tftypes.NewValue(typ, nil)
		}
	case 1:
		return tftypes.NewValue(typ, tftypes.UnknownValue)
	}
	sel := int(b >> 3)
	if a.NestedType != nil {
		return f.nested(a.NestedType, sel, depth+1)
	}
	return f.value(typ, sel, depth+1)
}

// nested is a set value of a nested attribute.
func (f *planFuzzer) nested(o *tfprotov6.SchemaObject, sel, depth int) tftypes.Value {
	obj := func() tftypes.Value {
		attrs := map[string]tftypes.Value{}
		for _, a := range o.Attributes {
			attrs[a.Name] = f.attribute(a, depth)
		}
		return tftypes.NewValue(objectType(o), attrs)
	}
	typ := o.ValueType()
	switch o.Nesting {
	case tfprotov6.SchemaObjectNestingModeList, tfprotov6.SchemaObjectNestingModeSet:
		elems := make([]tftypes.Value, sel%3)
		for i := range elems {
			elems[i] = obj()
		}
		if o.Nesting == tfprotov6.SchemaObjectNestingModeSet {
			elems = distinct(elems)
		}
		return tftypes.NewValue(typ, elems)
	case tfprotov6.SchemaObjectNestingModeMap:
		m := map[string]tftypes.Value{}
		for i := 0; i < sel%3; i++ {
			m[planFuzzStrings[(sel+i)%len(planFuzzStrings)]] = obj()
		}
		return tftypes.NewValue(typ, m)
	}
	return obj()
}

// objectType is the type of one object of the nested attribute o (o.ValueType() is the type of
// the whole attribute: a list, set or map of them, or one).
func objectType(o *tfprotov6.SchemaObject) tftypes.Object {
	attrs := map[string]tftypes.Type{}
	for _, a := range o.Attributes {
		attrs[a.Name] = a.ValueType()
	}
	return tftypes.Object{AttributeTypes: attrs}
}

// value is a set value of a primitive or collection type.
func (f *planFuzzer) value(typ tftypes.Type, sel, depth int) tftypes.Value {
	leaf := func(typ tftypes.Type, sel int) tftypes.Value {
		b, ok := f.next()
		if ok && b%8 == 1 {
			return tftypes.NewValue(typ, tftypes.UnknownValue)
		}
		return f.value(typ, sel+int(b>>3), depth+1)
	}
	switch {
	case typ.Is(tftypes.String):
		return tftypes.NewValue(typ, planFuzzStrings[sel%len(planFuzzStrings)])
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, planFuzzNumbers[sel%len(planFuzzNumbers)])
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, sel%2 == 0)
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}):
		var elemType tftypes.Type
		if l, ok := typ.(tftypes.List); ok {
			elemType = l.ElementType
		} else {
			elemType = typ.(tftypes.Set).ElementType
		}
		elems := make([]tftypes.Value, sel%3)
		for i := range elems {
			elems[i] = leaf(elemType, sel+i)
		}
		if typ.Is(tftypes.Set{}) {
			elems = distinct(elems)
		}
		return tftypes.NewValue(typ, elems)
	case typ.Is(tftypes.Map{}):
		m := map[string]tftypes.Value{}
		for i := 0; i < sel%3; i++ {
			m[planFuzzStrings[(sel+i)%len(planFuzzStrings)]] = leaf(typ.(tftypes.Map).ElementType, sel+i)
		}
		return tftypes.NewValue(typ, m)
	case typ.Is(tftypes.Object{}):
		attrs := map[string]tftypes.Value{}
		for name, at := range typ.(tftypes.Object).AttributeTypes {
			attrs[name] = leaf(at, sel)
		}
		return tftypes.NewValue(typ, attrs)
	}
	return tftypes.NewValue(typ, nil)
}

// distinct drops repeated known elements (a set holds each once) and keeps unknown ones.
func distinct(elems []tftypes.Value) []tftypes.Value {
	var out []tftypes.Value
	for _, e := range elems {
		if e.IsFullyKnown() && slices.ContainsFunc(out, e.Equal) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// proposedNew is the proposed new state Terraform sends with a plan: the configuration, with
// the prior state's value for each computed attribute the configuration leaves null
// (ProposedNew, hashicorp/terraform v1.16 internal/plans/objchange/objchange.go).
func proposedNew(b *tfprotov6.SchemaBlock, prior, config tftypes.Value) tftypes.Value {
	if config.IsNull() || !config.IsKnown() {
		return config
	}
	var pattrs, cattrs map[string]tftypes.Value
	if !prior.IsNull() && prior.IsKnown() {
		_ = prior.As(&pattrs)
	}
	_ = config.As(&cattrs)
	out := map[string]tftypes.Value{}
	for _, a := range b.Attributes {
		out[a.Name] = proposedAttr(a, pattrs[a.Name], cattrs[a.Name])
	}
	for _, nb := range b.BlockTypes {
		out[nb.TypeName] = cattrs[nb.TypeName]
		if nb.Nesting == tfprotov6.SchemaNestedBlockNestingModeSingle || nb.Nesting == tfprotov6.SchemaNestedBlockNestingModeGroup {
			p, ok := pattrs[nb.TypeName]
			if !ok {
				p = tftypes.NewValue(nb.ValueType(), nil)
			}
			out[nb.TypeName] = proposedNew(nb.Block, p, cattrs[nb.TypeName])
		}
	}
	return tftypes.NewValue(config.Type(), out)
}

func proposedAttr(a *tfprotov6.SchemaAttribute, prior, config tftypes.Value) tftypes.Value {
	if prior.Type() == nil {
		prior = tftypes.NewValue(a.ValueType(), nil)
	}
	if a.Computed && config.IsNull() {
		return prior
	}
	if a.NestedType == nil || config.IsNull() || !config.IsKnown() {
		return config
	}
	o := a.NestedType
	switch o.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		return proposedObject(o, prior, config)
	case tfprotov6.SchemaObjectNestingModeList:
		var ps, cs []tftypes.Value
		if !prior.IsNull() && prior.IsKnown() {
			_ = prior.As(&ps)
		}
		_ = config.As(&cs)
		out := make([]tftypes.Value, len(cs))
		for i, c := range cs {
			p := tftypes.NewValue(objectType(o), nil)
			if i < len(ps) {
				p = ps[i]
			}
			out[i] = proposedObject(o, p, c)
		}
		return tftypes.NewValue(config.Type(), out)
	case tfprotov6.SchemaObjectNestingModeMap:
		var ps, cs map[string]tftypes.Value
		if !prior.IsNull() && prior.IsKnown() {
			_ = prior.As(&ps)
		}
		_ = config.As(&cs)
		out := map[string]tftypes.Value{}
		for k, c := range cs {
			p, ok := ps[k]
			if !ok {
				p = tftypes.NewValue(objectType(o), nil)
			}
			out[k] = proposedObject(o, p, c)
		}
		return tftypes.NewValue(config.Type(), out)
	}
	return config // a set: elements have no identity to match prior ones by
}

func proposedObject(o *tfprotov6.SchemaObject, prior, config tftypes.Value) tftypes.Value {
	return proposedNew(&tfprotov6.SchemaBlock{Attributes: o.Attributes}, prior, config)
}

// assertPlanValid is Terraform's check of a planned state (AssertPlanValid): it returns one line
// per attribute whose planned value Terraform rejects.
func assertPlanValid(b *tfprotov6.SchemaBlock, prior, config, planned tftypes.Value, path string) []string {
	switch {
	case planned.IsNull() && !config.IsNull():
		return []string{path + ": planned for absence but config wants existence"}
	case config.IsNull() && !planned.IsNull():
		return []string{path + ": planned for existence but config wants absence"}
	case planned.IsNull():
		return nil
	}
	var pattrs, cattrs, nattrs map[string]tftypes.Value
	if !prior.IsNull() {
		_ = prior.As(&pattrs)
	}
	_ = config.As(&cattrs)
	_ = planned.As(&nattrs)
	var errs []string
	for _, a := range b.Attributes {
		errs = append(errs, assertPlannedValue(a, pattrs[a.Name], cattrs[a.Name], nattrs[a.Name], path+"."+a.Name)...)
	}
	for _, nb := range b.BlockTypes {
		p := path + "." + nb.TypeName
		n, c := nattrs[nb.TypeName], cattrs[nb.TypeName]
		switch {
		case n.Equal(c):
		case nb.Nesting == tfprotov6.SchemaNestedBlockNestingModeSingle || nb.Nesting == tfprotov6.SchemaNestedBlockNestingModeGroup:
			pv, ok := pattrs[nb.TypeName]
			if !ok {
				pv = tftypes.NewValue(nb.ValueType(), nil)
			}
			errs = append(errs, assertPlanValid(nb.Block, pv, c, n, p)...)
		default:
			errs = append(errs, fmt.Sprintf("%s: planned block value %s differs from the configuration's %s", p, n, c))
		}
	}
	return errs
}

func assertPlannedValue(a *tfprotov6.SchemaAttribute, prior, config, planned tftypes.Value, path string) []string {
	null := tftypes.NewValue(a.ValueType(), nil)
	if prior.Type() == nil {
		prior = null
	}
	if config.Type() == nil {
		config = null
	}
	if planned.Type() == nil {
		planned = null
	}
	switch {
	case planned.Equal(config):
		return nil
	case planned.Equal(prior) && !prior.IsNull() && !config.IsNull():
		return nil
	case a.Computed && !a.Optional:
		return nil
	case config.IsNull() && a.Computed:
		return nil
	case config.IsNull() && !planned.IsNull():
		return []string{fmt.Sprintf("%s: planned value %s for a non-computed attribute", path, planned)}
	}
	if a.NestedType != nil {
		return assertPlannedObject(a.NestedType, prior, config, planned, path)
	}
	if prior.IsNull() {
		return []string{fmt.Sprintf("%s: planned value %s does not match config value %s", path, planned, config)}
	}
	return []string{fmt.Sprintf("%s: planned value %s does not match config value %s nor prior value %s", path, planned, config, prior)}
}

func assertPlannedObject(o *tfprotov6.SchemaObject, prior, config, planned tftypes.Value, path string) []string {
	switch {
	case planned.IsNull() && !config.IsNull():
		return []string{path + ": planned for absence but config wants existence"}
	case config.IsNull() && !planned.IsNull():
		return []string{path + ": planned for existence but config wants absence"}
	case !config.IsNull() && !planned.IsKnown():
		return []string{path + ": planned unknown for configured value"}
	case planned.IsNull():
		return nil
	}
	block := &tfprotov6.SchemaBlock{Attributes: o.Attributes}
	elemNull := tftypes.NewValue(objectType(o), nil)
	switch o.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		return assertPlanAttrs(block, prior, config, planned, path)
	case tfprotov6.SchemaObjectNestingModeList:
		if !config.IsKnown() {
			return nil // Terraform accepts any plan of an unknown list
		}
		var ps, cs, ns []tftypes.Value
		if !prior.IsNull() && prior.IsKnown() {
			_ = prior.As(&ps)
		}
		_ = config.As(&cs)
		_ = planned.As(&ns)
		if len(ns) != len(cs) {
			return []string{fmt.Sprintf("%s: count in plan (%d) disagrees with count in config (%d)", path, len(ns), len(cs))}
		}
		var errs []string
		for i := range ns {
			p := elemNull
			if i < len(ps) {
				p = ps[i]
			}
			errs = append(errs, assertPlanAttrs(block, p, cs[i], ns[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return errs
	case tfprotov6.SchemaObjectNestingModeMap:
		if !config.IsKnown() {
			return nil
		}
		var ps, cs, ns map[string]tftypes.Value
		if !prior.IsNull() && prior.IsKnown() {
			_ = prior.As(&ps)
		}
		_ = config.As(&cs)
		_ = planned.As(&ns)
		var errs []string
		for k, n := range ns {
			c, ok := cs[k]
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: key %q from plan is not present in config", path, k))
				continue
			}
			p, ok := ps[k]
			if !ok {
				p = elemNull
			}
			errs = append(errs, assertPlanAttrs(block, p, c, n, fmt.Sprintf("%s[%q]", path, k))...)
		}
		for k := range cs {
			if _, ok := ns[k]; !ok {
				errs = append(errs, fmt.Sprintf("%s: key %q from config is not present in plan", path, k))
			}
		}
		return errs
	}
	// A set: Terraform compares only the lengths of known sets.
	var cs, ns []tftypes.Value
	if config.IsFullyKnown() && planned.IsKnown() {
		_ = config.As(&cs)
		_ = planned.As(&ns)
		if len(cs) != len(ns) {
			return []string{fmt.Sprintf("%s: count in plan (%d) disagrees with count in config (%d)", path, len(ns), len(cs))}
		}
	}
	return nil
}

// assertPlanAttrs checks the attributes of one nested object (null objects included).
func assertPlanAttrs(b *tfprotov6.SchemaBlock, prior, config, planned tftypes.Value, path string) []string {
	var pattrs, cattrs, nattrs map[string]tftypes.Value
	if !prior.IsNull() && prior.IsKnown() {
		_ = prior.As(&pattrs)
	}
	if !config.IsNull() && config.IsKnown() {
		_ = config.As(&cattrs)
	}
	if !planned.IsNull() && planned.IsKnown() {
		_ = planned.As(&nattrs)
	}
	var errs []string
	for _, a := range b.Attributes {
		errs = append(errs, assertPlannedValue(a, pattrs[a.Name], cattrs[a.Name], nattrs[a.Name], path+"."+a.Name)...)
	}
	return errs
}

// planCase is one kind's resource as the plan fuzz tests send it.
type planCase struct {
	typeName string
	schema   *tfprotov6.Schema
	typ      tftypes.Object
	states   []tftypes.Value // the kind's corpus as an import records it
	configs  []tftypes.Value // the configuration -generate-config-out writes for each state
}

// planCases are the provider's fast-path server and a planCase of each kind, built once per
// test process (generating the corpora's configurations takes seconds).
func planCases(tb testing.TB) (tfprotov6.ProviderServer, []planCase) {
	tb.Helper()
	planCasesOnce.Do(func() { planCasesServer, planCasesBuilt, planCasesErr = buildPlanCases() })
	if planCasesErr != nil {
		tb.Fatal(planCasesErr)
	}
	return planCasesServer, planCasesBuilt
}

var (
	planCasesOnce   sync.Once
	planCasesServer tfprotov6.ProviderServer
	planCasesBuilt  []planCase
	planCasesErr    error
)

func buildPlanCases() (tfprotov6.ProviderServer, []planCase, error) {
	ctx := context.Background()
	server := NewServer("test")()
	sch, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, nil, err
	}
	corpora := differentialCorpora()
	var cases []planCase
	for _, k := range kinds {
		typeName := TypeName + "_" + k.TypeName
		s := sch.ResourceSchemas[typeName]
		d := differ{kind: k, typ: s.ValueType().(tftypes.Object)}
		c := planCase{typeName: typeName, schema: s, typ: d.typ}
		for _, obj := range corpora[k.TypeName] {
			state := d.state(obj)
			dv, err := tfprotov6.NewDynamicValue(d.typ, state)
			if err != nil {
				return nil, nil, err
			}
			resp, err := server.GenerateResourceConfig(ctx, &tfprotov6.GenerateResourceConfigRequest{TypeName: typeName, State: &dv})
			if err != nil || hasError(resp.Diagnostics) || resp.Config == nil {
				return nil, nil, fmt.Errorf("%s: GenerateResourceConfig: %v %v", typeName, err, resp.Diagnostics)
			}
			config, err := resp.Config.Unmarshal(d.typ)
			if err != nil {
				return nil, nil, err
			}
			c.states = append(c.states, state)
			c.configs = append(c.configs, config)
		}
		cases = append(cases, c)
	}
	return server, cases, nil
}

// checkPlan sends config to ValidateResourceConfig and PlanResourceChange as Terraform does and
// fails t where Terraform would reject the answer; it reports whether the plan got that far (no
// error diagnostic). known is config as it will be at apply
// (unknown values known): when it passes validation, its plan must be valid too and keep every
// value the first plan knew.
func checkPlan(t *testing.T, server tfprotov6.ProviderServer, c planCase, prior, config, known tftypes.Value) bool {
	t.Helper()
	ctx := context.Background()
	dv := func(v tftypes.Value) *tfprotov6.DynamicValue {
		out, err := tfprotov6.NewDynamicValue(c.typ, v)
		if err != nil {
			t.Fatalf("encoding %s: %v", v, err)
		}
		return &out
	}
	// plan validates and plans config; it returns the planned state, or false when Terraform
	// would stop on an error.
	plan := func(config tftypes.Value, what string) (tftypes.Value, bool) {
		vresp, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: c.typeName, Config: dv(config)})
		if err != nil {
			t.Fatalf("ValidateResourceConfig: %v", err)
		}
		if hasError(vresp.Diagnostics) {
			return tftypes.Value{}, false
		}
		presp, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName: c.typeName, Config: dv(config), PriorState: dv(prior), ProposedNewState: dv(proposedNew(c.schema.Block, prior, config)),
		})
		if err != nil {
			t.Fatalf("PlanResourceChange: %v", err)
		}
		if hasError(presp.Diagnostics) {
			return tftypes.Value{}, false
		}
		if presp.PlannedState == nil {
			t.Fatal("PlanResourceChange: no planned state and no error")
		}
		planned, err := presp.PlannedState.Unmarshal(c.typ)
		if err != nil {
			t.Fatalf("the planned state is not of the schema's type: %v", err)
		}
		if errs := assertPlanValid(c.schema.Block, prior, config, planned, c.typeName); len(errs) > 0 {
			t.Fatalf("Terraform would reject the %s (Provider produced invalid plan):\n%s\nconfig:  %s\nprior:   %s\nplanned: %s",
				what, strings.Join(errs, "\n"), config, prior, planned)
		}
		return planned, true
	}
	planned, ok := plan(config, "plan")
	if !ok || config.IsFullyKnown() {
		return ok
	}
	// At apply, Terraform plans again with the values now known and requires every value the
	// first plan knew to stay as it was ("Provider produced inconsistent final plan",
	// AssertObjectCompatible in internal/plans/objchange/compatible.go). An error there (one
	// held back until the values were known) stops the apply before anything is sent.
	final, ok := plan(known, "final plan")
	if !ok {
		return true
	}
	if errs := assertCompatible(planned, final, c.typeName); len(errs) > 0 {
		t.Fatalf("Terraform would reject the final plan (Provider produced inconsistent final plan):\n%s\nconfig: %s\nknown:  %s",
			strings.Join(errs, "\n"), config, known)
	}
	return true
}

// FuzzPlanResourceChange: see the comment at the top of the file. The first byte picks the
// kind, the second whether the plan is a create or an update of which corpus object.
func FuzzPlanResourceChange(f *testing.F) {
	for k := range kinds {
		f.Add([]byte{byte(k)})
		f.Add(append([]byte{byte(k)}, []byte("\x02\x0a\x12\x1a\x22\x2a\x32\x3a\x42\x4a\x52\x5a\x62\x6a\x72\x7a\x82\x8a\x92\x9a\xa2\xaa\xb2\xba\xc2\xca")...))
		f.Add(append([]byte{byte(k)}, []byte("\x03\x13\x23\x33\x43\x53\x63\x73\x83\x93\xa3\xb3\xc3\xd3\xe3\xf3\x04\x14\x24\x34\x44\x54\x64\x74\x84\x94")...))
		f.Add(append([]byte{byte(k)}, []byte("\x05\x0d\x15\x1d\x25\x2d\x35\x3d\x45\x4d\x55\x5d\x65\x6d\x75\x7d\x85\x8d\x95\x9d\xa5\xad\xb5\xbd\xc5\xcd")...))
	}
	server, cases := planCases(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		c := cases[int(data[0])%len(cases)]
		prior := tftypes.NewValue(c.typ, nil)
		if data[1]%2 == 1 && len(c.states) > 0 {
			prior = c.states[int(data[1]>>1)%len(c.states)]
		}
		config := (&planFuzzer{data: data[2:]}).block(c.schema.Block, 0)
		checkPlan(t, server, c, prior, config, resolveUnknowns(t, config))
	})
}

// FuzzPlanWithUnknowns plans the corpus's configurations with values made unknown, as when they
// come from resources created in the same apply: the first byte picks the kind, the second the
// configuration, the third a create or an update (from the corpus's previous object), and each
// further byte whether the next value of the configuration (in the order tftypes.Transform
// visits them) becomes unknown. The plan must be valid, and the final plan, with the values
// known again, valid and compatible with it.
func FuzzPlanWithUnknowns(f *testing.F) {
	for k := range kinds {
		for i := range 4 {
			f.Add([]byte{byte(k), byte(i), byte(i), 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
			f.Add([]byte{byte(k), byte(i), byte(i + 1), 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
		}
	}
	server, cases := planCases(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		c := cases[int(data[0])%len(cases)]
		if len(c.configs) == 0 {
			return
		}
		i := int(data[1]) % len(c.configs)
		known := c.configs[i]
		prior := tftypes.NewValue(c.typ, nil)
		if data[2]%2 == 1 {
			// An update: the previous object's state under this object's name.
			prev := c.states[(i+len(c.states)-1)%len(c.states)]
			prior = renamed(t, prev, c.states[i])
		}
		mask := data[3:]
		config, err := tftypes.Transform(known, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
			if len(p.Steps()) == 0 || v.IsNull() || len(mask) == 0 {
				return v, nil
			}
			b := mask[0]
			mask = mask[1:]
			if b%2 == 1 {
				return tftypes.NewValue(v.Type(), tftypes.UnknownValue), nil
			}
			return v, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, server, c, prior, config, known)
	})
}

// renamed is state with the metadata (name, namespace) and id of like.
func renamed(t *testing.T, state, like tftypes.Value) tftypes.Value {
	metaName := tftypes.NewAttributePath().WithAttributeName("metadata")
	out, err := tftypes.Transform(state, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if len(p.Steps()) != 2 || !p.WithoutLastStep().Equal(metaName) {
			if len(p.Steps()) == 1 && p.Equal(tftypes.NewAttributePath().WithAttributeName("id")) {
				x, _, err := tftypes.WalkAttributePath(like, p)
				if err != nil {
					return v, err
				}
				return x.(tftypes.Value), nil
			}
			return v, nil
		}
		if name := p.LastStep().(tftypes.AttributeName); name != "name" && name != "namespace" {
			return v, nil
		}
		x, _, err := tftypes.WalkAttributePath(like, p)
		if err != nil {
			return v, err
		}
		return x.(tftypes.Value), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// resolveUnknowns is config with each unknown value replaced by a known one, as at apply: a
// string or number of the fuzz pools, true, or an empty or null collection or object.
func resolveUnknowns(t *testing.T, config tftypes.Value) tftypes.Value {
	n := 0
	v, err := tftypes.Transform(config, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		n++
		typ := v.Type()
		switch {
		case typ.Is(tftypes.String):
			return tftypes.NewValue(typ, planFuzzStrings[n%len(planFuzzStrings)]), nil
		case typ.Is(tftypes.Number):
			return tftypes.NewValue(typ, planFuzzNumbers[n%len(planFuzzNumbers)]), nil
		case typ.Is(tftypes.Bool):
			return tftypes.NewValue(typ, true), nil
		case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}), typ.Is(tftypes.Map{}):
			return emptyCollection(typ), nil
		}
		return tftypes.NewValue(typ, nil), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// assertCompatible is Terraform's check of the final plan against the first: every value the
// first plan knew is the same in the final one.
func assertCompatible(planned, final tftypes.Value, path string) []string {
	switch {
	case !planned.IsKnown():
		return nil
	case planned.IsNull() || final.IsNull() || !final.IsKnown():
		if planned.Equal(final) {
			return nil
		}
		return []string{fmt.Sprintf("%s: was %s, now %s", path, planned, final)}
	}
	typ := planned.Type()
	switch {
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}):
		var ps, fs []tftypes.Value
		_ = planned.As(&ps)
		_ = final.As(&fs)
		if len(ps) != len(fs) {
			return []string{fmt.Sprintf("%s: was %d elements, now %d", path, len(ps), len(fs))}
		}
		if typ.Is(tftypes.Set{}) {
			if planned.IsFullyKnown() && !planned.Equal(final) {
				return []string{fmt.Sprintf("%s: was %s, now %s", path, planned, final)}
			}
			return nil
		}
		var errs []string
		for i := range ps {
			errs = append(errs, assertCompatible(ps[i], fs[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return errs
	case typ.Is(tftypes.Map{}), typ.Is(tftypes.Object{}):
		var ps, fs map[string]tftypes.Value
		_ = planned.As(&ps)
		_ = final.As(&fs)
		var errs []string
		for k, p := range ps {
			f, ok := fs[k]
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: key %q is gone", path, k))
				continue
			}
			errs = append(errs, assertCompatible(p, f, path+"."+k)...)
		}
		for k := range fs {
			if _, ok := ps[k]; !ok {
				errs = append(errs, fmt.Sprintf("%s: key %q is new", path, k))
			}
		}
		return errs
	}
	if !planned.Equal(final) {
		return []string{fmt.Sprintf("%s: was %s, now %s", path, planned, final)}
	}
	return nil
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	return slices.ContainsFunc(diags, func(d *tfprotov6.Diagnostic) bool { return d.Severity == tfprotov6.DiagnosticSeverityError })
}

// TestPlansOfCorporaAreValid: the plans of every kind's corpus (as the configuration
// -generate-config-out writes for it) pass Terraform's check, as a create, as a plan without
// change and as an update to the corpus's next object.
func TestPlansOfCorporaAreValid(t *testing.T) {
	server, cases := planCases(t)
	plans := 0
	for _, c := range cases {
		null := tftypes.NewValue(c.typ, nil)
		for i, config := range c.configs {
			next := renamed(t, c.configs[(i+1)%len(c.configs)], config)
			for _, p := range []struct{ prior, config tftypes.Value }{{null, config}, {c.states[i], config}, {c.states[i], next}} {
				if checkPlan(t, server, c, p.prior, p.config, p.config) {
					plans++
				}
			}
		}
	}
	if plans == 0 {
		t.Fatal("no plan was checked")
	}
	t.Logf("%d plans checked", plans)
}

// TestAssertPlanValidRejects: the check finds what Terraform rejects: a configured value
// changed, a value planned for an attribute the provider does not compute, and a nested list
// of another length than the configuration's.
func TestAssertPlanValidRejects(t *testing.T) {
	nested := &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingModeList, Attributes: []*tfprotov6.SchemaAttribute{
		{Name: "v", Type: tftypes.String, Optional: true},
	}}
	block := &tfprotov6.SchemaBlock{Attributes: []*tfprotov6.SchemaAttribute{
		{Name: "name", Type: tftypes.String, Required: true},
		{Name: "plain", Type: tftypes.String, Optional: true},
		{Name: "defaulted", Type: tftypes.String, Optional: true, Computed: true},
		{Name: "items", NestedType: nested, Optional: true},
	}}
	typ := block.ValueType().(tftypes.Object)
	elem := objectType(nested)
	obj := func(name, plain, defaulted string, items ...string) tftypes.Value {
		str := func(s string) tftypes.Value {
			if s == "" {
				return tftypes.NewValue(tftypes.String, nil)
			}
			return tftypes.NewValue(tftypes.String, s)
		}
		var elems []tftypes.Value
		for _, v := range items {
			elems = append(elems, tftypes.NewValue(elem, map[string]tftypes.Value{"v": str(v)}))
		}
		list := tftypes.NewValue(nested.ValueType(), nil)
		if len(items) > 0 {
			list = tftypes.NewValue(nested.ValueType(), elems)
		}
		return tftypes.NewValue(typ, map[string]tftypes.Value{"name": str(name), "plain": str(plain), "defaulted": str(defaulted), "items": list})
	}
	null := tftypes.NewValue(typ, nil)
	config := obj("a", "", "", "x", "y")
	if errs := assertPlanValid(block, null, config, obj("a", "", "server", "x", "y"), "r"); len(errs) > 0 {
		t.Errorf("a default for a computed attribute was rejected: %v", errs)
	}
	for _, c := range []struct {
		planned tftypes.Value
		want    string
	}{
		{obj("b", "", "", "x", "y"), "r.name: planned value"},
		{obj("a", "z", "", "x", "y"), "r.plain: planned value"},
		{obj("a", "", "", "x"), "r.items: count in plan (1) disagrees with count in config (2)"},
		{obj("a", "", "", "x", "z"), "r.items[1].v: planned value"},
	} {
		errs := assertPlanValid(block, null, config, c.planned, "r")
		if len(errs) != 1 || !strings.HasPrefix(errs[0], c.want) {
			t.Errorf("planned %s: got %v, want one error %q", c.planned, errs, c.want)
		}
	}
}

// TestUnknownNamePlansReplacement: an update whose metadata.name is not known yet (it comes from
// a resource replaced in the same apply) plans a replacement on metadata.name and an unknown id:
// Terraform keeps the planned action at apply, and the name may differ from the prior one.
func TestUnknownNamePlansReplacement(t *testing.T) {
	server, cases := planCases(t)
	ctx := context.Background()
	name := tftypes.NewAttributePath().WithAttributeName("metadata").WithAttributeName("name")
	for _, c := range cases {
		config, err := tftypes.Transform(c.configs[0], func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
			if p.Equal(name) {
				return tftypes.NewValue(tftypes.String, tftypes.UnknownValue), nil
			}
			return v, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		prior := c.states[0]
		if !checkPlan(t, server, c, prior, config, c.configs[0]) {
			t.Fatalf("%s: the plan with an unknown name failed", c.typeName)
		}
		dv := func(v tftypes.Value) *tfprotov6.DynamicValue {
			out, _ := tfprotov6.NewDynamicValue(c.typ, v)
			return &out
		}
		resp, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName: c.typeName, Config: dv(config), PriorState: dv(prior), ProposedNewState: dv(proposedNew(c.schema.Block, prior, config)),
		})
		if err != nil || hasError(resp.Diagnostics) {
			t.Fatalf("%s: %v %v", c.typeName, err, resp.Diagnostics)
		}
		if !slices.ContainsFunc(resp.RequiresReplace, name.Equal) {
			t.Errorf("%s: requires replace %v, want metadata.name", c.typeName, resp.RequiresReplace)
		}
		planned, _ := resp.PlannedState.Unmarshal(c.typ)
		if id, _, _ := tftypes.WalkAttributePath(planned, tftypes.NewAttributePath().WithAttributeName("id")); id.(tftypes.Value).IsKnown() {
			t.Errorf("%s: planned id %s, want unknown", c.typeName, id)
		}
	}
}
