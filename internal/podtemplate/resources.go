package podtemplate

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type resourceNameFn func(corev1.ResourceName, *field.Path) field.ErrorList

// IsHugePageResourceName reports whether n is a hugepages-* resource.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/helper/helpers.go IsHugePageResourceName.
func IsHugePageResourceName(n corev1.ResourceName) bool {
	return strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix)
}

// IsNativeResource reports whether n is unprefixed or in a *kubernetes.io/ domain.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/helper/helpers.go IsNativeResource.
func IsNativeResource(n corev1.ResourceName) bool {
	return !strings.Contains(string(n), "/") || strings.Contains(string(n), corev1.ResourceDefaultNamespacePrefix)
}

// IsExtendedResourceName reports whether n is an extended resource.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/helper/helpers.go IsExtendedResourceName.
func IsExtendedResourceName(n corev1.ResourceName) bool {
	if IsNativeResource(n) || strings.HasPrefix(string(n), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+string(n))) == 0
}

// IsOvercommitAllowed reports whether requests of n may be lower than limits.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/helper/helpers.go IsOvercommitAllowed.
func IsOvercommitAllowed(n corev1.ResourceName) bool {
	return IsNativeResource(n) && !IsHugePageResourceName(n)
}

var standardResourceNames = map[corev1.ResourceName]bool{
	corev1.ResourceCPU: true, corev1.ResourceMemory: true, corev1.ResourceEphemeralStorage: true,
	corev1.ResourceRequestsCPU: true, corev1.ResourceRequestsMemory: true, corev1.ResourceRequestsEphemeralStorage: true,
	corev1.ResourceLimitsCPU: true, corev1.ResourceLimitsMemory: true, corev1.ResourceLimitsEphemeralStorage: true,
	corev1.ResourcePods: true, corev1.ResourceQuotas: true, corev1.ResourceServices: true,
	corev1.ResourceReplicationControllers: true, corev1.ResourceSecrets: true, corev1.ResourcePersistentVolumeClaims: true,
	corev1.ResourceConfigMaps: true, corev1.ResourceServicesNodePorts: true, corev1.ResourceServicesLoadBalancers: true,
	corev1.ResourceRequestsStorage: true,
}

// validateResourceName validates a resource name.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateResourceName.
func validateResourceName(n corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(n)) {
		allErrs = append(allErrs, field.Invalid(fldPath, n, msg))
	}
	if len(allErrs) != 0 {
		return allErrs
	}
	if !strings.Contains(string(n), "/") {
		isStd := standardResourceNames[n] || IsHugePageResourceName(n) ||
			strings.HasPrefix(string(n), corev1.ResourceRequestsHugePagesPrefix)
		if !isStd {
			return append(allErrs, field.Invalid(fldPath, n, "must be a standard resource type or fully qualified"))
		}
	}
	return allErrs
}

// ValidateContainerResourceName validates a container resource name.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateContainerResourceName.
func ValidateContainerResourceName(n corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	allErrs := validateResourceName(n, fldPath)
	if !strings.Contains(string(n), "/") {
		if n != corev1.ResourceCPU && n != corev1.ResourceMemory && n != corev1.ResourceEphemeralStorage && !IsHugePageResourceName(n) {
			return append(allErrs, field.Invalid(fldPath, n, "must be a standard resource for containers"))
		}
	} else if !IsNativeResource(n) && !IsExtendedResourceName(n) {
		return append(allErrs, field.Invalid(fldPath, n, "doesn't follow extended resource name standard"))
	}
	return allErrs
}

// validatePodResourceName validates a pod-level resource name (cpu, memory, hugepages-*).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePodResourceName.
func validatePodResourceName(n corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	allErrs := validateResourceName(n, fldPath)
	if len(allErrs) != 0 {
		return allErrs
	}
	if n != corev1.ResourceCPU && n != corev1.ResourceMemory && !IsHugePageResourceName(n) {
		return append(allErrs, field.NotSupported(fldPath, n, []string{string(corev1.ResourceCPU), string(corev1.ResourceHugePagesPrefix), string(corev1.ResourceMemory)}))
	}
	return allErrs
}

// ValidateResourceQuantityValue requires a quantity >= 0, and an integer for extended resources.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateResourceQuantityValue.
func ValidateResourceQuantityValue(n corev1.ResourceName, q resource.Quantity, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if q.Sign() < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, q.String(), "must be greater than or equal to 0"))
	}
	if IsExtendedResourceName(n) && q.MilliValue()%1000 != 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, q, "must be an integer"))
	}
	return allErrs
}

// validateResourceQuantityHugePageValue rejects hugepage values that are not a multiple of the page size (on
// create).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateResourceQuantityHugePageValue.
func validateResourceQuantityHugePageValue(n corev1.ResourceName, q resource.Quantity) error {
	pageSize, err := resource.ParseQuantity(strings.TrimPrefix(string(n), corev1.ResourceHugePagesPrefix))
	if err != nil || pageSize.Sign() <= 0 || pageSize.MilliValue()%1000 != 0 || q.Value()%pageSize.Value() != 0 {
		return fmt.Errorf("%s is not positive integer multiple of %s", q.String(), n)
	}
	return nil
}

