package protocol

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil {
		return s.ProviderServer.ApplyResourceChange(ctx, req)
	}
	resp := &tfprotov6.ApplyResourceChangeResponse{Private: req.PlannedPrivate}
	prior, err1 := req.PriorState.Unmarshal(f.typ)
	planned, err2 := req.PlannedState.Unmarshal(f.typ)
	var config tftypes.Value
	var err3 error
	if req.Config != nil {
		config, err3 = req.Config.Unmarshal(f.typ)
	}
	if err1 != nil || err2 != nil || err3 != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot decode the apply request", errors.Join(err1, err2, err3).Error()))
		return resp, nil
	}
	r := s.configured(f)
	var diags diag.Diagnostics
	newState := prior // on failure the object is as it was
	switch {
	case planned.IsNull():
		diags = r.DeleteRaw(ctx, prior, kube.UnconfirmedCreate(req.PlannedPrivate))
		if !diags.HasError() {
			newState = planned
			resp.Private = nil // nothing left to remember, as the framework answers
		}
	default:
		state := tftypes.Value{}
		resp.Private = r.ApplyRaw(ctx, planned, config, prior, req.PlannedPrivate, &state, &diags)
		if state.Type() != nil {
			newState = state // the object exists (even if waiting failed): record it
		}
	}
	resp.Diagnostics = toProtoDiags(diags)
	resp.NewIdentity = protoIdentity(f.res.IdentityOf(newState)) // null once deleted, as the framework answers
	dv, err := tfprotov6.NewDynamicValue(f.typ, newState)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot encode the state", err.Error()))
		return resp, nil
	}
	resp.NewState = &dv
	return resp, nil
}
