package k8sschema

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/randfill"
)

func TestSnakeCase(t *testing.T) {
	cases := map[string]string{
		"leaderWorkerTemplate":      "leader_worker_template",
		"hpaPodSelector":            "hpa_pod_selector",
		"hostIPC":                   "host_ipc",
		"targetWWNs":                "target_wwns",
		"setHostnameAsFQDN":         "set_hostname_as_fqdn",
		"diskURI":                   "disk_uri",
		"podIPs":                    "pod_ips",
		"seLinuxOptions":            "se_linux_options",
		"maxSkew":                   "max_skew",
		"topologySpreadConstraints": "topology_spread_constraints",
		"pdID":                      "pd_id",
		"name":                      "name",
	}
	for in, want := range cases {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// filler fills every field of an API object, so nothing can be missed by the round trip.
func filler() *randfill.Filler {
	return randfill.New().NilChance(0).NumElements(1, 2).Funcs(
		func(q *resource.Quantity, c randfill.Continue) { *q = resource.MustParse("250m") },
		func(i *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*i = intstr.FromInt32(c.Int31n(1000) + 1)
			} else {
				*i = intstr.FromString("25%")
			}
		},
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.Unix(c.Int63n(1<<32)+1, 0).Rfc3339Copy() },
		func(s *string, c randfill.Continue) { *s = "v" + c.String(8) },
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			*m = metav1.ObjectMeta{Name: "n", Namespace: "ns", Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"}, Finalizers: []string{"f"}}
		},
	)
}

// jsonPaths lists the dotted key paths of a JSON document; map values are leaves of their map.
func jsonPaths(v any, prefix string, mapPaths map[string]bool, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if mapPaths[prefix] {
			out[prefix] = true
			return
		}
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			jsonPaths(e, p, mapPaths, out)
		}
	case []any:
		for _, e := range x {
			jsonPaths(e, prefix, mapPaths, out)
		}
	}
}

func TestPodTemplateSchemaCoversEveryJSONField(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.PodTemplateSpec{}), Options{})
	schemaPaths := map[string]bool{}
	mapPaths := map[string]bool{}
	root.Walk(func(n *Node) {
		schemaPaths[n.path] = true
		if n.Kind == KindMap {
			mapPaths[n.path] = true
		}
	})
	mp := map[string]bool{}
	for p := range mapPaths {
		mp[strings.TrimPrefix(p, "spec.")] = true
	}
	jsonSet := map[string]bool{}
	// Random booleans are false half the time and then omitted: fill a few times.
	f := filler()
	for i := 0; i < 16; i++ {
		var spec corev1.PodSpec
		f.Fill(&spec)
		raw, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		_ = json.Unmarshal(raw, &doc)
		jsonPaths(doc, "", mp, jsonSet)
	}
	var missing []string
	for p := range jsonSet {
		if !schemaPaths["spec."+p] {
			missing = append(missing, p)
		}
	}
	var extra []string
	for p := range schemaPaths {
		if strings.HasPrefix(p, "spec.") && !jsonSet[strings.TrimPrefix(p, "spec.")] {
			extra = append(extra, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("PodSpec JSON paths missing from schema: %v\nschema paths not in PodSpec JSON: %v", missing, extra)
	}
	if len(jsonSet) < 1000 {
		t.Fatalf("only %d PodSpec field paths found; the filler did not reach every field", len(jsonSet))
	}
	t.Logf("PodSpec JSON field paths: %d, schema attribute paths under spec: %d", len(jsonSet), len(jsonSet))
}

func TestRoundTripPodTemplate(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.PodTemplateSpec{}), Options{})
	for i := 0; i < 20; i++ {
		var in corev1.PodTemplateSpec
		f := filler()
		f.Fill(&in.Spec)
		in.Labels = map[string]string{"app": "x"}
		v := Encode(root, &in)
		var out corev1.PodTemplateSpec
		d := Decode(root, v, &out, nil)
		if len(d.Errs) > 0 || d.HasUnknown() {
			t.Fatalf("decode: %v unknown=%v", d.Errs, d.Unknown)
		}
		a, _ := json.Marshal(in)
		b, _ := json.Marshal(out)
		if string(a) != string(b) {
			t.Fatalf("round trip changed the template:\n%s", cmp.Diff(string(a), string(b)))
		}
		// The value must be well-typed for the schema.
		if !v.Type().Equal(root.TFType()) {
			t.Fatal("encoded value type differs from the schema type")
		}
	}
}

