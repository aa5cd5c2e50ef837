package providerrules

import (
	dsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	fsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
	plcrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration/rules"
)

// Kinds are the offline rules of the kinds the provider manages, in the order of package
// provider's list of kinds (each a resource, a data source, a names data source and a list
// resource). Keep it sorted; package provider's tests check that its kinds are these.
var Kinds = []*kindrules.Kind{
	dsrules.Kind,
	fsrules.Kind,
	lwsrules.Kind,
	plcrules.Kind,
}

// ReadOnlyKinds are the offline rules of the kinds a controller owns: a data source each and a
// plural one, no resource.
var ReadOnlyKinds = []*kindrules.Kind{
	dsrules.RoleScalerKind,
}

// Resource returns the rules of the kind whose resource type is typeName
// ("kubeinfer_leaderworkerset"), nil for another type.
func Resource(typeName string) *kindrules.Kind {
	for _, k := range Kinds {
		if TypeName+"_"+k.TypeName == typeName {
			return k
		}
	}
	return nil
}
