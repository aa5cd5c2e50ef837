package podtemplate

import (
	"math"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Options describe the context: the LWS controller turns each template into an apps/v1 StatefulSet.
type Options struct {
	// VolumeClaimTemplateNames are added as volumes before mount validation (apps validation does this).
	VolumeClaimTemplateNames []string
	// DisallowPrivileged mirrors kube-apiserver --allow-privileged=false. The zero
	// value assumes privileged containers are allowed, as in kubeadm/kind/managed clusters.
	DisallowPrivileged bool
}

// ValidatePodTemplateSpec validates a template as kube-apiserver v1.37 validates the template of a
// StatefulSet (apps/v1) created from it, plus the pod-creation-time rules that templates always hit
// (e.g. matchLabelKeys overlapping labelSelector). fldPath points at the template (JSON names).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/apps/validation/validation.go ValidatePodTemplateSpecForStatefulSet
// (with pkg/apis/core/validation/validation.go ValidatePodTemplateSpec); it combines them with the pod-creation-time rules.
func ValidatePodTemplateSpec(tpl *corev1.PodTemplateSpec, fldPath *field.Path, opts Options) field.ErrorList {
	if tpl == nil {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	// The server validates the defaulted object; never touch the caller's copy.
	t := tpl.DeepCopy()
	applyServerDefaults(&t.Spec)
	// ValidateStatefulSetSpec: hostname/subdomain are overwritten by the controller, not validated.
	t.Spec.Hostname, t.Spec.Subdomain = "", ""
	// ValidateStatefulSetSpec / volumesToAddForTemplates: claim templates become PVC volumes
	// and replace any template volume of the same name.
	if len(opts.VolumeClaimTemplateNames) > 0 {
		t.Spec.Volumes = mergeClaimTemplateVolumes(opts.VolumeClaimTemplateNames, t.Spec.Volumes)
	}

	specPath := fldPath.Child("spec")
	var allErrs field.ErrorList
	// ValidatePodTemplateSpec: metadata.
	allErrs = append(allErrs, metav1validation.ValidateLabels(t.Labels, fldPath.Child("labels"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateAnnotations(t.Annotations, fldPath.Child("annotations"))...)
	allErrs = append(allErrs, ValidatePodSpecificAnnotations(t.Annotations, &t.Spec, fldPath.Child("annotations"))...)
	allErrs = append(allErrs, ValidatePodSpec(&t.Spec, specPath, opts)...)
	allErrs = append(allErrs, validateSecurityAnnotations(t.Annotations, &t.Spec, fldPath.Child("annotations"), specPath)...)
	if len(t.Spec.EphemeralContainers) > 0 {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	// ValidateStatefulSetSpec: StatefulSet-only template rules.
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("restartPolicy"), t.Spec.RestartPolicy, []corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("activeDeadlineSeconds"), "activeDeadlineSeconds in StatefulSet is not Supported"))
	}
	return allErrs
}

// mergeClaimTemplateVolumes adds the volumes of the claim templates to the pod volumes, in a stable order
// (the server iterates a map, so indices of these synthetic volumes are unstable there).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/apps/validation/validation.go volumesToAddForTemplates (signature differs:
// it takes the claim names and the volumes, not the StatefulSet spec).
func mergeClaimTemplateVolumes(names []string, vols []corev1.Volume) []corev1.Volume {
	out := make([]corev1.Volume, 0, len(names)+len(vols))
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, corev1.Volume{Name: n, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: n}}})
	}
	for _, v := range vols {
		if !seen[v.Name] {
			out = append(out, v)
		}
	}
	return out
}

// ValidatePodSpecificAnnotations validates the pod-specific annotations of the template metadata.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidatePodSpecificAnnotations.
func ValidatePodSpecificAnnotations(ann map[string]string, spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var el field.ErrorList
	if v, ok := ann[corev1.MirrorPodAnnotationKey]; ok && spec.NodeName == "" {
		el = append(el, field.Invalid(p.Key(corev1.MirrorPodAnnotationKey), v, "must set spec.nodeName if mirror pod annotation is set"))
	}
	el = append(el, ValidateTolerationsInPodAnnotations(ann, p)...)
	// helper.GetDeletionCostFromPodAnnotations: a 32-bit integer without '+' or leading zeros.
	if v, ok := ann[corev1.PodDeletionCost]; ok {
		okFirst := v != "" && (v[0] == '-' || v == "0" || (v[0] >= '1' && v[0] <= '9'))
		if _, err := strconv.ParseInt(v, 10, 32); !okFirst || err != nil {
			el = append(el, field.Invalid(p.Key(corev1.PodDeletionCost), v, "must be a 32bit integer"))
		}
	}
	return el
}

