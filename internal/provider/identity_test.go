package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Every resource has an identity schema (namespace and name, or name for the cluster-scoped
// kinds), and the fast path's plan answers with the prior identity, or a null one for a
// create, as the framework does.
func TestResourceIdentity(t *testing.T) {
	ctx := context.Background()
	srv := NewServer("test")()
	schemas, err := srv.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		t.Fatalf("GetResourceIdentitySchemas: %v %v", err, schemas.Diagnostics)
	}
	want := map[string][]string{
		"kubeinfer_disaggregatedset":             {"name", "namespace"},
		"kubeinfer_leaderworkerset":              {"name", "namespace"},
		"kubeinfer_flow_schema":                  {"name"},
		"kubeinfer_priority_level_configuration": {"name"},
	}
	if len(schemas.IdentitySchemas) != len(want) {
		t.Errorf("identity schemas for %d resources, want %d", len(schemas.IdentitySchemas), len(want))
	}
	for typeName, attrs := range want {
		s := schemas.IdentitySchemas[typeName]
		if s == nil {
			t.Errorf("%s: no identity schema", typeName)
			continue
		}
		var got []string
		for _, a := range s.IdentityAttributes {
			got = append(got, a.Name)
			if a.Name == "name" && !a.RequiredForImport {
				t.Errorf("%s: identity name must be required for import", typeName)
			}
		}
		if len(got) != len(attrs) {
			t.Errorf("%s: identity attributes %v, want %v", typeName, got, attrs)
		}
	}

	// The plan of a create of a priority level: a null planned identity of the right type.
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	const plc = "kubeinfer_priority_level_configuration"
	typ := sch.ResourceSchemas[plc].ValueType().(tftypes.Object)
	config := nullExcept(typ, map[string]tftypes.Value{
		"metadata": nullExcept(typ.AttributeTypes["metadata"].(tftypes.Object), map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, "p")}),
	})
	dv := func(v tftypes.Value) *tfprotov6.DynamicValue {
		d, err := tfprotov6.NewDynamicValue(typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return &d
	}
	resp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: plc, Config: dv(config), ProposedNewState: dv(config), PriorState: dv(tftypes.NewValue(typ, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.PlannedIdentity == nil || resp.PlannedIdentity.IdentityData == nil {
		t.Fatalf("create plan: no planned identity (diagnostics %v)", resp.Diagnostics)
	}
	idType := schemas.IdentitySchemas[plc].ValueType()
	v, err := resp.PlannedIdentity.IdentityData.Unmarshal(idType)
	if err != nil || !v.IsNull() {
		t.Errorf("create plan: planned identity %v (%v), want null", v, err)
	}

	// An update plan carries the prior identity unchanged.
	prior := &tfprotov6.ResourceIdentityData{IdentityData: func() *tfprotov6.DynamicValue {
		d, err := tfprotov6.NewDynamicValue(idType, tftypes.NewValue(idType, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, "p")}))
		if err != nil {
			t.Fatal(err)
		}
		return &d
	}()}
	resp, err = srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: plc, Config: dv(config), ProposedNewState: dv(config), PriorState: dv(config), PriorIdentity: prior,
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.PlannedIdentity != prior {
		t.Errorf("update plan: planned identity %v, want the prior identity", resp.PlannedIdentity)
	}
}

// nullExcept is an object value of typ, null but for attrs.
func nullExcept(typ tftypes.Object, attrs map[string]tftypes.Value) tftypes.Value {
	all := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		all[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range attrs {
		all[name] = v
	}
	return tftypes.NewValue(typ, all)
}
