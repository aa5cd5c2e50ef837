// Package protocol is the provider's protocol 6 server (tfprotov6.ProviderServer) for the
// kinds' resources. It wraps the terraform-plugin-framework server and serves
// ValidateResourceConfig, PlanResourceChange, ReadResource, ApplyResourceChange,
// UpgradeResourceState and GenerateResourceConfig of those resources itself, directly on the
// tftypes values of the requests; everything else (schemas, provider configuration, import,
// data sources, list resources, functions) goes to the framework.
//
// It exists for speed. The framework plans, validates, reads and applies a resource by walking
// every attribute of its schema, looking each one up from the schema root and converting values
// to framework types at every level. For a LeaderWorkerSet (two pod templates, ~2,300
// attributes) that costs about 250 ms of CPU per object, so 100 objects take half a minute
// before the provider does any work of its own. This server gives the same answers (defaults,
// computed values marked unknown on change, the resource's plan modification, replacements) in
// one walk of the value, by calling the same kube.Resource methods as the framework's resource
// methods do. The state codec (statecodec.go) re-encodes stored JSON states as msgpack without
// building tftypes values, and reads an object's name and resourceVersion from a state without
// decoding the rest.
//
// One file per RPC family, as in hashicorp's manifest provider (terraform-provider-kubernetes,
// manifest/provider): server.go (the server and the kinds' resources it serves), schema.go
// (GetProviderSchema, GetMetadata and the schema builder), validate.go, plan.go, read.go,
// apply.go, upgrade.go, generateconfig.go, forward.go (the list resource and action RPCs,
// passed to the framework) and convert.go (diagnostics, attribute paths and identities in the
// protocol's types).
//
// Serve (answer.go) is the binary's go-plugin server: tf6server's gRPC service, with the
// GetProviderSchema answer sent from bytes encoded at build time.
//
// The provider's differential tests require this server and the plain framework server to
// answer every kind's corpus the same: TestFastPathAgreesWithFramework for the RPCs that need
// no cluster, TestAccFastPathAgreesWithFramework_cluster for reads, creates, updates, imports
// and deletes on the test cluster (both in package provider).
package protocol
