package acctest

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// DestroyFalseTest tests lifecycle { destroy = false } (Terraform 1.16 and OpenTofu 1.12 and later;
// skipped under older CLIs) on the object name of kind (in the namespace "default" when kind is
// namespaced) that config declares as the resource addr: see destroyFalseSteps. checkDestroy, if
// not nil, checks the cluster after the test's final destroy.
func DestroyFalseTest(t *testing.T, kind *kube.Kind, config, addr, name string, checkDestroy resource.TestCheckFunc) {
	t.Helper()
	var ri dynamic.ResourceInterface = Cluster(t).Dynamic().Resource(kind.GVR())
	importID := name
	if kind.Namespaced {
		ri = Cluster(t).Dynamic().Resource(kind.GVR()).Namespace("default")
		importID = "default/" + name
	}
	versionChecks := SkipBelowTerraform116()
	if UnderOpenTofu() {
		versionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(OpenTofu112)}
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   versionChecks,
		ProtoV6ProviderFactories: ProviderFactories,
		CheckDestroy:             checkDestroy,
		Steps:                    destroyFalseSteps(config, addr, importID, ri, name, UnderOpenTofu()),
	})
}

// forgetErrorUnderOpenTofu is how OpenTofu ends a run that forgot objects instead of destroying
// them: it forgets them, then fails with this error unless given -suppress-forget-errors
// (opentofu v1.12.6, `tofu destroy` and `tofu apply` of a destroy plan), which
// terraform-plugin-testing cannot pass.
var forgetErrorUnderOpenTofu = regexp.MustCompile(`Destroy was successful but left\s+behind\s+forgotten\s+instances`)

// destroyFalseSteps are the steps of a test of lifecycle { destroy = false } (Terraform 1.16,
// OpenTofu 1.12), the way to hand an object over to another tool. config holds the resource
// addr; its block gets the rule. Terraform 1.16 applies the rule where it would destroy the
// object with the block still in the configuration (terraform destroy, a replacement); a block
// removed from the configuration is destroyed unless a removed block says destroy = false
// (hashicorp/terraform v1.16.3 internal/terraform/node_resource_plan_orphan.go: the rule is
// read from the resource's configuration). So:
//  1. the object is created with the rule;
//  2. a destroy plans forget, not delete: the state forgets the object and the object (ri, name)
//     stays in the cluster with the same UID. Under OpenTofu (openTofu) the apply of that plan
//     ends with forgetErrorUnderOpenTofu, so the step expects it and a plan of the same
//     configuration then shows the object's create: the state no longer holds it;
//  3. an import block (importID) adopts it again with an empty plan, and it is the same object
//     (UID). Its configuration has no rule, so the test's final destroy deletes the object.
func destroyFalseSteps(config, addr, importID string, ri dynamic.ResourceInterface, name string, openTofu bool) []resource.TestStep {
	header := fmt.Sprintf("resource %q %q {", strings.SplitN(addr, ".", 2)[0], strings.SplitN(addr, ".", 2)[1])
	kept := strings.Replace(config, header, header+"\n  lifecycle {\n    destroy = false\n  }\n", 1)
	adopt := config + fmt.Sprintf("\nimport {\n  to = %s\n  id = %q\n}\n", addr, importID)
	var uid string
	sameObject := func(after string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			u, err := ri.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("destroy = false: after %s, the object is gone from the cluster: %w", after, err)
			}
			if string(u.GetUID()) != uid {
				return fmt.Errorf("destroy = false: after %s, the object was recreated (UID %s -> %s)", after, uid, u.GetUID())
			}
			return nil
		}
	}
	steps := []resource.TestStep{{
		Config: kept,
		Check: func(*terraform.State) error {
			u, err := ri.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			uid = string(u.GetUID())
			return nil
		},
	}}
	forget := resource.TestStep{
		Config:  kept,
		Destroy: true,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			expectForget{addr: addr},
		}},
	}
	if openTofu {
		forget.ExpectError = forgetErrorUnderOpenTofu
		steps = append(steps, forget, resource.TestStep{
			Config:             kept,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
			}},
		})
	} else {
		forget.Check = sameObject("terraform destroy")
		forget.ConfigStateChecks = []statecheck.StateCheck{stateForgot{addr: addr}}
		steps = append(steps, forget)
	}
	return append(steps, resource.TestStep{
		Config: adopt,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
			plancheck.ExpectEmptyPlan(),
		}},
		Check: sameObject("the forget and the import"),
	})
}

// expectForget checks that the plan forgets addr: the action "forget" alone, no delete.
type expectForget struct{ addr string }

func (e expectForget) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.addr {
			continue
		}
		if !rc.Change.Actions.Forget() {
			resp.Error = fmt.Errorf("%s: planned %v, want [forget]", e.addr, rc.Change.Actions)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: not in the plan", e.addr)
}

// stateForgot checks that the state no longer holds addr.
type stateForgot struct{ addr string }

func (s stateForgot) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address == s.addr {
			resp.Error = fmt.Errorf("%s is still in the state", s.addr)
			return
		}
	}
}