// ValidatePodSpec validates the template spec (podMeta == nil) with v1.37 default options.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidatePodSpec.
func ValidatePodSpec(spec *corev1.PodSpec, p *field.Path, opts Options) field.ErrorList {
	var allErrs field.ErrorList
	hostUsers := spec.HostUsers == nil || *spec.HostUsers
	vols, vErrs := ValidateVolumes(spec.Volumes, p.Child("volumes"))
	allErrs = append(allErrs, vErrs...)
	claimNames := map[string]bool{}
	for _, c := range spec.ResourceClaims {
		if c.Name != "" {
			claimNames[c.Name] = true
		}
	}
	allErrs = append(allErrs, validatePodResourceClaims(spec.ResourceClaims, p.Child("resourceClaims"))...)
	ctx := &podCtx{volumes: vols, podClaimNames: claimNames, gracePeriod: spec.TerminationGracePeriodSeconds,
		os: spec.OS, restartPolicy: spec.RestartPolicy, hostUsers: hostUsers, opts: opts}
	allErrs = append(allErrs, validateContainers(spec.Containers, ctx, p.Child("containers"))...)
	allErrs = append(allErrs, validateInitContainers(spec.InitContainers, spec.Containers, ctx, p.Child("initContainers"))...)
	allErrs = append(allErrs, validatePodResources(spec, claimNames, p)...)
	allErrs = append(allErrs, validatePodHostNetworkDeps(spec, p)...)
	allErrs = append(allErrs, validateRestartPolicy(spec.RestartPolicy, p.Child("restartPolicy"))...)
	allErrs = append(allErrs, validateDNSPolicy(spec.DNSPolicy, p.Child("dnsPolicy"))...)
	allErrs = append(allErrs, metav1validation.ValidateLabels(spec.NodeSelector, p.Child("nodeSelector"))...)
	allErrs = append(allErrs, validatePodSpecSecurityContext(spec, p.Child("securityContext"))...)
	if spec.ShareProcessNamespace != nil && *spec.ShareProcessNamespace && spec.HostPID {
		allErrs = append(allErrs, field.Invalid(p.Child("shareProcessNamespace"), *spec.ShareProcessNamespace, "ShareProcessNamespace and HostPID cannot both be enabled"))
	}
	allErrs = append(allErrs, validateImagePullSecrets(spec.ImagePullSecrets, p.Child("imagePullSecrets"))...)
	allErrs = append(allErrs, validateAffinity(spec.Affinity, p.Child("affinity"))...)
	allErrs = append(allErrs, validatePodDNSConfig(spec.DNSConfig, spec.DNSPolicy, p.Child("dnsConfig"))...)
	for i, g := range spec.ReadinessGates {
		allErrs = append(allErrs, ValidateQualifiedName(string(g.ConditionType), p.Child("readinessGates").Index(i).Child("conditionType"))...)
	}
	allErrs = append(allErrs, validateSchedulingGates(spec.SchedulingGates, p.Child("schedulingGates"))...)
	allErrs = append(allErrs, validateTopologySpreadConstraints(spec.TopologySpreadConstraints, p.Child("topologySpreadConstraints"))...)
	allErrs = append(allErrs, validateWindowsHostProcessPod(spec, p, opts)...)
	allErrs = append(allErrs, validateHostUsers(spec, p)...)
	allErrs = append(allErrs, validatePodHostName(spec, p)...)
	if spec.ServiceAccountName != "" {
		allErrs = append(allErrs, validateSubdomainName(spec.ServiceAccountName, p.Child("serviceAccountName"))...)
	}
	if spec.NodeName != "" {
		allErrs = append(allErrs, validateSubdomainName(spec.NodeName, p.Child("nodeName"))...)
	}
	if v := spec.ActiveDeadlineSeconds; v != nil && (*v < 1 || *v > math.MaxInt32) {
		allErrs = append(allErrs, field.Invalid(p.Child("activeDeadlineSeconds"), *v, validation.InclusiveRangeError(1, math.MaxInt32)))
	}
	allErrs = append(allErrs, ValidateTolerations(spec.Tolerations, p.Child("tolerations"))...)
	for i, ha := range spec.HostAliases {
		// ValidateHostAliases (StrictIPCIDRValidation is beta/on).
		allErrs = append(allErrs, validation.IsValidIPForLegacyField(p.Child("hostAliases").Index(i).Child("ip"), ha.IP, true, nil)...)
		for j, h := range ha.Hostnames {
			allErrs = append(allErrs, ValidateDNS1123Subdomain(h, p.Child("hostAliases").Index(i).Child("hostnames").Index(j))...)
		}
	}
	if spec.PriorityClassName != "" {
		allErrs = append(allErrs, validateSubdomainName(spec.PriorityClassName, p.Child("priorityClassName"))...)
	}
	if spec.RuntimeClassName != nil {
		allErrs = append(allErrs, validateSubdomainName(*spec.RuntimeClassName, p.Child("runtimeClassName"))...)
	}
	if pp := spec.PreemptionPolicy; pp != nil && *pp != corev1.PreemptLowerPriority && *pp != corev1.PreemptNever {
		if *pp == "" {
			allErrs = append(allErrs, field.Required(p.Child("preemptionPolicy"), ""))
		} else {
			allErrs = append(allErrs, field.NotSupported(p.Child("preemptionPolicy"), *pp, []corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever}))
		}
	}
	if spec.Overhead != nil {
		// validateOverhead reuses container resource validation on limits only.
		allErrs = append(allErrs, validateResourceRequirements(&corev1.ResourceRequirements{Limits: spec.Overhead}, ValidateContainerResourceName, nil, p.Child("overhead"))...)
	}
	allErrs = append(allErrs, validateOSSpecific(spec, p)...)
	allErrs = append(allErrs, validateFileKeyRefVolumes(spec, p)...)
	return allErrs
}

