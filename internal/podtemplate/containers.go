package podtemplate

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podCtx carries what container validation needs from the pod spec.
type podCtx struct {
	volumes       map[string]corev1.VolumeSource
	podClaimNames map[string]bool
	gracePeriod   *int64
	os            *corev1.PodOS
	restartPolicy corev1.RestartPolicy
	hostUsers     bool
	opts          Options
}

// validateContainers validates the regular containers.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateContainers.
func validateContainers(containers []corev1.Container, ctx *podCtx, fldPath *field.Path) field.ErrorList {
	if len(containers) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	names := map[string]bool{}
	for i := range containers {
		c := &containers[i]
		p := fldPath.Index(i)
		allErrs = append(allErrs, validateContainerCommon(c, ctx, p)...)
		if names[c.Name] {
			allErrs = append(allErrs, field.Duplicate(p.Child("name"), c.Name))
		} else {
			names[c.Name] = true
		}
		if c.Lifecycle != nil {
			allErrs = append(allErrs, validateLifecycle(c.Lifecycle, ctx.gracePeriod, p.Child("lifecycle"))...)
		}
		allErrs = append(allErrs, validateLivenessProbe(c.LivenessProbe, ctx.gracePeriod, p.Child("livenessProbe"))...)
		allErrs = append(allErrs, validateReadinessProbe(c.ReadinessProbe, ctx.gracePeriod, p.Child("readinessProbe"))...)
		allErrs = append(allErrs, validateStartupProbe(c.StartupProbe, ctx.gracePeriod, p.Child("startupProbe"))...)
		// ContainerRestartRules is beta/on in v1.37: regular containers may set restartPolicy(+Rules).
		allErrs = append(allErrs, validateContainerRestartPolicy(c.RestartPolicy, c.RestartPolicyRules, p)...)
	}
	// checkHostPortConflicts: across all regular containers.
	allErrs = append(allErrs, checkHostPortConflicts(containers, fldPath)...)
	return allErrs
}

// validateInitContainers validates the init containers.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateInitContainers.
func validateInitContainers(inits, regular []corev1.Container, ctx *podCtx, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := map[string]bool{}
	for _, c := range regular {
		names[c.Name] = true
	}
	for i := range inits {
		c := &inits[i]
		p := fldPath.Index(i)
		allErrs = append(allErrs, validateContainerCommon(c, ctx, p)...)
		allErrs = append(allErrs, validateInitContainerRestartPolicy(c.RestartPolicy, c.RestartPolicyRules, p)...)
		restartAlways := c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		// Names are unique across init and regular containers.
		if names[c.Name] {
			allErrs = append(allErrs, field.Duplicate(p.Child("name"), c.Name))
		} else if c.Name != "" {
			names[c.Name] = true
		}
		// Init containers run one by one, so host ports only conflict within one container.
		allErrs = append(allErrs, checkHostPortConflicts([]corev1.Container{*c}, fldPath)...)
		if restartAlways {
			if c.Lifecycle != nil {
				allErrs = append(allErrs, validateLifecycle(c.Lifecycle, ctx.gracePeriod, p.Child("lifecycle"))...)
			}
			allErrs = append(allErrs, validateLivenessProbe(c.LivenessProbe, ctx.gracePeriod, p.Child("livenessProbe"))...)
			allErrs = append(allErrs, validateReadinessProbe(c.ReadinessProbe, ctx.gracePeriod, p.Child("readinessProbe"))...)
			allErrs = append(allErrs, validateStartupProbe(c.StartupProbe, ctx.gracePeriod, p.Child("startupProbe"))...)
		} else {
			const msg = "may not be set for init containers without restartPolicy=Always"
			if c.Lifecycle != nil {
				allErrs = append(allErrs, field.Forbidden(p.Child("lifecycle"), msg))
			}
			if c.LivenessProbe != nil {
				allErrs = append(allErrs, field.Forbidden(p.Child("livenessProbe"), msg))
			}
			if c.ReadinessProbe != nil {
				allErrs = append(allErrs, field.Forbidden(p.Child("readinessProbe"), msg))
			}
			if c.StartupProbe != nil {
				allErrs = append(allErrs, field.Forbidden(p.Child("startupProbe"), msg))
			}
			// Non-sidecar init containers cannot restart on resize.
			for j, rp := range c.ResizePolicy {
				if rp.RestartPolicy == corev1.RestartContainer {
					allErrs = append(allErrs, field.Invalid(p.Child("resizePolicy").Index(j).Child("restartPolicy"), rp.RestartPolicy,
						"must not be set to 'RestartContainer' for non-sidecar initContainers"))
				}
			}
		}
	}
	return allErrs
}

