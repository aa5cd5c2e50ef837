package kube

import "github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"

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
}
