package podtemplate

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	iscsiIqnRegex = regexp.MustCompile(`iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$`)
	iscsiEuiRegex = regexp.MustCompile(`^eui.[[:alnum:]]{16}$`)
	iscsiNaaRegex = regexp.MustCompile(`^naa.[[:alnum:]]{32}$`)
)

// validateIQNFormat holds the prefix/regex checks that validateISCSIVolumeSource applies to both
// iqn and initiatorName (upstream repeats them inline).
// Source: k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateISCSIVolumeSource.
func validateIQNFormat(v string, p *field.Path, prefixMsg string) field.ErrorList {
	switch {
	case !strings.HasPrefix(v, "iqn") && !strings.HasPrefix(v, "eui") && !strings.HasPrefix(v, "naa"):
		return field.ErrorList{field.Invalid(p, v, prefixMsg)}
	case strings.HasPrefix(v, "iqn") && !iscsiIqnRegex.MatchString(v),
		strings.HasPrefix(v, "eui") && !iscsiEuiRegex.MatchString(v),
		strings.HasPrefix(v, "naa") && !iscsiNaaRegex.MatchString(v):
		return field.ErrorList{field.Invalid(p, v, "must be valid format")}
	}
	return nil
}

// validateISCSIVolumeSource validates an iscsi volume.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateISCSIVolumeSource.
func validateISCSIVolumeSource(s *corev1.ISCSIVolumeSource, p *field.Path) field.ErrorList {
	el := requireAll(p, "targetPortal", s.TargetPortal)
	if s.IQN == "" {
		el = append(el, field.Required(p.Child("iqn"), ""))
	} else {
		el = append(el, validateIQNFormat(s.IQN, p.Child("iqn"), "must be valid format starting with iqn, eui, or naa")...)
	}
	if s.Lun < 0 || s.Lun > 255 {
		el = append(el, field.Invalid(p.Child("lun"), s.Lun, validation.InclusiveRangeError(0, 255)))
	}
	if (s.DiscoveryCHAPAuth || s.SessionCHAPAuth) && s.SecretRef == nil {
		el = append(el, field.Required(p.Child("secretRef"), ""))
	}
	if s.InitiatorName != nil {
		el = append(el, validateIQNFormat(*s.InitiatorName, p.Child("initiatorname"), "must be valid format starting with iqn, eui, or naa")...)
	}
	return el
}

// validateFCVolumeSource validates an fc volume.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateFCVolumeSource.
func validateFCVolumeSource(fc *corev1.FCVolumeSource, p *field.Path) field.ErrorList {
	var el field.ErrorList
	if len(fc.TargetWWNs) < 1 && len(fc.WWIDs) < 1 {
		el = append(el, field.Required(p.Child("targetWWNs"), "must specify either targetWWNs or wwids, but not both"))
	}
	if len(fc.TargetWWNs) != 0 && len(fc.WWIDs) != 0 {
		el = append(el, field.Invalid(p.Child("targetWWNs"), fc.TargetWWNs, "targetWWNs and wwids can not be specified simultaneously"))
	}
	if len(fc.TargetWWNs) != 0 {
		if fc.Lun == nil {
			el = append(el, field.Required(p.Child("lun"), "lun is required if targetWWNs is specified"))
		} else if *fc.Lun < 0 || *fc.Lun > 255 {
			el = append(el, field.Invalid(p.Child("lun"), *fc.Lun, validation.InclusiveRangeError(0, 255)))
		}
	}
	return el
}

// validateFlexVolumeSource validates a flexVolume: kubernetes.io/k8s.io option namespaces are reserved.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateFlexVolumeSource.
func validateFlexVolumeSource(fv *corev1.FlexVolumeSource, p *field.Path) field.ErrorList {
	el := requireAll(p, "driver", fv.Driver)
	for k := range fv.Options {
		ns := k
		if parts := strings.SplitN(k, "/", 2); len(parts) == 2 {
			ns = parts[0]
		}
		n := "." + strings.ToLower(ns)
		if strings.HasSuffix(n, ".kubernetes.io") || strings.HasSuffix(n, ".k8s.io") {
			el = append(el, field.Invalid(p.Child("options").Key(k), k, "kubernetes.io and k8s.io namespaces are reserved"))
		}
	}
	return el
}