// validateContainerCommon validates what all container kinds share, plus the pod-only image whitespace rule
// (deliberately stricter on a template).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateContainerCommon,
// with the image rule of validateContainerOnlyForPod.
func validateContainerCommon(c *corev1.Container, ctx *podCtx, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if c.Name == "" {
		allErrs = append(allErrs, field.Required(p.Child("name"), ""))
	} else {
		allErrs = append(allErrs, ValidateDNS1123Label(c.Name, p.Child("name"))...)
	}
	if c.Image == "" {
		allErrs = append(allErrs, field.Required(p.Child("image"), ""))
	} else if len(c.Image) != len(strings.TrimSpace(c.Image)) {
		// validateContainerOnlyForPod: templates pass, every Pod created from them fails.
		allErrs = append(allErrs, field.Invalid(p.Child("image"), c.Image, "must not have leading or trailing whitespace"))
	}
	switch c.TerminationMessagePolicy {
	case corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError:
	default:
		allErrs = append(allErrs, field.NotSupported(p.Child("terminationMessagePolicy"), c.TerminationMessagePolicy,
			[]corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError}))
	}
	allErrs = append(allErrs, validateContainerPorts(c.Ports, p.Child("ports"))...)
	allErrs = append(allErrs, ValidateEnv(c.Env, p.Child("env"))...)
	allErrs = append(allErrs, ValidateEnvFrom(c.EnvFrom, p.Child("envFrom"))...)
	allErrs = append(allErrs, ValidateVolumeMounts(c, ctx.volumes, p.Child("volumeMounts"))...)
	allErrs = append(allErrs, ValidateVolumeDevices(c, ctx.volumes, p.Child("volumeDevices"))...)
	allErrs = append(allErrs, validatePullPolicy(c.ImagePullPolicy, p.Child("imagePullPolicy"))...)
	allErrs = append(allErrs, validateResourceRequirements(&c.Resources, ValidateContainerResourceName, ctx.podClaimNames, p.Child("resources"))...)
	allErrs = append(allErrs, validateResizePolicy(c.ResizePolicy, p.Child("resizePolicy"), ctx.restartPolicy)...)
	allErrs = append(allErrs, ValidateSecurityContext(c.SecurityContext, p.Child("securityContext"), ctx)...)
	return allErrs
}

var supportedPortProtocols = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}

// validateContainerPorts validates the ports of one container.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateContainerPorts.
func validateContainerPorts(ports []corev1.ContainerPort, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		p := fldPath.Index(i)
		if port.Name != "" {
			if msgs := validation.IsValidPortName(port.Name); len(msgs) != 0 {
				for _, m := range msgs {
					allErrs = append(allErrs, field.Invalid(p.Child("name"), port.Name, m))
				}
			} else if names[port.Name] {
				allErrs = append(allErrs, field.Duplicate(p.Child("name"), port.Name))
			} else {
				names[port.Name] = true
			}
		}
		// 0 counts as missing.
		if port.ContainerPort == 0 {
			allErrs = append(allErrs, field.Required(p.Child("containerPort"), ""))
		} else {
			for _, m := range validation.IsValidPortNum(int(port.ContainerPort)) {
				allErrs = append(allErrs, field.Invalid(p.Child("containerPort"), port.ContainerPort, m))
			}
		}
		if port.HostPort != 0 {
			for _, m := range validation.IsValidPortNum(int(port.HostPort)) {
				allErrs = append(allErrs, field.Invalid(p.Child("hostPort"), port.HostPort, m))
			}
		}
		switch port.Protocol {
		case corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		default:
			allErrs = append(allErrs, field.NotSupported(p.Child("protocol"), port.Protocol, supportedPortProtocols))
		}
	}
	return allErrs
}

