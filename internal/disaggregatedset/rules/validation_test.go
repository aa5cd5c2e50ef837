package rules

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate"
)

func errorStrings(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	sort.Strings(out)
	return out
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*disaggv1.DisaggregatedSet)
		want   []string // exact messages, sorted
	}{
		{name: "valid pair", modify: func(*disaggv1.DisaggregatedSet) {}},
		{name: "all roles at zero", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.Replicas = ptr.To[int32](0)
			ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](0)
		}},
		{name: "one role at zero", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](0)
		}, want: []string{`spec: Invalid value: replicas must be zero for all non-External roles or non-zero for all non-External roles`}},
		{name: "one role", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles = ds.Spec.Roles[:1]
		}, want: []string{`spec.roles: Invalid value: 1: spec.roles in body should have at least 2 items`}},
		{name: "eleven roles", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles = nil
			for i := range 11 {
				ds.Spec.Roles = append(ds.Spec.Roles, dsfixture.Role(fmt.Sprintf("r%d", i), 1, "vllm"))
			}
		}, want: []string{`spec.roles: Too many: 11: must have at most 10 items`}},
		{name: "duplicate role names", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Name = "prefill"
		}, want: []string{`spec.roles[1]: Duplicate value: {"name":"prefill"}`}},
		{name: "role name pattern", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Name = "Decode"
		}, want: []string{`spec.roles[1].name: Invalid value: "Decode": spec.roles[1].name in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'`}},
		{name: "empty role name", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Name = ""
		}, want: []string{`spec.roles[1].name: Invalid value: "": spec.roles[1].name in body should be at least 1 chars long`}},
		{name: "partition (webhook)", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.RolloutStrategy = releasedlws.RolloutStrategy{Type: releasedlws.RollingUpdateStrategyType,
				RollingUpdateConfiguration: &releasedlws.RollingUpdateConfiguration{Partition: ptr.To[int32](1), MaxUnavailable: intstr.FromInt32(1)}}
		}, want: []string{`spec.roles[0].spec.rolloutStrategy.rollingUpdateConfiguration.partition: Forbidden: partition is not supported by DisaggregatedSet; rolling updates are managed across roles by the DisaggregatedSet controller`}},
		{name: "rollout type (CRD enum, through the role's LeaderWorkerSet rules)", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.RolloutStrategy.Type = "Recreate"
		}, want: []string{`spec.roles[0].spec.rolloutStrategy.type: Unsupported value: "Recreate": supported values: "RollingUpdate"`}},
		{name: "pod template rule on a role", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = ""
		}, want: []string{`spec.roles[1].spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].image: Required value`}},
		{name: "LeaderWorkerSet webhook rule on a role", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.LeaderWorkerTemplate.SubGroupPolicy = &releasedlws.SubGroupPolicy{SubGroupSize: ptr.To[int32](3)}
		}, want: []string{
			`spec.roles[0].spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize: Invalid value: 3: size or size - 1 must be divisible by subGroupSize`,
			`spec.roles[0].spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize: Invalid value: 3: subGroupSize cannot be larger than size`,
		}},
		{name: "invalid role label", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Labels = map[string]string{"tier": "-bad-"}
		}, want: []string{`spec.roles[0].metadata.labels: Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{name: "set name too long for the derived LeaderWorkerSet", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Name = strings.Repeat("a", 40)
		}, want: []string{
			`metadata.name: Invalid value: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": the LeaderWorkerSet "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-` + revisionOf(strings.Repeat("a", 40)) + `-decode" that the controller creates for role "decode" (<name>-<revision>-<role>) is invalid: too long for the objects the controller creates: with 4 groups of 2 pods the worker StatefulSets' controller-revision-hash label and pod names reach 69 characters, over the 63 allowed for label values, so pods would never be created; use a DisaggregatedSet name of at most 34 characters (or a shorter role name)`,
			`metadata.name: Invalid value: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": the LeaderWorkerSet "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-` + revisionOf(strings.Repeat("a", 40)) + `-prefill" that the controller creates for role "prefill" (<name>-<revision>-<role>) is invalid: too long for the objects the controller creates: with 2 groups of 2 pods the worker StatefulSets' controller-revision-hash label and pod names reach 70 characters, over the 63 allowed for label values, so pods would never be created; use a DisaggregatedSet name of at most 33 characters (or a shorter role name)`,
		}},
		{name: "set name starting with a digit", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Name = "1llama"
		}, want: []string{
			`metadata.name: Invalid value: "1llama": the LeaderWorkerSet "1llama-` + revisionOf("1llama") + `-decode" that the controller creates for role "decode" (<name>-<revision>-<role>) is invalid: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`metadata.name: Invalid value: "1llama": the LeaderWorkerSet "1llama-` + revisionOf("1llama") + `-prefill" that the controller creates for role "prefill" (<name>-<revision>-<role>) is invalid: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{name: "missing set name", modify: func(ds *disaggv1.DisaggregatedSet) {
			ds.Name = ""
		}, want: []string{`metadata.name: Required value: name or generateName is required`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := dsfixture.Pair()
			tc.modify(ds)
			SetDefaults(ds, k8sschema.NullValue(node()))
			got := errorStrings(Validate(ds))
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("errors differ\n got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// revisionOf is the revision of dsfixture.Pair()'s roles (the set's name is not part of it).
func revisionOf(string) string {
	ds := dsfixture.Pair()
	SetDefaults(ds, k8sschema.NullValue(node()))
	lws, err := RoleLeaderWorkerSet(ds, 0)
	if err != nil {
		panic(err)
	}
	return lws.Labels[disaggv1.RevisionLabelKey]
}

// The LeaderWorkerSet a role becomes is shaped as LeaderWorkerSetManager.Create shapes it.
func TestRoleLeaderWorkerSet(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.Roles[1].Labels = map[string]string{"app": "mine", "tier": "decode"}
	ds.Spec.Roles[1].Annotations = map[string]string{"note": "x"}
	SetDefaults(ds, k8sschema.NullValue(node()))
	lws, err := RoleLeaderWorkerSet(ds, 1)
	if err != nil {
		t.Fatal(err)
	}
	rev := lws.Labels[disaggv1.RevisionLabelKey]
	if len(rev) != 8 || lws.Name != "llama-"+rev+"-decode" || lws.Namespace != "default" {
		t.Errorf("name %s/%s, revision %q", lws.Namespace, lws.Name, rev)
	}
	wantLabels := map[string]string{"app": "llama-decode", "tier": "decode", disaggv1.SetNameLabelKey: "llama",
		disaggv1.RoleLabelKey: "decode", disaggv1.RevisionLabelKey: rev}
	if !equality.Semantic.DeepEqual(lws.Labels, wantLabels) || lws.Annotations["note"] != "x" {
		t.Errorf("labels %v annotations %v", lws.Labels, lws.Annotations)
	}
	if lws.Spec.LeaderWorkerTemplate.WorkerTemplate.Labels[disaggv1.SetNameLabelKey] != "llama" || *lws.Spec.Replicas != 4 {
		t.Errorf("worker template labels %v, replicas %d", lws.Spec.LeaderWorkerTemplate.WorkerTemplate.Labels, *lws.Spec.Replicas)
	}
}

func TestSetDefaults(t *testing.T) {
	ds := &disaggv1.DisaggregatedSet{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: disaggv1.DisaggregatedSetSpec{
		Roles: []disaggv1.DisaggregatedRoleSpec{{Name: "a"}, {Name: "b"}},
	}}
	ds.Spec.Roles[1].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxSurge: intstr.FromInt32(2)}
	ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.SubGroupPolicy = &releasedlws.SubGroupPolicy{SubGroupSize: ptr.To[int32](1)}
	// The configuration: role b writes max_surge but not max_unavailable.
	config := encodeConfig(t, ds)
	SetDefaults(ds, config)
	if ds.Namespace != "default" {
		t.Errorf("namespace %q", ds.Namespace)
	}
	a, b := ds.Spec.Roles[0].Spec, ds.Spec.Roles[1].Spec
	if *a.Replicas != 1 || a.StartupPolicy != releasedlws.LeaderCreatedStartupPolicy || *a.LeaderWorkerTemplate.Size != 1 ||
		a.LeaderWorkerTemplate.RestartPolicy != releasedlws.RecreateGroupOnPodRestart {
		t.Errorf("role a: %+v", a)
	}
	// No CRD default creates rolloutStrategy, rollingUpdateConfiguration or networkConfig (the
	// LeaderWorkerSet webhook does, on the LeaderWorkerSets, not on the set).
	if a.RolloutStrategy.Type != "" || a.RolloutStrategy.RollingUpdateConfiguration != nil || a.NetworkConfig != nil {
		t.Errorf("role a got defaults the CRD does not declare: %+v", a.RolloutStrategy)
	}
	ru := b.RolloutStrategy.RollingUpdateConfiguration
	if b.RolloutStrategy.Type != releasedlws.RollingUpdateStrategyType || *ru.Partition != 0 ||
		ru.MaxUnavailable != intstr.FromInt32(1) || ru.MaxSurge != intstr.FromInt32(2) ||
		*b.LeaderWorkerTemplate.SubGroupPolicy.Type != releasedlws.SubGroupPolicyTypeLeaderWorker {
		t.Errorf("role b: %+v %+v", b.RolloutStrategy, ru)
	}
}

// encodeConfig is the Terraform value of ds as a configuration, with role b's max_unavailable
// left out.
func encodeConfig(t *testing.T, ds *disaggv1.DisaggregatedSet) tftypes.Value {
	t.Helper()
	unset := tftypes.NewAttributePath().WithAttributeName("spec").WithAttributeName("roles").WithElementKeyInt(1).
		WithAttributeName("spec").WithAttributeName("rollout_strategy").WithAttributeName("rolling_update_configuration").
		WithAttributeName("max_unavailable")
	v, err := tftypes.Transform(k8sschema.Encode(node(), ds), func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if p.Equal(unset) {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// An object read back from the server encodes and decodes to the same object.
func TestRoundTrip(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.Roles[0].Labels = map[string]string{"tier": "prefill"}
	ds.Spec.Roles[0].Spec.NetworkConfig = &releasedlws.NetworkConfig{SubdomainPolicy: ptr.To(releasedlws.SubdomainUniquePerReplica)}
	ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.LeaderTemplate = ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.DeepCopy()
	SetDefaults(ds, k8sschema.NullValue(node()))
	v := k8sschema.Encode(node(), ds)
	var back disaggv1.DisaggregatedSet
	if d := k8sschema.Decode(node(), v, &back, nil); len(d.Errs) > 0 {
		t.Fatal(d.Errs)
	}
	a, _ := json.Marshal(ds)
	b, _ := json.Marshal(&back)
	if string(a) != string(b) {
		t.Errorf("round trip differs:\n%s\n%s", a, b)
	}
}

func TestEveryAttributeHasOurOwnDescription(t *testing.T) {
	if problems := k8sschema.DocProblems(node(), podtemplate.MergeFieldDocs(podtemplate.FieldDocs, fieldDocs())); len(problems) > 0 {
		t.Errorf("%d description problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// A replica count not known at plan time does not fail the all-zero-or-none rule.
func TestUnknownReplicasAgree(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.Roles[0].Spec.Replicas = ptr.To[int32](0)
	ds.Spec.Roles[1].Spec.Replicas = nil
	unknown := tftypes.NewAttributePath().WithAttributeName("spec").WithAttributeName("roles").WithElementKeyInt(1).
		WithAttributeName("spec").WithAttributeName("replicas")
	config, err := tftypes.Transform(k8sschema.Encode(node(), ds), func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if p.Equal(unknown) {
			return tftypes.NewValue(v.Type(), tftypes.UnknownValue), nil
		}
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	SetDefaults(ds, config)
	if errs := Validate(ds); len(errs) > 0 {
		t.Errorf("errors with an unknown replica count: %v", errs)
	}
	// Known, the same value fails.
	ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](2)
	if got := errorStrings(Validate(ds)); len(got) != 1 || !strings.Contains(got[0], replicasRuleDetail) {
		t.Errorf("errors with known replicas 0 and 2: %v", got)
	}
}

// kubeinfer_leaderworkerset's warning on a literal secret comes at the role's attribute.
func TestCheckConfigSecretWarning(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "PORT", Value: "1"}, {Name: "HF_TOKEN", Value: "hf_x"}}
	errs, warnings := checkConfig(ds, k8sschema.Encode(node(), ds))
	if len(errs) > 0 || len(warnings) != 1 {
		t.Fatalf("errors %v, warnings %v", errs, warnings)
	}
	if got, want := warnings[0].Path.String(), "spec.roles[1].spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].env[1].value"; got != want {
		t.Errorf("warning at %s, want %s", got, want)
	}
}

// With slices, the v0.10.0 controller names each slice's LeaderWorkerSet
// <set>-<slice>-<revision>-<role>: a name that fits v0.9.0's form can be too long for the
// highest slice's: never created (an error), or created only with a short revision hash (a
// warning).
func TestSliceNamesTooLong(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Name = strings.Repeat("a", 32)
	SetDefaults(ds, k8sschema.NullValue(node()))
	ds.Spec.Slices = ptr.To[int32](12)
	if errs := Validate(ds); len(errs) > 0 {
		t.Fatalf("32 characters, 12 slices: %v", errs)
	}
	_, warnings := checkConfig(ds, k8sschema.NullValue(node()))
	if len(warnings) == 0 || !strings.Contains(warnings[0].Detail, "may not come up") ||
		!strings.Contains(warnings[0].Detail, "8 to 10 characters") || !strings.Contains(warnings[0].Detail, "use a DisaggregatedSet name of at most 30 characters") {
		t.Errorf("32 characters, 12 slices: want a warning that the hash decides, got %v", warnings)
	}

	ds.Name = strings.Repeat("a", 34)
	errs := Validate(ds)
	if len(errs) == 0 {
		t.Fatal("12 slices: no error")
	}
	got := errs.ToAggregate().Error()
	for _, want := range []string{"metadata.name", `"` + ds.Name + `-11-`, "<name>-<slice>-<revision>-<role>, slice 11 the highest",
		"use a DisaggregatedSet name of at most 30 characters"} {
		if !strings.Contains(got, want) {
			t.Errorf("error %q does not contain %q", got, want)
		}
	}
	lws, err := RoleLeaderWorkerSet(ds, 0)
	if err != nil {
		t.Fatal(err)
	}
	if lws.Labels[disaggv1.SliceLabelKey] != "11" || lws.Labels["app"] != ds.Name+"-11-prefill" {
		t.Errorf("labels %v", lws.Labels)
	}
}

// A name that fits v0.9.0's objects but not v0.10.0's slice-0 names (<set>-0-<revision>-<role>)
// plans with a warning on metadata.name; one character shorter, with none.
func TestNewerControllerNameWarning(t *testing.T) {
	for _, tc := range []struct {
		length int
		warn   bool
	}{{32, true}, {31, false}} {
		ds := dsfixture.Pair()
		ds.Name = strings.Repeat("a", tc.length)
		SetDefaults(ds, k8sschema.NullValue(node()))
		if errs := Validate(ds); len(errs) > 0 {
			t.Fatalf("%d characters: %v", tc.length, errs)
		}
		_, warnings := checkConfig(ds, k8sschema.NullValue(node()))
		var got []string
		for _, w := range warnings {
			if w.Path.String() == "metadata.name" {
				got = append(got, w.Detail)
			}
		}
		if !tc.warn {
			if len(got) > 0 {
				t.Errorf("%d characters: unexpected warnings %q", tc.length, got)
			}
			continue
		}
		if len(got) == 0 {
			t.Fatalf("%d characters: no warning on metadata.name (%v)", tc.length, warnings)
		}
		for _, want := range []string{"v0.10.0", `"` + ds.Name + `-0-`, "use a DisaggregatedSet name of at most 31 characters"} {
			if !strings.Contains(got[0], want) {
				t.Errorf("warning %q does not contain %q", got[0], want)
			}
		}
	}
}
