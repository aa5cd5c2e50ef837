package podtemplate

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateSecurityContext validates a container securityContext.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateSecurityContext.
func ValidateSecurityContext(sc *corev1.SecurityContext, p *field.Path, ctx *podCtx) field.ErrorList {
	if sc == nil {
		return nil
	}
	var el field.ErrorList
	if sc.Privileged != nil && *sc.Privileged && ctx.opts.DisallowPrivileged {
		el = append(el, field.Forbidden(p.Child("privileged"), "disallowed by cluster policy"))
	}
	if sc.RunAsUser != nil {
		for _, m := range validation.IsValidUserID(*sc.RunAsUser) {
			el = append(el, field.Invalid(p.Child("runAsUser"), *sc.RunAsUser, m))
		}
	}
	if sc.RunAsGroup != nil {
		for _, m := range validation.IsValidGroupID(*sc.RunAsGroup) {
			el = append(el, field.Invalid(p.Child("runAsGroup"), *sc.RunAsGroup, m))
		}
	}
	if sc.ProcMount != nil {
		// ValidateProcMountType
		if *sc.ProcMount != corev1.DefaultProcMount && *sc.ProcMount != corev1.UnmaskedProcMount {
			el = append(el, field.NotSupported(p.Child("procMount"), *sc.ProcMount, []corev1.ProcMountType{corev1.DefaultProcMount, corev1.UnmaskedProcMount}))
		}
		if ctx.hostUsers && *sc.ProcMount == corev1.UnmaskedProcMount {
			el = append(el, field.Invalid(p.Child("procMount"), *sc.ProcMount, "`hostUsers` must be false to use `Unmasked`"))
		}
	}
	el = append(el, validateSeccompProfileField(sc.SeccompProfile, p.Child("seccompProfile"))...)
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		if sc.Privileged != nil && *sc.Privileged {
			el = append(el, field.Invalid(p, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Add {
				if string(c) == "CAP_SYS_ADMIN" {
					el = append(el, field.Invalid(p, sc, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
				}
			}
		}
	}
	el = append(el, validateWindowsSecurityContextOptions(sc.WindowsOptions, p.Child("windowsOptions"))...)
	el = append(el, ValidateAppArmorProfileField(sc.AppArmorProfile, p.Child("appArmorProfile"))...)
	return el
}

// validateSeccompProfileField validates a seccompProfile field.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateSeccompProfileField.
func validateSeccompProfileField(sp *corev1.SeccompProfile, p *field.Path) field.ErrorList {
	if sp == nil {
		return nil
	}
	var el field.ErrorList
	switch sp.Type {
	case corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined:
	case "":
		el = append(el, field.Required(p.Child("type"), "type is required when seccompProfile is set"))
	default:
		el = append(el, field.NotSupported(p.Child("type"), sp.Type, []corev1.SeccompProfileType{corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined}))
	}
	if sp.Type == corev1.SeccompProfileTypeLocalhost {
		if sp.LocalhostProfile == nil {
			el = append(el, field.Required(p.Child("localhostProfile"), "must be set when seccomp type is Localhost"))
		} else {
			el = append(el, validateLocalDescendingPath(*sp.LocalhostProfile, p.Child("localhostProfile"))...)
		}
	} else if sp.LocalhostProfile != nil {
		el = append(el, field.Invalid(p.Child("localhostProfile"), sp, "can only be set when seccomp type is Localhost"))
	}
	return el
}

// ValidateAppArmorProfileField validates an appArmorProfile field.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateAppArmorProfileField.
func ValidateAppArmorProfileField(ap *corev1.AppArmorProfile, p *field.Path) field.ErrorList {
	if ap == nil {
		return nil
	}
	var el field.ErrorList
	switch ap.Type {
	case corev1.AppArmorProfileTypeLocalhost:
		if ap.LocalhostProfile == nil {
			el = append(el, field.Required(p.Child("localhostProfile"), "must be set when AppArmor type is Localhost"))
		} else {
			trimmed := strings.TrimSpace(*ap.LocalhostProfile)
			if trimmed != *ap.LocalhostProfile {
				el = append(el, field.Invalid(p.Child("localhostProfile"), *ap.LocalhostProfile, "must not be padded with whitespace"))
			} else if trimmed == "" {
				el = append(el, field.Required(p.Child("localhostProfile"), "must be set when AppArmor type is Localhost"))
			}
			if len(*ap.LocalhostProfile) > 4095 {
				el = append(el, field.TooLong(p.Child("localhostProfile"), "", 4095))
			}
		}
	case corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined:
		if ap.LocalhostProfile != nil {
			el = append(el, field.Invalid(p.Child("localhostProfile"), ap.LocalhostProfile, "can only be set when AppArmor type is Localhost"))
		}
	case "":
		el = append(el, field.Required(p.Child("type"), "type is required when appArmorProfile is set"))
	default:
		el = append(el, field.NotSupported(p.Child("type"), ap.Type, []corev1.AppArmorProfileType{corev1.AppArmorProfileTypeLocalhost, corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined}))
	}
	return el
}

var (
	ctrlRegex                      = regexp.MustCompile(`[[:cntrl:]]+`)
	validNetBiosRegex              = regexp.MustCompile(`^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$`)
	validWindowsUserDomainDNSRegex = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)
	invalidUserNameCharsRegex      = regexp.MustCompile(`["/\\:;|=,\+\*\?<>@\[\]]`)
	invalidUserNameDotsSpacesRegex = regexp.MustCompile(`^[\. ]+$`)
)

// validateWindowsSecurityContextOptions validates windowsOptions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateWindowsSecurityContextOptions.
func validateWindowsSecurityContextOptions(w *corev1.WindowsSecurityContextOptions, p *field.Path) field.ErrorList {
	if w == nil {
		return nil
	}
	var el field.ErrorList
	if w.GMSACredentialSpecName != nil {
		for _, m := range validation.IsDNS1123Subdomain(*w.GMSACredentialSpecName) {
			el = append(el, field.Invalid(p.Child("gmsaCredentialSpecName"), *w.GMSACredentialSpecName, m))
		}
	}
	if w.GMSACredentialSpec != nil {
		if l := len(*w.GMSACredentialSpec); l == 0 {
			el = append(el, field.Invalid(p.Child("gmsaCredentialSpec"), "", "gmsaCredentialSpec cannot be an empty string"))
		} else if l > 64*1024 {
			el = append(el, field.Invalid(p.Child("gmsaCredentialSpec"), "", "gmsaCredentialSpec size must be under 64 KiB"))
		}
	}
	if w.RunAsUserName != nil {
		u := *w.RunAsUserName
		up := p.Child("runAsUserName")
		parts := strings.Split(u, "\\")
		switch {
		case u == "":
			el = append(el, field.Invalid(up, u, "runAsUserName cannot be an empty string"))
		case ctrlRegex.MatchString(u):
			el = append(el, field.Invalid(up, u, "runAsUserName cannot contain control characters"))
		case len(parts) > 2:
			el = append(el, field.Invalid(up, u, "runAsUserName cannot contain more than one backslash"))
		default:
			domain, user, hasDomain := "", parts[0], len(parts) == 2
			if hasDomain {
				domain, user = parts[0], parts[1]
			}
			if len(domain) >= 256 {
				el = append(el, field.Invalid(up, u, "runAsUserName's Domain length must be under 256 characters"))
			}
			if hasDomain && !validNetBiosRegex.MatchString(domain) && !validWindowsUserDomainDNSRegex.MatchString(domain) {
				el = append(el, field.Invalid(up, u, "runAsUserName's Domain doesn't match the NetBios nor the DNS format"))
			}
			if len(user) == 0 {
				el = append(el, field.Invalid(up, u, "runAsUserName's User cannot be empty"))
			} else if len(user) > 104 {
				el = append(el, field.Invalid(up, u, "runAsUserName's User length must not be longer than 104 characters"))
			}
			if invalidUserNameDotsSpacesRegex.MatchString(user) {
				el = append(el, field.Invalid(up, u, "runAsUserName's User cannot contain only periods or spaces"))
			}
			if invalidUserNameCharsRegex.MatchString(user) {
				el = append(el, field.Invalid(up, u, `runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`))
			}
		}
	}
	return el
}

var sysctlRegexp = regexp.MustCompile(`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`)

// validatePodSpecSecurityContext validates the pod securityContext.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePodSpecSecurityContext.
func validatePodSpecSecurityContext(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	sc := spec.SecurityContext
	if sc == nil {
		return nil
	}
	var el field.ErrorList
	if sc.FSGroup != nil {
		for _, m := range validation.IsValidGroupID(*sc.FSGroup) {
			el = append(el, field.Invalid(p.Child("fsGroup"), *sc.FSGroup, m))
		}
	}
	if sc.RunAsUser != nil {
		for _, m := range validation.IsValidUserID(*sc.RunAsUser) {
			el = append(el, field.Invalid(p.Child("runAsUser"), *sc.RunAsUser, m))
		}
	}
	if sc.RunAsGroup != nil {
		for _, m := range validation.IsValidGroupID(*sc.RunAsGroup) {
			el = append(el, field.Invalid(p.Child("runAsGroup"), *sc.RunAsGroup, m))
		}
	}
	for g, gid := range sc.SupplementalGroups {
		for _, m := range validation.IsValidGroupID(gid) {
			el = append(el, field.Invalid(p.Child("supplementalGroups").Index(g), gid, m))
		}
	}
	el = append(el, validateSysctls(spec, p.Child("sysctls"))...)
	if sc.FSGroupChangePolicy != nil && *sc.FSGroupChangePolicy != corev1.FSGroupChangeOnRootMismatch && *sc.FSGroupChangePolicy != corev1.FSGroupChangeAlways {
		el = append(el, field.NotSupported(p.Child("fsGroupChangePolicy"), *sc.FSGroupChangePolicy, []corev1.PodFSGroupChangePolicy{corev1.FSGroupChangeAlways, corev1.FSGroupChangeOnRootMismatch}))
	}
	el = append(el, validateSeccompProfileField(sc.SeccompProfile, p.Child("seccompProfile"))...)
	el = append(el, validateWindowsSecurityContextOptions(sc.WindowsOptions, p.Child("windowsOptions"))...)
	el = append(el, ValidateAppArmorProfileField(sc.AppArmorProfile, p.Child("appArmorProfile"))...)
	if v := sc.SupplementalGroupsPolicy; v != nil && *v != corev1.SupplementalGroupsPolicyMerge && *v != corev1.SupplementalGroupsPolicyStrict {
		el = append(el, field.NotSupported(p.Child("supplementalGroupsPolicy"), *v, []corev1.SupplementalGroupsPolicy{corev1.SupplementalGroupsPolicyMerge, corev1.SupplementalGroupsPolicyStrict}))
	}
	// validateSELinuxChangePolicy (SELinuxChangePolicy is GA: both values allowed).
	if v := sc.SELinuxChangePolicy; v != nil && *v != corev1.SELinuxChangePolicyRecursive && *v != corev1.SELinuxChangePolicyMountOption {
		el = append(el, field.NotSupported(p.Child("seLinuxChangePolicy"), *v, []corev1.PodSELinuxChangePolicy{corev1.SELinuxChangePolicyMountOption, corev1.SELinuxChangePolicyRecursive}))
	}
	return el
}

// validateSysctls validates securityContext.sysctls, host-namespace conflicts included. It merges two
// upstream functions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateSysctls
// and ValidateHostSysctl.
func validateSysctls(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var el field.ErrorList
	names := map[string]bool{}
	for i, s := range spec.SecurityContext.Sysctls {
		np := p.Index(i).Child("name")
		switch {
		case s.Name == "":
			el = append(el, field.Required(np, ""))
		case len(s.Name) > 253 || !sysctlRegexp.MatchString(s.Name):
			el = append(el, field.Invalid(np, s.Name, fmt.Sprintf("must have at most %d characters and match regex %s", 253, sysctlRegexp)))
		case names[s.Name]:
			el = append(el, field.Duplicate(np, s.Name))
		}
		ns := sysctlNamespace(s.Name)
		if spec.HostNetwork && ns == "Net" {
			el = append(el, field.Invalid(np, s.Name, "may not be specified when 'hostNetwork' is true"))
		} else if spec.HostIPC && ns == "IPC" {
			el = append(el, field.Invalid(np, s.Name, "may not be specified when 'hostIPC' is true"))
		}
		names[s.Name] = true
	}
	return el
}

// sysctlNamespace returns the namespace of a sysctl (Net / IPC only matter here). The upstream name,
// GetNamespace, would be misleading in this package.
//
// Port of k8s.io/component-helpers@v0.37.2 node/util/sysctl/namespace.go GetNamespace.
func sysctlNamespace(name string) string {
	if i := strings.IndexAny(name, "./"); i >= 0 && name[i] == '/' {
		name = strings.Map(func(r rune) rune {
			switch r {
			case '.':
				return '/'
			case '/':
				return '.'
			}
			return r
		}, name)
	}
	if i := strings.IndexByte(name, '*'); i >= 0 {
		name = name[:i]
	}
	switch name {
	case "kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
		"kernel.shm", "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.msg":
		return "IPC"
	}
	switch {
	case strings.HasPrefix(name, "net."):
		return "Net"
	case strings.HasPrefix(name, "fs.mqueue."):
		return "IPC"
	}
	return ""
}

// validateWindowsHostProcessPod validates hostProcess containers and pods.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateWindowsHostProcessPod.
func validateWindowsHostProcessPod(spec *corev1.PodSpec, p *field.Path, opts Options) field.ErrorList {
	var el field.ErrorList
	var podHP *bool
	if spec.SecurityContext != nil && spec.SecurityContext.WindowsOptions != nil {
		podHP = spec.SecurityContext.WindowsOptions.HostProcess
	}
	count, hpCount := 0, 0
	VisitContainersWithPath(spec, p, func(c *corev1.Container, cp *field.Path) {
		count++
		var cHP *bool
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			cHP = c.SecurityContext.WindowsOptions.HostProcess
		}
		if podHP != nil && cHP != nil && *podHP != *cHP {
			el = append(el, field.Invalid(cp.Child("securityContext", "windowsOptions", "hostProcess"), *cHP,
				fmt.Sprintf("pod hostProcess value must be identical if both are specified, was %v", *podHP)))
		}
		if (cHP != nil && *cHP) || (cHP == nil && podHP != nil && *podHP) {
			hpCount++
		}
	})
	if hpCount > 0 {
		if hpCount != count {
			el = append(el, field.Invalid(p, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers"))
		}
		if !spec.HostNetwork {
			el = append(el, field.Invalid(p.Child("hostNetwork"), spec.HostNetwork, "hostNetwork must be true if pod contains any hostProcess containers"))
		}
		if opts.DisallowPrivileged {
			el = append(el, field.Forbidden(p, "hostProcess containers are disallowed by cluster policy"))
		}
	}
	return el
}

// validateOSSpecific validates spec.os and then the rules of the named OS. It merges three upstream
// functions: validateOS, and validateLinux / validateWindows, which ValidatePodSpec calls.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateOS,
// validateLinux and validateWindows.
func validateOSSpecific(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	if spec.OS == nil {
		return nil
	}
	if spec.OS.Name == "" {
		return field.ErrorList{field.Required(p.Child("os", "name"), "")}
	}
	switch spec.OS.Name {
	case corev1.Linux:
		return validateLinux(spec, p)
	case corev1.Windows:
		return validateWindows(spec, p)
	}
	return field.ErrorList{field.NotSupported(p.Child("os"), spec.OS.Name, []corev1.OSName{corev1.Linux, corev1.Windows})}
}

// validateLinux forbids windows options in a linux pod.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateLinux.
func validateLinux(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var el field.ErrorList
	const msg = "windows options cannot be set for a linux pod"
	if spec.SecurityContext != nil && spec.SecurityContext.WindowsOptions != nil {
		el = append(el, field.Forbidden(p.Child("securityContext", "windowsOptions"), msg))
	}
	VisitContainersWithPath(spec, p, func(c *corev1.Container, cp *field.Path) {
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			el = append(el, field.Forbidden(cp.Child("securityContext", "windowsOptions"), msg))
		}
	})
	return el
}

// validateWindows forbids linux-only fields in a windows pod.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateWindows.
func validateWindows(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var el field.ErrorList
	const msg = "cannot be set for a windows pod"
	forbid := func(set bool, fp *field.Path) {
		if set {
			el = append(el, field.Forbidden(fp, msg))
		}
	}
	if sc := spec.SecurityContext; sc != nil {
		sp := p.Child("securityContext")
		forbid(sc.AppArmorProfile != nil, sp.Child("appArmorProfile"))
		forbid(sc.SELinuxOptions != nil, sp.Child("seLinuxOptions"))
		forbid(sc.SeccompProfile != nil, sp.Child("seccompProfile"))
		forbid(sc.FSGroup != nil, sp.Child("fsGroup"))
		forbid(sc.FSGroupChangePolicy != nil, sp.Child("fsGroupChangePolicy"))
		forbid(len(sc.Sysctls) > 0, sp.Child("sysctls"))
		forbid(sc.RunAsUser != nil, sp.Child("runAsUser"))
		forbid(sc.RunAsGroup != nil, sp.Child("runAsGroup"))
		forbid(sc.SupplementalGroups != nil, sp.Child("supplementalGroups"))
		forbid(sc.SupplementalGroupsPolicy != nil, sp.Child("supplementalGroupsPolicy"))
		forbid(sc.SELinuxChangePolicy != nil, sp.Child("seLinuxChangePolicy"))
	}
	forbid(spec.HostUsers != nil, p.Child("hostUsers"))
	forbid(spec.HostPID, p.Child("hostPID"))
	forbid(spec.HostIPC, p.Child("hostIPC"))
	forbid(spec.ShareProcessNamespace != nil, p.Child("shareProcessNamespace"))
	VisitContainersWithPath(spec, p, func(c *corev1.Container, cp *field.Path) {
		sc := c.SecurityContext
		if sc == nil {
			return
		}
		sp := cp.Child("securityContext")
		forbid(sc.AppArmorProfile != nil, sp.Child("appArmorProfile"))
		forbid(sc.SELinuxOptions != nil, sp.Child("seLinuxOptions"))
		forbid(sc.SeccompProfile != nil, sp.Child("seccompProfile"))
		forbid(sc.Capabilities != nil, sp.Child("capabilities"))
		forbid(sc.ReadOnlyRootFilesystem != nil, sp.Child("readOnlyRootFilesystem"))
		forbid(sc.Privileged != nil, sp.Child("privileged"))
		forbid(sc.AllowPrivilegeEscalation != nil, sp.Child("allowPrivilegeEscalation"))
		forbid(sc.ProcMount != nil, sp.Child("procMount"))
		forbid(sc.RunAsUser != nil, sp.Child("runAsUser"))
		forbid(sc.RunAsGroup != nil, sp.Child("runAsGroup"))
	})
	return el
}

// validateHostUsers validates hostUsers (hostUsers=false excludes host namespaces and volumeDevices).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateHostUsers.
func validateHostUsers(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	if spec.HostUsers == nil || *spec.HostUsers {
		return nil
	}
	var el field.ErrorList
	const msg = "when `hostUsers` is false"
	if spec.HostNetwork {
		el = append(el, field.Forbidden(p.Child("hostNetwork"), msg))
	}
	if spec.HostPID {
		el = append(el, field.Forbidden(p.Child("HostPID"), msg))
	}
	if spec.HostIPC {
		el = append(el, field.Forbidden(p.Child("HostIPC"), msg))
	}
	VisitContainersWithPath(spec, p, func(c *corev1.Container, cp *field.Path) {
		if len(c.VolumeDevices) > 0 {
			el = append(el, field.Forbidden(cp.Child("volumeDevices"), msg))
		}
	})
	return el
}

// validateSecurityAnnotations validates the seccomp and AppArmor annotations and their agreement with the
// fields. It merges four upstream functions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateSeccompPodAnnotations,
// ValidateAppArmorPodAnnotations, validateSeccompAnnotationsAndFields and
// validateAppArmorAnnotationsAndFieldsMatchOnCreate.
func validateSecurityAnnotations(ann map[string]string, spec *corev1.PodSpec, annPath, specPath *field.Path) field.ErrorList {
	var el field.ErrorList
	for k, v := range ann {
		if k == corev1.SeccompPodAnnotationKey || strings.HasPrefix(k, corev1.SeccompContainerAnnotationKeyPrefix) {
			el = append(el, ValidateSeccompProfile(v, annPath.Child(k))...)
		}
		if strings.HasPrefix(k, corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix) {
			name := strings.TrimPrefix(k, corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix)
			found := false
			VisitContainersWithPath(spec, specPath, func(c *corev1.Container, _ *field.Path) { found = found || c.Name == name })
			if !found {
				el = append(el, field.Invalid(annPath.Key(k), name, "container not found"))
			}
			if v != "" && v != corev1.DeprecatedAppArmorBetaProfileRuntimeDefault && v != corev1.DeprecatedAppArmorBetaProfileNameUnconfined &&
				!strings.HasPrefix(v, corev1.DeprecatedAppArmorBetaProfileNamePrefix) {
				el = append(el, field.Invalid(annPath.Key(k), v, fmt.Sprintf("invalid AppArmor profile name: %q", v)))
			}
		}
	}
	// Seccomp annotations and fields must agree.
	if spec.SecurityContext != nil && spec.SecurityContext.SeccompProfile != nil {
		if a, ok := ann[corev1.SeccompPodAnnotationKey]; ok {
			el = append(el, validateSeccompAnnotationsAndFieldsMatch(a, spec.SecurityContext.SeccompProfile, specPath.Child("securityContext", "seccompProfile"))...)
		}
	}
	var podAA *corev1.AppArmorProfile
	if spec.SecurityContext != nil {
		podAA = spec.SecurityContext.AppArmorProfile
	}
	isWindows := spec.OS != nil && spec.OS.Name == corev1.Windows
	VisitContainersWithPath(spec, specPath, func(c *corev1.Container, cp *field.Path) {
		if c.SecurityContext != nil && c.SecurityContext.SeccompProfile != nil {
			if a, ok := ann[corev1.SeccompContainerAnnotationKeyPrefix+c.Name]; ok {
				el = append(el, validateSeccompAnnotationsAndFieldsMatch(a, c.SecurityContext.SeccompProfile, cp.Child("securityContext", "seccompProfile"))...)
			}
		}
		if isWindows {
			return
		}
		prof := podAA
		if c.SecurityContext != nil && c.SecurityContext.AppArmorProfile != nil {
			prof = c.SecurityContext.AppArmorProfile
		}
		a, ok := ann[corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix+c.Name]
		if prof == nil || !ok {
			return
		}
		ap := cp.Child("securityContext", "appArmorProfile")
		const mismatch = "apparmor type in annotation and field must match"
		switch prof.Type {
		case corev1.AppArmorProfileTypeUnconfined:
			if a != corev1.DeprecatedAppArmorBetaProfileNameUnconfined {
				el = append(el, field.Forbidden(ap.Child("type"), mismatch))
			}
		case corev1.AppArmorProfileTypeRuntimeDefault:
			if a != corev1.DeprecatedAppArmorBetaProfileRuntimeDefault {
				el = append(el, field.Forbidden(ap.Child("type"), mismatch))
			}
		case corev1.AppArmorProfileTypeLocalhost:
			if !strings.HasPrefix(a, corev1.DeprecatedAppArmorBetaProfileNamePrefix) {
				el = append(el, field.Forbidden(ap.Child("type"), mismatch))
			} else if prof.LocalhostProfile == nil || strings.TrimPrefix(a, corev1.DeprecatedAppArmorBetaProfileNamePrefix) != *prof.LocalhostProfile {
				el = append(el, field.Forbidden(ap.Child("localhostProfile"), "apparmor profile in annotation and field must match"))
			}
		}
	})
	return el
}

// ValidateSeccompProfile validates a seccomp annotation value.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateSeccompProfile.
func ValidateSeccompProfile(v string, p *field.Path) field.ErrorList {
	switch {
	case v == corev1.SeccompProfileRuntimeDefault, v == corev1.DeprecatedSeccompProfileDockerDefault, v == corev1.SeccompProfileNameUnconfined:
		return nil
	case strings.HasPrefix(v, corev1.SeccompLocalhostProfileNamePrefix):
		return validateLocalDescendingPath(strings.TrimPrefix(v, corev1.SeccompLocalhostProfileNamePrefix), p)
	}
	return field.ErrorList{field.Invalid(p, v, "must be a valid seccomp profile")}
}

// validateSeccompAnnotationsAndFieldsMatch checks that a seccomp annotation and field agree.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateSeccompAnnotationsAndFieldsMatch.
func validateSeccompAnnotationsAndFieldsMatch(a string, f *corev1.SeccompProfile, p *field.Path) field.ErrorList {
	const mismatch = "seccomp type in annotation and field must match"
	switch f.Type {
	case corev1.SeccompProfileTypeUnconfined:
		if a != corev1.SeccompProfileNameUnconfined {
			return field.ErrorList{field.Forbidden(p.Child("type"), mismatch)}
		}
	case corev1.SeccompProfileTypeRuntimeDefault:
		if a != corev1.SeccompProfileRuntimeDefault && a != corev1.DeprecatedSeccompProfileDockerDefault {
			return field.ErrorList{field.Forbidden(p.Child("type"), mismatch)}
		}
	case corev1.SeccompProfileTypeLocalhost:
		if !strings.HasPrefix(a, corev1.SeccompLocalhostProfileNamePrefix) {
			return field.ErrorList{field.Forbidden(p.Child("type"), mismatch)}
		} else if f.LocalhostProfile == nil || strings.TrimPrefix(a, corev1.SeccompLocalhostProfileNamePrefix) != *f.LocalhostProfile {
			return field.ErrorList{field.Forbidden(p.Child("localhostProfile"), "seccomp profile in annotation and field must match")}
		}
	}
	return nil
}
