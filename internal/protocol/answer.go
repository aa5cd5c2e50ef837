package protocol

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The GetProviderSchema answer encoded at build time (issue #28).
//
// Terraform starts the provider for every command and asks a new process for the whole schema:
// about 9,700 attributes, whose building (the kinds' node trees, the framework's schemas, their
// conversion and tf6server's protobuf encoding) was 60% of a schema-only process's CPU and most
// of its heap. The answer depends only on the code, so EncodeSchemaAnswer encodes it once
// (scripts/schemaanswer writes internal/provider/schema_answer.binpb, checked by
// TestSchemaAnswerIsCurrent) and Serve sends those bytes as they are. The other RPCs are
// tf6server's as before; they build the schema of the types they use when they need it.

// getProviderSchemaMethod is the gRPC method of GetProviderSchema (tfplugin6.proto, service
// Provider).
const getProviderSchemaMethod = "/tfplugin6.Provider/GetProviderSchema"

// Serve serves the provider as tf6server.Serve does without debug options (terraform-plugin-go
// v0.31.0, tfprotov6/tf6server/server.go Serve: go-plugin handshake of protocol 6, the plugin
// set, gRPC message limits of 256 MiB), and answers GetProviderSchema with answer, the bytes
// EncodeSchemaAnswer gave at build time. An empty answer leaves GetProviderSchema to the server.
func Serve(name string, factory func() tfprotov6.ProviderServer, answer []byte) {
	const maxMessageSize = 256 << 20 // tf6server's grpcMaxMessageSize
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  6,
			MagicCookieKey:   "TF_PLUGIN_MAGIC_COOKIE",
			MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
		},
		Plugins: plugin.PluginSet{"provider": &tf6server.GRPCProviderPlugin{GRPCProvider: factory, Name: name}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, grpc.MaxRecvMsgSize(maxMessageSize), grpc.MaxSendMsgSize(maxMessageSize))
			opts = append(opts, AnswerSchemaOptions(answer)...)
			return grpc.NewServer(opts...)
		},
	})
}

// AnswerSchemaOptions are the gRPC server options that answer GetProviderSchema with answer:
// an interceptor returns the bytes in place of the server's answer, and a codec sends them as
// they are (every other message goes through gRPC's protobuf codec).
func AnswerSchemaOptions(answer []byte) []grpc.ServerOption {
	if len(answer) == 0 {
		return nil
	}
	return []grpc.ServerOption{
		grpc.ForceServerCodecV2(answerCodec{encoding.GetCodecV2("proto")}),
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			if info.FullMethod == getProviderSchemaMethod {
				return encodedAnswer(answer), nil
			}
			return handler(ctx, req)
		}),
	}
}

// encodedAnswer is a response already in its protobuf encoding.
type encodedAnswer []byte

// answerCodec is gRPC's protobuf codec (base) that sends an encodedAnswer as it is.
type answerCodec struct{ base encoding.CodecV2 }

func (c answerCodec) Marshal(v any) (mem.BufferSlice, error) {
	if b, ok := v.(encodedAnswer); ok {
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil // SliceBuffer: not returned to a pool when sent
	}
	return c.base.Marshal(v)
}

func (c answerCodec) Unmarshal(data mem.BufferSlice, v any) error { return c.base.Unmarshal(data, v) }

func (c answerCodec) Name() string { return c.base.Name() }

// EncodeSchemaAnswer is the protobuf encoding of the GetProviderSchema answer that tf6server
// gives for the server factory makes, with map entries in a fixed order so that the bytes only
// change when the schema does.
func EncodeSchemaAnswer(ctx context.Context, name string, factory func() tfprotov6.ProviderServer) ([]byte, error) {
	msg, err := schemaAnswer(ctx, name, factory)
	if err != nil {
		return nil, err
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(msg)
}

// SameSchemaAnswer reports whether the encoded answer is what the server factory makes answers
// now; if not, the error names the first part that differs.
func SameSchemaAnswer(ctx context.Context, name string, factory func() tfprotov6.ProviderServer, encoded []byte) error {
	live, err := schemaAnswer(ctx, name, factory)
	if err != nil {
		return err
	}
	stored := live.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(encoded, stored); err != nil {
		return fmt.Errorf("the encoded answer does not decode: %w", err)
	}
	if proto.Equal(live, stored) {
		return nil
	}
	return fmt.Errorf("the encoded answer differs from the server's in %s", firstDifference(live.ProtoReflect(), stored.ProtoReflect()))
}

// firstDifference names the first field of two different messages that differs, with the key
// for a map field (the schemas of resources, data sources and others are maps by type name).
func firstDifference(a, b protoreflect.Message) string {
	fields := a.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		av, bv := a.Get(fd), b.Get(fd)
		if av.Equal(bv) {
			continue
		}
		if !fd.IsMap() {
			return string(fd.Name())
		}
		where := string(fd.Name())
		seen := func(m, other protoreflect.Map) {
			m.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				if !other.Has(k) || !other.Get(k).Equal(v) {
					where = fmt.Sprintf("%s[%q]", fd.Name(), k.String())
					return false
				}
				return true
			})
		}
		seen(bv.Map(), av.Map())
		seen(av.Map(), bv.Map())
		return where
	}
	return "unknown fields"
}

// schemaAnswer calls GetProviderSchema on tf6server's gRPC server for the provider, as
// Terraform does over gRPC. That server's type and messages are internal to terraform-plugin-go
// (tfprotov6/internal/tfplugin6): the method is reached by reflection and its answer is a
// proto.Message.
func schemaAnswer(ctx context.Context, name string, factory func() tfprotov6.ProviderServer) (proto.Message, error) {
	method := reflect.ValueOf(tf6server.New(name, factory())).MethodByName("GetProviderSchema")
	if !method.IsValid() || method.Type().NumIn() != 2 || method.Type().NumOut() != 2 {
		return nil, errors.New("tf6server's server has no GetProviderSchema(ctx, request) method")
	}
	out := method.Call([]reflect.Value{reflect.ValueOf(ctx), reflect.New(method.Type().In(1).Elem())})
	if err, _ := out[1].Interface().(error); err != nil {
		return nil, err
	}
	msg, ok := out[0].Interface().(proto.Message)
	if !ok || out[0].IsNil() {
		return nil, errors.New("tf6server's GetProviderSchema gave no protobuf message")
	}
	return msg, nil
}
