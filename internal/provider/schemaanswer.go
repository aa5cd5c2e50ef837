package provider

import _ "embed" // the encoded schema answer

// RegistryAddress is the provider's address in the registry, as Terraform names it.
const RegistryAddress = "registry.terraform.io/kubeinfer/kubeinfer"

// schemaAnswer is the provider's GetProviderSchema answer in its protobuf encoding, written by
// `make generate` (go run ./scripts/schemaanswer) and checked against the code by
// TestSchemaAnswerIsCurrent. The released binary sends it as it is (protocol.Serve) instead of
// building ~9,700 attributes in every process Terraform starts (issue #28).
//
//go:embed schema_answer.binpb
var schemaAnswer []byte

// SchemaAnswer returns the encoded GetProviderSchema answer (not to be modified).
func SchemaAnswer() []byte { return schemaAnswer }
