package podtemplate

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var tplPath = field.NewPath("spec", "leaderWorkerTemplate", "workerTemplate")

// base returns a minimal template that the server accepts (nothing defaulted set).
func base() *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "main", Image: "nginx:1.27"}},
		},
	}
}

// tc is one table case: mutate the base template; want is "" for accepted or
// "<ErrorType> <path relative to spec>" for rejected.
type tc struct {
	name   string
	mutate func(t *corev1.PodTemplateSpec)
	want   string
	opts   Options
}

func errKey(e *field.Error) string {
	return fmt.Sprintf("%s %s", string(e.Type), strings.TrimPrefix(e.Field, tplPath.String()+"."))
}

func runCases(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tpl := base()
			if c.mutate != nil {
				c.mutate(tpl)
			}
			errs := ValidatePodTemplateSpec(tpl, tplPath, c.opts)
			if c.want == "" {
				if len(errs) != 0 {
					t.Fatalf("expected no errors, got %v", keys(errs))
				}
				return
			}
			for _, e := range errs {
				if errKey(e) == c.want {
					return
				}
			}
			t.Fatalf("expected %q, got %v", c.want, keys(errs))
		})
	}
}

func keys(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, errKey(e))
	}
	return out
}

func ctr(t *corev1.PodTemplateSpec) *corev1.Container { return &t.Spec.Containers[0] }

func q(s string) resource.Quantity { return resource.MustParse(s) }
