package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// GenerateResourceConfig (Terraform 1.14+, `terraform plan -generate-config-out` after an import
// block) writes a resource block from the state: the framework's answer (the state without
// computed-only attributes) would spell out every planned default, including fields the installed
// CRD does not have. The framework still turns the pruned state into configuration.
func (s *server) GenerateResourceConfig(ctx context.Context, req *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil || req.State == nil {
		return s.ProviderServer.GenerateResourceConfig(ctx, req)
	}
	st, err := req.State.Unmarshal(f.typ)
	if err != nil {
		return s.ProviderServer.GenerateResourceConfig(ctx, req)
	}
	dv, err := tfprotov6.NewDynamicValue(f.typ, f.res.GeneratedConfigState(st))
	if err != nil {
		return s.ProviderServer.GenerateResourceConfig(ctx, req)
	}
	return s.ProviderServer.GenerateResourceConfig(ctx, &tfprotov6.GenerateResourceConfigRequest{TypeName: req.TypeName, State: &dv})
}