// validateAzureDisk validates an azureDisk volume (kind defaults to Shared, so the URI must be https://
// unless Managed).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateAzureDisk.
func validateAzureDisk(a *corev1.AzureDiskVolumeSource, p *field.Path) field.ErrorList { //nolint:staticcheck
	el := requireAll(p, "diskName", a.DiskName, "diskURI", a.DataDiskURI)
	if a.CachingMode != nil {
		switch *a.CachingMode {
		case corev1.AzureDataDiskCachingNone, corev1.AzureDataDiskCachingReadOnly, corev1.AzureDataDiskCachingReadWrite:
		default:
			el = append(el, field.NotSupported(p.Child("cachingMode"), *a.CachingMode, []string{"None", "ReadOnly", "ReadWrite"}))
		}
	}
	if a.Kind != nil {
		switch *a.Kind {
		case corev1.AzureSharedBlobDisk, corev1.AzureDedicatedBlobDisk, corev1.AzureManagedDisk:
		default:
			el = append(el, field.NotSupported(p.Child("kind"), *a.Kind, []string{"Dedicated", "Managed", "Shared"}))
		}
		if *a.Kind == corev1.AzureManagedDisk && !strings.HasPrefix(a.DataDiskURI, "/subscriptions/") {
			el = append(el, field.NotSupported(p.Child("diskURI"), a.DataDiskURI, []string{"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"}))
		}
		if *a.Kind != corev1.AzureManagedDisk && !strings.HasPrefix(a.DataDiskURI, "https://") {
			el = append(el, field.NotSupported(p.Child("diskURI"), a.DataDiskURI, []string{"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"}))
		}
	}
	return el
}

// validateStorageOSVolumeSource validates a storageos volume.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateStorageOSVolumeSource.
func validateStorageOSVolumeSource(s *corev1.StorageOSVolumeSource, p *field.Path) field.ErrorList { //nolint:staticcheck
	var el field.ErrorList
	if s.VolumeName == "" {
		el = append(el, field.Required(p.Child("volumeName"), ""))
	} else {
		el = append(el, ValidateDNS1123Label(s.VolumeName, p.Child("volumeName"))...)
	}
	if s.VolumeNamespace != "" {
		el = append(el, ValidateDNS1123Label(s.VolumeNamespace, p.Child("volumeNamespace"))...)
	}
	if s.SecretRef != nil && s.SecretRef.Name == "" {
		el = append(el, field.Required(p.Child("secretRef", "name"), ""))
	}
	return el
}

// validateCSIVolumeSource validates a csi volume.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateCSIVolumeSource,
// with ValidateCSIDriverName (which it calls).
func validateCSIVolumeSource(c *corev1.CSIVolumeSource, p *field.Path) field.ErrorList {
	var el field.ErrorList
	dp := p.Child("driver")
	if c.Driver == "" {
		el = append(el, field.Required(dp, ""))
	} else {
		if len(c.Driver) > 63 {
			el = append(el, field.TooLong(dp, "", 63))
		}
		for _, m := range validation.IsDNS1123Subdomain(strings.ToLower(c.Driver)) {
			el = append(el, field.Invalid(dp, c.Driver, m))
		}
	}
	if c.NodePublishSecretRef != nil {
		if c.NodePublishSecretRef.Name == "" {
			el = append(el, field.Required(p.Child("nodePublishSecretRef", "name"), ""))
		} else {
			for _, m := range apimachineryvalidation.NameIsDNSSubdomain(c.NodePublishSecretRef.Name, false) {
				el = append(el, field.Invalid(p.Child("name"), c.NodePublishSecretRef.Name, m))
			}
		}
	}
	return el
}

