package k8sschema

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func pathStrings(paths []*field.Path) []string {
	out := []string{}
	for _, p := range paths {
		out = append(out, p.String())
	}
	return out
}

func TestJSONValue(t *testing.T) {
	got := JSONValue(corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m")}})
	want := map[string]any{"limits": map[string]any{"cpu": "1"}} // canonical quantity, omitted requests absent
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("JSONValue = %#v, want %#v", got, want)
	}
	if got := JSONValue(func() {}); got != nil {
		t.Fatalf("JSONValue of an unencodable value = %#v, want nil", got)
	}
}

func TestChangedFields(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.PodTemplateSpec{}), Options{})
	base := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i:1"}}},
	}
	for _, tc := range []struct {
		name   string
		change func(*corev1.PodTemplateSpec)
		want   []string
	}{
		{"unchanged", func(*corev1.PodTemplateSpec) {}, []string{}},
		{"empty and absent are the same", func(p *corev1.PodTemplateSpec) { p.Annotations = map[string]string{} }, []string{}},
		{"nested field", func(p *corev1.PodTemplateSpec) { p.Spec.Containers[0].Image = "i:2" },
			[]string{"spec.containers[0].image"}},
		{"map keys as keys", func(p *corev1.PodTemplateSpec) { p.Labels = map[string]string{"app": "b", "tier": "x"} },
			[]string{"metadata.labels[app]", "metadata.labels[tier]"}},
		{"first map key", func(p *corev1.PodTemplateSpec) { p.Annotations = map[string]string{"k": "v"} },
			[]string{"metadata.annotations[k]"}},
		{"list length as a whole", func(p *corev1.PodTemplateSpec) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "d"})
		}, []string{"spec.containers"}},
		{"added field as a whole", func(p *corev1.PodTemplateSpec) {
			p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: new(int64)}
		}, []string{"spec.securityContext"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed := *base.DeepCopy()
			tc.change(&changed)
			got := pathStrings(ChangedFields(root, nil, JSONValue(base), JSONValue(changed)))
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ChangedFields = %q, want %q", got, tc.want)
			}
		})
	}
	// Without a schema node, map keys read as fields.
	got := pathStrings(ChangedFields(nil, field.NewPath("labels"), map[string]any{"a": "1"}, map[string]any{"a": "2"}))
	if want := []string{"labels.a"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ChangedFields without a node = %q, want %q", got, want)
	}
}

func TestNodeAt(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.PodTemplateSpec{}), Options{})
	if n := NodeAt(root, "spec.containers"); n == nil || n.Kind != KindList || n.Path() != root.FieldJSON("spec").FieldJSON("containers").Path() {
		t.Fatalf("NodeAt(spec.containers) = %+v", n)
	}
	for _, dotted := range []string{"spec.noSuchField", "spec.noSuchField.deeper"} {
		if n := NodeAt(root, dotted); n != nil {
			t.Fatalf("NodeAt(%s) = %+v, want nil", dotted, n)
		}
	}
}

func TestFieldList(t *testing.T) {
	root := Build(reflect.TypeOf(corev1.PodTemplateSpec{}), Options{})
	two := []*field.Path{field.NewPath("spec", "containers").Index(0).Child("imagePullPolicy"), field.NewPath("metadata", "labels").Key("app")}
	if got, want := FieldList(root, two), `spec.containers[0].image_pull_policy, metadata.labels["app"]`; got != want {
		t.Fatalf("FieldList = %q, want %q", got, want)
	}
	var many []*field.Path
	for i := range maxListed + 3 {
		many = append(many, field.NewPath("spec", "containers").Index(i))
	}
	want := "spec.containers[0], spec.containers[1], spec.containers[2], spec.containers[3], spec.containers[4], " +
		"spec.containers[5], spec.containers[6], spec.containers[7], and 3 more"
	if got := FieldList(root, many); got != want {
		t.Fatalf("FieldList of %d paths = %q, want %q", len(many), got, want)
	}
}

func TestDependsOnUnknown(t *testing.T) {
	fields := []string{"spec.template", "spec.replicas"}
	for _, tc := range []struct {
		unknown *field.Path
		want    bool
	}{
		{field.NewPath("spec", "replicas"), true},                                       // at
		{field.NewPath("spec", "template", "spec"), true},                               // under
		{field.NewPath("spec", "template", "spec", "containers").Index(0), true},        // under, by index
		{field.NewPath("spec"), true},                                                   // above
		{field.NewPath("spec", "replicasExtra"), false},                                 // a name that only starts alike
		{field.NewPath("metadata", "labels"), false},                                    // elsewhere
		{field.NewPath("spec", "templates"), false},                                     // a sibling
		{field.NewPath("spec", "template", "metadata").Key("a.b"), true},                // under, by key
		{field.NewPath("status"), false},                                                // another root field
		{field.NewPath("spec", "rolloutStrategy", "rollingUpdateConfiguration"), false}, // a sibling's child
	} {
		if got := DependsOnUnknown([]*field.Path{tc.unknown}, fields); got != tc.want {
			t.Errorf("DependsOnUnknown(%s) = %v, want %v", tc.unknown, got, tc.want)
		}
	}
	if DependsOnUnknown(nil, fields) {
		t.Error("DependsOnUnknown with nothing unknown = true")
	}
}
