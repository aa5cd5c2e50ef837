package kindrules

import (
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateClusterScopedObjectMeta ports pkg/apis/core/validation/validation.go ValidateObjectMeta
// (requiresNamespace=false, NameIsDNSSubdomain) as the API server applies it to a cluster-scoped
// object after rest.BeforeCreate.
func ValidateClusterScopedObjectMeta(meta *metav1.ObjectMeta) field.ErrorList {
	m := *meta
	m.Name = EffectiveName(meta)
	// rest.EnsureObjectNamespaceMatchesRequestNamespace clears metadata.namespace of
	// cluster-scoped objects before validation.
	m.Namespace = ""
	// PrepareForCreate sets generation to 1 (update keeps the stored value).
	m.Generation = 0
	fldPath := field.NewPath("metadata")
	allErrs := apimachineryvalidation.ValidateObjectMeta(&m, false, apimachineryvalidation.NameIsDNSSubdomain, fldPath)
	for i, f := range m.Finalizers {
		// pkg/apis/core/validation/validation.go validateKubeFinalizerName
		if !strings.Contains(f, "/") && f != "kubernetes" && f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("finalizers").Index(i), f, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return allErrs
}

// EffectiveName is the name the object will have: it mirrors the registry's name generation for generateName-only objects
// (names.SimpleNameGenerator: base truncated to 58 characters + 5 random lowercase
// alphanumerics), so that validity does not depend on the random part.
func EffectiveName(meta *metav1.ObjectMeta) string {
	if meta.Name != "" || meta.GenerateName == "" {
		return meta.Name
	}
	base := meta.GenerateName
	if len(base) > 58 {
		base = base[:58]
	}
	return base + "xxxxx"
}
