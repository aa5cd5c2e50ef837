package footprint

import (
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

func list(kv ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

func container(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Image: "x", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func template(spec corev1.PodSpec) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{Spec: spec}
}

func strings(l corev1.ResourceList) map[string]string {
	m := map[string]string{}
	for k, v := range l {
		m[string(k)] = canonical(v)
	}
	return m
}

func sameList(t *testing.T, what string, got corev1.ResourceList, want map[string]string) {
	t.Helper()
	g := strings(got)
	if len(g) != len(want) {
		t.Errorf("%s: got %v, want %v", what, g, want)
		return
	}
	for k, v := range want {
		if g[k] != v {
			t.Errorf("%s: got %v, want %v", what, g, want)
			return
		}
	}
}

func TestPodOf(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	cases := []struct {
		name             string
		spec             corev1.PodSpec
		requests, limits map[string]string
	}{
		{"a limit stands in for a missing request (SetDefaults_Pod)",
			corev1.PodSpec{Containers: []corev1.Container{container("vllm", list("cpu", "4"), list("nvidia.com/gpu", "8", "memory", "64Gi"))}},
			map[string]string{"cpu": "4", "nvidia.com/gpu": "8", "memory": "64Gi"},
			map[string]string{"nvidia.com/gpu": "8", "memory": "64Gi"}},
		{"containers add up; equal amounts written differently read the same",
			corev1.PodSpec{Containers: []corev1.Container{
				container("a", list("cpu", "0.5", "memory", "1Gi"), nil),
				container("b", list("cpu", "1500m", "memory", "512Mi"), nil)}},
			map[string]string{"cpu": "2", "memory": "1536Mi"}, map[string]string{}},
		{"an init container counts when it asks for more than the containers",
			corev1.PodSpec{
				InitContainers: []corev1.Container{container("download", list("cpu", "8", "memory", "1Gi"), nil)},
				Containers:     []corev1.Container{container("vllm", list("cpu", "2", "memory", "32Gi"), nil)}},
			map[string]string{"cpu": "8", "memory": "32Gi"}, map[string]string{}},
		{"a sidecar (restartable init container) adds to the containers",
			corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "proxy", Image: "x", RestartPolicy: &always,
					Resources: corev1.ResourceRequirements{Requests: list("cpu", "1")}}},
				Containers: []corev1.Container{container("vllm", list("cpu", "2"), nil)}},
			map[string]string{"cpu": "3"}, map[string]string{}},
		{"pod-level resources win for cpu and memory; a pod-level limit stands in for a request no container makes",
			corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Requests: list("cpu", "6"), Limits: list("memory", "8Gi")},
				Containers: []corev1.Container{container("vllm", list("cpu", "2"), list("nvidia.com/gpu", "1"))}},
			map[string]string{"cpu": "6", "memory": "8Gi", "nvidia.com/gpu": "1"},
			map[string]string{"memory": "8Gi", "nvidia.com/gpu": "1"}},
		{"nothing requested", corev1.PodSpec{Containers: []corev1.Container{container("c", nil, nil)}},
			map[string]string{}, map[string]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tmpl := template(tc.spec)
			before := tmpl.DeepCopy()
			p := PodOf(tmpl)
			sameList(t, "requests", p.Requests, tc.requests)
			sameList(t, "limits", p.Limits, tc.limits)
			if !equalSpec(before, tmpl) {
				t.Error("PodOf changed the template")
			}
		})
	}
}

func equalSpec(a, b *corev1.PodTemplateSpec) bool {
	return a.Spec.String() == b.Spec.String()
}

func TestGroupTotals(t *testing.T) {
	leader := template(corev1.PodSpec{Containers: []corev1.Container{container("leader", list("cpu", "2", "memory", "16Gi"), list("nvidia.com/gpu", "8"))}})
	worker := template(corev1.PodSpec{Containers: []corev1.Container{container("worker", list("cpu", "1", "memory", "8Gi"), list("nvidia.com/gpu", "8"))}})
	g := NewGroup(leader, worker, ptr.To[int32](4), 3, 4)
	sameList(t, "per group", g.PerGroup.Requests, map[string]string{"cpu": "5", "memory": "40Gi", "nvidia.com/gpu": "32"})
	sameList(t, "at replicas", g.Total(g.Groups).Requests, map[string]string{"cpu": "15", "memory": "120Gi", "nvidia.com/gpu": "96"})
	sameList(t, "at the peak", g.Total(g.PeakGroups).Limits, map[string]string{"nvidia.com/gpu": "128"})
	if z := NewGroup(leader, worker, ptr.To[int32](1), 0, 0); len(z.Total(z.Groups).Requests) != 0 {
		t.Errorf("zero replicas: %v", z.Total(z.Groups).Requests)
	}
}

func TestValues(t *testing.T) {
	leader := template(corev1.PodSpec{Containers: []corev1.Container{container("c", nil, list("nvidia.com/gpu", "8"))}})
	g := NewGroup(leader, leader, ptr.To[int32](2), 2, 3)
	lwsType := TypeOf(LeaderWorkerSetAttribute())
	v := LeaderWorkerSetValue(lwsType, g)
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"pods_per_group": int64(2), "groups": int64(2), "pods": int64(4), "peak_groups": int64(3), "peak_pods": int64(6)}
	for name, w := range want {
		if n := number(t, attrs[name]); n != w {
			t.Errorf("%s = %d, want %v", name, n, w)
		}
	}
	if s := quantity(t, attrs["peak_requests"], "nvidia.com/gpu"); s != "48" {
		t.Errorf("peak_requests[nvidia.com/gpu] = %q, want 48", s)
	}

	dsType := TypeOf(DisaggregatedSetAttribute())
	dv := DisaggregatedSetValue(dsType, []Role{{Name: "prefill", Group: g}, {Name: "decode", Group: NewGroup(nil, leader, nil, 4, 5)}})
	if err := dv.As(&attrs); err != nil {
		t.Fatal(err)
	}
	if pods := number(t, attrs["pods"]); pods != 8 {
		t.Errorf("total pods = %d, want 8", pods)
	}
	var roles map[string]tftypes.Value
	if err := attrs["roles"].As(&roles); err != nil || len(roles) != 2 {
		t.Errorf("roles = %v (%v)", roles, err)
	}
	// prefill 3 groups x 2 pods x 8 GPUs + decode 5 groups x 1 pod x 8 GPUs
	if gpus := quantity(t, attrs["peak_requests"], "nvidia.com/gpu"); gpus != "88" {
		t.Errorf("peak GPUs = %q, want 88", gpus)
	}
}

func number(t *testing.T, v tftypes.Value) int64 {
	t.Helper()
	var f big.Float
	if err := v.As(&f); err != nil {
		t.Fatal(err)
	}
	n, _ := f.Int64()
	return n
}

func quantity(t *testing.T, m tftypes.Value, name string) string {
	t.Helper()
	var values map[string]tftypes.Value
	var s string
	if err := m.As(&values); err != nil {
		t.Fatal(err)
	}
	if err := values[name].As(&s); err != nil {
		t.Fatal(err)
	}
	return s
}
