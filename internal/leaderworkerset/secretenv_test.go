package leaderworkerset_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// TestSecretEnvWarning: a literal value in an env var named like a credential warns, on the
// value's attribute (as Terraform receives the diagnostic from ValidateResourceConfig), unless
// the value is only a placeholder as the upstream examples write them.
func TestSecretEnvWarning(t *testing.T) {
	ctx := context.Background()
	srv := provider.NewServer("test")()
	sch, _ := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	typ := sch.ResourceSchemas["kubeinfer_leaderworkerset"].ValueType().(tftypes.Object)
	want := tftypes.NewAttributePath().WithAttributeName("spec").WithAttributeName("leader_worker_template").
		WithAttributeName("worker_template").WithAttributeName("spec").WithAttributeName("containers").WithElementKeyInt(0).
		WithAttributeName("env").WithElementKeyInt(1).WithAttributeName("value")
	for _, c := range []struct {
		value string
		warns bool
	}{
		{"hf_abcdefghijklmnopqrstuvwxyz", true},
		{"$HF_TOKEN", false},
		{"${HF_TOKEN}", false},
		{"$(HF_TOKEN)", false},
		{"<your-hugging-face-token>", false},
		{"$HF_TOKEN-and-more", true},
	} {
		obj := lwsfixture.VLLM("secret", 1, 2)
		worker := &obj.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0]
		worker.Env = []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "HF_TOKEN", Value: c.value}}
		dv, err := tfprotov6.NewDynamicValue(typ, resourceConfig(typ, obj))
		if err != nil {
			t.Fatal(err)
		}
		resp, _ := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "kubeinfer_leaderworkerset", Config: &dv})
		var found *tfprotov6.Diagnostic
		for _, d := range resp.Diagnostics {
			if d.Summary == "Secret in a literal env value" {
				found = d
			}
		}
		switch {
		case c.warns && found == nil:
			t.Errorf("%q: no warning", c.value)
		case !c.warns && found != nil:
			t.Errorf("%q is a placeholder, but warned: %s", c.value, found.Detail)
		case found != nil && !found.Attribute.Equal(want):
			t.Errorf("%q: the warning is on %v, want %v", c.value, found.Attribute, want)
		}
	}
}
