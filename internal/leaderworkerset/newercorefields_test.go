package leaderworkerset_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// TestNewerCoreFieldWarning: a field of Kubernetes 1.37 in a template (an httpGet probe's
// protocol) warns on its attribute, as Terraform receives the diagnostic from
// ValidateResourceConfig; the same probe without it does not.
func TestNewerCoreFieldWarning(t *testing.T) {
	ctx := context.Background()
	srv := provider.NewServer("test")()
	sch, _ := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	typ := sch.ResourceSchemas["kubeinfer_leaderworkerset"].ValueType().(tftypes.Object)
	want := tftypes.NewAttributePath().WithAttributeName("spec").WithAttributeName("leader_worker_template").
		WithAttributeName("worker_template").WithAttributeName("spec").WithAttributeName("containers").WithElementKeyInt(0).
		WithAttributeName("readiness_probe").WithAttributeName("http_get").WithAttributeName("protocol")
	for _, protocol := range []string{"", "H2C"} {
		obj := lwsfixture.VLLM("newer-core", 1, 2, h2cProbe(protocol))
		dv, err := tfprotov6.NewDynamicValue(typ, resourceConfig(typ, obj))
		if err != nil {
			t.Fatal(err)
		}
		resp, _ := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "kubeinfer_leaderworkerset", Config: &dv})
		var found []*tfprotov6.Diagnostic
		for _, d := range resp.Diagnostics {
			if d.Summary == "Field the released LeaderWorkerSet controllers never pass on" {
				found = append(found, d)
			}
		}
		switch {
		case protocol == "" && len(found) > 0:
			t.Errorf("no newer field, but warned: %s", found[0].Detail)
		case protocol != "" && len(found) != 1:
			t.Errorf("protocol %s: want one warning, got %d", protocol, len(found))
		case protocol != "" && (!found[0].Attribute.Equal(want) || !strings.Contains(found[0].Detail, "Kubernetes 1.37 API")):
			t.Errorf("protocol %s: the warning is on %v (want %v): %s", protocol, found[0].Attribute, want, found[0].Detail)
		}
	}
}
