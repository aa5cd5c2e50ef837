package kube_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// lwsListServer serves a list of LeaderWorkerSets in pages of two: names[i] is owned (controller
// ownerReference) by owners[i] ("Kind/name") when that is set.
func lwsListServer(t *testing.T, names, owners []string) *kube.ProviderData {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/leaderworkersets") {
			writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, r.URL.Path)
			return
		}
		start := 0
		_, _ = fmt.Sscan(r.URL.Query().Get("continue"), &start)
		var items []any
		for i := start; i < len(names) && i < start+2; i++ {
			meta := map[string]any{"name": names[i], "namespace": "default", "uid": fmt.Sprint("uid-", i)}
			if owners[i] != "" {
				kind, name, _ := strings.Cut(owners[i], "/")
				meta["ownerReferences"] = []any{
					map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "not-a-controller", "uid": "u0"},
					metav1.OwnerReference{APIVersion: "disaggregatedset.x-k8s.io/v1", Kind: kind, Name: name, UID: "u1", Controller: ptr.To(true)},
				}
			}
			items = append(items, map[string]any{"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": meta})
		}
		cont := ""
		if start+2 < len(names) {
			cont = fmt.Sprint(start + 2)
		}
		writeJSON(w, http.StatusOK, map[string]any{"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSetList",
			"metadata": map[string]any{"continue": cont}, "items": items})
	}))
	t.Cleanup(srv.Close)
	return &kube.ProviderData{Client: kubeclient.NewClientFromRESTConfig(&rest.Config{Host: srv.URL})}
}

// runList runs the LeaderWorkerSet list resource with include_controlled (nil: left out) and
// returns the display names listed and the diagnostics of the stream.
func runList(t *testing.T, data *kube.ProviderData, includeControlled *bool, limit int64) ([]string, diag.Diagnostics) {
	t.Helper()
	ctx := context.Background()
	lr := kube.NewListResource(leaderworkerset.Kind)().(list.ListResourceWithConfigure)
	lr.Configure(ctx, resource.ConfigureRequest{ProviderData: data}, &resource.ConfigureResponse{})
	var sr list.ListResourceSchemaResponse
	lr.ListResourceConfigSchema(ctx, list.ListResourceSchemaRequest{}, &sr)
	var ir resource.IdentitySchemaResponse
	lr.(resource.ResourceWithIdentity).IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &ir)

	typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	if includeControlled != nil {
		attrs["include_controlled"] = tftypes.NewValue(tftypes.Bool, *includeControlled)
	}
	var stream list.ListResultsStream
	lr.List(ctx, list.ListRequest{Config: tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(typ, attrs)},
		Limit: limit, ResourceIdentitySchema: ir.IdentitySchema}, &stream)
	var names []string
	var diags diag.Diagnostics
	for res := range stream.Results {
		diags.Append(res.Diagnostics...)
		if res.Identity != nil {
			names = append(names, res.DisplayName)
		}
	}
	return names, diags
}

// TestListSkipsControlledObjects: the LeaderWorkerSets a DisaggregatedSet owns are left out of a
// list, with one warning that counts them by owner kind; include_controlled lists them too.
func TestListSkipsControlledObjects(t *testing.T) {
	data := lwsListServer(t,
		[]string{"own-a", "ds1-0-prefill", "ds1-0-decode", "own-b", "ds2-0-prefill"},
		[]string{"", "DisaggregatedSet/ds1", "DisaggregatedSet/ds1", "", "DisaggregatedSet/ds2"})

	for _, include := range []*bool{nil, ptr.To(false)} {
		names, diags := runList(t, data, include, 100)
		if strings.Join(names, " ") != "default/own-a default/own-b" {
			t.Errorf("include_controlled %v: listed %v, want the two objects no controller owns", include, names)
		}
		if len(diags) != 1 || diags[0].Severity() != diag.SeverityWarning {
			t.Fatalf("want one warning, got %v", diags)
		}
		if s := diags[0].Summary(); s != "3 LeaderWorkerSets owned by a DisaggregatedSet were skipped" {
			t.Errorf("summary %q", s)
		}
		for _, s := range []string{"DisaggregatedSet ds1, ds2", "include_controlled = true"} {
			if !strings.Contains(diags[0].Detail(), s) {
				t.Errorf("detail lacks %q: %s", s, diags[0].Detail())
			}
		}
	}

	names, diags := runList(t, data, ptr.To(true), 100)
	if len(diags) != 0 || len(names) != 5 || names[1] != "default/ds1-0-prefill (controlled by DisaggregatedSet ds1)" {
		t.Errorf("include_controlled = true: listed %v with %v, want all five, the controlled ones saying so", names, diags)
	}

	// The limit counts the objects listed, not those skipped.
	names, diags = runList(t, data, nil, 2)
	if len(names) != 2 || len(diags) != 1 || !strings.HasPrefix(diags[0].Summary(), "2 LeaderWorkerSets owned by") {
		t.Errorf("limit 2: listed %v with %v", names, diags)
	}

	names, diags = runList(t, lwsListServer(t, []string{"a", "b"}, []string{"", "DisaggregatedSet/ds"}), nil, 100)
	if len(names) != 1 || len(diags) != 1 || diags[0].Summary() != "1 LeaderWorkerSet owned by a DisaggregatedSet was skipped" {
		t.Errorf("listed %v with %v", names, diags)
	}
	names, diags = runList(t, lwsListServer(t, []string{"a"}, []string{""}), nil, 100)
	if len(names) != 1 || len(diags) != 0 {
		t.Errorf("nothing controlled: listed %v with %v", names, diags)
	}
}
