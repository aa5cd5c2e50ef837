package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// terraform plan -generate-config-out (Terraform 1.14+ asks the provider, once it announces
// GenerateResourceConfig) writes a block without the planned defaults of an imported
// LeaderWorkerSet: no group_identity (which the released CRD does not have), no webhook
// defaults, no provider settings at their defaults; what the object sets stays.
func TestGenerateResourceConfigLeavesDefaultsOut(t *testing.T) {
	ctx := context.Background()
	srv := NewServer("test")()
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if sch.ServerCapabilities == nil || !sch.ServerCapabilities.GenerateResourceConfig {
		t.Fatal("GetProviderSchema does not announce GenerateResourceConfig")
	}
	meta, err := srv.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
	if err != nil || meta.ServerCapabilities == nil || !meta.ServerCapabilities.GenerateResourceConfig {
		t.Fatalf("GetMetadata does not announce GenerateResourceConfig (%v)", err)
	}

	const lws = "kubeinfer_leaderworkerset"
	typ := sch.ResourceSchemas[lws].ValueType().(tftypes.Object)
	// The state an import records: the object with every planned default filled in, and the
	// newer-API defaults an earlier version of the provider planned and recorded.
	obj := lwsfixture.VLLM("vllm", 2, 2)
	leaderworkerset.Kind.Defaults(obj, k8sschema.NullValue(leaderworkerset.Kind.Node()))
	obj.Spec.GroupIdentity = lwsv1.GroupIdentityOrdinal
	obj.Spec.GroupReplacementPolicy = lwsv1.GroupReplacementPostTermination
	node := objectAttrsOf(k8sschema.Encode(leaderworkerset.Kind.Node(), obj))
	state := nullExcept(typ, map[string]tftypes.Value{
		"metadata":         node["metadata"],
		"spec":             node["spec"],
		"force_conflicts":  tftypes.NewValue(tftypes.Bool, true),
		"wait_for_rollout": tftypes.NewValue(tftypes.Bool, true),
		"manage_replicas":  tftypes.NewValue(tftypes.Bool, false), // not the default: kept
	})
	dv, err := tfprotov6.NewDynamicValue(typ, state)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GenerateResourceConfig(ctx, &tfprotov6.GenerateResourceConfigRequest{TypeName: lws, State: &dv})
	if err != nil || len(resp.Diagnostics) > 0 || resp.Config == nil {
		t.Fatalf("GenerateResourceConfig: %v %v", err, resp.Diagnostics)
	}
	config, err := resp.Config.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	attrs := objectAttrsOf(config)
	spec := objectAttrsOf(attrs["spec"])
	for _, name := range []string{"group_identity", "group_replacement_policy", "rollout_strategy", "startup_policy", "network_config"} {
		if !spec[name].IsNull() {
			t.Errorf("spec.%s = %v in the generated configuration: a planned default", name, spec[name])
		}
	}
	for _, name := range []string{"force_conflicts", "wait_for_rollout", "id", "status"} {
		if !attrs[name].IsNull() {
			t.Errorf("%s = %v in the generated configuration", name, attrs[name])
		}
	}
	if v := attrs["manage_replicas"]; v.IsNull() {
		t.Error("manage_replicas = false (not the default) is missing from the generated configuration")
	}
	if spec["replicas"].IsNull() || objectAttrsOf(spec["leader_worker_template"])["size"].IsNull() {
		t.Errorf("replicas and size (2, not the defaults) must stay: %v", spec)
	}
}

func objectAttrsOf(v tftypes.Value) map[string]tftypes.Value {
	var m map[string]tftypes.Value
	_ = v.As(&m)
	return m
}
