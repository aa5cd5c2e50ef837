package leaderworkerset_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// offlineProvider points the provider at an address where nothing listens: plans of new
// resources never contact the cluster, so plan-time errors need none.
const offlineProvider = "provider \"kubeinfer\" {\n  host = \"https://127.0.0.1:9\"\n}\n"

const (
	workerSpec = "spec.leader_worker_template.worker_template.spec."
	leaderSpec = "spec.leader_worker_template.leader_template.spec."
)

type planErrorCase struct {
	name   string
	mutate func(*lwsv1.LeaderWorkerSet)
	// path is the Terraform attribute path the error detail starts with.
	path string
	// message is a part of the error detail after the path.
	message string
}

func workerTSC(l *lwsv1.LeaderWorkerSet) *corev1.TopologySpreadConstraint {
	w := &l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec
	if len(w.TopologySpreadConstraints) == 0 {
		w.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone",
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "vllm"}}}}
	}
	return &w.TopologySpreadConstraints[0]
}

// planErrorCases break one rule each in the vLLM fixture.
var planErrorCases = []planErrorCase{
	{"maxSkewZero", func(l *lwsv1.LeaderWorkerSet) { workerTSC(l).MaxSkew = 0 },
		workerSpec + "topology_spread_constraints[0].max_skew", "must be greater than zero"},
	{"missingTopologyKey", func(l *lwsv1.LeaderWorkerSet) { workerTSC(l).TopologyKey = "" },
		workerSpec + "topology_spread_constraints[0].topology_key", "Required"},
	{"whenUnsatisfiableBad", func(l *lwsv1.LeaderWorkerSet) { workerTSC(l).WhenUnsatisfiable = "Sometimes" },
		workerSpec + "topology_spread_constraints[0].when_unsatisfiable", "Sometimes"},
	{"minDomainsWithScheduleAnyway", func(l *lwsv1.LeaderWorkerSet) {
		c := &l.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.TopologySpreadConstraints[0]
		c.MinDomains = ptr.To[int32](3)
	}, leaderSpec + "topology_spread_constraints[0].min_domains", "DoNotSchedule"},
	{"matchLabelKeysOverlapLabelSelector", func(l *lwsv1.LeaderWorkerSet) {
		workerTSC(l).MatchLabelKeys = []string{"app"}
	}, workerSpec + "topology_spread_constraints[0].match_label_keys", "app"},
	{"duplicateTopologyKeyAndWhenUnsatisfiable", func(l *lwsv1.LeaderWorkerSet) {
		tsc := *workerTSC(l)
		tsc.MaxSkew = 2
		l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.TopologySpreadConstraints = append(
			l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.TopologySpreadConstraints, tsc)
	}, workerSpec + "topology_spread_constraints[", "Duplicate"},
	{"missingImage", func(l *lwsv1.LeaderWorkerSet) { lwsfixture.Worker(l).Image = "" },
		workerSpec + "containers[0].image", "Required"},
	{"requestsAboveLimits", func(l *lwsv1.LeaderWorkerSet) {
		lwsfixture.Worker(l).Resources.Requests["memory"] = apiresource.MustParse("2000Gi")
	}, workerSpec + "containers[0].resources.requests", "less than or equal to memory limit"},
	{"gpuRequestNotLimit", func(l *lwsv1.LeaderWorkerSet) {
		lwsfixture.Worker(l).Resources.Requests["nvidia.com/gpu"] = apiresource.MustParse("4")
	}, workerSpec + "containers[0].resources.requests", "must be equal to nvidia.com/gpu limit"},
	{"restartPolicyOnFailure", func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	}, workerSpec + "restart_policy", "Always"},
	{"subGroupSizeNotDividing", func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](4)}
		l.Spec.LeaderWorkerTemplate.Size = ptr.To[int32](6)
	}, "spec.leader_worker_template.sub_group_policy.sub_group_size", "divisible"},
	{"maxUnavailableAndMaxSurgeZero", func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.RolloutStrategy.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{
			MaxUnavailable: intstr.FromInt32(0), MaxSurge: intstr.FromInt32(0)}
	}, "spec.rollout_strategy.rolling_update_configuration.max_unavailable", "must not be 0 when `maxSurge` is 0"},
	{"immediateReplacementWithOrdinal", func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.GroupReplacementPolicy = lwsv1.GroupReplacementImmediate
	}, "spec.group_replacement_policy", "only supported with groupIdentity Hash"},
	{"nameTooLongForRuntimeNames", func(l *lwsv1.LeaderWorkerSet) {
		l.Name = "vllm-" + strings.Repeat("x", 55) // 60 characters
	}, "metadata.name", "too long for the objects the controller creates"},
	{"volumeMountOfUnknownVolume", func(l *lwsv1.LeaderWorkerSet) {
		lwsfixture.Worker(l).VolumeMounts = append(lwsfixture.Worker(l).VolumeMounts, corev1.VolumeMount{Name: "models", MountPath: "/models"})
	}, workerSpec + "containers[0].volume_mounts[1].name", "models"},
	{"maxGroupRestartsWithNone", func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.NoneRestartPolicy
		l.Spec.LeaderWorkerTemplate.MaxGroupRestarts = ptr.To[int32](3)
	}, "spec.leader_worker_template.max_group_restarts", "only supported when restartPolicy recreates the group"},
	{"badQuantity", func(l *lwsv1.LeaderWorkerSet) {}, // set in the HCL (a Go quantity cannot be malformed)
		leaderSpec + "containers[0].resources.limits[\"memory\"]", "must be a Kubernetes quantity"},
}

