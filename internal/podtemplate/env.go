package podtemplate

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var validEnvFieldPaths = map[string]bool{
	"metadata.name": true, "metadata.namespace": true, "metadata.uid": true,
	"spec.nodeName": true, "spec.serviceAccountName": true,
	"status.hostIP": true, "status.hostIPs": true, "status.podIP": true, "status.podIPs": true,
}

var validVolumeFieldPaths = map[string]bool{
	"metadata.name": true, "metadata.namespace": true, "metadata.labels": true,
	"metadata.annotations": true, "metadata.uid": true,
}

var validResourceFieldPaths = map[string]bool{
	"limits.cpu": true, "limits.memory": true, "limits.ephemeral-storage": true,
	"requests.cpu": true, "requests.memory": true, "requests.ephemeral-storage": true,
}

// convertibleFieldLabels holds the labels ConvertDownwardAPIFieldLabel accepts.
// Source: k8s.io/kubernetes@v1.37.2 pkg/apis/core/pods/helpers.go ConvertDownwardAPIFieldLabel.
var convertibleFieldLabels = map[string]string{
	"metadata.annotations": "metadata.annotations", "metadata.labels": "metadata.labels",
	"metadata.name": "metadata.name", "metadata.namespace": "metadata.namespace", "metadata.uid": "metadata.uid",
	"spec.nodeName": "spec.nodeName", "spec.restartPolicy": "spec.restartPolicy",
	"spec.serviceAccountName": "spec.serviceAccountName", "spec.schedulerName": "spec.schedulerName",
	"status.phase": "status.phase", "status.hostIP": "status.hostIP", "status.hostIPs": "status.hostIPs",
	"status.podIP": "status.podIP", "status.podIPs": "status.podIPs", "spec.host": "spec.nodeName",
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ValidateEnv validates env with the relaxed env-var name rule (GA, locked on since 1.34).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateEnv.
func ValidateEnv(vars []corev1.EnvVar, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, ev := range vars {
		p := fldPath.Index(i)
		if ev.Name == "" {
			allErrs = append(allErrs, field.Required(p.Child("name"), ""))
		} else {
			for _, m := range validation.IsRelaxedEnvVarName(ev.Name) {
				allErrs = append(allErrs, field.Invalid(p.Child("name"), ev.Name, m))
			}
		}
		allErrs = append(allErrs, validateEnvVarValueFrom(ev, p.Child("valueFrom"))...)
	}
	return allErrs
}

// validateEnvVarValueFrom validates env[].valueFrom (EnvFiles beta/on: fileKeyRef allowed).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateEnvVarValueFrom.
func validateEnvVarValueFrom(ev corev1.EnvVar, p *field.Path) field.ErrorList {
	vf := ev.ValueFrom
	if vf == nil {
		return nil
	}
	var allErrs field.ErrorList
	n := 0
	if vf.FieldRef != nil {
		n++
		allErrs = append(allErrs, validateObjectFieldSelector(vf.FieldRef, validEnvFieldPaths, p.Child("fieldRef"))...)
	}
	if vf.ResourceFieldRef != nil {
		n++
		allErrs = append(allErrs, validateContainerResourceFieldSelector(vf.ResourceFieldRef, p.Child("resourceFieldRef"), false)...)
	}
	if vf.ConfigMapKeyRef != nil {
		n++
		allErrs = append(allErrs, validateKeySelector(vf.ConfigMapKeyRef.Name, vf.ConfigMapKeyRef.Key, p.Child("configMapKeyRef"))...)
	}
	if vf.SecretKeyRef != nil {
		n++
		allErrs = append(allErrs, validateKeySelector(vf.SecretKeyRef.Name, vf.SecretKeyRef.Key, p.Child("secretKeyRef"))...)
	}
	if vf.FileKeyRef != nil {
		n++
		allErrs = append(allErrs, validateFileKeySelector(vf.FileKeyRef, p.Child("fileKeyRef"))...)
	}
	switch {
	case n == 0:
		allErrs = append(allErrs, field.Invalid(p, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
	case ev.Value != "":
		allErrs = append(allErrs, field.Invalid(p, "", "may not be specified when `value` is not empty"))
	case n > 1:
		allErrs = append(allErrs, field.Invalid(p, "", "may not have more than one field specified at a time"))
	}
	return allErrs
}

// validateObjectFieldSelector validates a fieldRef against the allowed field paths.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateObjectFieldSelector.
func validateObjectFieldSelector(fs *corev1.ObjectFieldSelector, allowed map[string]bool, p *field.Path) field.ErrorList {
	if fs.APIVersion == "" {
		return field.ErrorList{field.Required(p.Child("apiVersion"), "")}
	}
	if fs.FieldPath == "" {
		return field.ErrorList{field.Required(p.Child("fieldPath"), "")}
	}
	if fs.APIVersion != "v1" {
		return field.ErrorList{field.Invalid(p.Child("fieldPath"), fs.FieldPath, fmt.Sprintf("error converting fieldPath: unsupported pod version: %s", fs.APIVersion))}
	}
	if path, sub, ok := SplitMaybeSubscriptedPath(fs.FieldPath); ok {
		switch path {
		case "metadata.annotations":
			return ValidateQualifiedName(strings.ToLower(sub), p)
		case "metadata.labels":
			return ValidateQualifiedName(sub, p)
		default:
			return field.ErrorList{field.Invalid(p.Child("fieldPath"), fs.FieldPath, "error converting fieldPath: field label does not support subscript")}
		}
	}
	internal, ok := convertibleFieldLabels[fs.FieldPath]
	if !ok {
		return field.ErrorList{field.Invalid(p.Child("fieldPath"), fs.FieldPath, "error converting fieldPath: field label not supported")}
	}
	if !allowed[internal] {
		return field.ErrorList{field.NotSupported(p.Child("fieldPath"), internal, sortedKeys(allowed))}
	}
	return nil
}

// SplitMaybeSubscriptedPath splits a field path such as metadata.labels['key'] into path and subscript.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/fieldpath/fieldpath.go SplitMaybeSubscriptedPath.
func SplitMaybeSubscriptedPath(fp string) (string, string, bool) {
	if !strings.HasSuffix(fp, "']") {
		return fp, "", false
	}
	parts := strings.SplitN(strings.TrimSuffix(fp, "']"), "['", 2)
	if len(parts) < 2 || parts[0] == "" {
		return fp, "", false
	}
	return parts[0], parts[1], true
}

var divisorsCPU = map[string]bool{"1m": true, "1": true}
var divisorsBytes = map[string]bool{"1": true, "1k": true, "1M": true, "1G": true, "1T": true, "1P": true, "1E": true,
	"1Ki": true, "1Mi": true, "1Gi": true, "1Ti": true, "1Pi": true, "1Ei": true}

// validateContainerResourceFieldSelector validates a resourceFieldRef and its divisor.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateContainerResourceFieldSelector,
// with validateContainerResourceDivisor (which it calls).
func validateContainerResourceFieldSelector(fs *corev1.ResourceFieldSelector, p *field.Path, volume bool) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case volume && fs.ContainerName == "":
		allErrs = append(allErrs, field.Required(p.Child("containerName"), ""))
	case fs.Resource == "":
		allErrs = append(allErrs, field.Required(p.Child("resource"), ""))
	case !validResourceFieldPaths[fs.Resource] && !strings.HasPrefix(fs.Resource, "requests.hugepages-") && !strings.HasPrefix(fs.Resource, "limits.hugepages-"):
		allErrs = append(allErrs, field.NotSupported(p.Child("resource"), fs.Resource, sortedKeys(validResourceFieldPaths)))
	}
	if fs.Divisor.Cmp(resource.Quantity{}) == 0 {
		return allErrs
	}
	d := fs.Divisor.String()
	switch fs.Resource {
	case "limits.cpu", "requests.cpu":
		if !divisorsCPU[d] {
			allErrs = append(allErrs, field.Invalid(p.Child("divisor"), fs.Resource, "only divisor's values 1m and 1 are supported with the cpu resource"))
		}
	case "limits.memory", "requests.memory", "limits.ephemeral-storage", "requests.ephemeral-storage":
		if !divisorsBytes[d] {
			allErrs = append(allErrs, field.Invalid(p.Child("divisor"), fs.Resource, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported"))
		}
	}
	if strings.HasPrefix(fs.Resource, "requests.hugepages-") || strings.HasPrefix(fs.Resource, "limits.hugepages-") {
		if !divisorsBytes[d] {
			allErrs = append(allErrs, field.Invalid(p.Child("divisor"), fs.Resource, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource"))
		}
	}
	return allErrs
}

// validateKeySelector validates a configMapKeyRef or secretKeyRef: the (defaulted "") name must be a DNS
// subdomain, the key a config-map key. It merges two upstream functions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateConfigMapKeySelector
// and validateSecretKeySelector.
func validateKeySelector(name, key string, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, m := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		allErrs = append(allErrs, field.Invalid(p.Child("name"), name, m))
	}
	if key == "" {
		allErrs = append(allErrs, field.Required(p.Child("key"), ""))
	} else {
		for _, m := range validation.IsConfigMapKey(key) {
			allErrs = append(allErrs, field.Invalid(p.Child("key"), key, m))
		}
	}
	return allErrs
}

// validateFileKeySelector validates a fileKeyRef.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateFileKeySelector.
func validateFileKeySelector(s *corev1.FileKeySelector, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if s.Key == "" {
		allErrs = append(allErrs, field.Required(p.Child("key"), ""))
	} else {
		for _, m := range validation.IsRelaxedEnvVarName(s.Key) {
			allErrs = append(allErrs, field.Invalid(p.Child("key"), s.Key, m))
		}
	}
	if s.VolumeName == "" {
		allErrs = append(allErrs, field.Required(p.Child("volumeName"), ""))
	} else {
		allErrs = append(allErrs, ValidateDNS1123Label(s.VolumeName, p.Child("volumeName"))...)
	}
	if s.Path == "" {
		allErrs = append(allErrs, field.Required(p.Child("path"), ""))
	} else {
		allErrs = append(allErrs, validatePathNoBacksteps(s.Path, p.Child("path"))...)
	}
	return allErrs
}

// ValidateEnvFrom validates envFrom (relaxed prefix rule).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateEnvFrom.
func ValidateEnvFrom(vars []corev1.EnvFromSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, ev := range vars {
		p := fldPath.Index(i)
		if ev.Prefix != "" {
			for _, m := range validation.IsRelaxedEnvVarName(ev.Prefix) {
				allErrs = append(allErrs, field.Invalid(p.Child("prefix"), ev.Prefix, m))
			}
		}
		n := 0
		if ev.ConfigMapRef != nil {
			n++
			allErrs = append(allErrs, validateEnvSourceName(ev.ConfigMapRef.Name, p.Child("configMapRef"))...)
		}
		if ev.SecretRef != nil {
			n++
			allErrs = append(allErrs, validateEnvSourceName(ev.SecretRef.Name, p.Child("secretRef"))...)
		}
		// The server reports these on the list path, not the item.
		if n == 0 {
			allErrs = append(allErrs, field.Invalid(fldPath, "", "must specify one of: `configMapRef` or `secretRef`"))
		} else if n > 1 {
			allErrs = append(allErrs, field.Invalid(fldPath, "", "may not have more than one field specified at a time"))
		}
	}
	return allErrs
}

// validateEnvSourceName validates the name of a configMapRef or secretRef (prefix=true). It merges two
// upstream functions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateConfigMapEnvSource
// and validateSecretEnvSource.
func validateEnvSourceName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p.Child("name"), "")}
	}
	var allErrs field.ErrorList
	for _, m := range apimachineryvalidation.NameIsDNSSubdomain(name, true) {
		allErrs = append(allErrs, field.Invalid(p.Child("name"), name, m))
	}
	return allErrs
}
