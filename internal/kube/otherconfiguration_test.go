package kube

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

func objectWithToken(token string, managed ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetName("vllm")
	u.SetNamespace("default")
	if token != "" {
		u.SetAnnotations(map[string]string{CreationTokenAnnotation: token})
	}
	u.SetManagedFields(managed)
	return u
}

// TestMarkConfiguration: what a refresh records of the configurations that apply an object.
func TestMarkConfiguration(t *testing.T) {
	withToken := func(token string) []byte { return WithApplyMarks(nil, ApplyMarks{CreationToken: token}) }
	cases := []struct {
		name      string
		private   []byte
		found     string
		importing bool
		// want: this state's token afterwards ("new" for a fresh one), and the other
		// configuration's token recorded.
		mine, other string
	}{
		{name: "this configuration applied it last", private: withToken("aaaa"), found: "aaaa", mine: "aaaa"},
		{name: "another configuration applied it last", private: withToken("aaaa"), found: "bbbb", mine: "aaaa", other: "bbbb"},
		{name: "the annotation was removed", private: withToken("aaaa"), mine: "aaaa"},
		{name: "a state kept before the token was: its create's token", found: "aaaa", mine: "aaaa"},
		{name: "an import of another configuration's object", found: "aaaa", importing: true, mine: "new", other: "aaaa"},
		{name: "an import of an object kubectl made", importing: true, mine: "new"},
		{name: "no token anywhere", mine: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := markConfiguration(c.private, objectWithToken(c.found), c.importing)
			mine := CreationToken(got)
			switch {
			case c.mine == "new" && (len(mine) != 32 || mine == c.found):
				t.Errorf("the import must give the state a token of its own, got %q", mine)
			case c.mine != "new" && mine != c.mine:
				t.Errorf("state token %q, want %q", mine, c.mine)
			}
			if o := otherConfiguration(got); o != c.other {
				t.Errorf("other configuration %q, want %q", o, c.other)
			}
			// An apply puts the state's token back: the mark goes.
			if after := WithApplyMarks(got, ApplyMarks{CreationToken: "cccc"}); otherConfiguration(after) != "" || CreationToken(after) != "cccc" {
				t.Errorf("after an apply: %s", after)
			}
		})
	}
}

func TestExistsDetail(t *testing.T) {
	r := &Resource{kind: &Kind{Kind: &kindrules.Kind{GVK: schema.GroupVersionKind{Group: "leaderworkerset.x-k8s.io", Version: "v1", Kind: "LeaderWorkerSet"}, TypeName: "leaderworkerset", Namespaced: true}}}
	spec := metav1.NewFieldsV1(`{"f:spec":{"f:replicas":{}}}`)
	status := metav1.NewFieldsV1(`{"f:status":{"f:replicas":{}}}`)
	meta := objMeta{name: "vllm", namespace: "default"}
	both := "an `import` block, or `terraform import` / `tofu import` kubeinfer_leaderworkerset.<name> default/vllm"

	other := r.existsDetail(objectWithToken("aaaa",
		metav1.ManagedFieldsEntry{Manager: "kubeinfer", Operation: "Apply", FieldsV1: spec},
		metav1.ManagedFieldsEntry{Manager: "lws", Operation: "Update", Subresource: "status", FieldsV1: status}), meta)
	for _, want := range []string{"nothing was changed", "created by another Terraform or OpenTofu configuration",
		`Field managers of its spec: "kubeinfer" (Apply).`, both, "each apply overwrites the other's changes"} {
		if !strings.Contains(other, want) {
			t.Errorf("another configuration's object: the message lacks %q:\n%s", want, other)
		}
	}
	kubectl := r.existsDetail(objectWithToken("", metav1.ManagedFieldsEntry{Manager: "kubectl-client-side-apply", Operation: "Update", FieldsV1: spec}), meta)
	for _, want := range []string{`Field managers of its spec: "kubectl-client-side-apply" (Update).`, both, "makes this configuration its manager"} {
		if !strings.Contains(kubectl, want) {
			t.Errorf("kubectl's object: the message lacks %q:\n%s", want, kubectl)
		}
	}
	if strings.Contains(kubectl, "another Terraform") {
		t.Errorf("kubectl's object is not another configuration's:\n%s", kubectl)
	}
}
