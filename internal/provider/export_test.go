package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// Exports for the package's external tests (package provider_test). Those may import acctest,
// which imports this package, so that the tests against a cluster live there.

// Kinds are the kinds the provider registers.
var Kinds = kinds

// DifferentialCorpora are the objects of each kind that both servers are given.
var DifferentialCorpora = differentialCorpora

// StateJSON is the state as Terraform stores it.
var StateJSON = stateJSON

// NullExcept is an object value of typ, null but for attrs.
var NullExcept = nullExcept

// Differ builds the requests of the differential test for one kind.
type Differ struct{ d differ }

// NewDiffer is a Differ of kind k, of resource type typeName, whose configurations the fast
// server generates.
func NewDiffer(t *testing.T, fast tfprotov6.ProviderServer, typeName string, typ tftypes.Object, k *kube.Kind) Differ {
	return Differ{differ{t: t, ctx: context.Background(), fast: fast, typeName: typeName, typ: typ, kind: k}}
}

// ImportState is obj as an import records it.
func (d Differ) ImportState(obj runtime.Object) tftypes.Value { return d.d.state(obj) }

// GeneratedConfig is the configuration -generate-config-out writes for state.
func (d Differ) GeneratedConfig(name string, state tftypes.Value) tftypes.Value {
	return d.d.generatedConfig(name, state)
}

// UserConfig is obj as a user writes it: what obj sets and nothing the server defaults.
func (d Differ) UserConfig(name string, obj runtime.Object) tftypes.Value {
	return d.d.userConfig(name, obj)
}

// DynamicValue is v encoded for a request.
func (d Differ) DynamicValue(v tftypes.Value) *tfprotov6.DynamicValue { return d.d.dv(v) }

// Diagnostics is a comparable summary of diagnostics.
var Diagnostics = diagnosticsSummary

// AssertCompatible is Terraform's AssertObjectCompatible, the check behind "Provider produced
// inconsistent result after apply" (the new state against the planned one) as well as
// "inconsistent final plan".
func AssertCompatible(planned, final tftypes.Value) []string {
	return assertCompatible(planned, final, "")
}

// ProposedNew is the proposed new state Terraform sends with a plan of config over prior, for
// a resource of schema block b.
var ProposedNew = proposedNew
