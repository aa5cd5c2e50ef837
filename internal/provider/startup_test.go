package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/protocol"
)

// The fixed cost of every Terraform command (issue #28): Terraform starts the provider, asks
// for its whole schema, and usually starts it again for the next phase. In a real process each
// kind builds its node tree once (kube.Kind.Node) and the schema response is built once
// (protocol.SchemaCache); coldStart measures that first time by giving the provider fresh
// copies of its kinds and a fresh schema cache.
//
//	go test -run '^$' -bench ColdStart -benchmem -cpuprofile cpu.out -memprofile mem.out ./internal/provider/
//	go tool pprof -top cpu.out

// freshKind is a copy of k's exported fields: a kind whose node tree is not built yet.
func freshKind(k *kube.Kind) *kube.Kind {
	src := reflect.ValueOf(k).Elem()
	dst := reflect.New(src.Type())
	for i := 0; i < src.NumField(); i++ {
		if src.Type().Field(i).IsExported() {
			dst.Elem().Field(i).Set(src.Field(i))
		}
	}
	return dst.Interface().(*kube.Kind)
}

// coldStart starts a provider server as a new process would (fresh kinds, fresh schema cache)
// and asks for its schema.
func coldStart(tb testing.TB) *tfprotov6.GetProviderSchemaResponse {
	tb.Helper()
	saved := kinds
	defer func() { kinds = saved }()
	kinds = make([]*kube.Kind, len(saved))
	for i, k := range saved {
		kinds[i] = freshKind(k)
	}
	schemas = protocol.SchemaCache{}
	return startAndGetSchema(tb)
}

// startAndGetSchema starts a provider server and asks for its schema.
func startAndGetSchema(tb testing.TB) *tfprotov6.GetProviderSchemaResponse {
	tb.Helper()
	srv := NewServer("bench")()
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		tb.Fatalf("GetProviderSchema: %s: %s", d.Summary, d.Detail)
	}
	return resp
}

// BenchmarkColdStart: a provider process's start and its GetProviderSchema answer.
func BenchmarkColdStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		coldStart(b)
	}
}

// TestSchemaAgreesWithFramework: the provider's GetProviderSchema answer (protoschema.Build,
// which converts the kinds' schemas itself) is the framework's own answer, down
// to every attribute, and the framework finds no fault in any schema.
func TestSchemaAgreesWithFramework(t *testing.T) {
	ctx := context.Background()
	want, err := providerserver.NewProtocol6(&kubeinferProvider{version: "test"})().GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range want.Diagnostics {
		t.Errorf("framework: %s: %s", d.Summary, d.Detail)
	}
	want.ServerCapabilities.GenerateResourceConfig = true // what protocol's server adds
	got := coldStart(t)
	compare := func(what string, got, want map[string]*tfprotov6.Schema) {
		t.Helper()
		for name, w := range want {
			if !reflect.DeepEqual(got[name], w) {
				t.Errorf("%s %s differs from the framework's:\n%s", what, name, firstDifference(got[name], w))
			}
		}
		for name := range got {
			if want[name] == nil {
				t.Errorf("%s %s is not in the framework's answer", what, name)
			}
		}
	}
	compare("resource", got.ResourceSchemas, want.ResourceSchemas)
	compare("data source", got.DataSourceSchemas, want.DataSourceSchemas)
	compare("list resource", got.ListResourceSchemas, want.ListResourceSchemas)
	if !reflect.DeepEqual(got, want) {
		g, w := *got, *want
		g.ResourceSchemas, g.DataSourceSchemas, g.ListResourceSchemas = nil, nil, nil
		w.ResourceSchemas, w.DataSourceSchemas, w.ListResourceSchemas = nil, nil, nil
		t.Errorf("the answer differs from the framework's outside the resource, data source and list resource schemas:\n%s",
			firstDifference(g, w))
	}
}

// firstDifference is the JSON of both values where they first differ.
func firstDifference(got, want any) string {
	g, _ := json.MarshalIndent(got, "", " ")
	w, _ := json.MarshalIndent(want, "", " ")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	from := max(0, i-400)
	return fmt.Sprintf("got:  ...%s...\nwant: ...%s...", g[from:min(len(g), i+200)], w[from:min(len(w), i+200)])
}