func TestDecodeUnknownAndErrors(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.Container{}), Options{})
	typ := root.TFType().(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	attrs["image"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	res := root.Field("resources")
	rattrs := map[string]tftypes.Value{}
	for name, at := range res.TFType().(tftypes.Object).AttributeTypes {
		rattrs[name] = tftypes.NewValue(at, nil)
	}
	rattrs["limits"] = tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"cpu": tftypes.NewValue(tftypes.String, "lots")})
	attrs["resources"] = tftypes.NewValue(res.TFType(), rattrs)
	var c corev1.Container
	d := Decode(root, tftypes.NewValue(typ, attrs), &c, field.NewPath("c"))
	if len(d.Unknown) != 1 || d.Unknown[0].String() != "c.image" {
		t.Fatalf("unknown = %v", d.Unknown)
	}
	if len(d.Errs) != 1 || d.Errs[0].Field != "c.resources.limits[cpu]" {
		t.Fatalf("errs = %v", d.Errs)
	}
}

func TestAttributePathAndUnknownFilter(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.PodTemplateSpec{}), Options{Only: map[string][]string{"metadata": {"name", "labels", "annotations"}}})
	p, ok := AttributePath(root, "spec.topologySpreadConstraints[1].labelSelector.matchLabels[app.kubernetes.io/name]")
	if !ok || p.String() != `spec.topology_spread_constraints[1].label_selector.match_labels["app.kubernetes.io/name"]` {
		t.Fatalf("got %s %v", p, ok)
	}
	errs := field.ErrorList{
		field.Required(field.NewPath("spec", "containers").Index(0).Child("image"), ""),
		field.Invalid(field.NewPath("spec", "containers").Index(1).Child("name"), "A", "bad"),
	}
	diags := Diagnostics(root, errs, []*field.Path{field.NewPath("spec", "containers").Index(0).Child("image")})
	if len(diags) != 1 {
		t.Fatalf("want 1 diagnostic, got %v", diags)
	}
}

func TestMergeKeepsSemanticallyEqualValues(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.Container{}), Options{})
	user := corev1.Container{Name: "c", Image: "i", Ports: []corev1.ContainerPort{{ContainerPort: 80, Protocol: "TCP"}},
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": resource.MustParse("0.5")}}}
	server := *user.DeepCopy()
	server.Resources.Limits["cpu"] = resource.MustParse("500m")
	prior := Encode(root, &user)
	got := Merge(root, prior, Encode(root, &server))
	if !got.Equal(prior) {
		t.Fatalf("merge reported drift for equal objects: %v", got)
	}
	server.Image = "other"
	got = Merge(root, prior, Encode(root, &server))
	var back corev1.Container
	Decode(root, got, &back, nil)
	if back.Image != "other" || back.Resources.Limits.Cpu().String() != "500m" && back.Resources.Limits.Cpu().String() != "0.5" {
		t.Fatalf("drift lost: %+v", back)
	}
}