func planErrorObject(c planErrorCase) *lwsv1.LeaderWorkerSet {
	obj := lwsfixture.VLLM("acc-plan-errors", 2, 4)
	c.mutate(obj)
	return obj
}

// memoryLimit is the vLLM fixture's memory limit as the rendered HCL spells it (hclwrite
// aligns the "=" of neighbouring attributes).
var memoryLimit = regexp.MustCompile(`(?m)^(\s*"?memory"?\s*=\s*)"1124Gi"`)

// planErrorConfig renders the case's object; the badQuantity case edits the HCL, since a
// malformed quantity exists only in a configuration.
func planErrorConfig(t *testing.T, c planErrorCase) string {
	cfg := fullObjectConfig(planErrorObject(c))
	if c.name == "badQuantity" {
		before := cfg
		if m := memoryLimit.FindStringSubmatchIndex(cfg); m != nil { // the leader's, which comes first
			cfg = cfg[:m[0]] + cfg[m[2]:m[3]] + `"1124 GiB"` + cfg[m[1]:]
		}
		if cfg == before {
			t.Fatal("badQuantity: the memory limit is not in the configuration")
		}
	}
	return cfg
}

// TestPlanErrorCases checks the cases against the rules directly, so that a failure of the
// acceptance test below is easy to place: each object is rejected at the expected path.
func TestPlanErrorCases(t *testing.T) {
	node := leaderworkerset.Kind.Node()
	for _, c := range planErrorCases {
		if c.name == "badQuantity" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			obj := planErrorObject(c)
			lwsrules.SetDefaults(obj)
			var got []string
			for _, e := range lwsrules.ValidateAll(obj) {
				p, _ := k8sschema.AttributePath(node, e.Field)
				got = append(got, p.String()+": "+e.ErrorBody())
				if strings.HasPrefix(p.String(), c.path) && strings.Contains(e.ErrorBody(), c.message) {
					return
				}
			}
			t.Errorf("no error at %s mentioning %q; got:\n  %s", c.path, c.message, strings.Join(got, "\n  "))
		})
	}
	// The fixture itself is valid.
	obj := lwsfixture.VLLM("acc-plan-errors", 2, 4)
	lwsrules.SetDefaults(obj)
	if errs := lwsrules.ValidateAll(obj); len(errs) > 0 {
		t.Fatalf("the fixture is invalid: %v", errs)
	}
}

// TestAccLeaderWorkerSet_planErrors: each broken rule fails `terraform plan`, and the error
// detail starts with the Terraform attribute path.
func TestAccLeaderWorkerSet_planErrors(t *testing.T) {
	for i, c := range planErrorCases {
		t.Run(c.name, func(t *testing.T) {
			acctest.SampleAfterFirstCLI(t, i, 4)
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      acctest.RequiredProviders() + offlineProvider + planErrorConfig(t, c),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`(?s)` + regexp.QuoteMeta(c.path) + `.*` + spaced(c.message)),
				}},
			})
		})
	}
}

