package provider

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/providerrules"
)

// TestKindsAreTheRulesRegistry: the provider serves exactly the kinds whose offline rules the
// registry lists, in its order, so the TFLint plugin (built on the registry) knows every kind.
func TestKindsAreTheRulesRegistry(t *testing.T) {
	for _, c := range []struct {
		name  string
		kinds []*kube.Kind
		rules int
	}{{"kinds", kinds, len(providerrules.Kinds)}, {"readOnlyKinds", readOnlyKinds, len(providerrules.ReadOnlyKinds)}} {
		if len(c.kinds) != c.rules {
			t.Fatalf("%s: %d kinds, the registry has %d", c.name, len(c.kinds), c.rules)
		}
	}
	for i, k := range kinds {
		if k.Kind != providerrules.Kinds[i] {
			t.Errorf("kinds[%d] is %s, the registry's is %s", i, k.TypeName, providerrules.Kinds[i].TypeName)
		}
	}
	for i, k := range readOnlyKinds {
		if k.Kind != providerrules.ReadOnlyKinds[i] {
			t.Errorf("readOnlyKinds[%d] is %s, the registry's is %s", i, k.TypeName, providerrules.ReadOnlyKinds[i].TypeName)
		}
	}
}

// TestOfflineSchemasAreTheProviders: the offline provider (package providerrules, the TFLint
// plugin's) answers the same schemas as the provider for its resources, data sources, list
// resources and provider block.
func TestOfflineSchemasAreTheProviders(t *testing.T) {
	ctx := context.Background()
	want, err := NewServer("test")().GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := providerrules.NewServer().GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(want.Diagnostics, got.Diagnostics...) {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("%s: %s", d.Summary, d.Detail)
		}
	}
	same := func(what string, a, b map[string]*tfprotov6.Schema) {
		t.Helper()
		if len(a) != len(b) {
			t.Errorf("%s: the offline provider has %d, the provider %d", what, len(a), len(b))
		}
		for name, s := range b {
			if !reflect.DeepEqual(a[name], s) {
				t.Errorf("%s %s: the offline provider's schema differs from the provider's", what, name)
			}
		}
	}
	same("resource", got.ResourceSchemas, want.ResourceSchemas)
	same("data source", got.DataSourceSchemas, want.DataSourceSchemas)
	same("list resource", got.ListResourceSchemas, want.ListResourceSchemas)
	if !reflect.DeepEqual(got.Provider, want.Provider) {
		t.Error("the offline provider block's schema differs from the provider's")
	}
}
