package protocol

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil {
		return s.ProviderServer.ValidateResourceConfig(ctx, req)
	}
	resp := &tfprotov6.ValidateResourceConfigResponse{}
	config, err := req.Config.Unmarshal(f.typ)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot decode the configuration", err.Error()))
		return resp, nil
	}
	diags := f.res.ValidateRaw(config)
	diags.Append(validateTimeouts(config)...)
	resp.Diagnostics = toProtoDiags(diags)
	return resp, nil
}

// validateTimeouts checks the durations of the timeouts attribute, as the timeouts package's
// validators would.
func validateTimeouts(config tftypes.Value) diag.Diagnostics {
	var diags diag.Diagnostics
	t, ok := kube.ObjectAttrs(config)[kube.AttrTimeouts]
	if !ok || !t.IsKnown() || t.IsNull() {
		return nil
	}
	for op, v := range kube.ObjectAttrs(t) {
		s, ok := kube.KnownString(v)
		if !ok {
			continue
		}
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			diags.AddAttributeError(path.Root(kube.AttrTimeouts).AtName(op), "Invalid duration",
				"timeouts."+op+" must be a duration such as \"30s\", \"10m\" or \"2h\": "+err.Error())
		case d <= 0:
			// A zero or negative timeout would end the operation before its first request.
			diags.AddAttributeError(path.Root(kube.AttrTimeouts).AtName(op), "Invalid duration",
				fmt.Sprintf("timeouts.%s must be positive, such as \"30s\", \"10m\" or \"2h\"; got %q", op, s))
		}
	}
	return diags
}
