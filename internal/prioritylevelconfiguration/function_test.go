package prioritylevelconfiguration_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

// bootstrapLevelsHCL are the 8 levels kube-apiserver v1.37 creates, as apf_capacity input.
const bootstrapLevelsHCL = `
locals {
  bootstrap = [
    { name = "exempt",          type = "Exempt",  nominal_concurrency_shares = 0,   lendable_percent = 0,  borrowing_limit_percent = null },
    { name = "catch-all",       type = "Limited", nominal_concurrency_shares = 5,   lendable_percent = 0,  borrowing_limit_percent = null },
    { name = "system",          type = "Limited", nominal_concurrency_shares = 30,  lendable_percent = 33, borrowing_limit_percent = null },
    { name = "node-high",       type = "Limited", nominal_concurrency_shares = 40,  lendable_percent = 25, borrowing_limit_percent = null },
    { name = "leader-election", type = "Limited", nominal_concurrency_shares = 10,  lendable_percent = 0,  borrowing_limit_percent = null },
    { name = "workload-high",   type = "Limited", nominal_concurrency_shares = 40,  lendable_percent = 50, borrowing_limit_percent = null },
    { name = "workload-low",    type = "Limited", nominal_concurrency_shares = 100, lendable_percent = 90, borrowing_limit_percent = null },
    { name = "global-default",  type = "Limited", nominal_concurrency_shares = 20,  lendable_percent = 50, borrowing_limit_percent = null },
  ]
}
`

func capacity(name string, nominal, lendable int64, borrowing knownvalue.Check) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"name":         knownvalue.StringExact(name),
		"nominal_cl":   knownvalue.Int64Exact(nominal),
		"lendable_cl":  knownvalue.Int64Exact(lendable),
		"borrowing_cl": borrowing,
	})
}

var functionVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)}

func TestFunctionAPFCapacity_bootstrapLevels(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config: bootstrapLevelsHCL + `
output "capacity" {
  value = provider::kubeinfer::apf_capacity(600, local.bootstrap)
}
`,
			// Sum of shares 245: the NominalCLs documented in capacity.go.
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("capacity", knownvalue.ListExact([]knownvalue.Check{
					capacity("exempt", 0, 0, knownvalue.Null()),
					capacity("catch-all", 13, 0, knownvalue.Null()),
					capacity("system", 74, 24, knownvalue.Null()),
					capacity("node-high", 98, 25, knownvalue.Null()),
					capacity("leader-election", 25, 0, knownvalue.Null()),
					capacity("workload-high", 98, 49, knownvalue.Null()),
					capacity("workload-low", 245, 221, knownvalue.Null()),
					capacity("global-default", 49, 25, knownvalue.Null()),
				})),
			},
		}},
	})
}

func TestFunctionAPFCapacity_customLevel(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config: bootstrapLevelsHCL + `
locals {
  # Shares and lendable percent left null take the server defaults (30 and 0).
  custom = { name = "inference", type = "Limited", nominal_concurrency_shares = 55, lendable_percent = null, borrowing_limit_percent = 150 }
  defaulted = { name = "defaulted", type = "Limited", nominal_concurrency_shares = null, lendable_percent = null, borrowing_limit_percent = 0 }
  by_name = { for c in provider::kubeinfer::apf_capacity(600, concat(local.bootstrap, [local.custom, local.defaulted])) : c.name => c }
}

output "inference" {
  value = local.by_name["inference"]
}

output "defaulted" {
  value = local.by_name["defaulted"]
}

output "workload_low" {
  value = local.by_name["workload-low"]
}
`,
			// Sum of shares 245 + 55 + 30 = 330.
			ConfigStateChecks: []statecheck.StateCheck{
				// ceil(600*55/330) = 100; borrowing round(100*1.5) = 150
				statecheck.ExpectKnownOutputValue("inference", capacity("inference", 100, 0, knownvalue.Int64Exact(150))),
				// ceil(600*30/330) = ceil(54.54) = 55; borrowing 0 means no borrowing at all
				statecheck.ExpectKnownOutputValue("defaulted", capacity("defaulted", 55, 0, knownvalue.Int64Exact(0))),
				// ceil(600*100/330) = ceil(181.8) = 182; lendable round(163.8) = 164
				statecheck.ExpectKnownOutputValue("workload_low", capacity("workload-low", 182, 164, knownvalue.Null())),
			},
		}},
	})
}

