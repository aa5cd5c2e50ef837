package rules

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// TestRuntimeNameVerdicts: the verdict on names of 45 to 63 characters for one group (replicas
// 1) of size 1 and 2, from the names the v0.9.0 controller creates. Size 1 has no worker
// StatefulSet: the leader StatefulSet's revision label "<name>-<hash>" is the longest, so names
// up to 52 always work, 53 to 54 depend on the hash (8 to 10 characters), 55 and more never
// do. Size 2 adds the worker StatefulSet "<name>-0" and its label "<name>-0-<hash>": 50, 51
// to 52, 53.
func TestRuntimeNameVerdicts(t *testing.T) {
	want := map[int32][3]int{1: {52, 54, 63}, 2: {50, 52, 63}} // always up to, warn up to, checked up to
	for size, bounds := range want {
		for n := 45; n <= bounds[2]; n++ {
			obj := &lwsv1.LeaderWorkerSet{}
			obj.Name = "n" + strings.Repeat("a", n-1)
			obj.Spec.Replicas = ptr.To[int32](1)
			obj.Spec.LeaderWorkerTemplate.Size = ptr.To(size)
			errs, warnings := validateRuntimeNames(obj), runtimeNameWarnings(obj)
			switch {
			case n <= bounds[0]:
				if len(errs)+len(warnings) > 0 {
					t.Errorf("size %d, %d characters: always fits, got %v %v", size, n, errs, warnings)
				}
			case n <= bounds[1]:
				if len(errs) > 0 || len(warnings) != 1 || !strings.Contains(warnings[0].Detail, "8 to 10 characters") {
					t.Errorf("size %d, %d characters: want one warning that the hash decides, got %v %v", size, n, errs, warnings)
				}
			default:
				if len(errs) != 1 || len(warnings) > 0 || !strings.Contains(errs[0].Detail, "use a name of at most") {
					t.Errorf("size %d, %d characters: want an error, got %v %v", size, n, errs, warnings)
				}
			}
		}
	}
}