// checkHostPortConflicts rejects two ports with the same protocol/hostIP/hostPort.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go checkHostPortConflicts
// and AccumulateUniqueHostPorts.
func checkHostPortConflicts(containers []corev1.Container, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := map[string]bool{}
	for ci, c := range containers {
		for pi, port := range c.Ports {
			if port.HostPort == 0 {
				continue
			}
			key := fmt.Sprintf("%s/%s/%d", port.Protocol, port.HostIP, port.HostPort)
			if seen[key] {
				allErrs = append(allErrs, field.Duplicate(fldPath.Index(ci).Child("ports").Index(pi).Child("hostPort"), key))
			} else {
				seen[key] = true
			}
		}
	}
	return allErrs
}

var supportedPullPolicies = []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}

// validatePullPolicy validates imagePullPolicy (empty is defaulted before we get here).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePullPolicy.
func validatePullPolicy(policy corev1.PullPolicy, fldPath *field.Path) field.ErrorList {
	switch policy {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, policy, supportedPullPolicies)}
}

// validateResizePolicy validates resizePolicy (the server reports on the list path).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateResizePolicy.
func validateResizePolicy(list []corev1.ContainerResizePolicy, fldPath *field.Path, podRestart corev1.RestartPolicy) field.ErrorList {
	var allErrs field.ErrorList
	seen := map[corev1.ResourceName]bool{}
	for i, rp := range list {
		if seen[rp.ResourceName] {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), rp.ResourceName))
		}
		seen[rp.ResourceName] = true
		switch rp.ResourceName {
		case corev1.ResourceCPU, corev1.ResourceMemory:
		case "":
			allErrs = append(allErrs, field.Required(fldPath, ""))
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath, rp.ResourceName, []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}))
		}
		switch rp.RestartPolicy {
		case corev1.NotRequired, corev1.RestartContainer:
		case "":
			allErrs = append(allErrs, field.Required(fldPath, ""))
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath, rp.RestartPolicy, []corev1.ResourceResizeRestartPolicy{corev1.NotRequired, corev1.RestartContainer}))
		}
		if podRestart == corev1.RestartPolicyNever && rp.RestartPolicy != corev1.NotRequired {
			allErrs = append(allErrs, field.Invalid(fldPath, rp.RestartPolicy, "must be 'NotRequired' when pod `restartPolicy` is 'Never'"))
		}
	}
	return allErrs
}

var supportedContainerRestartPolicies = []corev1.ContainerRestartPolicy{corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartPolicyOnFailure}

// validateInitContainerRestartPolicy validates an init container restartPolicy and restartPolicyRules, with
// AllowContainerRestartPolicyRules and AllowRestartAllContainers on (v1.37 defaults).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateInitContainerRestartPolicy.
func validateInitContainerRestartPolicy(policy *corev1.ContainerRestartPolicy, rules []corev1.ContainerRestartRule, p *field.Path) field.ErrorList {
	if policy == nil {
		if len(rules) > 0 {
			return field.ErrorList{field.Required(p.Child("restartPolicy"), "must specify restartPolicy when restart rules are used")}
		}
		return nil
	}
	return validateContainerRestartPolicy(policy, rules, p)
}

