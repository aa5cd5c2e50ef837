package podtemplate

import (
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateAffinity validates spec.affinity (create: invalid label values are not tolerated).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateAffinity.
func validateAffinity(a *corev1.Affinity, fldPath *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var allErrs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		p := fldPath.Child("nodeAffinity")
		// validateNodeAffinity
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			allErrs = append(allErrs, ValidateNodeSelector(na.RequiredDuringSchedulingIgnoredDuringExecution, false, p.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		// ValidatePreferredSchedulingTerms: invalid label values are always allowed here.
		pp := p.Child("preferredDuringSchedulingIgnoredDuringExecution")
		for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			if term.Weight <= 0 || term.Weight > 100 {
				allErrs = append(allErrs, field.Invalid(pp.Index(i).Child("weight"), term.Weight, "must be in the range 1-100"))
			}
			allErrs = append(allErrs, ValidateNodeSelectorTerm(term.Preference, true, pp.Index(i).Child("preference"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		allErrs = append(allErrs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, fldPath.Child("podAffinity"))...)
	}
	if paa := a.PodAntiAffinity; paa != nil {
		allErrs = append(allErrs, validatePodAffinityTerms(paa.RequiredDuringSchedulingIgnoredDuringExecution, paa.PreferredDuringSchedulingIgnoredDuringExecution, fldPath.Child("podAntiAffinity"))...)
	}
	return allErrs
}

// ValidateNodeSelector validates a required node selector.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateNodeSelector.
func ValidateNodeSelector(ns *corev1.NodeSelector, allowInvalidValue bool, fldPath *field.Path) field.ErrorList {
	termPath := fldPath.Child("nodeSelectorTerms")
	if len(ns.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(termPath, "must have at least one node selector term")}
	}
	var allErrs field.ErrorList
	for i, term := range ns.NodeSelectorTerms {
		allErrs = append(allErrs, ValidateNodeSelectorTerm(term, allowInvalidValue, termPath.Index(i))...)
	}
	return allErrs
}

// ValidateNodeSelectorTerm validates one node selector term.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateNodeSelectorTerm.
func ValidateNodeSelectorTerm(term corev1.NodeSelectorTerm, allowInvalidValue bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for j, req := range term.MatchExpressions {
		allErrs = append(allErrs, ValidateNodeSelectorRequirement(req, allowInvalidValue, fldPath.Child("matchExpressions").Index(j))...)
	}
	for j, req := range term.MatchFields {
		allErrs = append(allErrs, ValidateNodeFieldSelectorRequirement(req, fldPath.Child("matchFields").Index(j))...)
	}
	return allErrs
}

// ValidateNodeSelectorRequirement validates one matchExpressions requirement.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateNodeSelectorRequirement.
func ValidateNodeSelectorRequirement(rq corev1.NodeSelectorRequirement, allowInvalidValue bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch rq.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(rq.Values) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(rq.Values) > 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(rq.Values) != 1 {
			allErrs = append(allErrs, field.Required(fldPath.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("operator"), rq.Operator, "not a valid selector operator"))
	}
	allErrs = append(allErrs, metav1validation.ValidateLabelName(rq.Key, fldPath.Child("key"))...)
	if !allowInvalidValue {
		for i, v := range rq.Values {
			for _, msg := range validation.IsValidLabelValue(v) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("values").Index(i), v, msg))
			}
		}
	}
	return allErrs
}

// ValidateNodeFieldSelectorRequirement validates one matchFields requirement (only metadata.name).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateNodeFieldSelectorRequirement.
func ValidateNodeFieldSelectorRequirement(req corev1.NodeSelectorRequirement, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch req.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(req.Values) != 1 {
			allErrs = append(allErrs, field.Required(fldPath.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("operator"), req.Operator, "not a valid selector operator"))
	}
	if req.Key != metav1.ObjectNameField {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("key"), req.Key, "not a valid field selector key"))
	} else {
		for i, v := range req.Values {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(v, false) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("values").Index(i), v, msg))
			}
		}
	}
	return allErrs
}

// validatePodAffinityTerms validates the required and the preferred (weighted) terms of a pod
// (anti-)affinity; it merges two upstream functions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePodAffinityTerms
// and validateWeightedPodAffinityTerms.
func validatePodAffinityTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	rp := fldPath.Child("requiredDuringSchedulingIgnoredDuringExecution")
	for i, t := range required {
		allErrs = append(allErrs, validatePodAffinityTerm(t, rp.Index(i))...)
	}
	pp := fldPath.Child("preferredDuringSchedulingIgnoredDuringExecution")
	for i, w := range preferred {
		if w.Weight <= 0 || w.Weight > 100 {
			allErrs = append(allErrs, field.Invalid(pp.Index(i).Child("weight"), w.Weight, "must be in the range 1-100"))
		}
		allErrs = append(allErrs, validatePodAffinityTerm(w.PodAffinityTerm, pp.Index(i).Child("podAffinityTerm"))...)
	}
	return allErrs
}

