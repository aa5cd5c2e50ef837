package rules

import (
	"maps"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
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

// controllerLongest is the longest of the names and label values the released controller
// derives from a LeaderWorkerSet during a rolling update, with revision hashes of hashLength
// characters, as sigs.k8s.io/lws v0.9.0 pkg/controllers builds them: the leader StatefulSet
// "<name>" gets the replicas rollingUpdateParameters returns, at most burstReplicas = replicas +
// maxSurge (scaled rounding up, capped at replicas); its pods are "<name>-<group>"
// (constructLeaderStatefulSetApplyConfiguration); for size > 1 each group's worker StatefulSet
// is named after its leader pod (constructWorkerStatefulSetApplyConfiguration, pod_controller.go)
// with pods "<leader pod>-<worker>"; every pod carries its name (statefulset.kubernetes.io/pod-name)
// and its StatefulSet's revision "<StatefulSet>-<hash>" (controller-revision-hash, k8s.io/kubernetes
// pkg/controller/history ControllerRevisionName, v1.37.2). Every group and worker is visited
// (lengths only: the names themselves are not needed).
func controllerLongest(name string, replicas, size int32, maxSurge intstr.IntOrString, hashLength int) int {
	surge, _ := intstr.GetScaledValueFromIntOrPercent(&maxSurge, int(replicas), true)
	burst := replicas + int32(min(surge, int(replicas)))
	digits := func(i int32) int { return len(strconv.Itoa(int(i))) }
	longest := len(name) + 1 + hashLength // the leader StatefulSet's revision
	for g := range burst {
		leaderPod := len(name) + 1 + digits(g)
		longest = max(longest, leaderPod)
		if size > 1 {
			longest = max(longest, leaderPod+1+hashLength) // the worker StatefulSet's revision
			for w := int32(1); w < size; w++ {
				longest = max(longest, leaderPod+1+digits(w))
			}
		}
	}
	return longest
}

// controllerVerdict is what happens to those names: "ok" if every one fits 63 characters with
// the longest hash, "error" if one does not with the shortest, "warn" between.
func controllerVerdict(name string, replicas, size int32, maxSurge intstr.IntOrString) string {
	switch {
	case controllerLongest(name, replicas, size, maxSurge, revisionHashLength) <= 63:
		return "ok"
	case controllerLongest(name, replicas, size, maxSurge, minRevisionHashLength) > 63:
		return "error"
	}
	return "warn"
}

func surgeObject(n int, replicas, size int32, maxSurge intstr.IntOrString) *lwsv1.LeaderWorkerSet {
	obj := &lwsv1.LeaderWorkerSet{}
	obj.Name = "n" + strings.Repeat("a", n-1)
	obj.Spec.Replicas = ptr.To(replicas)
	obj.Spec.LeaderWorkerTemplate.Size = ptr.To(size)
	obj.Spec.RolloutStrategy.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{
		MaxUnavailable: intstr.FromInt32(1), MaxSurge: maxSurge}
	return obj
}

func ruleVerdict(obj *lwsv1.LeaderWorkerSet) string {
	switch errs, warnings := validateRuntimeNames(obj), runtimeNameWarnings(obj); {
	case len(errs) > 0:
		return "error"
	case len(warnings) > 0:
		return "warn"
	}
	return "ok"
}

// TestRuntimeNamesAgreeWithControllerNames: the rule's verdict is the verdict on every name the
// controller derives, surge groups included, over name lengths, replicas around powers of ten,
// sizes and surges (counts, percentages, above replicas).
func TestRuntimeNamesAgreeWithControllerNames(t *testing.T) {
	surges := []intstr.IntOrString{intstr.FromInt32(0), intstr.FromInt32(1), intstr.FromInt32(2), intstr.FromInt32(100),
		intstr.FromString("10%"), intstr.FromString("50%"), intstr.FromString("100%"), intstr.FromString("1%")}
	checked := map[string]int{}
	for _, replicas := range []int32{1, 2, 9, 10, 11, 90, 95, 99, 100, 999, 1000} {
		for _, size := range []int32{1, 2, 10, 11} {
			for _, surge := range surges {
				for n := 40; n <= 63; n++ {
					obj := surgeObject(n, replicas, size, surge)
					want := controllerVerdict(obj.Name, replicas, size, surge)
					if got := ruleVerdict(obj); got != want {
						t.Errorf("%d characters, replicas %d, size %d, max_surge %s: the rule says %s, the controller's names %s",
							n, replicas, size, surge.String(), got, want)
					}
					checked[want]++
				}
			}
		}
	}
	if checked["ok"] == 0 || checked["warn"] == 0 || checked["error"] == 0 {
		t.Fatalf("the grid misses a verdict: %v", checked)
	}
	t.Logf("verdicts checked: %v", checked)
}

// TestRuntimeNameSurgeGroups: the case, a name of 50 characters, groups of 2 pods,
// replicas 10 and max_surge = 1. The groups 0-9 fit ("<name>-9-<hash>", 63 characters at
// most), the rolling update's surge group 10 does not always ("<name>-10-<hash>", 62 to 64):
// a warning that names the surge group; at 52 characters it never fits (64 to 66) while the
// groups of replicas may (54 at most + 8): an error that says the surge group does not fit; at
// 53 the groups of replicas do not fit either. Without the surge the bounds are 50, 52 and 53.
func TestRuntimeNameSurgeGroups(t *testing.T) {
	verdicts := func(replicas int32, surge intstr.IntOrString) map[int]string {
		out := map[int]string{}
		for n := 48; n <= 54; n++ {
			out[n] = ruleVerdict(surgeObject(n, replicas, 2, surge))
		}
		return out
	}
	want := map[int]string{48: "ok", 49: "ok", 50: "warn", 51: "warn", 52: "error", 53: "error", 54: "error"}
	if got := verdicts(10, intstr.FromInt32(1)); !maps.Equal(got, want) {
		t.Errorf("replicas 10, max_surge 1: %v, want %v", got, want)
	}
	if got := verdicts(10, intstr.FromString("10%")); !maps.Equal(got, want) {
		t.Errorf("replicas 10, max_surge 10%%: %v, want %v", got, want)
	}
	noSurge := map[int]string{48: "ok", 49: "ok", 50: "ok", 51: "warn", 52: "warn", 53: "error", 54: "error"}
	if got := verdicts(10, intstr.FromInt32(0)); !maps.Equal(got, noSurge) {
		t.Errorf("replicas 10, max_surge 0: %v, want %v", got, noSurge)
	}
	// Group 9 is the last index with one digit: replicas 9 and a surge of 1 stay within it.
	if got := verdicts(9, intstr.FromInt32(1)); !maps.Equal(got, noSurge) {
		t.Errorf("replicas 9, max_surge 1: %v, want %v", got, noSurge)
	}

	w := runtimeNameWarnings(surgeObject(50, 10, 2, intstr.FromInt32(1)))
	if len(w) != 1 {
		t.Fatalf("50 characters: want one warning, got %v", w)
	}
	for _, s := range []string{"surge group 10 (spec.rollout_strategy.rolling_update_configuration.max_surge = 1)",
		"the surge group 10's worker StatefulSet's controller-revision-hash label is 54 characters",
		"the next rolling update (any change of the template) stalls on it",
		"use a name of at most 49 characters, or spec.rollout_strategy.rolling_update_configuration.max_surge = 0 (with max_unavailable above 0)"} {
		if !strings.Contains(w[0].Detail, s) {
			t.Errorf("50 characters: the warning does not say %q: %s", s, w[0].Detail)
		}
	}
	if w[0].Path.String() != "metadata.name" {
		t.Errorf("50 characters: warning on %s", w[0].Path)
	}

	errs := validateRuntimeNames(surgeObject(52, 10, 2, intstr.FromInt32(1)))
	if len(errs) != 1 || errs[0].Field != "metadata.name" {
		t.Fatalf("52 characters: want one error on metadata.name, got %v", errs)
	}
	for _, s := range []string{"too long for the surge groups of a rolling update: the groups of spec.replicas fit",
		"surge group 10 (spec.rollout_strategy.rolling_update_configuration.max_surge = 1)",
		"the surge group 10's worker StatefulSet's controller-revision-hash label and pod names reach 66 characters",
		"use a name of at most 49 characters, or spec.rollout_strategy.rolling_update_configuration.max_surge = 0 (with max_unavailable above 0)"} {
		if !strings.Contains(errs[0].Detail, s) {
			t.Errorf("52 characters: the error does not say %q: %s", s, errs[0].Detail)
		}
	}
	// Replicas 95 leave room for 5 surge groups (95-99) before group 100.
	if errs := validateRuntimeNames(surgeObject(51, 95, 2, intstr.FromInt32(5))); len(errs) > 0 {
		t.Errorf("replicas 95, max_surge 5, 51 characters: groups up to 99 fit, got %v", errs)
	}
	errs = validateRuntimeNames(surgeObject(51, 95, 2, intstr.FromInt32(6)))
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, "surge groups 95-100") || !strings.Contains(errs[0].Detail, "the surge group 100's worker") || !strings.Contains(errs[0].Detail, "max_surge of at most 5") {
		t.Errorf("replicas 95, max_surge 6, 51 characters: want an error that allows 5 surge groups, got %v", errs)
	}
	// Hash-named groups have no index in their names: the surge changes nothing.
	obj := surgeObject(40, 10, 2, intstr.FromInt32(1))
	obj.Spec.GroupIdentity = lwsv1.GroupIdentityHash
	plain := surgeObject(40, 10, 2, intstr.FromInt32(0))
	plain.Spec.GroupIdentity = lwsv1.GroupIdentityHash
	if a, b := ruleVerdict(obj), ruleVerdict(plain); a != b {
		t.Errorf("group_identity Hash: the surge changes the verdict, %s against %s", a, b)
	}
}
