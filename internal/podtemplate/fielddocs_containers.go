package podtemplate

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
)

// containerDocs describe the fields of containers (regular, init and ephemeral) and of the
// types below them: ports, env, resources, volume mounts and the security context.
var containerDocs = map[reflect.Type]map[string]string{
	reflect.TypeOf(corev1.Container{}):                containerFieldDocs,
	reflect.TypeOf(corev1.EphemeralContainerCommon{}): ephemeralContainerFieldDocs(),
	reflect.TypeOf(corev1.EphemeralContainer{}): {
		"targetContainerName": "Container whose namespaces (PID, IPC, ...) it joins; needs runtime support.",
	},
	reflect.TypeOf(corev1.ContainerPort{}): {
		"containerPort": "Port number the container listens on, 1-65535.",
		"hostIP":        "Node IP address to bind `host_port` to.",
		"hostPort":      "Node port to expose it on; with `host_network` it must equal `container_port`. Rarely needed.",
		"name":          "IANA service name (max 15 chars), unique in the pod, that Services and probes can refer to.",
		"protocol":      "Protocol: `TCP`, `UDP` or `SCTP`.",
	},
	reflect.TypeOf(corev1.EnvVar{}): {
		"name":      "Variable name: printable ASCII characters except `=`.",
		"value":     "Literal value; `$(VAR)` expands an earlier variable, `$$` escapes.",
		"valueFrom": "Take the value from a ConfigMap, Secret, pod field, resource or file.",
	},
	reflect.TypeOf(corev1.EnvVarSource{}): {
		"configMapKeyRef":  "Read the value from a key of a ConfigMap.",
		"fieldRef":         "Read a pod field, e.g. `metadata.name` or `status.podIP`.",
		"fileKeyRef":       "Read a variable from an env file in an `empty_dir` volume.",
		"resourceFieldRef": "Read a CPU, memory or ephemeral-storage request or limit of a container.",
		"secretKeyRef":     "Read the value from a key of a Secret in the pod's namespace.",
	},
	reflect.TypeOf(corev1.ConfigMapKeySelector{}): {
		"key":      "Key in the ConfigMap's `data` (keys of binary data are not available).",
		"optional": "If `true`, a missing ConfigMap or key leaves the variable unset instead of failing.",
	},
	reflect.TypeOf(corev1.SecretKeySelector{}): {
		"key":      "Key in the Secret to read.",
		"optional": "If `true`, a missing Secret or key leaves the variable unset instead of failing.",
	},
	reflect.TypeOf(corev1.LocalObjectReference{}): {
		"name": "Name of the referenced object in the same namespace; effectively required.",
	},
	reflect.TypeOf(corev1.ObjectFieldSelector{}): {
		"apiVersion": "API version `field_path` is written against; only `v1`. Defaults to `v1`.",
		"fieldPath":  "Pod field, e.g. `metadata.name` or `metadata.labels['app']`; env vars also take `spec.nodeName`, `status.podIP`.",
	},
	reflect.TypeOf(corev1.FileKeySelector{}): {
		"key":        "Variable to read from the env file; printable ASCII characters except `=`.",
		"optional":   "If `true`, a missing file or key just leaves the variable unset instead of being an error.",
		"path":       "Relative path of the env file inside the volume; `..` is not allowed.",
		"volumeName": "Name of the pod's `empty_dir` volume holding the env file.",
	},
	reflect.TypeOf(corev1.ResourceFieldSelector{}): {
		"containerName": "Container to read; required in volumes, optional for env vars.",
		"divisor":       "Unit to divide by: `1` or `1m` for CPU; `1`, `1Ki`, `1Mi`, `1Gi`, ... for bytes. Defaults to `1`.",
		"resource":      "`limits.` or `requests.` plus `cpu`, `memory`, `ephemeral-storage` or `hugepages-<size>`.",
	},
	reflect.TypeOf(corev1.EnvFromSource{}): {
		"configMapRef": "ConfigMap whose keys all become environment variables.",
		"prefix":       "Text put in front of every imported variable name, e.g. `APP_`.",
		"secretRef":    "Secret whose keys all become environment variables.",
	},
	reflect.TypeOf(corev1.ConfigMapEnvSource{}): {
		"optional": "If `true`, the container starts even when the ConfigMap does not exist.",
	},
	reflect.TypeOf(corev1.SecretEnvSource{}): {
		"optional": "If `true`, the container starts even when the Secret does not exist.",
	},
	reflect.TypeOf(corev1.ContainerResizePolicy{}): {
		"resourceName":  "Resource the policy is for: `cpu` or `memory`.",
		"restartPolicy": "`NotRequired` (resize in place) or `RestartContainer`; must be `NotRequired` if the pod's `restart_policy` is `Never`.",
	},
	reflect.TypeOf(corev1.ResourceRequirements{}): {
		"claims":   "Entries of the pod's `resource_claims` (DRA devices) this container uses.",
		"limits":   "Maximum per resource, as quantities, e.g. `{ cpu = \"4\", memory = \"16Gi\", \"nvidia.com/gpu\" = \"1\" }`.",
		"requests": "Amount reserved for scheduling, e.g. `{ cpu = \"500m\" }`; at most the limit, and defaults to it.",
	},
	reflect.TypeOf(corev1.ResourceClaim{}): {
		"name":    "Name of an entry in the pod's `resource_claims`.",
		"request": "Expose only this request of the claim; empty exposes the whole claim.",
	},
	reflect.TypeOf(corev1.ContainerRestartRule{}): {
		"action":    "What to do when the rule matches: `Restart` or `RestartAllContainers`.",
		"exitCodes": "Exit-code condition the rule matches on.",
	},
	reflect.TypeOf(corev1.ContainerRestartRuleOnExitCodes{}): {
		"operator": "`In` matches exit codes listed in `values`, `NotIn` all others.",
		"values":   "Exit codes to compare against; at most 255.",
	},
	reflect.TypeOf(corev1.SecurityContext{}): {
		"allowPrivilegeEscalation": "If `false`, no_new_privs is set so processes cannot gain privileges (e.g. via setuid). Linux only.",
		"appArmorProfile":          "AppArmor profile, overriding the pod's. Linux only.",
		"capabilities":             "Linux capabilities to add or drop. Linux only.",
		"privileged":               "Run privileged, roughly as root on the node. Defaults to `false`. Linux only.",
		"procMount":                "/proc mount: `Default` (masked paths) or `Unmasked` (needs `host_users = false`). Linux only.",
		"readOnlyRootFilesystem":   "Mount the root filesystem read-only. Defaults to `false`. Linux only.",
		"runAsGroup":               "GID to run the entrypoint as, overriding the pod's. Linux only.",
		"runAsNonRoot":             "If `true`, the kubelet refuses to start the container as UID 0. Overrides the pod's.",
		"runAsUser":                "UID for the entrypoint, overriding the pod's; defaults to the image's user. Linux only.",
		"seLinuxOptions":           "SELinux labels, overriding the pod's; the runtime picks one if unset. Linux only.",
		"seccompProfile":           "Seccomp profile, overriding the pod's. Linux only.",
		"windowsOptions":           "Windows-specific settings, overriding the pod's. Windows only.",
	},
	reflect.TypeOf(corev1.AppArmorProfile{}): {
		"localhostProfile": "Name of a profile loaded on the node; set exactly when `type` is `Localhost`.",
		"type":             "`RuntimeDefault`, `Localhost` (profile named in `localhost_profile`) or `Unconfined`.",
	},
	reflect.TypeOf(corev1.Capabilities{}): {
		"add":  "Capabilities to add, e.g. `NET_ADMIN`.",
		"drop": "Capabilities to remove, e.g. `ALL`.",
	},
	reflect.TypeOf(corev1.SELinuxOptions{}): {
		"level": "SELinux level label, e.g. `s0:c123,c456`.",
		"role":  "SELinux role label.",
		"type":  "SELinux type label, e.g. `container_t`.",
		"user":  "SELinux user label.",
	},
	reflect.TypeOf(corev1.SeccompProfile{}): {
		"localhostProfile": "Profile file relative to the kubelet's seccomp directory; set exactly when `type` is `Localhost`.",
		"type":             "`RuntimeDefault`, `Localhost` (file named in `localhost_profile`) or `Unconfined`.",
	},
	reflect.TypeOf(corev1.WindowsSecurityContextOptions{}): {
		"gmsaCredentialSpec":     "GMSA credential spec contents, normally filled in by the GMSA admission webhook.",
		"gmsaCredentialSpecName": "GMSA credential spec giving the container an Active Directory identity.",
		"hostProcess":            "Run as a Windows HostProcess container; all containers must agree and `host_network` must be `true`.",
		"runAsUserName":          "Windows user to run the entrypoint as, overriding the pod's; defaults to the image's user.",
	},
	reflect.TypeOf(corev1.VolumeDevice{}): {
		"devicePath": "Device path inside the container, e.g. `/dev/xvda`.",
		"name":       "Name of a pod volume backed by a block-mode persistent volume claim.",
	},
	reflect.TypeOf(corev1.VolumeMount{}): {
		"bindMountOptions":  "Alpha: `noexec`, `nodev`, `nosuid`; ignored unless the `VolumeBindMountOptions` gate is on.",
		"mountPath":         "Path in the container to mount at; unique within the container.",
		"mountPropagation":  "`None`, `HostToContainer` or `Bidirectional` (privileged containers only). Defaults to `None`.",
		"name":              "Name of the pod volume to mount.",
		"readOnly":          "Mount read-only. Defaults to `false`.",
		"recursiveReadOnly": "With `read_only`: `Disabled`, `IfPossible` or `Enabled` to make submounts read-only too.",
		"subPath":           "Mount this path inside the volume instead of its root.",
		"subPathExpr":       "Like `sub_path`, expanding `$(VAR)` env references; conflicts with `sub_path`.",
	},
}

