package leaderworkerset_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// resourceConfig is the configuration value of a kubeinfer_leaderworkerset for obj.
func resourceConfig(typ tftypes.Object, obj *lwsv1.LeaderWorkerSet) tftypes.Value {
	var attrs map[string]tftypes.Value
	_ = k8sschema.Encode(leaderworkerset.Kind.Node(), obj).As(&attrs)
	for name, t := range typ.AttributeTypes {
		if _, ok := attrs[name]; !ok {
			attrs[name] = tftypes.NewValue(t, nil)
		}
	}
	for _, computed := range []string{"status", "id"} {
		attrs[computed] = tftypes.NewValue(typ.AttributeTypes[computed], nil)
	}
	var meta map[string]tftypes.Value
	_ = attrs["metadata"].As(&meta)
	for _, computed := range []string{"uid", "resource_version", "generation"} {
		meta[computed] = tftypes.NewValue(meta[computed].Type(), nil)
	}
	attrs["metadata"] = tftypes.NewValue(attrs["metadata"].Type(), meta)
	return tftypes.NewValue(typ, attrs)
}

// BenchmarkPlanCreate measures what the provider does for one LeaderWorkerSet during
// `terraform plan` of a new object: validate the configuration and plan the change.
func BenchmarkPlanCreate(b *testing.B) {
	ctx := context.Background()
	srv := provider.NewServer("test")()
	sch, _ := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	typ := sch.ResourceSchemas["kubeinfer_leaderworkerset"].ValueType().(tftypes.Object)
	cfg := resourceConfig(typ, lwsfixture.VLLM("bench", 2, 4))
	dv, err := tfprotov6.NewDynamicValue(typ, cfg)
	if err != nil {
		b.Fatal(err)
	}
	null, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		vr, _ := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "kubeinfer_leaderworkerset", Config: &dv})
		for _, d := range vr.Diagnostics {
			b.Fatal(d.Summary, d.Detail)
		}
		pr, _ := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "kubeinfer_leaderworkerset", Config: &dv, ProposedNewState: &dv, PriorState: &null})
		for _, d := range pr.Diagnostics {
			b.Fatal(d.Summary, d.Detail)
		}
	}
}

// BenchmarkGetProviderSchema measures the schema Terraform asks for once per provider start.
func BenchmarkGetProviderSchema(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		srv := providerserver.NewProtocol6(provider.New("test")())()
		if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			b.Fatal(err)
		}
	}
}
