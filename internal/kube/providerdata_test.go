package kube_test

import (
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

func TestProviderDataFrom(t *testing.T) {
	data, diags := kube.ProviderDataFrom(nil)
	if data != nil || diags.HasError() {
		t.Errorf("before the provider is configured: got %v, %v; want nil and no error", data, diags)
	}

	want := &kube.ProviderData{FieldManager: "test"}
	data, diags = kube.ProviderDataFrom(want)
	if data != want || diags.HasError() {
		t.Errorf("configured: got %v, %v; want the provider's data", data, diags)
	}

	data, diags = kube.ProviderDataFrom("not provider data")
	if data != nil || !diags.HasError() {
		t.Fatalf("another type: got %v, %v; want nil and an error", data, diags)
	}
	if got, want := diags[0].Detail(), "Expected *kube.ProviderData, got string."; got != want {
		t.Errorf("detail: got %q, want %q", got, want)
	}
}