// spaced matches s with any run of white space (Terraform wraps long details) between words.
func spaced(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(words, `\s+`)
}

// TestAccLeaderWorkerSet_planUnknownSkipsChecks: a value unknown at plan time (an image that
// another resource computes) is not checked, and neither are the rules of its container that
// may depend on it: with the worker's image unknown, its memory request above its limit does
// not fail the plan. The checks are not lost: known values elsewhere are still checked at plan
// time, and the same rule fails the apply once the image is known (before any API call, so no
// cluster is needed).
func TestAccLeaderWorkerSet_planUnknownSkipsChecks(t *testing.T) {
	config := func(breakLeader bool) string {
		obj := lwsfixture.VLLM("acc-plan-unknown", 2, 4)
		w := lwsfixture.Worker(obj)
		w.Resources.Requests["memory"] = apiresource.MustParse("2000Gi")
		w.Image = "unknown-image"
		if breakLeader {
			obj.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.TopologySpreadConstraints[0].MaxSkew = 0
		}
		cfg := fullObjectConfig(obj)
		// The worker's image comes from terraform_data.image, whose output is unknown until apply.
		cfg = strings.Replace(cfg, `"unknown-image"`, `terraform_data.image.output`, 1)
		if !strings.Contains(cfg, "terraform_data.image.output") {
			t.Fatal("the image is not in the configuration")
		}
		return acctest.RequiredProviders() + offlineProvider + `
resource "terraform_data" "image" {
  input = "vllm/vllm-openai:v0.11.0"
}
` + cfg
	}
	requests := regexp.MustCompile(`(?s)` + regexp.QuoteMeta(workerSpec+"containers[0].resources.requests") + `.*` + spaced("must be less than or equal to memory limit"))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{ // the unknown image's container is not checked: the plan succeeds
				Config:             config(false),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{ // a known value elsewhere is checked at plan time
				Config:      config(true),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)` + regexp.QuoteMeta(leaderSpec+"topology_spread_constraints[0].max_skew") + `.*` + spaced("must be greater than zero")),
			},
			{ // once the image is known, at apply, the container's rules run
				Config:      config(false),
				ExpectError: requests,
			},
		},
	})
}

// TestAccLeaderWorkerSet_planUnknownWrittenReplicas: spec.replicas written beside
// manage_replicas = false is an error at plan time even while a neighbour in spec is unknown
// (here startup_policy, from a resource created in the same apply): the rule reads nothing
// else, so the unknown value cannot change its verdict. (Before, the error waited for the
// values to be known, and the plan failed with "Provider produced invalid plan" instead.)
func TestAccLeaderWorkerSet_planUnknownWrittenReplicas(t *testing.T) {
	obj := lwsfixture.VLLM("acc-plan-unknown-replicas", 3, 2)
	obj.Spec.StartupPolicy = "unknown-policy"
	cfg := fullObjectConfig(obj)
	cfg = strings.Replace(cfg, `"unknown-policy"`, `terraform_data.policy.output`, 1)
	header := `resource "kubeinfer_leaderworkerset" "acc-plan-unknown-replicas" {`
	if !strings.Contains(cfg, "terraform_data.policy.output") || !strings.Contains(cfg, header) {
		t.Fatalf("the startup policy or the resource header is not in the configuration:\n%s", cfg)
	}
	cfg = strings.Replace(cfg, header, header+"\n  manage_replicas = false", 1)
	config := acctest.RequiredProviders() + offlineProvider + `
resource "terraform_data" "policy" {
  input = "LeaderCreated"
}
` + cfg
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      config,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)spec\.replicas.*` + spaced("manage_replicas = false leaves spec.replicas to the autoscaler")),
		}},
	})
}

