package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
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
	diags.Append(kindrules.ValidateTimeouts(config)...)
	resp.Diagnostics = toProtoDiags(diags)
	return resp, nil
}
