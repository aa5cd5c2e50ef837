package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil || req.Version != 0 || req.RawState == nil || req.RawState.JSON == nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	// Schema version 0 is the only one: the stored state only needs decoding, tolerating
	// attributes an older build had.
	resp := &tfprotov6.UpgradeResourceStateResponse{}
	if mp, err := stateToMsgPack(f.typ, req.RawState.JSON); err == nil {
		resp.UpgradedState = &tfprotov6.DynamicValue{MsgPack: mp}
		return resp, nil
	}
	v, err := req.RawState.UnmarshalWithOpts(f.typ, tfprotov6.UnmarshalOpts{ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}})
	if err != nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	dv, err := tfprotov6.NewDynamicValue(f.typ, v)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot encode the state", err.Error()))
		return resp, nil
	}
	resp.UpgradedState = &dv
	return resp, nil
}