// validateContainerRestartPolicy validates a regular container restartPolicy and restartPolicyRules
// (RestartAllContainers beta/on).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateContainerRestartPolicy.
func validateContainerRestartPolicy(policy *corev1.ContainerRestartPolicy, rules []corev1.ContainerRestartRule, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	rpPath := p.Child("restartPolicy")
	if policy == nil {
		if len(rules) == 0 {
			return nil
		}
		allErrs = append(allErrs, field.Required(rpPath, "must specify restartPolicy when restart rules are used"))
	} else {
		switch *policy {
		case corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartPolicyOnFailure:
		default:
			allErrs = append(allErrs, field.NotSupported(rpPath, *policy, supportedContainerRestartPolicies))
		}
	}
	if len(rules) > 20 {
		allErrs = append(allErrs, field.TooMany(p.Child("restartPolicyRules"), len(rules), 20))
	}
	actions := []corev1.ContainerRestartRuleAction{corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleActionRestartAllContainers}
	for i, r := range rules {
		rp := p.Child("restartPolicyRules").Index(i)
		if r.Action != corev1.ContainerRestartRuleActionRestart && r.Action != corev1.ContainerRestartRuleActionRestartAllContainers {
			allErrs = append(allErrs, field.NotSupported(rp.Child("action"), r.Action, actions))
		}
		if r.ExitCodes == nil {
			allErrs = append(allErrs, field.Required(rp.Child("exitCodes"), "must be specified"))
			continue
		}
		ep := rp.Child("exitCodes")
		if r.ExitCodes.Operator != corev1.ContainerRestartRuleOnExitCodesOpIn && r.ExitCodes.Operator != corev1.ContainerRestartRuleOnExitCodesOpNotIn {
			allErrs = append(allErrs, field.NotSupported(ep.Child("operator"), r.ExitCodes.Operator,
				[]corev1.ContainerRestartRuleOnExitCodesOperator{corev1.ContainerRestartRuleOnExitCodesOpIn, corev1.ContainerRestartRuleOnExitCodesOpNotIn}))
		}
		if len(r.ExitCodes.Values) > 255 {
			allErrs = append(allErrs, field.TooMany(ep.Child("values"), len(r.ExitCodes.Values), 255))
		}
	}
	return allErrs
}

// validateLivenessProbe validates a liveness probe: successThreshold must be 1.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateLivenessProbe.
func validateLivenessProbe(pr *corev1.Probe, grace *int64, p *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	allErrs := validateProbe(pr, grace, p)
	if pr.SuccessThreshold != 1 {
		allErrs = append(allErrs, field.Invalid(p.Child("successThreshold"), pr.SuccessThreshold, "must be 1"))
	}
	return allErrs
}

