package prioritylevelconfiguration

import (
	"context"
	"fmt"
	"math"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration/rules"
)

// CapacityFunctionName is the name of the provider-defined function
// (provider::kubeinfer::apf_capacity).
const CapacityFunctionName = "apf_capacity"

// NewCapacityFunction is the apf_capacity provider-defined function.
func NewCapacityFunction() function.Function { return &capacityFunction{} }

type capacityFunction struct{}

var _ function.Function = (*capacityFunction)(nil)

// Attribute names of a level (input) and of a result (output).
const (
	attrName        = "name"
	attrType        = "type"
	attrShares      = "nominal_concurrency_shares"
	attrLendable    = "lendable_percent"
	attrBorrowing   = "borrowing_limit_percent"
	attrNominalCL   = "nominal_cl"
	attrLendableCL  = "lendable_cl"
	attrBorrowingCL = "borrowing_cl"
)

var (
	levelAttrTypes = map[string]attr.Type{
		attrName:      types.StringType,
		attrType:      types.StringType,
		attrShares:    types.Int64Type,
		attrLendable:  types.Int64Type,
		attrBorrowing: types.Int64Type,
	}
	resultAttrTypes = map[string]attr.Type{
		attrName:        types.StringType,
		attrNominalCL:   types.Int64Type,
		attrLendableCL:  types.Int64Type,
		attrBorrowingCL: types.Int64Type,
	}
)

func (f *capacityFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = CapacityFunctionName
}

func (f *capacityFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Concurrency limits of API Priority and Fairness priority levels",
		MarkdownDescription: "Divides the API server's total concurrency limit among priority levels exactly as the " +
			"kube-apiserver v1.37 APF controller does, so that a plan can show what adding or changing a " +
			"`kubeinfer_priority_level_configuration` does to every level's capacity. Pass **every** level of the " +
			"cluster (the bootstrap levels included): the shares are relative to their sum.\n\n" +
			"For each level, with `sum` the sum of `nominal_concurrency_shares` over all levels (Exempt ones included):\n\n" +
			"- `nominal_cl = ceil(server_concurrency_limit * nominal_concurrency_shares / sum)`\n" +
			"- `lendable_cl = round(nominal_cl * lendable_percent / 100)`\n" +
			"- `borrowing_cl = round(nominal_cl * borrowing_limit_percent / 100)`, or `null` (unlimited) when " +
			"`borrowing_limit_percent` is `null` or the level is Exempt.\n\n" +
			"Because of the rounding up, the `nominal_cl` values may add up to slightly more than the limit. " +
			"Requires Terraform 1.8 or later, or OpenTofu 1.7 or later.",
		Parameters: []function.Parameter{
			function.Int64Parameter{
				Name: "server_concurrency_limit",
				MarkdownDescription: "The server's total concurrency limit: `--max-requests-inflight` plus " +
					"`--max-mutating-requests-inflight` (400 + 200 = 600 by default). Must be positive.",
			},
			function.ListParameter{
				Name:        "levels",
				ElementType: types.ObjectType{AttrTypes: levelAttrTypes},
				MarkdownDescription: "The priority levels, each an object with `name` (unique), `type` (`Limited` or " +
					"`Exempt`), `nominal_concurrency_shares` (`null` means the server default: 30 for Limited, 0 for " +
					"Exempt), `lendable_percent` (0 to 100, `null` means 0) and `borrowing_limit_percent` (`null` " +
					"means unlimited; ignored for Exempt). Every attribute must be present; write `null` for unset ones.",
			},
		},
		Return: function.ListReturn{ElementType: types.ObjectType{AttrTypes: resultAttrTypes}},
	}
}