func TestFunctionAPFCapacity_errors(t *testing.T) {
	level := func(fields string) string {
		return `{ name = "a", type = "Limited", nominal_concurrency_shares = 10, lendable_percent = 0, borrowing_limit_percent = null` + fields + ` }`
	}
	cases := []struct {
		name, call string
		err        *regexp.Regexp
	}{
		{"server limit zero", `provider::kubeinfer::apf_capacity(0, [` + level("") + `])`, regexp.MustCompile(`server_concurrency_limit\s+must\s+be\s+positive`)},
		{"fractional server limit", `provider::kubeinfer::apf_capacity(600.5, [` + level("") + `])`, regexp.MustCompile(`(?i)integer|whole`)},
		{"unknown type", `provider::kubeinfer::apf_capacity(600, [{ name = "a", type = "Queue", nominal_concurrency_shares = 1, lendable_percent = 0, borrowing_limit_percent = null }])`,
			regexp.MustCompile(`type\s+must\s+be\s+"Limited"\s+or\s+"Exempt"`)},
		{"duplicate name", `provider::kubeinfer::apf_capacity(600, [` + level("") + `, ` + level("") + `])`, regexp.MustCompile(`duplicate\s+priority\s+level\s+"a"`)},
		{"lendable over 100", `provider::kubeinfer::apf_capacity(600, [{ name = "a", type = "Limited", nominal_concurrency_shares = 1, lendable_percent = 101, borrowing_limit_percent = null }])`,
			regexp.MustCompile(`lendablePercent\s+must\s+be\s+between\s+0\s+and\s+100`)},
		{"negative borrowing", `provider::kubeinfer::apf_capacity(600, [{ name = "a", type = "Limited", nominal_concurrency_shares = 1, lendable_percent = 0, borrowing_limit_percent = -1 }])`,
			regexp.MustCompile(`borrowingLimitPercent\s+must\s+be\s+non-negative`)},
		{"all shares zero", `provider::kubeinfer::apf_capacity(600, [{ name = "exempt", type = "Exempt", nominal_concurrency_shares = null, lendable_percent = null, borrowing_limit_percent = null }])`,
			regexp.MustCompile(`sum\s+of\s+nominalConcurrencyShares`)},
		{"shares overflow int32", `provider::kubeinfer::apf_capacity(600, [{ name = "a", type = "Limited", nominal_concurrency_shares = 3000000000, lendable_percent = 0, borrowing_limit_percent = null }])`,
			regexp.MustCompile(`must\s+fit\s+in\s+a\s+32-bit\s+integer`)},
		{"missing attribute", `provider::kubeinfer::apf_capacity(600, [{ name = "a", type = "Limited" }])`, regexp.MustCompile(`(?is)attributes.*are\s+required`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				TerraformVersionChecks:   functionVersionChecks,
				Steps: []resource.TestStep{{
					Config:      `output "x" { value = ` + tc.call + ` }`,
					ExpectError: tc.err,
				}},
			})
		})
	}
}

func TestFunctionAPFCapacity_emptyList(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config: `output "x" { value = provider::kubeinfer::apf_capacity(600, []) }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("x", knownvalue.ListSizeExact(0)),
			},
		}},
	})
}

// The documented example, run against the real API server: the bootstrap levels come from the
// data source, the custom level from the resource (sum of shares 245 + 50 = 295).
func TestAccFunctionAPFCapacity_example(t *testing.T) {
	acctest.Cluster(t)
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "functions", "apf_capacity", "function.tf"))
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks:   functionVersionChecks,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderConfig(t) + string(example),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				// The capacities are known at plan time: the plan shows them.
				plancheck.ExpectKnownOutputValueAtPath("apf_capacity", tfjsonpath.New("inference").AtMapKey("nominal_cl"), knownvalue.Int64Exact(102)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				// ceil(600*50/295) = 102, lendable round(10.2) = 10, borrowing round(102*100%) = 102
				statecheck.ExpectKnownOutputValueAtPath("apf_capacity", tfjsonpath.New("inference"), capacity("inference", 102, 10, knownvalue.Int64Exact(102))),
				// ceil(600*100/295) = 204, lendable round(183.6) = 184
				statecheck.ExpectKnownOutputValueAtPath("apf_capacity", tfjsonpath.New("workload-low"), capacity("workload-low", 204, 184, knownvalue.Null())),
				statecheck.ExpectKnownOutputValueAtPath("apf_capacity", tfjsonpath.New("exempt"), capacity("exempt", 0, 0, knownvalue.Null())),
			},
		}},
	})
}
