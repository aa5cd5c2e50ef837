package provider

import (
	"bytes"
	"context"
	"net"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/protocol"
)

// servedSchemaAllocsCeiling: the released binary's GetProviderSchema, answered from the bytes
// encoded at build time, over gRPC (client and server sides of one call in this process).
// Measured 2026-12-04: about 270. The same answer built (coldStartAllocsCeiling) is ~105,000.
const servedSchemaAllocsCeiling = 1_000

// TestSchemaAnswerIsCurrent: the encoded answer the binary serves is the answer the code gives
// (which TestSchemaAgreesWithFramework compares with the framework's).
func TestSchemaAnswerIsCurrent(t *testing.T) {
	if err := protocol.SameSchemaAnswer(context.Background(), RegistryAddress, NewServer("test"), SchemaAnswer()); err != nil {
		t.Fatalf("internal/provider/schema_answer.binpb is stale (run `make generate`): %v", err)
	}
}

// TestSchemaAnswerStaleIsFound: an answer that differs in one resource's schema fails the check,
// which names that resource.
func TestSchemaAnswerStaleIsFound(t *testing.T) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName("tfplugin6.GetProviderSchema.Response")
	if err != nil {
		t.Fatal(err)
	}
	answer := mt.New()
	if err := proto.Unmarshal(SchemaAnswer(), answer.Interface()); err != nil {
		t.Fatal(err)
	}
	schemas := answer.Get(mt.Descriptor().Fields().ByName("resource_schemas")).Map()
	lws := schemas.Get(protoreflect.ValueOfString("kubeinfer_leaderworkerset").MapKey()).Message()
	lws.Set(lws.Descriptor().Fields().ByName("version"), protoreflect.ValueOfInt64(7))
	stale, err := proto.Marshal(answer.Interface())
	if err != nil {
		t.Fatal(err)
	}
	err = protocol.SameSchemaAnswer(context.Background(), RegistryAddress, NewServer("test"), stale)
	if err == nil || !strings.Contains(err.Error(), `resource_schemas["kubeinfer_leaderworkerset"]`) {
		t.Fatalf("a stale answer gave %v, want a difference in resource_schemas[\"kubeinfer_leaderworkerset\"]", err)
	}
}

// rawCodec passes messages through as bytes: the client sees exactly what the server sends.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

// serveOverGRPC serves the provider as the binary does (tf6server's gRPC service, with
// protocol.AnswerSchemaOptions) on a loopback port and returns a client connection.
func serveOverGRPC(t *testing.T) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(protocol.AnswerSchemaOptions(SchemaAnswer())...)
	if err := (&tf6server.GRPCProviderPlugin{GRPCProvider: NewServer("test"), Name: RegistryAddress}).GRPCServer(nil, srv); err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// TestSchemaAnswerServedOverGRPC: over gRPC, GetProviderSchema answers the encoded bytes as they
// are, and the other RPCs are still tf6server's (GetMetadata names every resource type).
func TestSchemaAnswerServedOverGRPC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn := serveOverGRPC(t)
	var req, resp []byte
	if err := conn.Invoke(ctx, "/tfplugin6.Provider/GetProviderSchema", &req, &resp, grpc.ForceCodecV2(rawCodec{})); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(resp, SchemaAnswer()) {
		t.Fatalf("GetProviderSchema sent %d bytes that are not the encoded answer (%d bytes)", len(resp), len(SchemaAnswer()))
	}

	mt, err := protoregistry.GlobalTypes.FindMessageByName("tfplugin6.GetMetadata.Response")
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Invoke(ctx, "/tfplugin6.Provider/GetMetadata", &req, &resp, grpc.ForceCodecV2(rawCodec{})); err != nil {
		t.Fatal(err)
	}
	md := mt.New().Interface()
	if err := proto.Unmarshal(resp, md); err != nil {
		t.Fatal(err)
	}
	resources := md.ProtoReflect().Get(md.ProtoReflect().Descriptor().Fields().ByName("resources")).List()
	var names []string
	for i := 0; i < resources.Len(); i++ {
		m := resources.Get(i).Message()
		names = append(names, m.Get(m.Descriptor().Fields().ByName("type_name")).String())
	}
	for _, want := range []string{"kubeinfer_leaderworkerset", "kubeinfer_disaggregatedset", "kubeinfer_flow_schema", "kubeinfer_priority_level_configuration"} {
		if !slices.Contains(names, want) {
			t.Errorf("GetMetadata over gRPC names resources %v, without %s", names, want)
		}
	}
}

// TestServedSchemaAllocations: answering GetProviderSchema from the encoded bytes allocates a
// few hundred objects, where building it made ~105,000 (coldStartAllocsCeiling).
func TestServedSchemaAllocations(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn := serveOverGRPC(t)
	var req, resp []byte
	call := func() {
		if err := conn.Invoke(ctx, "/tfplugin6.Provider/GetProviderSchema", &req, &resp, grpc.ForceCodecV2(rawCodec{})); err != nil {
			t.Fatal(err)
		}
	}
	call() // connection set-up
	var before, after runtime.MemStats
	const calls = 5
	runtime.ReadMemStats(&before)
	for i := 0; i < calls; i++ {
		call()
	}
	runtime.ReadMemStats(&after)
	n := (after.Mallocs - before.Mallocs) / calls
	t.Logf("GetProviderSchema over gRPC from the encoded answer: %d allocations (ceiling %d)", n, servedSchemaAllocsCeiling)
	if n > servedSchemaAllocsCeiling {
		t.Errorf("GetProviderSchema from the encoded answer made %d allocations, above the ceiling of %d", n, servedSchemaAllocsCeiling)
	}
}