// TestLiteralSecretEnvWarns: a literal HF_TOKEN value is a warning (not an error) on the env
// value's attribute that points to secret_key_ref. terraform-plugin-testing cannot assert
// warnings, so this calls the resource's ValidateConfig.
func TestLiteralSecretEnvWarns(t *testing.T) {
	obj := lwsfixture.VLLM("plan-warning", 2, 4)
	obj.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "HF_TOKEN", Value: "hf_abcdef"}}

	ctx := context.Background()
	r := leaderworkerset.NewResource()
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	rootType := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	var nodeAttrs map[string]tftypes.Value
	if err := k8sschema.Encode(leaderworkerset.Kind.Node(), obj).As(&nodeAttrs); err != nil {
		t.Fatal(err)
	}
	attrs := map[string]tftypes.Value{}
	for name, at := range rootType.AttributeTypes {
		if x, ok := nodeAttrs[name]; ok && name != "status" {
			attrs[name] = x
		} else {
			attrs[name] = tftypes.NewValue(at, nil)
		}
	}
	var vresp fwresource.ValidateConfigResponse
	r.(fwresource.ResourceWithValidateConfig).ValidateConfig(ctx, fwresource.ValidateConfigRequest{
		Config: tfsdk.Config{Raw: tftypes.NewValue(rootType, attrs), Schema: sresp.Schema},
	}, &vresp)
	if vresp.Diagnostics.HasError() {
		t.Fatalf("unexpected errors: %v", vresp.Diagnostics.Errors())
	}
	warnings := vresp.Diagnostics.Warnings()
	if len(warnings) != 1 {
		t.Fatalf("want 1 warning, got %d: %v", len(warnings), warnings)
	}
	w := warnings[0]
	if !strings.Contains(w.Detail(), "secret_key_ref") || !strings.Contains(w.Detail(), "HF_TOKEN") {
		t.Errorf("the warning does not point to secret_key_ref: %s: %s", w.Summary(), w.Detail())
	}
	want := workerSpec + "containers[0].env[0].value"
	dp, ok := w.(diag.DiagnosticWithPath)
	if !ok || dp.Path().String() != want {
		t.Errorf("the warning is not on %s: %#v", want, w)
	}
}

// TestAccLeaderWorkerSet_undeclaredFieldsAtOnce: on the released CRD, a configuration that sets
// two fields the CRD does not declare (both in spec, of which the server names only the first
// it meets) fails in one apply that names both attributes, and fast: the server's 500 is not
// retried (eight tries took about 16 s), and dry runs without the named field find the other.
// Without them the next apply creates the object.
func TestAccLeaderWorkerSet_undeclaredFieldsAtOnce(t *testing.T) {
	runsBesideOthers(t)
	acctest.FirstCLIOnly(t, "the released CRD's answer to undeclared fields")
	name := "acc-vllm-undeclared"
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	var start time.Time
	newer := func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.GroupIdentity = lwsv1.GroupIdentityHash
		l.Spec.GroupReplacementPolicy = lwsv1.GroupReplacementImmediate
	}
	attr := func(a string) string {
		return `spec\.` + a + `:\s+` + spaced("The LeaderWorkerSet CRD installed in the cluster does not declare")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				PreConfig: func() { start = time.Now() },
				Config:    pc + vllm(lwsfixture.VLLM(name, 1, 2, lwsfixture.SmallGPU, newer), "wait_for_rollout = false"),
				ExpectError: regexp.MustCompile(`(?s)Error: Cannot apply LeaderWorkerSet.*(` +
					attr("group_identity") + `.*Error: Cannot apply LeaderWorkerSet.*` + attr("group_replacement_policy") + `|` +
					attr("group_replacement_policy") + `.*Error: Cannot apply LeaderWorkerSet.*` + attr("group_identity") + `)`),
			},
			{
				PreConfig: func() {
					// The whole failed step: plan, apply and Terraform's own commands.
					if took := time.Since(start); took > 8*time.Second {
						t.Errorf("the apply that failed on two undeclared fields took %v, want well under the 16 s of retries", took)
					} else {
						t.Logf("the step whose apply failed on two undeclared fields took %v", took)
					}
				},
				Config: pc + vllm(lwsfixture.VLLM(name, 1, 2, lwsfixture.SmallGPU), "wait_for_rollout = false"),
			},
		},
	})
}