// sortedNames returns the keys of a ResourceList in a stable order so that
// error lists are deterministic (the server iterates the map).
func sortedNames(rl corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(rl))
	for k := range rl {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// validateResourceRequirements validates resources (limits, requests, claims).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateResourceRequirements.
func validateResourceRequirements(r *corev1.ResourceRequirements, nameFn resourceNameFn, podClaimNames map[string]bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	limPath, reqPath := fldPath.Child("limits"), fldPath.Child("requests")
	limCPUOrMem, reqCPUOrMem, limHuge, reqHuge := false, false, false, false
	for _, n := range sortedNames(r.Limits) {
		q := r.Limits[n]
		p := limPath.Key(string(n))
		allErrs = append(allErrs, nameFn(n, p)...)
		allErrs = append(allErrs, ValidateResourceQuantityValue(n, q, p)...)
		if IsHugePageResourceName(n) {
			limHuge = true
			if err := validateResourceQuantityHugePageValue(n, q); err != nil {
				allErrs = append(allErrs, field.Invalid(p, q.String(), err.Error()))
			}
		}
		if n == corev1.ResourceCPU || n == corev1.ResourceMemory {
			limCPUOrMem = true
		}
	}
	for _, n := range sortedNames(r.Requests) {
		q := r.Requests[n]
		p := reqPath.Key(string(n))
		allErrs = append(allErrs, nameFn(n, p)...)
		allErrs = append(allErrs, ValidateResourceQuantityValue(n, q, p)...)
		// The server reports request/limit mismatches on the requests path itself.
		if lim, ok := r.Limits[n]; ok {
			if q.Cmp(lim) != 0 && !IsOvercommitAllowed(n) {
				allErrs = append(allErrs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be equal to %s limit of %s", n, lim.String())))
			} else if q.Cmp(lim) > 0 {
				allErrs = append(allErrs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", n, lim.String())))
			}
		} else if !IsOvercommitAllowed(n) {
			allErrs = append(allErrs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
		if IsHugePageResourceName(n) {
			reqHuge = true
			if err := validateResourceQuantityHugePageValue(n, q); err != nil {
				allErrs = append(allErrs, field.Invalid(p, q.String(), err.Error()))
			}
		}
		if n == corev1.ResourceCPU || n == corev1.ResourceMemory {
			reqCPUOrMem = true
		}
	}
	if !limCPUOrMem && !reqCPUOrMem && (reqHuge || limHuge) {
		allErrs = append(allErrs, field.Forbidden(fldPath, "HugePages require cpu or memory"))
	}
	allErrs = append(allErrs, validateResourceClaimNames(r.Claims, podClaimNames, fldPath.Child("claims"))...)
	return allErrs
}

// validateResourceClaimNames requires every entry to name a spec.resourceClaims entry; duplicates and
// overlapping requests are rejected.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateResourceClaimNames.
func validateResourceClaimNames(claims []corev1.ResourceClaim, podClaimNames map[string]bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := map[string]bool{}
	for i, c := range claims {
		p := fldPath.Index(i)
		if c.Name == "" {
			allErrs = append(allErrs, field.Required(p, ""))
			continue
		}
		if names[c.Name] {
			allErrs = append(allErrs, field.Duplicate(p, c.Name))
		} else {
			key := c.Name
			if c.Request != "" {
				allErrs = append(allErrs, ValidateDNS1123Label(c.Request, p.Child("request"))...)
				key += "/" + c.Request
			}
			if names[key] {
				allErrs = append(allErrs, field.Duplicate(p, key))
			} else if c.Request == "" {
				for k := range names {
					if i := strings.Index(k, "/"); i >= 0 && k[:i] == c.Name {
						allErrs = append(allErrs, field.Duplicate(p, c.Name))
					}
				}
			}
			names[key] = true
		}
		if !podClaimNames[c.Name] {
			e := field.NotFound(p, c.Name)
			e.Detail = "must be one of the names in pod.spec.resourceClaims"
			allErrs = append(allErrs, e)
		}
	}
	return allErrs
}

// validatePodResourceClaims validates spec.resourceClaims.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePodResourceClaims
// and validatePodResourceClaim.
func validatePodResourceClaims(claims []corev1.PodResourceClaim, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := map[string]bool{}
	for i, c := range claims {
		p := fldPath.Index(i)
		switch {
		case c.Name == "":
			allErrs = append(allErrs, field.Required(p.Child("name"), ""))
		case seen[c.Name]:
			allErrs = append(allErrs, field.Duplicate(p.Child("name"), c.Name))
		default:
			allErrs = append(allErrs, ValidateDNS1123Label(c.Name, p.Child("name"))...)
			seen[c.Name] = true
		}
		if c.ResourceClaimName != nil && c.ResourceClaimTemplateName != nil {
			allErrs = append(allErrs, field.Invalid(p, c, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
		}
		if c.ResourceClaimName == nil && c.ResourceClaimTemplateName == nil {
			allErrs = append(allErrs, field.Invalid(p, c, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
		}
		if c.ResourceClaimName != nil {
			allErrs = append(allErrs, validateSubdomainName(*c.ResourceClaimName, p.Child("resourceClaimName"))...)
		}
		if c.ResourceClaimTemplateName != nil {
			allErrs = append(allErrs, validateSubdomainName(*c.ResourceClaimTemplateName, p.Child("resourceClaimTemplateName"))...)
		}
	}
	return allErrs
}

// validatePodResources validates spec.resources (PodLevelResources is beta/on in v1.37).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePodResources.
func validatePodResources(spec *corev1.PodSpec, podClaimNames map[string]bool, fldPath *field.Path) field.ErrorList {
	if spec.Resources == nil {
		return nil
	}
	rp := fldPath.Child("resources")
	if spec.OS != nil && spec.OS.Name == corev1.Windows {
		return field.ErrorList{field.Forbidden(rp, "may not be set for a windows pod")}
	}
	var allErrs field.ErrorList
	if spec.Resources.Claims != nil {
		allErrs = append(allErrs, field.Forbidden(rp.Child("claims"), "claims may not be set for Resources at pod-level"))
	}
	allErrs = append(allErrs, validateResourceRequirements(spec.Resources, validatePodResourceName, podClaimNames, rp)...)
	allErrs = append(allErrs, validatePodResourceConsistency(spec, rp)...)
	return allErrs
}

// aggregateContainer sums a resource list over the containers: regular containers and sidecars add up; each
// classic init container only competes with the sidecars started before it. It merges two upstream functions.
//
// Port of k8s.io/component-helpers@v0.37.2 resource/helpers.go AggregateContainerRequests
// and AggregateContainerLimits.
func aggregateContainer(spec *corev1.PodSpec, pick func(*corev1.Container) corev1.ResourceList) corev1.ResourceList {
	total := corev1.ResourceList{}
	add := func(dst, src corev1.ResourceList) {
		for n, q := range src {
			if cur, ok := dst[n]; ok {
				cur.Add(q)
				dst[n] = cur
			} else {
				dst[n] = q.DeepCopy()
			}
		}
	}
	maxOf := func(dst, src corev1.ResourceList) {
		for n, q := range src {
			if cur, ok := dst[n]; !ok || q.Cmp(cur) > 0 {
				dst[n] = q.DeepCopy()
			}
		}
	}
	for i := range spec.Containers {
		add(total, pick(&spec.Containers[i]))
	}
	sidecars := corev1.ResourceList{}
	initMax := corev1.ResourceList{}
	for i := range spec.InitContainers {
		ic := &spec.InitContainers[i]
		var cur corev1.ResourceList
		if ic.RestartPolicy != nil && *ic.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(total, pick(ic))
			add(sidecars, pick(ic))
			cur = sidecars
		} else {
			cur = corev1.ResourceList{}
			add(cur, pick(ic))
			add(cur, sidecars)
		}
		maxOf(initMax, cur)
	}
	maxOf(total, initMax)
	return total
}

// validatePodResourceConsistency checks that pod-level resources cover the aggregated container resources.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePodResourceConsistency.
func validatePodResourceConsistency(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	reqs := aggregateContainer(spec, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Requests })
	for _, n := range sortedNames(reqs) {
		podReq, ok := spec.Resources.Requests[n]
		if !ok {
			continue
		}
		if ctr := reqs[n]; ctr.Cmp(podReq) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("requests").Key(string(n)), podReq.String(),
				fmt.Sprintf("must be greater than or equal to aggregate container requests of %s", ctr.String())))
		}
	}
	lims := aggregateContainer(spec, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits })
	for _, n := range sortedNames(lims) {
		if !IsHugePageResourceName(n) {
			continue
		}
		podLim, ok := spec.Resources.Limits[n]
		if !ok {
			continue
		}
		if ctr := lims[n]; ctr.Cmp(podLim) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("limits").Key(string(n)), podLim.String(),
				fmt.Sprintf("must be greater than or equal to aggregate container limits of %s", ctr.String())))
		}
	}
	for i, c := range spec.Containers {
		for _, n := range sortedNames(c.Resources.Limits) {
			podLim, ok := spec.Resources.Limits[n]
			if !ok {
				continue
			}
			if l := c.Resources.Limits[n]; l.Cmp(podLim) > 0 {
				// The server builds this odd path (containers[i][name].limits) verbatim.
				allErrs = append(allErrs, field.Invalid(fldPath.Child("containers").Index(i).Key(string(n)).Child("limits"), l.String(),
					fmt.Sprintf("must be less than or equal to pod limits of %s", podLim.String())))
			}
		}
	}
	return allErrs
}