// containerFieldDocs describe corev1.Container (regular and init containers).
var containerFieldDocs = map[string]string{
	"args":                     "Entrypoint arguments, replacing the image's `CMD`; `$(VAR)` expands an env var.",
	"command":                  "Entrypoint, replacing the image's `ENTRYPOINT`; not run in a shell.",
	"env":                      "Environment variables; they take precedence over `env_from`.",
	"envFrom":                  "Import every key of ConfigMaps or Secrets as env vars; `env` takes precedence.",
	"image":                    "Image to run, e.g. `vllm/vllm-openai:v0.9.1` or `repo/app@sha256:<digest>`. Required. Its tag decides the default `image_pull_policy`.",
	"imagePullPolicy":          "`Always`, `IfNotPresent` or `Never`. Defaults to `Always` for a `:latest` or untagged image, else `IfNotPresent`.",
	"lifecycle":                "Hooks run right after the container starts and before it stops.",
	"livenessProbe":            "Liveness probe: the container is restarted when it fails.",
	"name":                     "Name, a DNS label unique within the pod. Required.",
	"ports":                    "Ports the container listens on; mostly informational.",
	"readinessProbe":           "Readiness probe: while it fails, the pod receives no Service traffic.",
	"resizePolicy":             "Whether an in-place resize of CPU or memory restarts the container.",
	"resources":                "CPU, memory, GPU and other requests and limits, e.g. `{ limits = { \"nvidia.com/gpu\" = \"8\" } }`.",
	"restartPolicy":            "Overrides the pod's `restart_policy`: `Always`, `OnFailure` or `Never`; `Always` makes an init container a sidecar.",
	"restartPolicyRules":       "Exit-code rules deciding restarts, checked in order; at most 20. Needs `restart_policy`.",
	"securityContext":          "Security settings, overriding the pod-level `security_context`.",
	"startupProbe":             "Startup probe: other probes wait until it succeeds; when it fails, the container is restarted.",
	"stdin":                    "Allocate a stdin buffer for attaching clients. Defaults to `false`.",
	"stdinOnce":                "Close stdin when the first attached client disconnects. Defaults to `false`.",
	"terminationMessagePath":   "File for the termination message (4096 bytes max). Defaults to `/dev/termination-log`.",
	"terminationMessagePolicy": "`File`, or `FallbackToLogsOnError` to use the log tail if the file is empty on failure. Defaults to `File`.",
	"tty":                      "Allocate a TTY; needs `stdin`. Defaults to `false`.",
	"volumeDevices":            "Raw block volumes exposed as devices inside the container.",
	"volumeMounts":             "Pod volumes to mount in the container.",
	"workingDir":               "Working directory; defaults to the image's or the runtime's.",
}

// ephemeralContainerFieldDocs reuse the container wording and note where ephemeral containers
// differ: no ports, probes, lifecycle, resources or restart settings, no sub-path mounts.
func ephemeralContainerFieldDocs() map[string]string {
	const forbidden = "Not allowed for ephemeral containers."
	docs := map[string]string{}
	for f, d := range containerFieldDocs {
		docs[f] = d
	}
	for _, f := range []string{"lifecycle", "livenessProbe", "ports", "readinessProbe", "resizePolicy", "restartPolicy", "restartPolicyRules", "startupProbe"} {
		docs[f] = forbidden
	}
	docs["name"] = "Name, a DNS label unique among all the pod's containers. Required."
	docs["resources"] = "Not allowed: an ephemeral container runs on resources the pod already has."
	docs["volumeMounts"] = "Pod volumes to mount in the container; `sub_path` and `sub_path_expr` are not allowed."
	return docs
}
