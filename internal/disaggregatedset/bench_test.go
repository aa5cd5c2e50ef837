package disaggregatedset_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// benchSet is a prefill/decode pair whose roles are the vLLM fixture of
// BenchmarkPlanCreate in internal/leaderworkerset (leader and worker templates each), so the
// two benchmarks compare one set of two roles with one LeaderWorkerSet.
func benchSet(b *testing.B) *disaggv1.DisaggregatedSet {
	data, err := json.Marshal(lwsfixture.VLLM("bench", 2, 4).Spec)
	if err != nil {
		b.Fatal(err)
	}
	var spec releasedlws.LeaderWorkerSetSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		b.Fatal(err)
	}
	spec.RolloutStrategy = releasedlws.RolloutStrategy{}
	spec.NetworkConfig = nil
	ds := &disaggv1.DisaggregatedSet{ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: "default"}}
	for _, name := range []string{"prefill", "decode"} {
		role := disaggv1.DisaggregatedRoleSpec{Name: name}
		role.Spec = *spec.DeepCopy()
		ds.Spec.Roles = append(ds.Spec.Roles, role)
	}
	return ds
}

// resourceConfig is the configuration value of a kubeinfer_disaggregatedset for ds.
func resourceConfig(typ tftypes.Object, ds *disaggv1.DisaggregatedSet) tftypes.Value {
	var attrs map[string]tftypes.Value
	_ = k8sschema.Encode(disaggregatedset.Kind.Node(), ds).As(&attrs)
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

// BenchmarkPlanCreate measures what the provider does for one DisaggregatedSet of two roles
// during `terraform plan` of a new object: validate the configuration and plan the change
// (compare with BenchmarkPlanCreate of internal/leaderworkerset, one such role).
func BenchmarkPlanCreate(b *testing.B) {
	ctx := context.Background()
	srv := provider.NewServer("test")()
	sch, _ := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	const typeName = "kubeinfer_disaggregatedset"
	typ := sch.ResourceSchemas[typeName].ValueType().(tftypes.Object)
	dv, err := tfprotov6.NewDynamicValue(typ, resourceConfig(typ, benchSet(b)))
	if err != nil {
		b.Fatal(err)
	}
	null, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	b.ReportAllocs()
	for b.Loop() {
		vr, _ := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: &dv})
		for _, d := range vr.Diagnostics {
			b.Fatal(d.Summary, d.Detail)
		}
		pr, _ := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: typeName, Config: &dv, ProposedNewState: &dv, PriorState: &null})
		for _, d := range pr.Diagnostics {
			b.Fatal(d.Summary, d.Detail)
		}
	}
}
