package leaderworkerset_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// TestAccLeaderWorkerSet_webhookReencodedValues: what the released webhook stores differently
// from what was written, and what it makes the CRD refuse, through real Terraform.
//   - An env entry reading a resource without a divisor (stored as "0"), an empty annotation
//     value and an empty argument apply without "Provider produced inconsistent result after
//     apply", record what was written, and plan no change afterwards.
//   - An env name given twice, and a claim template's dataSource without api_group (which the
//     webhook writes as null), fail the plan on that attribute, as the server would refuse the
//     apply.
func TestAccLeaderWorkerSet_webhookReencodedValues(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "what the released webhook stores")
	name := "acc-vllm-reencoded"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	written := func(l *lwsv1.LeaderWorkerSet) {
		for _, c := range []*corev1.Container{lwsfixture.Leader(l), lwsfixture.Worker(l)} {
			c.Env = append(c.Env, corev1.EnvVar{Name: "CPU_LIMIT", ValueFrom: &corev1.EnvVarSource{
				ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}})
			c.Args = append(c.Args, "")
		}
		l.Spec.LeaderWorkerTemplate.WorkerTemplate.Annotations = map[string]string{"example.com/empty": ""}
	}
	cfg := func(opts ...lwsfixture.Option) string {
		return pc + vllm(lwsfixture.VLLM(name, 1, 2, append([]lwsfixture.Option{lwsfixture.SmallGPU, written}, opts...)...))
	}
	worker := tfjsonpath.New("spec").AtMapKey("leader_worker_template").AtMapKey("worker_template")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				Config: cfg(),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, worker.AtMapKey("metadata").AtMapKey("annotations"),
						knownvalue.MapExact(map[string]knownvalue.Check{"example.com/empty": knownvalue.StringExact("")})),
					statecheck.ExpectKnownValue(addr, worker.AtMapKey("spec").AtMapKey("containers").AtSliceIndex(0).AtMapKey("env").
						AtSliceIndex(1).AtMapKey("value_from").AtMapKey("resource_field_ref").AtMapKey("divisor"), knownvalue.Null()),
				},
			},
			{Config: cfg(), PlanOnly: true},
			{
				Config: cfg(func(l *lwsv1.LeaderWorkerSet) {
					w := lwsfixture.Worker(l)
					w.Env = append(w.Env, corev1.EnvVar{Name: "CPU_LIMIT", Value: "2"})
				}),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)worker_template\.spec\.containers\[0\]\.env\[\d\].*Duplicate value`),
			},
			{
				Config: cfg(func(l *lwsv1.LeaderWorkerSet) {
					l.Spec.LeaderWorkerTemplate.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
						Spec: corev1.PersistentVolumeClaimSpec{
							AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
							Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: apiresource.MustParse("10Gi")}},
							DataSource:  &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "model-cache-seed"},
						}}}
					l.Spec.LeaderWorkerTemplate.VolumeClaimTemplates[0].Name = "model-cache"
				}),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)volume_claim_templates\[0\]\.spec\.data_source\.api_group.*api_group`),
			},
			{Config: cfg(), PlanOnly: true}, // the destroy reads the last configuration
		},
	})
}

// TestAccLeaderWorkerSet_claimTemplateChangeReplaces: a changed volume claim template cannot be
// carried out in place (the controller's StatefulSets refuse it: their volumeClaimTemplates are
// immutable), so the plan shows a replacement, and the apply replaces the object; a change the
// controller does not copy into its StatefulSets (a claim template's labels) stays in place.
func TestAccLeaderWorkerSet_claimTemplateChangeReplaces(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "what the released controller does with a changed claim template")
	name := "acc-vllm-claims"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	cfg := func(size string, labels map[string]string) string {
		return pc + vllm(lwsfixture.VLLM(name, 0, 2, lwsfixture.SmallGPU, func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: apiresource.MustParse(size)}},
				}}}
			l.Spec.LeaderWorkerTemplate.VolumeClaimTemplates[0].Name = "model-cache"
			l.Spec.LeaderWorkerTemplate.VolumeClaimTemplates[0].Labels = labels
		}))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{Config: cfg("100Gi", nil)},
			{
				Config: cfg("100Gi", map[string]string{"team": "inference"}),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
			},
			{
				Config: cfg("200Gi", map[string]string{"team": "inference"}),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
			{Config: cfg("200Gi", map[string]string{"team": "inference"}), PlanOnly: true},
		},
	})
}
