package protocol

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/protoschema"
)

// SchemaCache shares one GetProviderSchema response between the servers of a process that serve
// the same provider. Terraform asks every provider server it starts for the whole schema, and
// building the answer (the framework's conversion of about 10,000 attributes) costs about 90 ms
// of CPU; the acceptance tests start a server in the test process for every CLI command they
// run. The framework builds each resource's schema on its own when another RPC needs it, so
// the servers that skip the conversion still serve everything. The zero value is ready to use.
type SchemaCache struct {
	mu   sync.Mutex
	resp *tfprotov6.GetProviderSchemaResponse
}

// get returns the cached response, or builds it with build and keeps it if it has no error.
func (c *SchemaCache) get(build func() (*tfprotov6.GetProviderSchemaResponse, error)) (*tfprotov6.GetProviderSchemaResponse, error) {
	if c == nil {
		return build()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.resp != nil {
		return c.resp, nil
	}
	resp, err := build()
	if err == nil && resp != nil && !hasError(resp.Diagnostics) {
		c.resp = resp
	}
	return resp, err
}

func hasError(diags []*tfprotov6.Diagnostic) bool { return protoschema.HasError(diags) }

// GetProviderSchema and GetMetadata announce GenerateResourceConfig, which terraform-plugin-framework
// v1.19 implements but does not announce yet (its toproto6.ServerCapabilities drops the flag).
func (s *server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return s.schemas.get(func() (*tfprotov6.GetProviderSchemaResponse, error) {
		resp, err := s.buildSchema(ctx, req)
		if resp != nil && resp.ServerCapabilities != nil {
			resp.ServerCapabilities.GenerateResourceConfig = true
		}
		return resp, err
	})
}

// buildSchema is the GetProviderSchema answer: protoschema.Build's when the server has the provider
// and the builder supports it, the framework's otherwise.
func (s *server) buildSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	if s.provider != nil {
		if resp, err := protoschema.Build(ctx, s.provider); err == nil {
			return resp, nil
		}
	}
	return s.ProviderServer.GetProviderSchema(ctx, req)
}

func (s *server) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	resp, err := s.ProviderServer.GetMetadata(ctx, req)
	if resp != nil && resp.ServerCapabilities != nil {
		resp.ServerCapabilities.GenerateResourceConfig = true
	}
	return resp, err
}
