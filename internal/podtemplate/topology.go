package podtemplate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var supportedScheduleActions = []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}
var supportedNodeInclusionPolicies = []corev1.NodeInclusionPolicy{corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore}

// validateTopologySpreadConstraints validates topologySpreadConstraints with the v1.37 defaults
// (MatchLabelKeysInPodTopologySpread and ...SelectorMerge on), plus the deliberately stricter
// pod-creation-time overlap rule.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateTopologySpreadConstraints
// (validateMinDomains inline).
func validateTopologySpreadConstraints(constraints []corev1.TopologySpreadConstraint, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, c := range constraints {
		p := fldPath.Index(i)
		// ValidatePositiveField(maxSkew): the server never defaults maxSkew.
		if c.MaxSkew <= 0 {
			allErrs = append(allErrs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "must be greater than zero"))
		}
		// ValidateTopologyKey: only emptiness is checked, not the format.
		if c.TopologyKey == "" {
			allErrs = append(allErrs, field.Required(p.Child("topologyKey"), "can not be empty"))
		}
		// ValidateWhenUnsatisfiable: required, no server default.
		if c.WhenUnsatisfiable != corev1.DoNotSchedule && c.WhenUnsatisfiable != corev1.ScheduleAnyway {
			allErrs = append(allErrs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, supportedScheduleActions))
		}
		// ValidateSpreadConstraintNotRepeat: only the first item of a repeated pair is flagged.
		for _, rest := range constraints[i+1:] {
			if c.TopologyKey == rest.TopologyKey && c.WhenUnsatisfiable == rest.WhenUnsatisfiable {
				allErrs = append(allErrs, field.Duplicate(p.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		// validateMinDomains
		if c.MinDomains != nil {
			if *c.MinDomains <= 0 {
				allErrs = append(allErrs, field.Invalid(p.Child("minDomains"), *c.MinDomains, "must be greater than zero"))
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				allErrs = append(allErrs, field.Invalid(p.Child("minDomains"), *c.MinDomains,
					fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", corev1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		// validateNodeInclusionPolicy
		allErrs = append(allErrs, validateNodeInclusionPolicy(p.Child("nodeAffinityPolicy"), c.NodeAffinityPolicy)...)
		allErrs = append(allErrs, validateNodeInclusionPolicy(p.Child("nodeTaintsPolicy"), c.NodeTaintsPolicy)...)
		// ValidateMatchLabelKeysAndMismatchLabelKeys (selector-merge path) plus stricter overlap rule.
		allErrs = append(allErrs, ValidateMatchLabelKeysInTopologySpread(p, c.MatchLabelKeys, c.LabelSelector)...)
		// metav1validation.ValidateLabelSelector with AllowInvalidLabelValueInSelector=false.
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(c.LabelSelector,
			metav1validation.LabelSelectorValidationOptions{}, p.Child("labelSelector"))...)
	}
	return allErrs
}

// validateNodeInclusionPolicy validates nodeAffinityPolicy and nodeTaintsPolicy.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateNodeInclusionPolicy.
func validateNodeInclusionPolicy(fldPath *field.Path, policy *corev1.NodeInclusionPolicy) field.ErrorList {
	if policy == nil || *policy == corev1.NodeInclusionPolicyHonor || *policy == corev1.NodeInclusionPolicyIgnore {
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, *policy, supportedNodeInclusionPolicies)}
}

// ValidateMatchLabelKeysInTopologySpread checks that matchLabelKeys are valid label keys and,
// DELIBERATELY STRICTER than template validation, rejects any key that also
// appears in labelSelector. The server only catches that at Pod creation
// (pkg/registry/core/pod/strategy.go merges `key In [value]` into the selector
// and then ValidateMatchLabelKeysAndMismatchLabelKeys flags the duplicate);
// a template that passes would leave every Pod of the group uncreatable.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateMatchLabelKeysInTopologySpread
// (which the server runs on templates only on its legacy path; here p is the constraint's path,
// upstream's fldPath its matchLabelKeys child).
func ValidateMatchLabelKeysInTopologySpread(p *field.Path, keys []string, sel *metav1.LabelSelector) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	mlk := p.Child("matchLabelKeys")
	if sel == nil {
		// validateLabelKeys: a non-empty list requires labelSelector.
		return field.ErrorList{field.Forbidden(mlk, "must not be specified when labelSelector is not set")}
	}
	var allErrs field.ErrorList
	inSelector := make(map[string]bool, len(sel.MatchLabels)+len(sel.MatchExpressions))
	for k := range sel.MatchLabels {
		inSelector[k] = true
	}
	for _, e := range sel.MatchExpressions {
		inSelector[e.Key] = true
	}
	for i, k := range keys {
		// validateLabelKeys: each entry must be a valid label key.
		allErrs = append(allErrs, metav1validation.ValidateLabelName(k, mlk.Index(i))...)
		if inSelector[k] {
			allErrs = append(allErrs, field.Invalid(mlk.Index(i), k, "exists in both matchLabelKeys and labelSelector"))
		}
	}
	return allErrs
}