// validateRestartPolicy validates restartPolicy (pod-level values; StatefulSet narrows to Always later).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateRestartPolicy.
func validateRestartPolicy(rp corev1.RestartPolicy, p *field.Path) field.ErrorList {
	switch rp {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return nil
	}
	return field.ErrorList{field.NotSupported(p, rp, []corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})}
}

// validateDNSPolicy validates dnsPolicy.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateDNSPolicy.
func validateDNSPolicy(dp corev1.DNSPolicy, p *field.Path) field.ErrorList {
	switch dp {
	case corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone:
		return nil
	}
	return field.ErrorList{field.NotSupported(p, dp, []corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone})}
}

// validatePodDNSConfig validates dnsConfig (libc limits: 3 nameservers, 32 searches, 2048 chars).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePodDNSConfig.
func validatePodDNSConfig(c *corev1.PodDNSConfig, dp corev1.DNSPolicy, p *field.Path) field.ErrorList {
	if dp == corev1.DNSNone {
		if c == nil {
			return field.ErrorList{field.Required(p, "must provide `dnsConfig` when `dnsPolicy` is None")}
		}
		if len(c.Nameservers) == 0 {
			return field.ErrorList{field.Required(p.Child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None")}
		}
	}
	if c == nil {
		return nil
	}
	var el field.ErrorList
	if len(c.Nameservers) > 3 {
		el = append(el, field.Invalid(p.Child("nameservers"), c.Nameservers, "must not have more than 3 nameservers"))
	}
	for i, ns := range c.Nameservers {
		el = append(el, validation.IsValidIPForLegacyField(p.Child("nameservers").Index(i), ns, true, nil)...)
	}
	if len(c.Searches) > 32 {
		el = append(el, field.Invalid(p.Child("searches"), c.Searches, "must not have more than 32 search paths"))
	}
	if len(strings.Join(c.Searches, " ")) > 2048 {
		el = append(el, field.Invalid(p.Child("searches"), c.Searches, "must not have more than 2048 characters (including spaces) in the search list"))
	}
	for i, s := range c.Searches {
		if s != "." {
			s = strings.TrimSuffix(s, ".")
			for _, m := range validation.IsDNS1123SubdomainWithUnderscore(s) {
				el = append(el, field.Invalid(p.Child("searches").Index(i), s, m))
			}
		}
	}
	for i, o := range c.Options {
		if o.Name == "" {
			el = append(el, field.Required(p.Child("options").Index(i), "must not be empty"))
		}
	}
	return el
}

// validatePodHostNetworkDeps checks, for an embedded template, that a set hostPort equals containerPort when
// hostNetwork is true (0 is defaulted on the Pod).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePodHostNetworkDeps.
func validatePodHostNetworkDeps(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	if !spec.HostNetwork {
		return nil
	}
	var el field.ErrorList
	for i, c := range spec.Containers {
		for j, port := range c.Ports {
			if port.HostPort != 0 && port.HostPort != port.ContainerPort {
				el = append(el, field.Invalid(p.Child("containers").Index(i).Child("ports").Index(j).Child("hostPort"), port.HostPort, "must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return el
}

// validateImagePullSecrets validates imagePullSecrets (only name may be set; v1 has nothing else).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateImagePullSecrets.
func validateImagePullSecrets(_ []corev1.LocalObjectReference, _ *field.Path) field.ErrorList {
	return nil
}

// validateSchedulingGates validates schedulingGates: qualified names, no duplicates.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateSchedulingGates.
func validateSchedulingGates(gates []corev1.PodSchedulingGate, p *field.Path) field.ErrorList {
	var el field.ErrorList
	seen := map[string]bool{}
	for i, g := range gates {
		el = append(el, ValidateQualifiedName(g.Name, p.Index(i))...)
		if seen[g.Name] {
			el = append(el, field.Duplicate(p.Index(i), g.Name))
		}
		seen[g.Name] = true
	}
	return el
}

// validatePodHostName validates hostnameOverride (HostnameOverride is GA in v1.37).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePodHostName.
func validatePodHostName(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	if spec.HostnameOverride == nil {
		return nil
	}
	var el field.ErrorList
	hp := p.Child("hostnameOverride")
	if spec.SetHostnameAsFQDN != nil && *spec.SetHostnameAsFQDN {
		el = append(el, field.Forbidden(hp, "may not be specified when setHostnameAsFQDN is true"))
	}
	if spec.HostNetwork {
		el = append(el, field.Forbidden(hp, "may not be specified when hostNetwork is true"))
	}
	if len(*spec.HostnameOverride) > 64 {
		el = append(el, field.TooLong(hp, "", 64))
	}
	return append(el, ValidateDNS1123Subdomain(*spec.HostnameOverride, hp)...)
}

// validateFileKeyRefVolumes checks that a fileKeyRef names an emptyDir volume.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateFileKeyRefVolumes.
func validateFileKeyRefVolumes(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var el field.ErrorList
	VisitContainersWithPath(spec, p, func(c *corev1.Container, cp *field.Path) {
		for j, e := range c.Env {
			if e.ValueFrom == nil || e.ValueFrom.FileKeyRef == nil {
				continue
			}
			name := e.ValueFrom.FileKeyRef.VolumeName
			np := cp.Child("env").Index(j).Child("valueFrom", "fileKeyRef", "volumeName")
			found := false
			for _, v := range spec.Volumes {
				if v.Name == name {
					found = true
					if v.EmptyDir == nil {
						el = append(el, field.Invalid(np, name, "referenced volume must be of type emptyDir"))
					}
					break
				}
			}
			if !found {
				el = append(el, field.NotFound(np, name))
			}
		}
	})
	return el
}

// VisitContainersWithPath calls fn for each container with its path: init, regular, then ephemeral (fn cannot
// stop the walk).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/pods/helpers.go VisitContainersWithPath.
func VisitContainersWithPath(spec *corev1.PodSpec, p *field.Path, fn func(*corev1.Container, *field.Path)) {
	for i := range spec.InitContainers {
		fn(&spec.InitContainers[i], p.Child("initContainers").Index(i))
	}
	for i := range spec.Containers {
		fn(&spec.Containers[i], p.Child("containers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		fn((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), p.Child("ephemeralContainers").Index(i))
	}
}

// ValidateDNS1123Label reports each DNS-1123 label error as Invalid.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateDNS1123Label.
func ValidateDNS1123Label(v string, p *field.Path) field.ErrorList {
	var el field.ErrorList
	for _, m := range validation.IsDNS1123Label(v) {
		el = append(el, field.Invalid(p, v, m))
	}
	return el
}

// ValidateDNS1123Subdomain reports each DNS-1123 subdomain error as Invalid.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateDNS1123Subdomain.
func ValidateDNS1123Subdomain(v string, p *field.Path) field.ErrorList {
	var el field.ErrorList
	for _, m := range validation.IsDNS1123Subdomain(v) {
		el = append(el, field.Invalid(p, v, m))
	}
	return el
}

// validateSubdomainName is NameIsDNSSubdomain(name, false) reported as Invalid.
func validateSubdomainName(v string, p *field.Path) field.ErrorList {
	var el field.ErrorList
	for _, m := range apimachineryvalidation.NameIsDNSSubdomain(v, false) {
		el = append(el, field.Invalid(p, v, m))
	}
	return el
}

// ValidateQualifiedName reports each qualified-name error as Invalid.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateQualifiedName.
func ValidateQualifiedName(v string, p *field.Path) field.ErrorList {
	var el field.ErrorList
	for _, m := range validation.IsQualifiedName(v) {
		el = append(el, field.Invalid(p, v, m))
	}
	return el
}

// ValidateNonnegativeField rejects a negative value.
//
// Port of k8s.io/apimachinery@v0.37.2 pkg/api/validation/generic.go ValidateNonnegativeField.
func ValidateNonnegativeField(v int64, p *field.Path) field.ErrorList {
	if v < 0 {
		return field.ErrorList{field.Invalid(p, v, apimachineryvalidation.IsNegativeErrorMsg)}
	}
	return nil
}

// ValidateVolumeClaimTemplates validates StatefulSet-style volumeClaimTemplates
// (apps validateVolumeClaimTemplates -> core ValidatePersistentVolumeClaimSpec, create options).
// Names are checked as DNS subdomains here; ValidatePodTemplateSpec additionally
// applies the volume-name (DNS label) rule through Options.VolumeClaimTemplateNames.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/apps/validation/validation.go validateVolumeClaimTemplates
// (exported here: the leaderworkerset package calls it).
func ValidateVolumeClaimTemplates(vcts []corev1.PersistentVolumeClaim, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i := range vcts {
		p := fldPath.Index(i)
		vct := vcts[i].DeepCopy()
		defaultPVCSpec(&vct.Spec)
		if vct.Name == "" {
			allErrs = append(allErrs, field.Required(p.Child("metadata", "name"), ""))
		} else {
			allErrs = append(allErrs, validateSubdomainName(vct.Name, p.Child("metadata", "name"))...)
		}
		allErrs = append(allErrs, ValidatePersistentVolumeClaimSpec(&vct.Spec, p.Child("spec"))...)
	}
	return allErrs
}

// ValidatePersistentVolumeClaimRetentionPolicy validates persistentVolumeClaimRetentionPolicy; empty values
// are defaulted to Retain by SetDefaults_StatefulSet first.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/apps/validation/validation.go ValidatePersistentVolumeClaimRetentionPolicy,
// with ValidatePersistentVolumeClaimRetentionPolicyType.
func ValidatePersistentVolumeClaimRetentionPolicy(p *appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy, fldPath *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var el field.ErrorList
	for _, f := range []struct {
		name string
		v    appsv1.PersistentVolumeClaimRetentionPolicyType
	}{{"whenDeleted", p.WhenDeleted}, {"whenScaled", p.WhenScaled}} {
		switch f.v {
		case "", appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType:
		default:
			el = append(el, field.NotSupported(fldPath.Child(f.name), f.v, []string{string(appsv1.RetainPersistentVolumeClaimRetentionPolicyType), string(appsv1.DeletePersistentVolumeClaimRetentionPolicyType)}))
		}
	}
	return el
}
