package disaggregatedset

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
)

// TestOwnEventConcerns: the wait's event filter takes the events of the set's own LeaderWorkerSets
// of the current revision and of their leader and worker StatefulSets, by exact name; not those of
// another revision, another set, a slice beyond spec.slices, a group beyond the role's count, a
// worker StatefulSet of a role of size 1, or another kind.
func TestOwnEventConcerns(t *testing.T) {
	ds := dsfixture.Pair() // prefill: 2 groups, decode: 4 groups; both of size 2
	ds.Spec.Slices = ptr.To[int32](2)
	ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.Size = ptr.To[int32](1)
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
	if err != nil {
		t.Fatal(err)
	}
	concerns, err := ownEventConcerns(&unstructured.Unstructured{Object: obj})
	if err != nil {
		t.Fatal(err)
	}
	rev := rules.ComputeRevision(ds.Spec.Roles)
	cases := []struct {
		kind, name string
		want       bool
	}{
		{"LeaderWorkerSet", "llama-0-" + rev + "-prefill", true},
		{"LeaderWorkerSet", "llama-1-" + rev + "-decode", true},
		{"LeaderWorkerSet", "llama-" + rev + "-decode", true}, // v0.9.0, and v0.10.0's legacy slice 0
		{"LeaderWorkerSet", "llama-2-" + rev + "-prefill", false},
		{"LeaderWorkerSet", "llama-0-0123abcd-prefill", false},
		{"LeaderWorkerSet", "llama2-0-" + rev + "-prefill", false},
		{"LeaderWorkerSet", "llama-0-" + rev + "-prefill-extra", false},
		{"StatefulSet", "llama-0-" + rev + "-prefill", true},    // leader StatefulSet
		{"StatefulSet", "llama-1-" + rev + "-prefill-1", true},  // worker StatefulSet of group 1
		{"StatefulSet", "llama-1-" + rev + "-prefill-2", false}, // prefill has 2 groups
		{"StatefulSet", "llama-1-" + rev + "-prefill-01", false},
		{"StatefulSet", "llama-1-" + rev + "-prefill--1", false},
		{"StatefulSet", "llama-0-" + rev + "-decode", true},
		{"StatefulSet", "llama-0-" + rev + "-decode-0", false}, // size 1: no worker StatefulSets
		{"StatefulSet", "llama-3-" + rev + "-prefill-0", false},
		{"Pod", "llama-0-" + rev + "-prefill-0", false},
	}
	for _, c := range cases {
		if got := concerns(c.kind, c.name); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.kind, c.name, got, c.want)
		}
	}

	// An External role's group count is the scaler's: any group index.
	ds.Spec.Slices = nil
	dsfixture.External(ds, 0)
	obj, _ = runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
	concerns, _ = ownEventConcerns(&unstructured.Unstructured{Object: obj})
	rev = rules.ComputeRevision(ds.Spec.Roles)
	if !concerns("StatefulSet", "llama-0-"+rev+"-prefill-7") {
		t.Error("the worker StatefulSet of an External role's group 7 is not the set's")
	}
	if concerns("LeaderWorkerSet", "llama-1-"+rev+"-prefill") {
		t.Error("slice 1 of a set of one slice is the set's")
	}
}
