package tflintrules

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/terraform-linters/tflint-plugin-sdk/tflint"
	"github.com/zclconf/go-cty/cty"
)

const lwsWithErrors = `
variable "policy" {
  default = "Sometimes"
}
resource "kubeinfer_leaderworkerset" "bad" {
  count    = 1
  metadata = { name = "bad" }
  spec = {
    replicaz = 2
    leader_worker_template = {
      size = 0
      worker_template = {
        spec = {
          containers = [{
            name              = "worker"
            image             = "vllm/vllm-openai:v0.6.0"
            image_pull_policy = var.policy
            env               = [{ name = "HF_TOKEN", value = "hf_secret" }]
          }]
        }
      }
    }
  }
  timeouts = { create = "10x" }
  lifecycle {
    prevent_destroy = false
  }
}
`

func TestPlanTimeValidation(t *testing.T) {
	loadSchema(t)
	cases := []struct {
		name  string
		files map[string]string
		want  []issueAt
		warn  int
	}{{
		name:  "errors at the expressions their paths name, warnings as warnings",
		files: map[string]string{"main.tf": lwsWithErrors},
		want: []issueAt{
			{11, 14, `spec.leader_worker_template.size: Invalid value: 0: must be greater than or equal to 1 (Kubernetes field spec.leaderWorkerTemplate.size)`},
			{17, 33, `spec.leader_worker_template.worker_template.spec.containers[0].image_pull_policy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never" (Kubernetes field spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].imagePullPolicy)`},
			{18, 63, `spec.leader_worker_template.worker_template.spec.containers[0].env[0].value: Secret in a literal env value: env var "HF_TOKEN" holds a literal value, which is stored in plain text in the Terraform state and in the LeaderWorkerSet. Reference a Secret instead: value_from = { secret_key_ref = { name = "...", key = "..." } }.`},
			{24, 25, `timeouts.create: Invalid duration: timeouts.create must be a duration such as "30s", "10m" or "2h": time: unknown unit "x" in duration "10x"`},
		},
		warn: 1,
	}, {
		name: "a block with a value TFLint cannot know is skipped",
		files: map[string]string{"main.tf": `
resource "kubeinfer_priority_level_configuration" "x" {
  metadata = { name = "x" }
  spec = {
    type    = "Limited"
    limited = { nominal_concurrency_shares = -1 }
  }
}
resource "kubeinfer_priority_level_configuration" "y" {
  metadata = { name = kubeinfer_priority_level_configuration.x.metadata.name }
  spec = {
    type    = "Limited"
    limited = { nominal_concurrency_shares = -1 }
  }
}
`},
		want: []issueAt{
			// A path the configuration does not spell out: the deepest expression it reaches.
			{6, 15, `spec.limited.limit_response.type: Missing required value: Required value (Kubernetes field spec.limited.limitResponse.type)`},
			{6, 46, `spec.limited.nominal_concurrency_shares: Invalid value: -1: must be a non-negative integer (Kubernetes field spec.limited.nominalConcurrencyShares)`},
		},
	}, {
		name: "blocks Terraform rejects first, override files and valid blocks report nothing",
		files: map[string]string{
			"main.tf": `
resource "kubeinfer_flow_schema" "unknown_top_level" {
  metadata = { name = "x" }
  spek     = {}
}
resource "kubeinfer_flow_schema" "wrong_type" {
  metadata = "x"
}
resource "kubeinfer_flow_schema" "overridden" {
  metadata = { name = "x" }
  spec = { priority_level_configuration = { name = "" }, matching_precedence = 100000 }
}
resource "kubeinfer_flow_schema" "valid" {
  metadata = { name = "valid" }
  spec = {
    priority_level_configuration = { name = "global-default" }
    matching_precedence          = 1000
  }
}
`,
			"main_override.tf": `
resource "kubeinfer_flow_schema" "overridden" {
  spec = { priority_level_configuration = { name = "x" } }
}
`,
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			issues := run(t, NewPlanTimeValidationRule(), c.files)
			assertIssues(t, issues, c.want)
			warn := 0
			for _, i := range issues {
				if i.Rule.Name() != "kubeinfer_plan_time_validation" {
					t.Errorf("rule %s", i.Rule.Name())
				}
				if i.Rule.Severity() == tflint.WARNING {
					warn++
				}
			}
			if warn != c.warn {
				t.Errorf("%d warnings, want %d", warn, c.warn)
			}
		})
	}
}

// TestPlanTimeValidation_conversion: values convert as Terraform converts them ("3" is a
// number), absent attributes are null and keys the type does not have are dropped; a value of
// the wrong type leaves the block to Terraform.
func TestPlanTimeValidation_conversion(t *testing.T) {
	loadSchema(t)
	issues := run(t, NewPlanTimeValidationRule(), map[string]string{"main.tf": `
resource "kubeinfer_leaderworkerset" "x" {
  metadata = { name = "x", labels = { a = "b" } }
  spec = {
    replicas = "3"
    extra    = true
    leader_worker_template = {
      size            = 2
      worker_template = { spec = { containers = [{ name = "w", image = "i" }] } }
    }
  }
}
`})
	if len(issues) != 0 {
		t.Errorf("issues: %v", messages(issues))
	}
	obj := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.Number, "b": tftypes.List{ElementType: tftypes.Bool}}}
	v, err := toTerraform(cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("3"), "c": cty.True}), obj)
	want := tftypes.NewValue(obj, map[string]tftypes.Value{"a": tftypes.NewValue(tftypes.Number, 3), "b": tftypes.NewValue(obj.AttributeTypes["b"], nil)})
	if err != nil || !v.Equal(want) {
		t.Errorf("toTerraform = %v, %v; want %v", v, err, want)
	}
	if _, err := toTerraform(cty.StringVal("x"), obj); err == nil || !strings.Contains(err.Error(), "object is required") {
		t.Errorf("a string as an object: %v", err)
	}
}