// TestMergeTakesComputedFromServer: an object whose configurable part is unchanged keeps the
// prior's spelling but gets the server's computed values (resourceVersion, status).
func TestMergeTakesComputedFromServer(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.ConfigMap{}), Options{
		Only:  map[string][]string{"metadata": {"name", "resourceVersion"}},
		Modes: map[string]Mode{"metadata.resourceVersion": Computed, "immutable": Computed},
	})
	prior := Encode(root, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1"},
		Data: map[string]string{"k": "v"}, Immutable: ptrTo(false)})
	server := Encode(root, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "2"},
		Data: map[string]string{"k": "v"}, Immutable: ptrTo(true)})
	got := Merge(root, prior, server)
	if !got.Equal(server) {
		diff, _ := got.Diff(server)
		t.Fatalf("merge kept stale computed values: %v", diff)
	}
	if same := Merge(root, prior, prior); !same.Equal(prior) {
		t.Fatalf("merge of equal values changed them")
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestMergeIgnoresForeignKeys: a foreign key (ForeignKeys) the user leaves out is not drift,
// whether the user declared other keys of its map, no map, or no object holding it; the user's
// own keys still drift, and a declared foreign key is compared as any other.
func TestMergeIgnoresForeignKeys(t *testing.T) {
	const stamp = "kubectl.kubernetes.io/restartedAt"
	root := Build(reflect.TypeOf(corev1.PodTemplate{}), Options{
		Only:        map[string][]string{"metadata": {"name"}, "template.metadata": {"labels", "annotations"}},
		ForeignKeys: map[string][]string{"template.metadata.annotations": {stamp}},
	})
	tmpl := func(annotations map[string]string, labels map[string]string) tftypes.Value {
		pt := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t"}}
		pt.Template.Annotations, pt.Template.Labels = annotations, labels
		pt.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "i"}}
		return Encode(root, pt)
	}
	withStamp := func(m map[string]string) map[string]string {
		out := map[string]string{stamp: "2026-01-01T00:00:00Z"}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	for _, c := range []struct {
		name          string
		prior, server tftypes.Value
		want          tftypes.Value
	}{
		{"other keys declared", tmpl(map[string]string{"a": "1"}, nil), tmpl(withStamp(map[string]string{"a": "1"}), nil), tmpl(map[string]string{"a": "1"}, nil)},
		{"no map declared", tmpl(nil, map[string]string{"l": "1"}), tmpl(withStamp(nil), map[string]string{"l": "1"}), tmpl(nil, map[string]string{"l": "1"})},
		{"no metadata declared", tmpl(nil, nil), tmpl(withStamp(nil), nil), tmpl(nil, nil)},
		{"own key drifts", tmpl(map[string]string{"a": "1"}, nil), tmpl(withStamp(map[string]string{"a": "2"}), nil), tmpl(map[string]string{"a": "2"}, nil)},
		{"other foreign keys drift", tmpl(nil, nil), tmpl(withStamp(map[string]string{"b": "1"}), nil), tmpl(map[string]string{"b": "1"}, nil)},
		{"declared stamp compared", tmpl(withStamp(nil), nil), tmpl(map[string]string{stamp: "later"}, nil), tmpl(map[string]string{stamp: "later"}, nil)},
	} {
		got := Merge(root, c.prior, c.server)
		if !got.Equal(c.want) {
			diff, _ := got.Diff(c.want)
			t.Errorf("%s: %v", c.name, diff)
		}
	}
}

// TestConfiguredOnly: the apply body keeps exactly the configured fields: not the zero values
// Go marshals for unset non-pointer structs and int-or-strings, not fields without an attribute,
// not null map entries; explicit values (a 0 written by the user) stay.
func TestConfiguredOnly(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.Pod{}), Options{
		Only: map[string][]string{"metadata": {"name", "labels"}},
		Skip: []string{"spec.containers.resources", "status"},
	})
	configObj := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"a": "x"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i",
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health"}}},
			Ports:          []corev1.ContainerPort{{ContainerPort: 8000}}}},
			Priority: new(int32)},
	}
	config := Encode(root, configObj)
	// A null map entry in the configuration.
	var attrs, meta map[string]tftypes.Value
	_ = config.As(&attrs)
	_ = attrs["metadata"].As(&meta)
	meta["labels"] = tftypes.NewValue(meta["labels"].Type(), map[string]tftypes.Value{
		"a": tftypes.NewValue(tftypes.String, "x"), "b": tftypes.NewValue(tftypes.String, nil)})
	attrs["metadata"] = tftypes.NewValue(attrs["metadata"].Type(), meta)
	config = tftypes.NewValue(config.Type(), attrs)
	// Encode writes a zero int-or-string as "0"; the configuration leaves the port unset.
	config, _ = tftypes.Transform(config, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if steps := p.Steps(); len(steps) > 0 && steps[len(steps)-1] == tftypes.AttributeName("port") {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})

	var obj corev1.Pod
	if d := Decode(root, config, &obj, nil); len(d.Errs) > 0 {
		t.Fatal(d.Errs)
	}
	raw, _ := json.Marshal(&obj)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	ConfiguredOnly(root, config, body)
	var want map[string]any
	_ = json.Unmarshal([]byte(`{
	  "metadata": {"name": "p", "labels": {"a": "x"}},
	  "spec": {"priority": 0, "containers": [{"name": "c", "image": "i",
	    "readinessProbe": {"httpGet": {"path": "/health"}}, "ports": [{"containerPort": 8000}]}]}
	}`), &want)
	if diff := cmp.Diff(want, body); diff != "" {
		t.Fatalf("body (-want +got):\n%s", diff)
	}
}

