package podtemplate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestContainers(t *testing.T) {
	const c0 = "spec.containers[0]"
	runCases(t, []tc{
		{name: "minimal"},
		{name: "no containers", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.Containers = nil }, want: "FieldValueRequired spec.containers"},
		{name: "name empty", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).Name = "" }, want: "FieldValueRequired " + c0 + ".name"},
		{name: "name not DNS label", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).Name = "Main_1" }, want: "FieldValueInvalid " + c0 + ".name"},
		{name: "duplicate container names", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "main", Image: "x"})
		}, want: "FieldValueDuplicate spec.containers[1].name"},
		{name: "init name clashes with container", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "main", Image: "x"}}
		}, want: "FieldValueDuplicate spec.initContainers[0].name"},
		{name: "init distinct name", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "x"}}
		}},
		{name: "image empty", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).Image = "" }, want: "FieldValueRequired " + c0 + ".image"},
		{name: "image whitespace (stricter)", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).Image = " nginx" }, want: "FieldValueInvalid " + c0 + ".image"},
		{name: "imagePullPolicy Never", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).ImagePullPolicy = corev1.PullNever }},
		{name: "imagePullPolicy bogus", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).ImagePullPolicy = "Sometimes" }, want: "FieldValueNotSupported " + c0 + ".imagePullPolicy"},
		{name: "terminationMessagePolicy FallbackToLogsOnError", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
		}},
		{name: "terminationMessagePolicy bogus", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).TerminationMessagePolicy = "Stdout" }, want: "FieldValueNotSupported " + c0 + ".terminationMessagePolicy"},
		// ports
		{name: "port ok, protocol defaulted", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}
		}},
		{name: "containerPort zero", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).Ports = []corev1.ContainerPort{{}} }, want: "FieldValueRequired " + c0 + ".ports[0].containerPort"},
		{name: "containerPort too big", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).Ports = []corev1.ContainerPort{{ContainerPort: 70000}} }, want: "FieldValueInvalid " + c0 + ".ports[0].containerPort"},
		{name: "hostPort too big", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: -1}}
		}, want: "FieldValueInvalid " + c0 + ".ports[0].hostPort"},
		{name: "protocol bogus", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Ports = []corev1.ContainerPort{{ContainerPort: 80, Protocol: "tcp"}}
		}, want: "FieldValueNotSupported " + c0 + ".ports[0].protocol"},
		{name: "port name invalid", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Ports = []corev1.ContainerPort{{Name: "http_port", ContainerPort: 80}}
		}, want: "FieldValueInvalid " + c0 + ".ports[0].name"},
		{name: "port name duplicate", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 80}, {Name: "http", ContainerPort: 81}}
		}, want: "FieldValueDuplicate " + c0 + ".ports[1].name"},
		{name: "hostPort same on TCP and UDP", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Ports = []corev1.ContainerPort{{ContainerPort: 53, HostPort: 53}, {ContainerPort: 53, HostPort: 53, Protocol: corev1.ProtocolUDP}}
		}},
		{name: "hostPort duplicate across containers", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 8080}}
			t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "b", Image: "x", Ports: []corev1.ContainerPort{{ContainerPort: 81, HostPort: 8080}}})
		}, want: "FieldValueDuplicate spec.containers[1].ports[0].hostPort"},
		// env
		{name: "env relaxed name", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).Env = []corev1.EnvVar{{Name: "1weird.name-ok", Value: "v"}} }},
		{name: "env name empty", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).Env = []corev1.EnvVar{{Value: "v"}} }, want: "FieldValueRequired " + c0 + ".env[0].name"},
		{name: "env name with =", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).Env = []corev1.EnvVar{{Name: "A=B"}} }, want: "FieldValueInvalid " + c0 + ".env[0].name"},
		{name: "env fieldRef ok (apiVersion defaulted)", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		}},
		{name: "env fieldRef label subscript ok", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "G", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['leaderworkerset.sigs.k8s.io/group-index']"}}}}
		}},
		{name: "env fieldRef unsupported path", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "P", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.phase"}}}}
		}, want: "FieldValueNotSupported " + c0 + ".env[0].valueFrom.fieldRef.fieldPath"},
		{name: "env fieldRef bad apiVersion", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "P", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v2", FieldPath: "metadata.name"}}}}
		}, want: "FieldValueInvalid " + c0 + ".env[0].valueFrom.fieldRef.fieldPath"},
		{name: "env valueFrom empty", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "P", ValueFrom: &corev1.EnvVarSource{}}}
		}, want: "FieldValueInvalid " + c0 + ".env[0].valueFrom"},
		{name: "env value and valueFrom", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "P", Value: "x", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"}}}}
		}, want: "FieldValueInvalid " + c0 + ".env[0].valueFrom"},
		{name: "env two sources", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "P", ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef:    &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"},
				ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}, Key: "k"}}}}
		}, want: "FieldValueInvalid " + c0 + ".env[0].valueFrom"},
		{name: "secretKeyRef ok", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "hf"}, Key: "token"}}}}
		}},
		{name: "secretKeyRef bad key", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "T", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "hf"}, Key: "a/b"}}}}
		}, want: "FieldValueInvalid " + c0 + ".env[0].valueFrom.secretKeyRef.key"},
		{name: "configMapKeyRef empty name", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "T", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{Key: "a"}}}}
		}, want: "FieldValueInvalid " + c0 + ".env[0].valueFrom.configMapKeyRef.name"},
		{name: "resourceFieldRef ok", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "M", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: q("1Mi")}}}}
		}},
		{name: "resourceFieldRef bad resource", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "M", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.gpu"}}}}
		}, want: "FieldValueNotSupported " + c0 + ".env[0].valueFrom.resourceFieldRef.resource"},
		{name: "resourceFieldRef bad cpu divisor", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Env = []corev1.EnvVar{{Name: "M", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu", Divisor: q("10m")}}}}
		}, want: "FieldValueInvalid " + c0 + ".env[0].valueFrom.resourceFieldRef.divisor"},
		{name: "envFrom ok", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).EnvFrom = []corev1.EnvFromSource{{Prefix: "X_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}
		}},
		{name: "envFrom no source", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).EnvFrom = []corev1.EnvFromSource{{Prefix: "X_"}} }, want: "FieldValueInvalid " + c0 + ".envFrom"},
		{name: "envFrom empty name", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{}}}
		}, want: "FieldValueRequired " + c0 + ".envFrom[0].secretRef.name"},
		// probes
		{name: "probe defaults fill thresholds", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromString("http")}}}
			ctr(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}}
			ctr(t).StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000}}, FailureThreshold: 60}
		}},
		{name: "probe no handler", mutate: func(t *corev1.PodTemplateSpec) { ctr(t).LivenessProbe = &corev1.Probe{} }, want: "FieldValueRequired " + c0 + ".livenessProbe"},
		{name: "probe two handlers", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				Exec: &corev1.ExecAction{Command: []string{"true"}}, TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(1)}}}
		}, want: "FieldValueForbidden " + c0 + ".readinessProbe.tcpSocket"},
		{name: "probe exec empty", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{}}}
		}, want: "FieldValueRequired " + c0 + ".readinessProbe.exec.command"},
		{name: "liveness successThreshold 2", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}, SuccessThreshold: 2}
		}, want: "FieldValueInvalid " + c0 + ".livenessProbe.successThreshold"},
		{name: "startup successThreshold 2", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}, SuccessThreshold: 2}
		}, want: "FieldValueInvalid " + c0 + ".startupProbe.successThreshold"},
		{name: "readiness successThreshold 3 ok", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}, SuccessThreshold: 3}
		}},
		{name: "readiness terminationGracePeriodSeconds", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}, TerminationGracePeriodSeconds: ptr.To[int64](5)}
		}, want: "FieldValueInvalid " + c0 + ".readinessProbe.terminationGracePeriodSeconds"},
		{name: "liveness terminationGracePeriodSeconds zero", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}, TerminationGracePeriodSeconds: ptr.To[int64](0)}
		}, want: "FieldValueInvalid " + c0 + ".livenessProbe.terminationGracePeriodSeconds"},
		{name: "probe negative initialDelay", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}, InitialDelaySeconds: -1}
		}, want: "FieldValueInvalid " + c0 + ".readinessProbe.initialDelaySeconds"},
		{name: "httpGet bad port", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(0)}}}
		}, want: "FieldValueInvalid " + c0 + ".readinessProbe.httpGet.port"},
		{name: "httpGet bad scheme", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80), Scheme: "FTP"}}}
		}, want: "FieldValueNotSupported " + c0 + ".readinessProbe.httpGet.scheme"},
		{name: "tcp named port invalid", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("Bad_Name")}}}
		}, want: "FieldValueInvalid " + c0 + ".readinessProbe.tcpSocket.port"},
		{name: "grpc port invalid", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 70000}}}
		}, want: "FieldValueInvalid " + c0 + ".readinessProbe.grpc.port"},
		// lifecycle
		{name: "preStop sleep ok", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 10}}}
		}},
		{name: "preStop sleep beyond grace period", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 31}}}
		}, want: "FieldValueInvalid " + c0 + ".lifecycle.preStop.sleep"},
		{name: "postStart empty handler", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{}}
		}, want: "FieldValueRequired " + c0 + ".lifecycle.postStart"},
		// restart policy
		{name: "sidecar init container with probes", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "side", Image: "x", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}}}}
		}},
		{name: "init container with probe", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "x",
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}}}}
		}, want: "FieldValueForbidden spec.initContainers[0].readinessProbe"},
		{name: "init container with lifecycle", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "x",
				Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}}}}
		}, want: "FieldValueForbidden spec.initContainers[0].lifecycle"},
		{name: "init restartPolicy bogus", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "x", RestartPolicy: ptr.To(corev1.ContainerRestartPolicy("Sometimes"))}}
		}, want: "FieldValueNotSupported spec.initContainers[0].restartPolicy"},
		{name: "container restartPolicy with rules", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).RestartPolicy = ptr.To(corev1.ContainerRestartPolicyNever)
			ctr(t).RestartPolicyRules = []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart,
				ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
		}},
		{name: "container rules without policy", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).RestartPolicyRules = []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart,
				ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
		}, want: "FieldValueRequired " + c0 + ".restartPolicy"},
		{name: "container rule without exitCodes", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).RestartPolicy = ptr.To(corev1.ContainerRestartPolicyNever)
			ctr(t).RestartPolicyRules = []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart}}
		}, want: "FieldValueRequired " + c0 + ".restartPolicyRules[0].exitCodes"},
		// resize policy
		{name: "resizePolicy ok", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: corev1.ResourceCPU, RestartPolicy: corev1.NotRequired}}
		}},
		{name: "resizePolicy bad resource", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: "nvidia.com/gpu", RestartPolicy: corev1.NotRequired}}
		}, want: "FieldValueNotSupported " + c0 + ".resizePolicy"},
		// security context
		{name: "securityContext ok", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).SecurityContext = &corev1.SecurityContext{RunAsUser: ptr.To[int64](1000), Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"IPC_LOCK"}},
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
		}},
		{name: "runAsUser negative", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).SecurityContext = &corev1.SecurityContext{RunAsUser: ptr.To[int64](-1)}
		}, want: "FieldValueInvalid " + c0 + ".securityContext.runAsUser"},
		{name: "seccomp bad type", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).SecurityContext = &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: "Default"}}
		}, want: "FieldValueNotSupported " + c0 + ".securityContext.seccompProfile.type"},
		{name: "seccomp localhost without profile", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).SecurityContext = &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost}}
		}, want: "FieldValueRequired " + c0 + ".securityContext.seccompProfile.localhostProfile"},
		{name: "apparmor bad type", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).SecurityContext = &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: "Strict"}}
		}, want: "FieldValueNotSupported " + c0 + ".securityContext.appArmorProfile.type"},
		{name: "procMount unmasked with hostUsers", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).SecurityContext = &corev1.SecurityContext{ProcMount: ptr.To(corev1.UnmaskedProcMount)}
		}, want: "FieldValueInvalid " + c0 + ".securityContext.procMount"},
		{name: "procMount bogus", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).SecurityContext = &corev1.SecurityContext{ProcMount: ptr.To(corev1.ProcMountType("Open"))}
		}, want: "FieldValueNotSupported " + c0 + ".securityContext.procMount"},
		{name: "privileged with no escalation", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false)}
		}, want: "FieldValueInvalid " + c0 + ".securityContext"},
		{name: "privileged allowed by default", mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		}},
		{name: "privileged disallowed by option", opts: Options{DisallowPrivileged: true}, mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		}, want: "FieldValueForbidden " + c0 + ".securityContext.privileged"},
	})
}
