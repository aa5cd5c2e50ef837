package tflintrules

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/terraform-linters/tflint-plugin-sdk/logger"
	"github.com/terraform-linters/tflint-plugin-sdk/tflint"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/providerrules"
)

// PlanTimeValidationRule runs the provider's own configuration validation (what the provider
// server's ValidateResourceConfig runs: the kind's offline rules, kindrules.ValidateConfig, the
// rules the API server applies, and the durations of timeouts) on every kubeinfer resource block whose arguments all evaluate without
// unknown values, and reports each error at the expression the error's attribute path names.
// Blocks with a value TFLint cannot know (another resource's attribute, a variable without a
// default) are skipped whole: `terraform plan` checks them.
type PlanTimeValidationRule struct {
	tflint.DefaultRule
}

// NewPlanTimeValidationRule returns the kubeinfer_plan_time_validation rule.
func NewPlanTimeValidationRule() *PlanTimeValidationRule { return &PlanTimeValidationRule{} }

func (r *PlanTimeValidationRule) Name() string              { return "kubeinfer_plan_time_validation" }
func (r *PlanTimeValidationRule) Enabled() bool             { return true }
func (r *PlanTimeValidationRule) Severity() tflint.Severity { return tflint.ERROR }
func (r *PlanTimeValidationRule) Link() string              { return guideLink }

// warningRule is the rule as the issues of the provider's warnings name it: the same rule at
// WARNING.
type warningRule struct{ *PlanTimeValidationRule }

func (w warningRule) Severity() tflint.Severity { return tflint.WARNING }

// Check validates the static resource blocks.
func (r *PlanTimeValidationRule) Check(runner tflint.Runner) error {
	s, err := Load()
	if err != nil {
		return err
	}
	files, err := runner.GetFiles()
	if err != nil {
		return err
	}
	// A resource that an override file changes is not what its block says: leave it to plan.
	overridden := map[string]bool{}
	all := targets(files, s)
	for _, t := range all {
		if t.kind == "resource" && isOverrideFile(t.file) {
			overridden[t.typ+"."+t.block.Labels[1]] = true
		}
	}
	for _, t := range all {
		if t.kind != "resource" || isOverrideFile(t.file) || overridden[t.typ+"."+t.block.Labels[1]] {
			continue
		}
		config, ok := staticConfig(runner, s, t)
		if !ok {
			continue
		}
		diags, err := s.ValidateResourceConfig(t.typ, config)
		if err != nil {
			return err
		}
		for _, d := range diags {
			rule := tflint.Rule(r)
			if d.Severity == tfprotov6.DiagnosticSeverityWarning {
				rule = warningRule{r}
			}
			rng := exprAt(t.body, d.Attribute, t.block.DefRange())
			if err := runner.EmitIssue(rule, diagMessage(d), rng); err != nil {
				return err
			}
		}
	}
	return nil
}

// ValidateResourceConfig runs the provider's ValidateResourceConfig on a configuration value of
// the resource type's schema type (the kind's offline rules, kindrules.ValidateConfig, and the
// durations of timeouts, as the provider's server runs them), and returns its errors and
// warnings.
func (s *Schema) ValidateResourceConfig(typeName string, config tftypes.Value) ([]*tfprotov6.Diagnostic, error) {
	k := providerrules.Resource(typeName)
	if k == nil {
		return nil, fmt.Errorf("no rules for the resource type %s", typeName)
	}
	if _, ok := s.resourceTypes[typeName]; !ok {
		return nil, fmt.Errorf("no schema for the resource type %s", typeName)
	}
	diags := kindrules.ValidateConfig(k, config)
	diags.Append(kindrules.ValidateTimeouts(config)...)
	var out []*tfprotov6.Diagnostic
	for _, d := range kindrules.ProtoDiagnostics(diags) {
		if d == nil {
			continue
		}
		if d.Severity != tfprotov6.DiagnosticSeverityError && d.Severity != tfprotov6.DiagnosticSeverityWarning {
			continue
		}
		out = append(out, d)
	}
	return out, nil
}

// diagMessage is an issue's message: the attribute path, the summary and the detail, on one
// line, without the detail's repetition of the path and the summary ("size: Invalid value:
// Invalid value: 0: ..." reads "size: Invalid value: 0: ...").
func diagMessage(d *tfprotov6.Diagnostic) string {
	p := pathString(d.Attribute)
	detail := strings.Join(strings.Fields(d.Detail), " ")
	if p != "" {
		detail = strings.TrimPrefix(detail, p+": ")
	}
	msg := d.Summary
	switch {
	case detail == "" || detail == d.Summary:
	case strings.HasPrefix(detail, d.Summary+": "):
		msg = detail
	default:
		msg += ": " + detail
	}
	if p != "" {
		msg = p + ": " + msg
	}
	return msg
}

// pathString writes an attribute path as a configuration spells it: spec.containers[0].name.
func pathString(p *tftypes.AttributePath) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		default:
			b.WriteString("[*]")
		}
	}
	return b.String()
}

