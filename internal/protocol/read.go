package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// importBeforeReadKey is the framework's private-state marker of a state that
// ImportResourceState has just returned; the ReadResource that follows clears it
// (terraform-plugin-framework v1.19.0 internal/privatestate ImportBeforeReadKey and
// internal/fwserver/server_readresource.go), and so does this server's.
const importBeforeReadKey = ".import_before_read"

func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	f := s.lookup(ctx, req.TypeName)
	if f == nil {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	resp := &tfprotov6.ReadResourceResponse{Private: kube.WithoutPrivateKey(req.Private, importBeforeReadKey), NewState: req.CurrentState}
	r := s.configured(f)
	// The state records the resourceVersion of the object it was computed from: when the
	// server still holds that version, nothing changed and the state stands as it is, without
	// decoding and re-encoding it (unless the state also records other objects).
	var fetched *unstructured.Unstructured
	if req.CurrentState != nil && req.CurrentState.JSON == nil {
		if namespace, name, rv, ok := stateMetadata(req.CurrentState.MsgPack); ok && rv != "" {
			u, removed, diags := r.Fetch(ctx, namespace, name)
			if diags.HasError() {
				resp.Diagnostics = toProtoDiags(diags)
				return resp, nil
			}
			if removed {
				resp.NewState = nullState(f.typ)
				resp.NewIdentity = req.CurrentIdentity // as the framework answers for a removed resource
				return resp, nil
			}
			if u.GetResourceVersion() == rv && !r.ReadsOtherObjects() {
				resp.NewIdentity = protoIdentity(f.res.IdentityValue(namespace, name))
				return resp, nil
			}
			fetched = u
		}
	}
	current, err := req.CurrentState.Unmarshal(f.typ)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot decode the state", err.Error()))
		return resp, nil
	}
	if current.IsNull() {
		return resp, nil
	}
	var newState tftypes.Value
	var removed bool
	var private []byte
	var diags diag.Diagnostics
	if fetched != nil {
		newState, private, diags = r.ReadFrom(current, r.AfterRead(ctx, fetched), false, resp.Private)
	} else {
		newState, removed, private, diags = r.ReadRaw(ctx, current, resp.Private)
	}
	resp.Diagnostics = toProtoDiags(diags)
	if diags.HasError() {
		return resp, nil
	}
	resp.Private = private
	if removed {
		newState = tftypes.NewValue(f.typ, nil)
		resp.NewIdentity = req.CurrentIdentity
	} else {
		resp.NewIdentity = protoIdentity(f.res.IdentityOf(newState))
	}
	dv, err := tfprotov6.NewDynamicValue(f.typ, newState)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiag("Cannot encode the state", err.Error()))
		return resp, nil
	}
	resp.NewState = &dv
	return resp, nil
}

// nullState is the encoding of a removed object's state.
func nullState(typ tftypes.Type) *tfprotov6.DynamicValue {
	dv, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	return &dv
}