// validateReadinessProbe validates a readiness probe: no terminationGracePeriodSeconds.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateReadinessProbe.
func validateReadinessProbe(pr *corev1.Probe, grace *int64, p *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	allErrs := validateProbe(pr, grace, p)
	if pr.TerminationGracePeriodSeconds != nil {
		allErrs = append(allErrs, field.Invalid(p.Child("terminationGracePeriodSeconds"), *pr.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
	}
	return allErrs
}

// validateStartupProbe validates a startup probe: successThreshold must be 1.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateStartupProbe.
func validateStartupProbe(pr *corev1.Probe, grace *int64, p *field.Path) field.ErrorList {
	return validateLivenessProbe(pr, grace, p)
}

// validateProbe validates what all probe kinds share.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateProbe.
func validateProbe(pr *corev1.Probe, grace *int64, p *field.Path) field.ErrorList {
	h := pr.ProbeHandler
	allErrs := validateHandler(h.Exec, h.HTTPGet, h.TCPSocket, h.GRPC, nil, grace, p)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(pr.InitialDelaySeconds), p.Child("initialDelaySeconds"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(pr.TimeoutSeconds), p.Child("timeoutSeconds"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(pr.PeriodSeconds), p.Child("periodSeconds"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(pr.SuccessThreshold), p.Child("successThreshold"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(pr.FailureThreshold), p.Child("failureThreshold"))...)
	if pr.TerminationGracePeriodSeconds != nil && *pr.TerminationGracePeriodSeconds <= 0 {
		allErrs = append(allErrs, field.Invalid(p.Child("terminationGracePeriodSeconds"), *pr.TerminationGracePeriodSeconds, "must be greater than 0"))
	}
	return allErrs
}

// validateLifecycle validates postStart and preStop (stopSignal is dropped: ContainerStopSignals is alpha).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateLifecycle.
func validateLifecycle(l *corev1.Lifecycle, grace *int64, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if h := l.PostStart; h != nil {
		allErrs = append(allErrs, validateHandler(h.Exec, h.HTTPGet, h.TCPSocket, nil, h.Sleep, grace, p.Child("postStart"))...)
	}
	if h := l.PreStop; h != nil {
		allErrs = append(allErrs, validateHandler(h.Exec, h.HTTPGet, h.TCPSocket, nil, h.Sleep, grace, p.Child("preStop"))...)
	}
	return allErrs
}

// validateHandler requires exactly one handler type and validates it.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateHandler.
func validateHandler(exec *corev1.ExecAction, http *corev1.HTTPGetAction, tcp *corev1.TCPSocketAction, grpc *corev1.GRPCAction, sleep *corev1.SleepAction, grace *int64, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	n := 0
	const more = "may not specify more than 1 handler type"
	if exec != nil {
		n++
		if len(exec.Command) == 0 {
			allErrs = append(allErrs, field.Required(p.Child("exec", "command"), ""))
		}
	}
	if http != nil {
		if n > 0 {
			allErrs = append(allErrs, field.Forbidden(p.Child("httpGet"), more))
		} else {
			n++
			allErrs = append(allErrs, validateHTTPGetAction(http, p.Child("httpGet"))...)
		}
	}
	if tcp != nil {
		if n > 0 {
			allErrs = append(allErrs, field.Forbidden(p.Child("tcpSocket"), more))
		} else {
			n++
			allErrs = append(allErrs, ValidatePortNumOrName(tcp.Port, p.Child("tcpSocket", "port"))...)
		}
	}
	if grpc != nil {
		if n > 0 {
			allErrs = append(allErrs, field.Forbidden(p.Child("grpc"), more))
		} else {
			n++
			allErrs = append(allErrs, ValidatePortNumOrName(intstr.FromInt32(grpc.Port), p.Child("grpc", "port"))...)
		}
	}
	if sleep != nil {
		if n > 0 {
			allErrs = append(allErrs, field.Forbidden(p.Child("sleep"), more))
		} else {
			n++
			// validateSleepAction: 0 <= seconds <= terminationGracePeriodSeconds.
			if grace != nil && (sleep.Seconds < 0 || sleep.Seconds > *grace) {
				allErrs = append(allErrs, field.Invalid(p.Child("sleep"), sleep.Seconds,
					fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", *grace)))
			}
		}
	}
	if n == 0 {
		allErrs = append(allErrs, field.Required(p, "must specify a handler type"))
	}
	return allErrs
}

// validateHTTPGetAction validates an httpGet handler (protocol is dropped: H2CContainerProbe is alpha).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateHTTPGetAction.
func validateHTTPGetAction(h *corev1.HTTPGetAction, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if h.Path == "" {
		allErrs = append(allErrs, field.Required(p.Child("path"), ""))
	}
	allErrs = append(allErrs, ValidatePortNumOrName(h.Port, p.Child("port"))...)
	if h.Scheme != corev1.URISchemeHTTP && h.Scheme != corev1.URISchemeHTTPS {
		allErrs = append(allErrs, field.NotSupported(p.Child("scheme"), h.Scheme, []corev1.URIScheme{corev1.URISchemeHTTP, corev1.URISchemeHTTPS}))
	}
	for _, hdr := range h.HTTPHeaders {
		for _, m := range validation.IsHTTPHeaderName(hdr.Name) {
			allErrs = append(allErrs, field.Invalid(p.Child("httpHeaders"), hdr.Name, m))
		}
	}
	return allErrs
}

// ValidatePortNumOrName validates a port given by number or by name.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidatePortNumOrName.
func ValidatePortNumOrName(port intstr.IntOrString, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch port.Type {
	case intstr.Int:
		for _, m := range validation.IsValidPortNum(port.IntValue()) {
			allErrs = append(allErrs, field.Invalid(p, port.IntValue(), m))
		}
	case intstr.String:
		for _, m := range validation.IsValidPortName(port.StrVal) {
			allErrs = append(allErrs, field.Invalid(p, port.StrVal, m))
		}
	default:
		allErrs = append(allErrs, field.InternalError(p, fmt.Errorf("unknown type: %v", port.Type)))
	}
	return allErrs
}
