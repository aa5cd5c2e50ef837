package k8sschema_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
)

// Per-object costs of the conversions and checks the provider runs for a LeaderWorkerSet: a
// plan of a new object decodes the configuration, applies the defaults, validates and encodes
// the defaulted object (target of issue #7: under 1 ms together); apply and refresh encode the
// server's object and merge it with the prior value.
//
//	go test -run '^$' -bench . -benchmem ./internal/k8sschema/

// lwsConfig is the configuration value of the vLLM fixture, as Terraform sends it.
func lwsConfig(tb testing.TB) (*k8sschema.Node, tftypes.Value) {
	tb.Helper()
	node := leaderworkerset.Kind.Node()
	v := k8sschema.Encode(node, lwsfixture.VLLM("bench", 2, 4))
	if v.IsNull() || !v.IsFullyKnown() {
		tb.Fatalf("unexpected encoded fixture: %v", v)
	}
	return node, v
}

// serverLWS is the fixture as the API server returns it: defaulted, with the CRD's structural
// defaults in the templates, server-set metadata and a status.
func serverLWS() *lwsv1.LeaderWorkerSet {
	obj := lwsfixture.VLLM("bench", 2, 4)
	lwsrules.SetDefaults(obj)
	obj.UID = types.UID("6f1c1f2e-8c4b-4a55-9d1e-3f0f0e8b7a10")
	obj.ResourceVersion = "12345"
	obj.Generation = 1
	for i := range obj.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.Containers[0].Ports {
		obj.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.Containers[0].Ports[i].Protocol = "TCP"
	}
	obj.Status = lwsv1.LeaderWorkerSetStatus{Replicas: 2, ReadyReplicas: 2, UpdatedReplicas: 2, HPAPodSelector: "leaderworkerset.sigs.k8s.io/name=bench"}
	return obj
}

func BenchmarkDecodeLWS(b *testing.B) {
	node, cfg := lwsConfig(b)
	b.ReportAllocs()
	for b.Loop() {
		obj := &lwsv1.LeaderWorkerSet{}
		if d := k8sschema.Decode(node, cfg, obj, nil); len(d.Errs) > 0 {
			b.Fatal(d.Errs)
		}
	}
}

func BenchmarkEncodeLWS(b *testing.B) {
	node := leaderworkerset.Kind.Node()
	obj := serverLWS()
	b.ReportAllocs()
	for b.Loop() {
		_ = k8sschema.Encode(node, obj)
	}
}

// BenchmarkMerge is the refresh of an unchanged object: the server's value merged into state.
func BenchmarkMerge(b *testing.B) {
	node := leaderworkerset.Kind.Node()
	defaulted := lwsfixture.VLLM("bench", 2, 4)
	lwsrules.SetDefaults(defaulted)
	prior := k8sschema.Encode(node, defaulted)
	server := k8sschema.Encode(node, serverLWS())
	b.ReportAllocs()
	for b.Loop() {
		_ = k8sschema.Merge(node, prior, server)
	}
}

// BenchmarkSemanticEqual is the comparison Merge starts with.
func BenchmarkSemanticEqual(b *testing.B) {
	node := leaderworkerset.Kind.Node()
	defaulted := lwsfixture.VLLM("bench", 2, 4)
	lwsrules.SetDefaults(defaulted)
	prior := k8sschema.Encode(node, defaulted)
	server := k8sschema.Encode(node, serverLWS())
	b.ReportAllocs()
	for b.Loop() {
		_ = k8sschema.SemanticEqual(node, prior, server)
	}
}

func BenchmarkValidateAllLWS(b *testing.B) {
	obj := lwsfixture.VLLM("bench", 2, 4)
	lwsrules.SetDefaults(obj)
	b.ReportAllocs()
	for b.Loop() {
		if errs := lwsrules.ValidateAll(obj); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkValidateAndConvert is the provider's own work per LeaderWorkerSet in a plan:
// decode the configuration, default, validate (every webhook and pod template rule), and, in
// the round trip, encode the defaulted object back into the planned value.
func BenchmarkValidateAndConvert(b *testing.B) {
	node, cfg := lwsConfig(b)
	step := func(b *testing.B, encode bool) {
		obj := &lwsv1.LeaderWorkerSet{}
		if d := k8sschema.Decode(node, cfg, obj, nil); len(d.Errs) > 0 {
			b.Fatal(d.Errs)
		}
		lwsrules.SetDefaults(obj)
		if errs := lwsrules.ValidateAll(obj); len(errs) > 0 {
			b.Fatal(errs)
		}
		if encode {
			_ = k8sschema.Encode(node, obj)
		}
	}
	b.Run("decode+defaults+validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			step(b, false)
		}
	})
	b.Run("decode+defaults+validate+encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			step(b, true)
		}
	})
}

func queuedPLC() *flowcontrolv1.PriorityLevelConfiguration {
	return &flowcontrolv1.PriorityLevelConfiguration{
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](10),
				LendablePercent:          ptr.To[int32](0),
				LimitResponse: flowcontrolv1.LimitResponse{
					Type:    flowcontrolv1.LimitResponseTypeQueue,
					Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 16, HandSize: 4, QueueLengthLimit: 50},
				},
			},
		},
	}
}

// BenchmarkConvertPLC is the round trip of a small object, for comparison.
func BenchmarkConvertPLC(b *testing.B) {
	node := prioritylevelconfiguration.Kind.Node()
	obj := queuedPLC()
	obj.Name = "bench"
	cfg := k8sschema.Encode(node, obj)
	b.ReportAllocs()
	for b.Loop() {
		out := &flowcontrolv1.PriorityLevelConfiguration{}
		if d := k8sschema.Decode(node, cfg, out, nil); len(d.Errs) > 0 {
			b.Fatal(d.Errs)
		}
		_ = k8sschema.Encode(node, out)
	}
}