// validatePodAffinityTerm validates one pod (anti-)affinity term, its selectors included.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePodAffinityTerm
// and ValidatePodAffinityTermSelector.
func validatePodAffinityTerm(t corev1.PodAffinityTerm, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	opts := metav1validation.LabelSelectorValidationOptions{}
	allErrs = append(allErrs, metav1validation.ValidateLabelSelector(t.LabelSelector, opts, fldPath.Child("labelSelector"))...)
	allErrs = append(allErrs, metav1validation.ValidateLabelSelector(t.NamespaceSelector, opts, fldPath.Child("namespaceSelector"))...)
	for _, ns := range t.Namespaces {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(ns, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), ns, msg))
		}
	}
	allErrs = append(allErrs, ValidateMatchLabelKeysAndMismatchLabelKeys(fldPath, t.MatchLabelKeys, t.MismatchLabelKeys, t.LabelSelector)...)
	if t.TopologyKey == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("topologyKey"), "can not be empty"))
	}
	return append(allErrs, metav1validation.ValidateLabelName(t.TopologyKey, fldPath.Child("topologyKey"))...)
}

// ValidateMatchLabelKeysAndMismatchLabelKeys validates matchLabelKeys and mismatchLabelKeys as on a template
// (the selector has not been merged with the keys yet).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateMatchLabelKeysAndMismatchLabelKeys.
func ValidateMatchLabelKeysAndMismatchLabelKeys(fldPath *field.Path, matchKeys, mismatchKeys []string, sel *metav1.LabelSelector) field.ErrorList {
	var allErrs field.ErrorList
	allErrs = append(allErrs, validateLabelKeys(fldPath.Child("matchLabelKeys"), matchKeys, sel)...)
	allErrs = append(allErrs, validateLabelKeys(fldPath.Child("mismatchLabelKeys"), mismatchKeys, sel)...)
	if sel != nil {
		idx := map[string]int{}
		for i, k := range matchKeys {
			idx[k] = i
		}
		seen := map[string]bool{}
		for k := range sel.MatchLabels {
			seen[k] = true
		}
		for _, e := range sel.MatchExpressions {
			if i, ok := idx[e.Key]; ok && seen[e.Key] {
				allErrs = append(allErrs, field.Invalid(fldPath.Index(i), e.Key, "exists in both matchLabelKeys and labelSelector"))
			}
			seen[e.Key] = true
		}
	}
	mismatch := map[string]bool{}
	for _, k := range mismatchKeys {
		mismatch[k] = true
	}
	for i, k := range matchKeys {
		if mismatch[k] {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("matchLabelKeys").Index(i), k, "exists in both matchLabelKeys and mismatchLabelKeys"))
		}
	}
	return allErrs
}

// validateLabelKeys checks that matchLabelKeys or mismatchLabelKeys are valid label names.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateLabelKeys.
func validateLabelKeys(fldPath *field.Path, keys []string, sel *metav1.LabelSelector) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	if sel == nil {
		return field.ErrorList{field.Forbidden(fldPath, "must not be specified when labelSelector is not set")}
	}
	var allErrs field.ErrorList
	for i, k := range keys {
		allErrs = append(allErrs, metav1validation.ValidateLabelName(k, fldPath.Index(i))...)
	}
	return allErrs
}

var supportedTaintEffects = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}

// ValidateTolerations validates spec.tolerations (Lt/Gt need the alpha TaintTolerationComparisonOperators
// gate, off in v1.37, so they are NotSupported).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateTolerations.
func ValidateTolerations(tolerations []corev1.Toleration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, t := range tolerations {
		p := fldPath.Index(i)
		if t.Key != "" {
			allErrs = append(allErrs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		}
		// An empty key means "match all keys" and only works with Exists.
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			allErrs = append(allErrs, field.Invalid(p.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			allErrs = append(allErrs, field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if errs := validation.IsValidLabelValue(t.Value); len(errs) != 0 {
				allErrs = append(allErrs, field.Invalid(p.Child("operator"), t.Value, strings.Join(errs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				allErrs = append(allErrs, field.Invalid(p.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
			allErrs = append(allErrs, field.NotSupported(p.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists, corev1.TolerationOpLt, corev1.TolerationOpGt}))
		default:
			allErrs = append(allErrs, field.NotSupported(p.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		// validateTaintEffect (empty means all effects).
		if t.Effect != "" && t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectPreferNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			allErrs = append(allErrs, field.NotSupported(p.Child("effect"), t.Effect, supportedTaintEffects))
		}
	}
	return allErrs
}

// ValidateTolerationsInPodAnnotations validates the legacy tolerations annotation.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateTolerationsInPodAnnotations.
func ValidateTolerationsInPodAnnotations(annotations map[string]string, fldPath *field.Path) field.ErrorList {
	raw := annotations[corev1.TolerationsAnnotationKey]
	if raw == "" {
		return nil
	}
	var tolerations []corev1.Toleration
	if err := json.Unmarshal([]byte(raw), &tolerations); err != nil {
		return field.ErrorList{field.Invalid(fldPath, corev1.TolerationsAnnotationKey, err.Error())}
	}
	return ValidateTolerations(tolerations, fldPath.Child(corev1.TolerationsAnnotationKey))
}
