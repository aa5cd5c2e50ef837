package kube

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
)

// ProviderData is what the provider hands to every resource, data source,
// ephemeral resource, action and list resource in Configure.
type ProviderData struct {
	// Client talks to the cluster. It is built lazily: the first call to
	// RESTConfig or Dynamic reads kubeconfig files / the in-cluster
	// service account. It may return an error such as
	// kubeclient.ErrUnknownConfiguration when the provider configuration was
	// not known during plan.
	Client *kubeclient.Client
	// FieldManager is the server-side apply field manager name.
	FieldManager string
	// PlacementPreview is the placement_preview setting: PlacementOff (also when unset or unknown
	// at plan), PlacementWarn or PlacementError.
	PlacementPreview string

	placement placementSnapshot
}

// ProviderDataFrom is the provider data a Configure request carries (its ProviderData field),
// for the Configure method of every resource, data source and action. It is nil without
// diagnostics before the provider is configured: the framework configures them for offline
// RPCs (validation) too.
func ProviderDataFrom(providerData any) (*ProviderData, diag.Diagnostics) {
	if providerData == nil {
		return nil, nil
	}
	data, ok := providerData.(*ProviderData)
	if !ok {
		var diags diag.Diagnostics
		diags.AddError("Unexpected provider data", fmt.Sprintf("Expected *kube.ProviderData, got %T.", providerData))
		return nil, diags
	}
	return data, nil
}
