package protocol

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// countingServer answers GetProviderSchema and counts the calls; other RPCs are not served.
type countingServer struct {
	tfprotov6.ProviderServer
	calls int
	diags []*tfprotov6.Diagnostic
}

func (c *countingServer) GetProviderSchema(context.Context, *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	c.calls++
	return &tfprotov6.GetProviderSchemaResponse{
		ServerCapabilities: &tfprotov6.ServerCapabilities{},
		Diagnostics:        c.diags,
	}, nil
}

func TestSchemaCacheSharesTheResponse(t *testing.T) {
	ctx := context.Background()
	var cache SchemaCache
	first, second := &countingServer{}, &countingServer{}
	a, err := NewServer(first, nil, "kubeinfer", &cache).GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewServer(second, nil, "kubeinfer", &cache).GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if first.calls != 1 || second.calls != 0 {
		t.Errorf("inner GetProviderSchema calls = %d, %d; want 1, 0 (the second server uses the cached response)", first.calls, second.calls)
	}
	if a != b {
		t.Error("the second server did not return the cached response")
	}
	if !b.ServerCapabilities.GenerateResourceConfig {
		t.Error("the cached response lost the GenerateResourceConfig capability")
	}
}

func TestSchemaCacheKeepsNoErrorResponse(t *testing.T) {
	ctx := context.Background()
	var cache SchemaCache
	failing := &countingServer{diags: []*tfprotov6.Diagnostic{{Severity: tfprotov6.DiagnosticSeverityError, Summary: "broken schema"}}}
	for i := 0; i < 2; i++ {
		if _, err := NewServer(failing, nil, "kubeinfer", &cache).GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if failing.calls != 2 {
		t.Errorf("inner GetProviderSchema calls = %d, want 2: a response with an error must not be shared", failing.calls)
	}
}

func TestNilSchemaCacheAsksEveryTime(t *testing.T) {
	ctx := context.Background()
	inner := &countingServer{}
	srv := NewServer(inner, nil, "kubeinfer", nil)
	for i := 0; i < 2; i++ {
		if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if inner.calls != 2 {
		t.Errorf("inner GetProviderSchema calls = %d, want 2", inner.calls)
	}
}
