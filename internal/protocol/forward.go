package protocol

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The list resource RPCs are an optional interface of the protocol (tf6server looks for it
// with a type assertion), which embedding ProviderServer does not carry over: forward them.
// (Deprecated only in favour of moving the methods into ProviderServer, which v0.31 has not done.)
var _ tfprotov6.ProviderServerWithListResource = (*server)(nil) //nolint:staticcheck // see above

// listServer is the framework server's list resource side.
func (s *server) listServer() (tfprotov6.ProviderServerWithListResource, error) { //nolint:staticcheck // see above
	ls, ok := s.ProviderServer.(tfprotov6.ProviderServerWithListResource) //nolint:staticcheck // see above
	if !ok {
		return nil, errors.New("the provider server has no list resources")
	}
	return ls, nil
}

func (s *server) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	ls, err := s.listServer()
	if err != nil {
		return nil, err
	}
	return ls.ValidateListResourceConfig(ctx, req)
}

func (s *server) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	ls, err := s.listServer()
	if err != nil {
		return nil, err
	}
	return ls.ListResource(ctx, req)
}

// The action RPCs are another optional interface (Terraform 1.14+): forward them as well.
var _ tfprotov6.ProviderServerWithActions = (*server)(nil) //nolint:staticcheck // see above

// actionServer is the framework server's action side.
func (s *server) actionServer() (tfprotov6.ProviderServerWithActions, error) { //nolint:staticcheck // see above
	as, ok := s.ProviderServer.(tfprotov6.ProviderServerWithActions) //nolint:staticcheck // see above
	if !ok {
		return nil, errors.New("the provider server has no actions")
	}
	return as, nil
}

func (s *server) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	as, err := s.actionServer()
	if err != nil {
		return nil, err
	}
	return as.ValidateActionConfig(ctx, req)
}

func (s *server) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	as, err := s.actionServer()
	if err != nil {
		return nil, err
	}
	return as.PlanAction(ctx, req)
}

func (s *server) InvokeAction(ctx context.Context, req *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error) {
	as, err := s.actionServer()
	if err != nil {
		return nil, err
	}
	return as.InvokeAction(ctx, req)
}
