package kube

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

func (r *Resource) ConfigValidators(context.Context) []resource.ConfigValidator { return nil }

// ValidateConfig runs every plan-time rule on the configuration, offline.
func (r *Resource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(r.ValidateRaw(req.Config.Raw)...)
}

// ValidateRaw runs the plan-time rules of the kind on a configuration value
// (kindrules.ValidateConfig).
func (r *Resource) ValidateRaw(config tftypes.Value) diag.Diagnostics {
	return kindrules.ValidateConfig(r.kind.Kind, config)
}
