package protocol

import (
	"bytes"
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil {
		return s.ProviderServer.PlanResourceChange(ctx, req)
	}
	resp := &tfprotov6.PlanResourceChangeResponse{PlannedPrivate: req.PriorPrivate}
	decode := func(dv *tfprotov6.DynamicValue) (tftypes.Value, bool) {
		if dv == nil {
			return tftypes.NewValue(f.typ, nil), true
		}
		v, err := dv.Unmarshal(f.typ)
		if err != nil {
			resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot decode the plan request", err.Error()))
			return v, false
		}
		return v, true
	}
	// Decoding a value of a ~2,300-attribute schema is the provider's largest cost, and the
	// proposed state often has the same encoding as the configuration (a create) or the prior
	// state (no change): decode such a value once.
	config, ok1 := decode(req.Config)
	proposed, ok2 := config, ok1
	if !sameEncoding(req.ProposedNewState, req.Config) {
		proposed, ok2 = decode(req.ProposedNewState)
	}
	prior, ok3 := proposed, ok2
	if !sameEncoding(req.PriorState, req.ProposedNewState) {
		prior, ok3 = decode(req.PriorState)
	}
	if !ok1 || !ok2 || !ok3 {
		return resp, nil
	}
	planned := proposed
	var replace path.Paths
	var diags diag.Diagnostics
	if !proposed.IsNull() {
		planned = f.applyExtraDefaults(config, planned)
		if !planned.Equal(prior) {
			planned = f.markComputedUnknown(config, planned)
		}
		if prior.IsKnown() && !prior.IsNull() {
			planned = keepPriorID(planned, prior)
		}
		// Bound to the provider's data: the placement preview may read the cluster.
		planned, replace, diags = s.configured(f).PlanChange(ctx, config, planned, prior, req.PriorPrivate)
	}
	resp.Diagnostics = toProtoDiags(diags)
	if diags.HasError() {
		return resp, nil
	}
	dv, err := tfprotov6.NewDynamicValue(f.typ, planned)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot encode the plan", err.Error()))
		return resp, nil
	}
	resp.PlannedState = &dv
	// As the framework: the planned identity is the prior one (null for a create); the name
	// and namespace that make it require replacement when they change.
	resp.PlannedIdentity = req.PriorIdentity
	if resp.PlannedIdentity == nil {
		resp.PlannedIdentity = protoIdentity(f.res.IdentityOf(tftypes.NewValue(f.typ, nil)))
	}
	for _, p := range replace {
		resp.RequiresReplace = append(resp.RequiresReplace, kindrules.ProtoPath(p))
	}
	return resp, nil
}

// sameEncoding reports whether two msgpack-encoded values are byte for byte the same (Terraform
// encodes deterministically).
func sameEncoding(a, b *tfprotov6.DynamicValue) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.JSON == nil && b.JSON == nil && len(a.MsgPack) > 0 && bytes.Equal(a.MsgPack, b.MsgPack)
}

// applyExtraDefaults sets the defaults of the extra attributes the configuration leaves null.
func (f *kindResource) applyExtraDefaults(config, planned tftypes.Value) tftypes.Value {
	cattrs := kube.ObjectAttrs(config)
	attrs := kube.ObjectAttrs(planned)
	for name, def := range f.defaults {
		if c, ok := cattrs[name]; ok && c.IsNull() {
			attrs[name] = def
		}
	}
	return tftypes.NewValue(planned.Type(), attrs)
}

// markComputedUnknown marks computed attributes the configuration leaves null as unknown, as
// the framework does when the resource changes: the server (or the plan modification) decides.
func (f *kindResource) markComputedUnknown(config, planned tftypes.Value) tftypes.Value {
	planned = f.res.MarkComputedUnknown(config, planned)
	cattrs := kube.ObjectAttrs(config)
	attrs := kube.ObjectAttrs(planned)
	for name := range f.computed {
		if c, ok := cattrs[name]; ok && c.IsNull() {
			attrs[name] = tftypes.NewValue(attrs[name].Type(), tftypes.UnknownValue)
		}
	}
	return tftypes.NewValue(planned.Type(), attrs)
}

// keepPriorID keeps the identifier known across updates (the framework's UseStateForUnknown).
func keepPriorID(planned, prior tftypes.Value) tftypes.Value {
	attrs := kube.ObjectAttrs(planned)
	if id, ok := attrs[kindrules.AttrID]; ok && !id.IsKnown() {
		attrs[kindrules.AttrID] = kube.ObjectAttrs(prior)[kindrules.AttrID]
	}
	return tftypes.NewValue(planned.Type(), attrs)
}