// validateProjectedVolumeSource validates a projected volume and its sources.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateProjectedVolumeSource,
// with validateProjectionSources (which it calls).
func validateProjectedVolumeSource(pv *corev1.ProjectedVolumeSource, p *field.Path) field.ErrorList {
	el := validateMode(pv.DefaultMode, p.Child("defaultMode"))
	paths := map[string]bool{}
	dup := func(v string, value any) {
		if paths[v] {
			el = append(el, field.Invalid(p, value, "conflicting duplicate paths"))
		}
		paths[v] = true
	}
	for i, src := range pv.Sources {
		n := 0
		sp := p.Child("sources").Index(i)
		if s := src.Secret; s != nil {
			n++
			pp := sp.Child("secret")
			el = append(el, requireAll(pp, "name", s.Name)...)
			for j := range s.Items {
				el = append(el, validateKeyToPath(&s.Items[j], pp.Child("items").Index(j))...)
				if s.Items[j].Path != "" {
					dup(s.Items[j].Path, s.Name)
				}
			}
		}
		if s := src.ConfigMap; s != nil {
			n++
			pp := sp.Child("configMap")
			el = append(el, requireAll(pp, "name", s.Name)...)
			for j := range s.Items {
				el = append(el, validateKeyToPath(&s.Items[j], pp.Child("items").Index(j))...)
				if s.Items[j].Path != "" {
					dup(s.Items[j].Path, s.Name)
				}
			}
		}
		if s := src.DownwardAPI; s != nil {
			n++
			for j := range s.Items {
				el = append(el, validateDownwardAPIVolumeFile(&s.Items[j], sp.Child("downwardAPI"))...)
				if s.Items[j].Path != "" {
					dup(s.Items[j].Path, s.Items[j].Path)
				}
			}
		}
		if s := src.ServiceAccountToken; s != nil {
			n++
			pp := sp.Child("serviceAccountToken")
			if s.ExpirationSeconds == nil {
				el = append(el, field.Required(pp.Child("expirationSeconds"), ""))
			} else {
				if *s.ExpirationSeconds < 600 {
					el = append(el, field.Invalid(pp.Child("expirationSeconds"), *s.ExpirationSeconds, "may not specify a duration less than 10 minutes"))
				}
				if *s.ExpirationSeconds > 1<<32 {
					el = append(el, field.Invalid(pp.Child("expirationSeconds"), *s.ExpirationSeconds, "may not specify a duration larger than 2^32 seconds"))
				}
			}
			// The server reports the token path on the projected volume path (sic).
			if s.Path == "" {
				el = append(el, field.Required(p.Child("path"), ""))
			} else {
				el = append(el, ValidateLocalNonReservedPath(s.Path, p.Child("path"))...)
			}
		}
		if s := src.ClusterTrustBundle; s != nil {
			n++
			el = append(el, validateClusterTrustBundleProjection(s, sp.Child("clusterTrustBundle"))...)
			dup(s.Path, s.Path)
		}
		if s := src.PodCertificate; s != nil {
			n++
			el = append(el, validatePodCertificateProjection(s, sp.Child("podCertificate"), dup)...)
		}
		if n > 1 {
			el = append(el, field.Forbidden(sp, "may not specify more than 1 volume type per source"))
		}
	}
	return el
}

// validateClusterTrustBundleProjection validates a clusterTrustBundle projection.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateProjectionSources
// (its clusterTrustBundle part; upstream has no separate function).
func validateClusterTrustBundleProjection(s *corev1.ClusterTrustBundleProjection, pp *field.Path) field.ErrorList {
	var el field.ErrorList
	switch {
	case s.Name != nil && s.SignerName != nil:
		el = append(el, field.Invalid(pp, s, "only one of name and signerName may be used"))
	case s.Name != nil:
		name := *s.Name
		if name == "" {
			el = append(el, field.Required(pp.Child("name"), "must be a valid object name"))
		}
		for _, m := range clusterTrustBundleNameErrors(name) {
			el = append(el, field.Invalid(pp.Child("name"), name, fmt.Sprintf("not a valid clustertrustbundlename: %v", m)))
		}
		if s.LabelSelector != nil {
			el = append(el, field.Invalid(pp.Child("labelSelector"), s.LabelSelector, "labelSelector must be unset if name is specified"))
		}
	case s.SignerName != nil:
		if *s.SignerName == "" {
			el = append(el, field.Required(pp.Child("signerName"), "must be a valid signer name"))
		}
		el = append(el, ValidateSignerName(pp.Child("signerName"), *s.SignerName)...)
		el = append(el, metav1validation.ValidateLabelSelector(s.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, pp.Child("labelSelector"))...)
	default:
		el = append(el, field.Required(pp, "either name or signerName must be specified"))
	}
	if s.Path == "" {
		el = append(el, field.Required(pp.Child("path"), ""))
	}
	return append(el, ValidateLocalNonReservedPath(s.Path, pp.Child("path"))...)
}

// clusterTrustBundleNameErrors returns the errors of a ClusterTrustBundle name. It merges two upstream
// functions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/names.go ValidateClusterTrustBundleName
// and extractSignerNameFromClusterTrustBundleName.
func clusterTrustBundleNameErrors(name string) []string {
	i := strings.LastIndex(name, ":")
	if i == -1 {
		return apimachineryvalidation.NameIsDNSSubdomain(name, false)
	}
	signer := strings.ReplaceAll(name[:i], ":", "/")
	prefix := strings.ReplaceAll(signer, "/", ":") + ":"
	if !strings.HasPrefix(name, prefix) {
		return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signer, prefix)}
	}
	return apimachineryvalidation.NameIsDNSSubdomain(strings.TrimPrefix(name, prefix), false)
}