func (f *capacityFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var serverCL int64
	var levels types.List
	resp.Error = req.Arguments.Get(ctx, &serverCL, &levels)
	if resp.Error != nil {
		return
	}
	if serverCL <= 0 {
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf("server_concurrency_limit must be positive, got %d", serverCL))
		return
	}
	inputs := make([]rules.LevelInput, 0, len(levels.Elements()))
	for i, e := range levels.Elements() {
		in, err := levelInput(i, e)
		if err != "" {
			resp.Error = function.NewArgumentFuncError(1, err)
			return
		}
		inputs = append(inputs, in)
	}
	caps, err := rules.ComputeCapacity(serverCL, inputs)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(1, err.Error())
		return
	}
	elemType := types.ObjectType{AttrTypes: resultAttrTypes}
	out := make([]attr.Value, 0, len(caps))
	for _, c := range caps {
		borrowing := types.Int64Null()
		if c.BorrowingCL != nil {
			borrowing = types.Int64Value(*c.BorrowingCL)
		}
		obj, diags := types.ObjectValue(resultAttrTypes, map[string]attr.Value{
			attrName:        types.StringValue(c.Name),
			attrNominalCL:   types.Int64Value(c.NominalCL),
			attrLendableCL:  types.Int64Value(c.LendableCL),
			attrBorrowingCL: borrowing,
		})
		if diags.HasError() {
			resp.Error = function.FuncErrorFromDiags(ctx, diags)
			return
		}
		out = append(out, obj)
	}
	list, diags := types.ListValue(elemType, out)
	if diags.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, diags)
		return
	}
	resp.Error = resp.Result.Set(ctx, list)
}

// levelInput reads element i of the levels argument; a non-empty string is the error.
func levelInput(i int, e attr.Value) (rules.LevelInput, string) {
	obj, ok := e.(types.Object)
	if !ok || obj.IsNull() {
		return rules.LevelInput{}, fmt.Sprintf("levels[%d] must not be null", i)
	}
	attrs := obj.Attributes()
	name, _ := attrs[attrName].(types.String)
	if name.IsNull() || name.ValueString() == "" {
		return rules.LevelInput{}, fmt.Sprintf("levels[%d].name must be set", i)
	}
	in := rules.LevelInput{Name: name.ValueString()}
	typ, _ := attrs[attrType].(types.String)
	switch typ.ValueString() {
	case string(flowcontrolv1.PriorityLevelEnablementLimited):
		in.NominalConcurrencyShares = rules.DefaultNominalConcurrencyShares
		in.LendablePercent = rules.DefaultLendablePercent
	case string(flowcontrolv1.PriorityLevelEnablementExempt):
		in.Exempt = true
		in.NominalConcurrencyShares = rules.DefaultExemptNominalShares
		in.LendablePercent = rules.DefaultExemptLendablePercent
	default:
		return rules.LevelInput{}, fmt.Sprintf("levels[%d] (%q): type must be \"Limited\" or \"Exempt\", got %q", i, in.Name, typ.ValueString())
	}
	for _, a := range []struct {
		name string
		dst  *int32
	}{{attrShares, &in.NominalConcurrencyShares}, {attrLendable, &in.LendablePercent}} {
		v, _ := attrs[a.name].(types.Int64)
		if v.IsNull() {
			continue
		}
		x, ok := int32Of(v.ValueInt64())
		if !ok {
			return rules.LevelInput{}, fmt.Sprintf("levels[%d] (%q): %s must fit in a 32-bit integer, got %d", i, in.Name, a.name, v.ValueInt64())
		}
		*a.dst = x
	}
	if b, _ := attrs[attrBorrowing].(types.Int64); !b.IsNull() && !in.Exempt {
		x, ok := int32Of(b.ValueInt64())
		if !ok {
			return rules.LevelInput{}, fmt.Sprintf("levels[%d] (%q): %s must fit in a 32-bit integer, got %d", i, in.Name, attrBorrowing, b.ValueInt64())
		}
		in.BorrowingLimitPercent = &x
	}
	return in, ""
}

func int32Of(v int64) (int32, bool) {
	if v > math.MaxInt32 || v < math.MinInt32 {
		return 0, false
	}
	return int32(v), true
}
