// Command schemaanswer writes the provider's GetProviderSchema answer, in the protobuf encoding
// tf6server sends, to internal/provider/schema_answer.binpb, which the provider binary embeds
// and serves (issue #28). `make generate` runs it; TestSchemaAnswerIsCurrent fails when the file
// is stale.
//
//	go run ./scripts/schemaanswer [-o internal/provider/schema_answer.binpb]
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/protocol"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

func main() {
	out := flag.String("o", "internal/provider/schema_answer.binpb", "file to write")
	flag.Parse()
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"} {
		_ = os.Setenv(v, "OFF") // tf6server and the framework would trace the call to stderr
	}
	b, err := protocol.EncodeSchemaAnswer(context.Background(), provider.RegistryAddress, provider.NewServer("generate"))
	if err != nil {
		log.Fatalf("schemaanswer: %v", err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatalf("schemaanswer: %v", err)
	}
	log.Printf("schemaanswer: %s, %d bytes", *out, len(b))
}