// validatePodCertificateProjection validates a podCertificate projection.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateProjectionSources
// (its podCertificate part; upstream has no separate function).
func validatePodCertificateProjection(s *corev1.PodCertificateProjection, pp *field.Path, dup func(string, any)) field.ErrorList {
	el := ValidateSignerName(pp.Child("signerName"), s.SignerName)
	for k := range s.UserAnnotations {
		el = append(el, validation.IsDomainPrefixedKey(pp.Child("userAnnotations"), strings.ToLower(k))...)
	}
	if apimachineryvalidation.ValidateAnnotationsSize(s.UserAnnotations) != nil {
		el = append(el, field.TooLong(pp.Child("userAnnotations"), "", apimachineryvalidation.TotalAnnotationSizeLimitB))
	}
	keyTypes := []string{"RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519"}
	ok := false
	for _, k := range keyTypes {
		ok = ok || s.KeyType == k
	}
	if !ok {
		el = append(el, field.NotSupported(pp.Child("keyType"), s.KeyType, keyTypes))
	}
	if m := s.MaxExpirationSeconds; m != nil {
		if *m < 3600 {
			el = append(el, field.Invalid(pp.Child("maxExpirationSeconds"), *m, "if provided, maxExpirationSeconds must be >= 3600"))
		}
		limit := int32(91 * 24 * 3600)
		host, _, _ := strings.Cut(s.SignerName, "/")
		if host == "kubernetes.io" || strings.HasSuffix(host, ".kubernetes.io") {
			limit = 24 * 3600
		}
		if *m > limit {
			el = append(el, field.Invalid(pp.Child("maxExpirationSeconds"), *m, fmt.Sprintf("if provided, maxExpirationSeconds must be <= %d", limit)))
		}
	}
	n := 0
	for _, f := range []struct{ name, v string }{{"credentialBundlePath", s.CredentialBundlePath}, {"keyPath", s.KeyPath}, {"certificateChainPath", s.CertificateChainPath}} {
		if f.v == "" {
			continue
		}
		n++
		el = append(el, ValidateLocalNonReservedPath(f.v, pp.Child(f.name))...)
		dup(f.v, f.v)
	}
	if n == 0 {
		el = append(el, field.Required(pp, "specify at least one of credentialBundlePath, keyPath, and certificateChainPath"))
	}
	return el
}

// ValidateSignerName validates a signer name ("example.com/signer-name").
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/names.go ValidateSignerName.
func ValidateSignerName(p *field.Path, signer string) field.ErrorList {
	if signer == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	seg := strings.Split(signer, "/")
	if len(seg) != 2 {
		return field.ErrorList{field.Invalid(p, signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var el field.ErrorList
	if len(seg[0]) > validation.DNS1123SubdomainMaxLength {
		el = append(el, field.TooLong(p, "", validation.DNS1123SubdomainMaxLength))
	}
	labels := strings.Split(seg[0], ".")
	for _, l := range labels {
		if errs := validation.IsDNS1123Label(l); len(errs) > 0 {
			el = append(el, field.Invalid(p, seg[0], fmt.Sprintf("validating label %q: %s", l, errs[0])))
			break
		}
	}
	if len(labels) < 2 {
		el = append(el, field.Invalid(p, seg[0], "should be a domain with at least two segments separated by dots"))
	}
	for _, l := range strings.Split(seg[1], ".") {
		if errs := validation.IsDNS1123Subdomain(l); len(errs) > 0 {
			el = append(el, field.Invalid(p, seg[1], fmt.Sprintf("validating label %q: %s", l, errs[0])))
			break
		}
	}
	if maxLen := 2*validation.DNS1123SubdomainMaxLength + validation.DNS1123LabelMaxLength + 2; len(signer) > maxLen {
		el = append(el, field.TooLong(p, "", maxLen))
	}
	return el
}

// forbidSetObjectMetaFields forbids any set field of embedded template metadata (other than those cleared by
// the caller). Upstream passes an allow list and an error text; this keeps its own name for that reason.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateFieldAllowList.
func forbidSetObjectMetaFields(m *metav1.ObjectMeta, p *field.Path) field.ErrorList {
	var el field.ErrorList
	t, v := reflect.TypeOf(*m), reflect.ValueOf(*m)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Name == "TypeMeta" {
			continue
		}
		if !v.Field(i).IsZero() {
			r, n := utf8.DecodeRuneInString(f.Name)
			el = append(el, field.Forbidden(p.Child(string(unicode.ToLower(r))+f.Name[n:]), "cannot be set"))
		}
	}
	return el
}
