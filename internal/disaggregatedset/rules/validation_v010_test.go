package rules

import (
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"
	releasedutils "sigs.k8s.io/lws/pkg/utils/disaggregatedset"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// One case per rule of the v0.10.0 CRD and webhook, with the error the server reports.
func TestValidateV010(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*disaggv1.DisaggregatedSet)
		want   []string
	}{
		{"slices and placement accepted", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Slices = ptr.To[int32](100)
			ds.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{Type: disaggv1.PlacementExclusiveTopology, Topology: "topology.kubernetes.io/zone"}
		}, nil},
		{"slices 0 (CRD minimum)", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Slices = ptr.To[int32](0) },
			[]string{`spec.slices: Invalid value: 0: spec.slices in body should be greater than or equal to 1`}},
		{"slices 101 (CRD maximum)", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Slices = ptr.To[int32](101) },
			[]string{`spec.slices: Invalid value: 101: spec.slices in body should be less than or equal to 100`}},
		{"placement type (CRD enum)", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{Type: "Packed", Topology: "zone"}
		}, []string{`spec.placementPolicy.type: Unsupported value: "Packed": supported values: "None", "ExclusiveSlice", "ExclusiveTopology"`}},
		{"placement without topology (webhook)", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{Type: disaggv1.PlacementExclusiveSlice}
		}, []string{`spec.placementPolicy.topology: Required value: topology is required when type is not None`}},
		{"placement None without topology", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{}
		}, nil},
		{"placement with an exclusive-topology annotation (webhook)", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{Type: disaggv1.PlacementExclusiveSlice, Topology: "zone"}
			ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Annotations = map[string]string{"leaderworkerset.sigs.k8s.io/exclusive-topology": "zone"}
		}, []string{`spec.roles[1]: Forbidden: the "leaderworkerset.sigs.k8s.io/exclusive-topology" annotation must not be combined with a non-None spec.placementPolicy.type (ExclusiveSlice)`}},
		{"scaling mode (CRD enum)", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Scaling = &disaggv1.RoleScaling{Mode: "Auto"}
		}, []string{`spec.roles[0].scaling.mode: Unsupported value: "Auto": supported values: "Static", "External"`}},
		{"slices > 1 with an External role (webhook)", func(ds *disaggv1.DisaggregatedSet) {
			dsfixture.External(ds, 1)
			ds.Spec.Slices = ptr.To[int32](2)
		}, []string{`spec.slices: Forbidden: spec.slices > 1 is not supported while any role has scaling.mode: External (alpha restriction)`}},
		{"role replicas above 1,000,000 (the v0.10.0 CRD maximum; on v0.9.0 the role's LeaderWorkerSet)", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.Replicas = ptr.To[int32](1000001)
			ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](1000001)
		}, []string{
			`spec.roles[0].spec.replicas: Invalid value: 1000001: must be less than or equal to 1000000`,
			`spec.roles[1].spec.replicas: Invalid value: 1000001: must be less than or equal to 1000000`,
		}},
		{"External role exempt from the replicas rule (CRD)", func(ds *disaggv1.DisaggregatedSet) {
			dsfixture.External(ds, 1)
			ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](0)
		}, nil},
		{"Static roles still under the replicas rule (CRD)", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles = append(ds.Spec.Roles, dsfixture.Role("router", 0, "nginx"))
			dsfixture.External(ds, 1)
		}, []string{`spec: Invalid value: replicas must be zero for all non-External roles or non-zero for all non-External roles`}},
		{"scaler name too long (webhook)", func(ds *disaggv1.DisaggregatedSet) {
			ds.Name = "a" + strings.Repeat(".b", 125)
			dsfixture.External(ds, 1)
		}, nil}, // the name is checked below (the LeaderWorkerSet name rules fail first too)
		{"maxSurge and maxUnavailable both 0 (webhook)", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.RolloutStrategy = releasedlws.RolloutStrategy{Type: releasedlws.RollingUpdateStrategyType,
				RollingUpdateConfiguration: &releasedlws.RollingUpdateConfiguration{MaxUnavailable: intstr.FromString("0%"), MaxSurge: intstr.FromInt32(0)}}
		}, []string{"spec.roles[0].spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable: Invalid value: \"0%\": must not be 0 when `maxSurge` is 0"}},
		{"maxSurge and maxUnavailable both 0 with zero replicas", func(ds *disaggv1.DisaggregatedSet) {
			for i := range ds.Spec.Roles {
				ds.Spec.Roles[i].Spec.Replicas = ptr.To[int32](0)
			}
			ds.Spec.Roles[0].Spec.RolloutStrategy = releasedlws.RolloutStrategy{Type: releasedlws.RollingUpdateStrategyType,
				RollingUpdateConfiguration: &releasedlws.RollingUpdateConfiguration{MaxUnavailable: intstr.FromInt32(0), MaxSurge: intstr.FromInt32(0)}}
		}, nil},
		{"partition (webhook)", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{Partition: ptr.To[int32](1), MaxUnavailable: intstr.FromInt32(1)}
		}, []string{`spec.roles[1].spec.rolloutStrategy.rollingUpdateConfiguration.partition: Forbidden: partition is not supported by DisaggregatedSet; rolling updates are managed across roles by the DisaggregatedSet controller`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := dsfixture.Pair()
			tc.modify(ds)
			SetDefaults(ds, k8sschema.NullValue(node()))
			var got []string
			for _, s := range errorStrings(Validate(ds)) {
				if tc.name == "scaler name too long (webhook)" && !strings.Contains(s, "scaler") {
					continue
				}
				got = append(got, s)
			}
			if tc.name == "scaler name too long (webhook)" {
				if len(got) != 1 || !strings.HasPrefix(got[0], `spec.roles[1].name: Invalid value: "decode": would produce scaler name`) {
					t.Errorf("scaler name: %v", got)
				}
				return
			}
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("errors differ\n got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// The v0.10.0 CRD defaults of the new fields are planned; absent objects stay absent.
func TestSetDefaultsV010(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{}
	ds.Spec.Roles[0].Scaling = &disaggv1.RoleScaling{}
	SetDefaults(ds, k8sschema.NullValue(node()))
	if *ds.Spec.Slices != 1 || ds.Spec.PlacementPolicy.Type != disaggv1.PlacementNone ||
		ds.Spec.Roles[0].Scaling.Mode != disaggv1.RoleScalingStatic || ds.Spec.Roles[1].Scaling != nil {
		t.Errorf("defaults: slices %v, placement %+v, scaling %+v %+v", *ds.Spec.Slices, ds.Spec.PlacementPolicy,
			ds.Spec.Roles[0].Scaling, ds.Spec.Roles[1].Scaling)
	}
	none := dsfixture.Pair()
	SetDefaults(none, k8sschema.NullValue(node()))
	if none.Spec.PlacementPolicy != nil {
		t.Errorf("placement policy planned without being written")
	}
}

// An explicit empty enum is refused (the CRD's defaults only fill absent fields), and so are
// replicas written on an External role (never sent; the state records the groups that run).
func TestCheckConfigV010(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{Type: ""}
	ds.Spec.Roles[0].Scaling = &disaggv1.RoleScaling{Mode: ""}
	dsfixture.External(ds, 1)
	config := k8sschema.Encode(node(), ds)
	// Encode leaves "" out as unset: write the empty strings into the configuration.
	empty := tftypes.NewValue(tftypes.String, "")
	placementType := tftypes.NewAttributePath().WithAttributeName("spec").WithAttributeName("placement_policy").WithAttributeName("type")
	scalingMode := tftypes.NewAttributePath().WithAttributeName("spec").WithAttributeName("roles").WithElementKeyInt(0).
		WithAttributeName("scaling").WithAttributeName("mode")
	config, err := tftypes.Transform(config, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if p.Equal(placementType) || p.Equal(scalingMode) {
			return empty, nil
		}
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	errs, warnings := checkConfig(ds, config)
	got := errorStrings(errs)
	want := []string{
		`spec.placementPolicy.type: Unsupported value: "": supported values: "None", "ExclusiveSlice", "ExclusiveTopology"`,
		`spec.roles[0].scaling.mode: Unsupported value: "": supported values: "Static", "External"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n  %s", strings.Join(got, "\n  "))
	}
	written := errorStrings(checkWritten(config))
	wantWritten := `spec.roles[1].spec.replicas: Forbidden: role "decode" has scaling.mode = "External": its replicas are set through the DisaggregatedSetRoleScaler "llama-decode" (by an autoscaler such as a HorizontalPodAutoscaler or KEDA), the controller ignores the role's own replicas, and the provider does not send them; remove replicas from this role (the state records the groups that run). The LeaderWorkerSet v0.10.0 webhook accepts it with the warning "role \"decode\" sets scaling.mode: External and spec.replicas: 4 — spec.replicas is ignored; drive replicas via DisaggregatedSetRoleScaler \"llama-decode\" instead"; the provider is stricter`
	if len(written) != 1 || !strings.HasPrefix(written[0], wantWritten) {
		t.Errorf("checkWritten:\n  %s", strings.Join(written, "\n  "))
	}
	if len(written) == 1 && !strings.Contains(written[0], "the provider is stricter because Terraform requires a written value to be the planned and the stored value") {
		t.Errorf("checkWritten does not say why it is stricter than the webhook: %s", written[0])
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %+v", warnings)
	}
}

// TestExternalReplicasError: the error on replicas written on an External role quotes the v0.10.0
// webhook's warning (DisaggregatedSetWebhook.validate, lws 2161f38) where the webhook gives one
// (above 1), and says it accepts the value otherwise.
func TestExternalReplicasError(t *testing.T) {
	one, four := int64(1), int64(4)
	for _, c := range []struct {
		replicas *int64
		want     string
	}{
		{&four, `webhook accepts it with the warning "role \"decode\" sets scaling.mode: External and spec.replicas: 4 — spec.replicas is ignored; drive replicas via DisaggregatedSetRoleScaler \"llama-decode\" instead"; the provider is stricter`},
		{&one, "webhook accepts 1 without a warning (it warns above 1); the provider is stricter"},
		{nil, "webhook accepts it without a warning at 0 or 1 and warns above 1; the provider is stricter"},
	} {
		if got := externalReplicasError("llama", "decode", c.replicas); !strings.Contains(got, c.want) {
			t.Errorf("%v:\n%s\nwant it to contain\n%s", c.replicas, got, c.want)
		}
	}
}

func TestRoleScalerEveryAttributeHasOurOwnDescription(t *testing.T) {
	if problems := k8sschema.DocProblems(roleScalerNode(), roleScalerFieldDocs()); len(problems) > 0 {
		t.Errorf("%d description problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// nameVerdict is the plan's verdict on the set's name: "error" (Validate rejects it), "warn"
// (a name warning) or "ok".
func nameVerdict(ds *disaggv1.DisaggregatedSet) string {
	for _, e := range Validate(ds) {
		if e.Field == "metadata.name" {
			return "error"
		}
	}
	_, warnings := checkConfig(ds, k8sschema.NullValue(node()))
	for _, w := range warnings {
		if w.Path.String() == "metadata.name" {
			return "warn"
		}
	}
	return "ok"
}

// On v0.10.0 a role's LeaderWorkerSet is <set>-<slice>-<revision>-<role> (GenerateName,
// pkg/utils/disaggregatedset/utils.go, lws 2161f38), the revision 8 characters. Its StatefulSets'
// pods carry controller-revision-hash = <StatefulSet>-<hash>, the hash 8 to 10 characters, the
// longest StatefulSet being the leader's (<lws>) for groups of 1 pod and a worker's
// (<lws>-<group>) otherwise: for a prefill role the set's name comes up at any hash up to 33
// characters (size 1) or 31 (size 2), with some hashes up to 35 or 33, and never beyond. The
// limits move with the role name's length. Measured on the controller built from the release.
func TestRoleNameLimitsV010(t *testing.T) {
	cases := []struct {
		role       string
		size       int32
		ok, warnTo int // the longest name that always comes up, and that may
	}{
		{"prefill", 1, 33, 35},
		{"prefill", 2, 31, 33},
		{"decode", 1, 34, 36},
		{"decode", 2, 32, 34},
	}
	for _, tc := range cases {
		for n := tc.ok - 2; n <= tc.warnTo+2; n++ {
			ds := &disaggv1.DisaggregatedSet{}
			ds.Namespace = "default"
			ds.Name = "s" + strings.Repeat("n", n-1)
			r := dsfixture.Role(tc.role, 2, "vllm/vllm-openai:v0.11.0")
			r.Spec.LeaderWorkerTemplate.Size = ptr.To(tc.size)
			short := dsfixture.Role("x", 1, "vllm/vllm-openai:v0.11.0") // a second role, whose limits are wider
			short.Spec.LeaderWorkerTemplate.Size = ptr.To[int32](1)
			ds.Spec.Roles = []disaggv1.DisaggregatedRoleSpec{r, short}
			ds.Spec.Slices = ptr.To[int32](2)
			SetDefaults(ds, k8sschema.NullValue(node()))
			want := "ok"
			switch {
			case n > tc.warnTo:
				want = "error"
			case n > tc.ok:
				want = "warn"
			}
			if got := nameVerdict(ds); got != want {
				t.Errorf("role %s, size %d, a name of %d characters: %s, want %s", tc.role, tc.size, n, got, want)
			}
		}
	}
}

// TestAppLabelDocumented: the pods' app label as the attribute descriptions say it, against the
// released v0.9.0 GenerateLabels and the port of v0.10.0's (roleObjectName: GenerateLabels,
// pkg/utils/disaggregatedset/utils.go, lws 2161f38), slice 0 included.
func TestAppLabelDocumented(t *testing.T) {
	ds := dsfixture.Pair()
	rev := ComputeRevision(ds.Spec.Roles)
	forms := map[string]string{
		"`app = \"<name>-<role>\"`":         releasedutils.GenerateLabels(ds.Name, "decode", rev)["app"],
		"`app = \"<name>-<slice>-<role>\"`": "",
		"`<name>-0-<role>` with one slice":  "",
	}
	_, labels := roleObjectName(ds, "decode", rev, true)
	forms["`<name>-0-<role>` with one slice"] = labels["app"]
	ds.Spec.Slices = ptr.To[int32](3)
	_, labels = roleObjectName(ds, "decode", rev, true)
	forms["`app = \"<name>-<slice>-<role>\"`"] = labels["app"]
	if labels[disaggv1.SliceLabelKey] != "2" {
		t.Errorf("v0.10.0 labels: %v", labels)
	}
	want := map[string]string{
		"`app = \"<name>-<role>\"`":         "llama-decode",
		"`app = \"<name>-<slice>-<role>\"`": "llama-2-decode",
		"`<name>-0-<role>` with one slice":  "llama-0-decode",
	}
	role := node().FieldJSON("spec").FieldJSON("roles").Elem
	doc := k8sschema.NodeAt(role, "spec.leaderWorkerTemplate.workerTemplate").Description
	for form, got := range forms {
		if got != want[form] {
			t.Errorf("%s: the controller's label is %q, want %q", form, got, want[form])
		}
		if !strings.Contains(doc, form) {
			t.Errorf("the worker template's description lacks %s: %s", form, doc)
		}
	}
	meta := k8sschema.NodeAt(role, "metadata.labels").Description
	for _, form := range []string{"`<name>-<role>` on v0.9.0", "`<name>-<slice>-<role>` on v0.10.0", "on v0.10.0, `disaggregatedset.x-k8s.io/slice`"} {
		if !strings.Contains(meta, form) {
			t.Errorf("the role labels' description lacks %s: %s", form, meta)
		}
	}
}
