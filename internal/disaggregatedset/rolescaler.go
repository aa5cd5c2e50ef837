package disaggregatedset

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// RoleScalerKind is the DisaggregatedSetRoleScaler, served as a data source only (the controller
// owns the object).
var RoleScalerKind = kube.FromRules(rules.RoleScalerKind, kube.Hooks{})

// NewRoleScalerDataSource is the kubeinfer_disaggregatedset_role_scaler data source.
func NewRoleScalerDataSource() datasource.DataSource { return kube.NewDataSource(RoleScalerKind)() }
