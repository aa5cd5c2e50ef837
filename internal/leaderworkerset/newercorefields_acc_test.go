package leaderworkerset_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube/kubetest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// h2cProbe gives the worker an httpGet readiness probe, with the protocol of Kubernetes 1.37
// (k8s.io/api v0.37, which the released controllers' v0.36 types lack) when protocol is set.
func h2cProbe(protocol string) lwsfixture.Option {
	return func(l *lwsv1.LeaderWorkerSet) {
		get := &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8080), Scheme: corev1.URISchemeHTTP}
		if protocol != "" {
			get.Protocol = ptr.To(corev1.HTTPProtocol(protocol))
		}
		lwsfixture.Worker(l).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: get},
			TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
	}
}

// TestAccLeaderWorkerSet_newerCoreFieldRestartsNoGroup: under a CRD that declares the fields of
// Kubernetes 1.37 (the newer-fields profile: generated from this provider's types), adding one
// to a running LeaderWorkerSet stores it, yet the released controllers, which decode with
// k8s.io/api v0.36, never see it: the plan foresees no rolling update, and
// allow_group_restarts = false lets it through; the next plan is empty. (The configuration's
// warning on the attribute, from ValidateResourceConfig: TestNewerCoreFieldWarning.) On the released CRD
// the apply fails on the attribute and says why (TestAccLeaderWorkerSet_newerFieldOnReleasedCRD).
func TestAccLeaderWorkerSet_newerCoreFieldRestartsNoGroup(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "the plan of a Kubernetes 1.37 field on a running LeaderWorkerSet")
	const name = "acc-newer-core"
	newerFieldsClient(t)
	pc := acctest.ProviderConfigFor(newerFieldsCluster(t))
	const guard = `allow_group_restarts = false`
	var w kubetest.Warnings
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: w.Factories(acctest.ProviderFactories),
		Steps: []resource.TestStep{
			{Config: pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU, h2cProbe("")), guard)},
			{
				PreConfig: func() { w.TakePlan() },
				Config:    pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU, h2cProbe("H2C")), guard),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					for _, got := range w.TakePlan() {
						if strings.Contains(got, "Rolling update") || strings.Contains(got, "New revision") {
							return fmt.Errorf("the plan foresees a rollout the controller never makes: %s", got)
						}
					}
					return nil
				},
			},
			{Config: pc + vllm(lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU, h2cProbe("H2C")), guard), PlanOnly: true},
		},
	})
}

// TestAccLeaderWorkerSet_newerCoreFieldOnReleasedCRD: the released CRD refuses a field of
// Kubernetes 1.37 in a template, and the error on the attribute says the released controllers'
// types lack it (not that a newer CRD would do).
func TestAccLeaderWorkerSet_newerCoreFieldOnReleasedCRD(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "the released CRD's answer to a Kubernetes 1.37 field")
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      pc + vllm(lwsfixture.VLLM("acc-newer-core-released", 2, 2, lwsfixture.SmallGPU, h2cProbe("H2C"))),
			ExpectError: regexp.MustCompile(`(?s)readiness_probe\.http_get\.protocol.*Kubernetes\s+1\.37\s+API`),
		}},
	})
}
