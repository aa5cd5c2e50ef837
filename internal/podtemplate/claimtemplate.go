package podtemplate

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePersistentVolumeClaimTemplate validates an ephemeral volume claim template: only labels and
// annotations may be set in the embedded metadata.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidatePersistentVolumeClaimTemplate.
func ValidatePersistentVolumeClaimTemplate(t *corev1.PersistentVolumeClaimTemplate, p *field.Path) field.ErrorList {
	mp := p.Child("metadata")
	el := apimachineryvalidation.ValidateAnnotations(t.Annotations, mp.Child("annotations"))
	el = append(el, metav1validation.ValidateLabels(t.Labels, mp.Child("labels"))...)
	m := t.ObjectMeta
	m.Labels, m.Annotations = nil, nil
	el = append(el, forbidSetObjectMetaFields(&m, mp)...)
	return append(el, ValidatePersistentVolumeClaimSpec(&t.Spec, p.Child("spec"))...)
}

var supportedAccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadWriteOncePod}

// ValidatePersistentVolumeClaimSpec validates a claim spec (create options).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidatePersistentVolumeClaimSpec.
func ValidatePersistentVolumeClaimSpec(s *corev1.PersistentVolumeClaimSpec, p *field.Path) field.ErrorList {
	var el field.ErrorList
	if len(s.AccessModes) == 0 {
		el = append(el, field.Required(p.Child("accessModes"), "at least 1 access mode is required"))
	}
	if s.Selector != nil {
		el = append(el, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, p.Child("selector"))...)
	}
	rwop, other := false, false
	for _, m := range s.AccessModes {
		switch m {
		case corev1.ReadWriteOncePod:
			rwop = true
		case corev1.ReadWriteOnce, corev1.ReadOnlyMany, corev1.ReadWriteMany:
			other = true
		default:
			el = append(el, field.NotSupported(p.Child("accessModes"), m, supportedAccessModes))
		}
	}
	if rwop && other {
		el = append(el, field.Forbidden(p.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	sp := p.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := s.Resources.Requests[corev1.ResourceStorage]; !ok {
		el = append(el, field.Required(sp, ""))
	} else if q.Sign() <= 0 {
		el = append(el, field.Invalid(sp, q.String(), "must be greater than zero"))
	}
	if s.StorageClassName != nil && *s.StorageClassName != "" {
		el = append(el, validateSubdomainName(*s.StorageClassName, p.Child("storageClassName"))...)
	}
	if s.VolumeMode != nil && *s.VolumeMode != corev1.PersistentVolumeBlock && *s.VolumeMode != corev1.PersistentVolumeFilesystem {
		el = append(el, field.NotSupported(p.Child("volumeMode"), *s.VolumeMode, []corev1.PersistentVolumeMode{corev1.PersistentVolumeBlock, corev1.PersistentVolumeFilesystem}))
	}
	if ds := s.DataSource; ds != nil {
		el = append(el, validateDataSource(ds.Name, ds.Kind, ds.APIGroup, p.Child("dataSource"))...)
	}
	if ds := s.DataSourceRef; ds != nil {
		dp := p.Child("dataSourceRef")
		el = append(el, validateDataSource(ds.Name, ds.Kind, ds.APIGroup, dp)...)
		if ds.Namespace != nil && *ds.Namespace != "" {
			for _, m := range apimachineryvalidation.ValidateNamespaceName(*ds.Namespace, false) {
				el = append(el, field.Invalid(dp.Child("namespace"), *ds.Namespace, m))
			}
		}
	}
	if r := s.DataSourceRef; r != nil && r.Namespace != nil && *r.Namespace != "" {
		if s.DataSource != nil {
			el = append(el, field.Invalid(p, p.Child("dataSource"), "may not be specified when dataSourceRef.namespace is specified"))
		}
	} else if s.DataSource != nil && r != nil {
		d := s.DataSource
		same := d.Name == r.Name && d.Kind == r.Kind && ptrStr(d.APIGroup) == ptrStr(r.APIGroup)
		if !same {
			el = append(el, field.Invalid(p, p.Child("dataSource"), "must match dataSourceRef"))
		}
	}
	if s.VolumeAttributesClassName != nil && *s.VolumeAttributesClassName != "" {
		el = append(el, validateSubdomainName(*s.VolumeAttributesClassName, p.Child("volumeAttributesClassName"))...)
	}
	return el
}

func ptrStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// validateDataSource validates the part dataSource and dataSourceRef share.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateDataSource
// and validateDataSourceRef (shared part).
func validateDataSource(name, kind string, apiGroup *string, p *field.Path) field.ErrorList {
	el := requireAll(p, "name", name, "kind", kind)
	g := ptrStr(apiGroup)
	if g == "" && kind != "PersistentVolumeClaim" {
		el = append(el, field.Invalid(p, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
	}
	if g != "" {
		for _, m := range validation.IsDNS1123Subdomain(g) {
			el = append(el, field.Invalid(p.Child("apiGroup"), g, m))
		}
	}
	return el
}

// validateQuobyteVolumeSource validates a quobyte volume.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateQuobyteVolumeSource.
