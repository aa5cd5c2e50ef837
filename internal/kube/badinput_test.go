package kube_test

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// setPath returns v with the attribute at names replaced by leaf.
func setPath(v tftypes.Value, leaf tftypes.Value, names ...string) tftypes.Value {
	if len(names) == 0 {
		return leaf
	}
	var attrs map[string]tftypes.Value
	_ = v.As(&attrs)
	out := map[string]tftypes.Value{}
	for k, x := range attrs {
		out[k] = x
	}
	out[names[0]] = setPath(attrs[names[0]], leaf, names[1:]...)
	return tftypes.NewValue(v.Type(), out)
}

func validateDiags(h *harness, config tftypes.Value) []*tfprotov6.Diagnostic {
	vr, _ := h.srv.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: h.typeName(), Config: h.dv(config)})
	return vr.Diagnostics
}

// Bad input is one clear plan-time error on the attribute, never a crash or a second error
// about the zero value that stands in for a value that could not be decoded.
func TestBadInputEdges(t *testing.T) {
	h := newHarness(t, leaderworkerset.Kind, nil)
	base := h.config(vllm(), nil)
	big := func(s string) tftypes.Value {
		f, _, _ := new(big.Float).SetPrec(512).Parse(s, 10)
		return tftypes.NewValue(tftypes.Number, f)
	}
	timeouts := func(create string) tftypes.Value {
		typ := h.typ.AttributeTypes["timeouts"].(tftypes.Object)
		attrs := map[string]tftypes.Value{}
		for k, at := range typ.AttributeTypes {
			attrs[k] = tftypes.NewValue(at, nil)
		}
		attrs["create"] = tftypes.NewValue(tftypes.String, create)
		return tftypes.NewValue(typ, attrs)
	}
	for _, tc := range []struct {
		name   string
		config tftypes.Value
		want   []string // one error each, in this order
	}{
		{"grace period beyond 64 bits",
			setPath(base, big("99999999999999999999999"), "spec", "leader_worker_template", "worker_template", "spec", "termination_grace_period_seconds"),
			[]string{"99999999999999999999999", "must fit in a 64-bit integer"}},
		{"size beyond 32 bits", setPath(base, big("1e30"), "spec", "leader_worker_template", "size"),
			[]string{"1000000000000000000000000000000", "must fit in a 32-bit integer"}},
		{"fractional size", setPath(base, big("2.5"), "spec", "leader_worker_template", "size"),
			[]string{"2.5", "must be a whole number"}},
		{"negative timeout", setPath(base, timeouts("-5m"), "timeouts"), []string{"timeouts.create must be positive", `"-5m"`}},
		{"zero timeout", setPath(base, timeouts("0s"), "timeouts"), []string{"timeouts.create must be positive"}},
		{"megabyte name", setPath(base, tftypes.NewValue(tftypes.String, strings.Repeat("a", 1<<20)), "metadata", "name"),
			[]string{"(1048576 characters)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs []*tfprotov6.Diagnostic
			for _, d := range validateDiags(h, tc.config) {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					errs = append(errs, d)
				}
			}
			if len(errs) == 0 {
				t.Fatal("no error")
			}
			total := 0
			for _, d := range errs {
				total += len(d.Detail)
			}
			if total > 8192 {
				t.Errorf("%d bytes of error detail: long values must be shortened", total)
			}
			if !strings.Contains(tc.name, "megabyte") && len(errs) != 1 {
				for _, d := range errs {
					t.Logf("%s: %s", d.Summary, d.Detail)
				}
				t.Fatalf("%d errors, want 1", len(errs))
			}
			for _, w := range tc.want {
				if !strings.Contains(errs[0].Summary+": "+errs[0].Detail, w) {
					t.Errorf("error %q: %q lacks %q", errs[0].Summary, errs[0].Detail, w)
				}
			}
		})
	}
}
