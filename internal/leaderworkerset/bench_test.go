package leaderworkerset_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"

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

// scaledTemplate is the vLLM fixture with n more items of one kind in the worker template:
// containers, env entries of the main container, volumes or tolerations.
func scaledTemplate(dim string, n int) *lwsv1.LeaderWorkerSet {
	obj := lwsfixture.VLLM("bench", 2, 4)
	spec := &obj.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec
	for i := 0; i < n; i++ {
		switch dim {
		case "containers":
			spec.Containers = append(spec.Containers, corev1.Container{Name: fmt.Sprintf("sidecar-%d", i), Image: "busybox:1.37"})
		case "env":
			spec.Containers[0].Env = append(spec.Containers[0].Env, corev1.EnvVar{Name: fmt.Sprintf("VAR_%d", i), Value: "x"})
		case "volumes":
			spec.Volumes = append(spec.Volumes, corev1.Volume{Name: fmt.Sprintf("vol-%d", i), VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		case "tolerations":
			spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: fmt.Sprintf("example.com/t-%d", i), Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
		}
	}
	return obj
}

// BenchmarkPlanCreateScale is BenchmarkPlanCreate with 10 to 10,000 containers, env entries,
// volumes or tolerations in the worker template: the provider's cost per item should stay flat
// (linear in the size of the configuration). Terraform's own cost is measured apart, by
// `make bench-terraform`.
//
//	go test -run '^$' -bench 'PlanCreateScale' ./internal/leaderworkerset/
func BenchmarkPlanCreateScale(b *testing.B) {
	ctx := context.Background()
	srv := provider.NewServer("test")()
	sch, _ := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	typ := sch.ResourceSchemas["kubeinfer_leaderworkerset"].ValueType().(tftypes.Object)
	null, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	for _, dim := range []string{"containers", "env", "volumes", "tolerations"} {
		for _, n := range []int{10, 100, 1000, 10000} {
			b.Run(fmt.Sprintf("%s=%d", dim, n), func(b *testing.B) {
				dv, err := tfprotov6.NewDynamicValue(typ, resourceConfig(typ, scaledTemplate(dim, n)))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					vr, _ := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "kubeinfer_leaderworkerset", Config: &dv})
					for _, d := range vr.Diagnostics {
						b.Fatal(d.Summary, d.Detail)
					}
					pr, _ := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "kubeinfer_leaderworkerset", Config: &dv, ProposedNewState: &dv, PriorState: &null})
					for _, d := range pr.Diagnostics {
						b.Fatal(d.Summary, d.Detail)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/item")
			})
		}
	}
}