// staticConfig evaluates the arguments of a resource block and returns the configuration value
// Terraform would send the provider, or false when the block is not static: an argument's value
// is unknown or cannot be evaluated, or the block has arguments or blocks that Terraform would
// reject first (the unknown-attribute rule and Terraform report them).
func staticConfig(runner tflint.Runner, s *Schema, t target) (tftypes.Value, bool) {
	for _, b := range t.body.Blocks {
		if !resourceMetaBlocks[b.Type] {
			return tftypes.Value{}, false
		}
	}
	typ := s.resourceTypes[t.typ]
	values := map[string]cty.Value{}
	for _, a := range sortedAttributes(t.body) {
		if resourceMetaAttrs[a.Name] {
			continue
		}
		if _, ok := typ.AttributeTypes[a.Name]; !ok {
			return tftypes.Value{}, false
		}
		var v cty.Value
		if err := runner.EvaluateExpr(a.Expr, &v, nil); err != nil {
			// Whatever the reason (references TFLint cannot resolve, functions a test runner
			// lacks), the block is not static here.
			logger.Debug(fmt.Sprintf("%s.%s: %s is not static: %s", t.typ, t.block.Labels[1], a.Name, err))
			return tftypes.Value{}, false
		}
		v, _ = v.UnmarkDeep()
		if !v.IsWhollyKnown() {
			return tftypes.Value{}, false
		}
		values[a.Name] = v
	}
	attrs := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name, at := range typ.AttributeTypes {
		v, ok := values[name]
		if !ok {
			attrs[name] = tftypes.NewValue(at, nil)
			continue
		}
		tv, err := toTerraform(v, at)
		if err != nil {
			// A value of the wrong type: Terraform reports it.
			logger.Debug(fmt.Sprintf("%s.%s: %s: %s", t.typ, t.block.Labels[1], name, err))
			return tftypes.Value{}, false
		}
		attrs[name] = tv
	}
	return tftypes.NewValue(typ, attrs), true
}

// toTerraform converts an evaluated HCL value to the value of type t that Terraform sends the
// provider: object keys that t does not have are dropped (as Terraform drops them), absent
// attributes are null, and primitive values are converted as Terraform converts them.
func toTerraform(v cty.Value, t tftypes.Type) (tftypes.Value, error) {
	if v.IsNull() {
		return tftypes.NewValue(t, nil), nil
	}
	ty := v.Type()
	switch tt := t.(type) {
	case tftypes.Object:
		if !ty.IsObjectType() && !ty.IsMapType() {
			return tftypes.Value{}, fmt.Errorf("an object is required, not %s", ty.FriendlyName())
		}
		attrs := make(map[string]tftypes.Value, len(tt.AttributeTypes))
		for name, at := range tt.AttributeTypes {
			var av cty.Value
			switch {
			case ty.IsObjectType() && ty.HasAttribute(name):
				av = v.GetAttr(name)
			case ty.IsMapType() && v.HasIndex(cty.StringVal(name)).True():
				av = v.Index(cty.StringVal(name))
			default:
				attrs[name] = tftypes.NewValue(at, nil)
				continue
			}
			tv, err := toTerraform(av, at)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", name, err)
			}
			attrs[name] = tv
		}
		return tftypes.NewValue(tt, attrs), nil
	case tftypes.List:
		return toTerraformElems(v, t, tt.ElementType)
	case tftypes.Set:
		return toTerraformElems(v, t, tt.ElementType)
	case tftypes.Map:
		if !ty.IsMapType() && !ty.IsObjectType() {
			return tftypes.Value{}, fmt.Errorf("a map is required, not %s", ty.FriendlyName())
		}
		elems := map[string]tftypes.Value{}
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			tv, err := toTerraform(ev, tt.ElementType)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("[%q]: %w", k.AsString(), err)
			}
			elems[k.AsString()] = tv
		}
		return tftypes.NewValue(t, elems), nil
	}
	switch {
	case t.Is(tftypes.String):
		cv, err := convert.Convert(v, cty.String)
		if err != nil {
			return tftypes.Value{}, err
		}
		return tftypes.NewValue(t, cv.AsString()), nil
	case t.Is(tftypes.Number):
		cv, err := convert.Convert(v, cty.Number)
		if err != nil {
			return tftypes.Value{}, err
		}
		return tftypes.NewValue(t, cv.AsBigFloat()), nil
	case t.Is(tftypes.Bool):
		cv, err := convert.Convert(v, cty.Bool)
		if err != nil {
			return tftypes.Value{}, err
		}
		return tftypes.NewValue(t, cv.True()), nil
	}
	return tftypes.Value{}, fmt.Errorf("values of type %s are not supported", t)
}

// toTerraformElems converts a list, tuple or set value to a list or set of type t.
func toTerraformElems(v cty.Value, t, et tftypes.Type) (tftypes.Value, error) {
	ty := v.Type()
	if !ty.IsListType() && !ty.IsTupleType() && !ty.IsSetType() {
		return tftypes.Value{}, fmt.Errorf("a list is required, not %s", ty.FriendlyName())
	}
	elems := make([]tftypes.Value, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		tv, err := toTerraform(ev, et)
		if err != nil {
			return tftypes.Value{}, fmt.Errorf("[%d]: %w", len(elems), err)
		}
		elems = append(elems, tv)
	}
	return tftypes.NewValue(t, elems), nil
}
