package rules

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
)

// SetPlacementAffinities adds to podSpec the required pod affinity and anti-affinity that the
// v0.10.0 controller injects into both templates of the LeaderWorkerSet of slice `slice` for the
// set's placement policy (LeaderWorkerSetManager.Create): the slice's roles share one topology
// domain, the set's other slices are kept out of it and, for ExclusiveTopology, so are every other
// DisaggregatedSet's slices. A nil policy, type None or no topology adds nothing. The affinity
// already in podSpec is copied, never changed.
//
// Port of sigs.k8s.io/lws v0.10.0 (commit 2161f38) pkg/utils/disaggregatedset/affinity.go
// SetPlacementAffinities.
func SetPlacementAffinities(podSpec *corev1.PodSpec, setName string, slice int, policy *disaggv1.PlacementPolicy) {
	if policy == nil || policy.Type == disaggv1.PlacementNone || policy.Type == "" || policy.Topology == "" {
		return
	}
	sliceValue := strconv.Itoa(slice)
	affinity := podSpec.Affinity.DeepCopy()
	if affinity == nil {
		affinity = &corev1.Affinity{}
	}
	if affinity.PodAffinity == nil {
		affinity.PodAffinity = &corev1.PodAffinity{}
	}
	if affinity.PodAntiAffinity == nil {
		affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	term := func(exprs ...metav1.LabelSelectorRequirement) corev1.PodAffinityTerm {
		return corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchExpressions: exprs}, TopologyKey: policy.Topology}
	}
	in := func(key string, values ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}
	}
	notIn := func(key string, values ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpNotIn, Values: values}
	}
	exists := func(key string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpExists}
	}
	// The slice's roles in one domain.
	affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		term(in(disaggv1.SetNameLabelKey, setName), in(disaggv1.SliceLabelKey, sliceValue)))
	// The set's other slices out of it. For slice 0 the slice label must exist: a pod from before
	// slices (no label) is slice 0 itself.
	spread := []metav1.LabelSelectorRequirement{in(disaggv1.SetNameLabelKey, setName)}
	if slice == 0 {
		spread = append(spread, exists(disaggv1.SliceLabelKey))
	}
	spread = append(spread, notIn(disaggv1.SliceLabelKey, sliceValue))
	affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		term(spread...))
	// ExclusiveTopology: every other set's slices out of it too.
	if policy.Type == disaggv1.PlacementExclusiveTopology {
		affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
			term(exists(disaggv1.SetNameLabelKey), notIn(disaggv1.SetNameLabelKey, setName), exists(disaggv1.SliceLabelKey)))
	}
	podSpec.Affinity = affinity
}