func TestDiagnosticShortensLongValues(t *testing.T) {
	root := Build(reflect.TypeOf(struct {
		Name string `json:"name"`
	}{}), Options{})
	long := strings.Repeat("a", 1<<20)
	d := Diagnostic(root, field.Invalid(field.NewPath("name"), long, "must be no more than 63 characters"))
	if n := len(d.Detail()); n > 1000 {
		t.Fatalf("detail is %d bytes long, want a shortened value", n)
	}
	if !strings.Contains(d.Detail(), "(1048576 characters)") || !strings.Contains(d.Detail(), "must be no more than 63 characters") {
		t.Errorf("detail = %q", d.Detail())
	}
}

// TestMergeReadsZeroDivisorAsUnset: the LeaderWorkerSet webhook stores an unset
// resourceFieldRef.divisor as "0" (a Go Quantity is always encoded); where the configuration
// leaves it out, that is no change, while any other divisor is drift.
func TestMergeReadsZeroDivisorAsUnset(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.Container{}), Options{})
	user := corev1.Container{Name: "c", Image: "i", Env: []corev1.EnvVar{{Name: "CPU",
		ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}}}}
	prior := Encode(root, &user)
	withDivisor := func(d string) tftypes.Value {
		v, err := tftypes.Transform(prior, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
			if p.String() == `AttributeName("env").ElementKeyInt(0).AttributeName("value_from").AttributeName("resource_field_ref").AttributeName("divisor")` {
				return tftypes.NewValue(tftypes.String, d), nil
			}
			return v, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if withDivisor("0").Equal(prior) {
		t.Fatal("the test did not set the divisor")
	}
	if got := Merge(root, prior, withDivisor("0")); !got.Equal(prior) {
		diff, _ := got.Diff(prior)
		t.Errorf("a stored divisor of 0 reads as drift: %v", diff)
	}
	if got := Merge(root, prior, withDivisor("1m")); got.Equal(prior) {
		t.Errorf("a divisor of 1m set by someone else does not read as drift")
	}
}

// TestEncodeKeepsZeroElements: an element of a map or list is never unset, so "" and 0 are
// encoded as themselves (a node selector's `gpu: ""`, an empty argument), and decode back, while
// a field's zero value stays null (unset).
func TestEncodeKeepsZeroElements(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.PodSpec{}), Options{})
	spec := corev1.PodSpec{
		NodeSelector: map[string]string{"nvidia.com/gpu.present": "", "zone": "a"},
		Containers:   []corev1.Container{{Name: "c", Args: []string{"--flag", ""}}},
	}
	v := Encode(root, &spec)
	var attrs map[string]tftypes.Value
	_ = v.As(&attrs)
	want := tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{
		"nvidia.com/gpu.present": tftypes.NewValue(tftypes.String, ""), "zone": tftypes.NewValue(tftypes.String, "a")})
	if !attrs["node_selector"].Equal(want) {
		t.Errorf("node_selector encoded as %v, want %v", attrs["node_selector"], want)
	}
	if !attrs["hostname"].IsNull() {
		t.Errorf("an unset field is encoded as %v, want null", attrs["hostname"])
	}
	var back corev1.PodSpec
	Decode(root, v, &back, nil)
	if diff := cmp.Diff(spec, back); diff != "" {
		t.Errorf("decode(encode) differs (-want +got):\n%s", diff)
	}
}
