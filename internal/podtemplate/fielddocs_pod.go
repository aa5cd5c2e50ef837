package podtemplate

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
)

// podDocs describe the pod-level fields of a pod template: the pod spec, its security context,
// DNS, host aliases, tolerations, scheduling gates and resource claims, and the probe and
// lifecycle-hook handlers shared by all containers.
var podDocs = map[reflect.Type]map[string]string{
	reflect.TypeOf(corev1.PodTemplateSpec{}): {
		"metadata": "Labels and annotations given to the pods created from this template.",
		"spec":     "Pod specification: containers, volumes, scheduling and security settings.",
	},
	reflect.TypeOf(corev1.PodSpec{}): {
		"activeDeadlineSeconds":         "Not allowed in a LeaderWorkerSet template: leave unset.",
		"affinity":                      "Node affinity and pod affinity/anti-affinity rules for scheduling.",
		"automountServiceAccountToken":  "Mount the service account's API token; unset follows the ServiceAccount (mounted by default).",
		"containers":                    "Containers of the pod; at least one.",
		"dnsConfig":                     "Extra DNS settings merged into those from `dns_policy`; required when `dns_policy` is `None`.",
		"dnsPolicy":                     "`ClusterFirst` (default), `ClusterFirstWithHostNet` (with `host_network`), `Default` (node's resolver) or `None`.",
		"enableServiceLinks":            "Inject Service addresses as Docker-link-style environment variables. Defaults to `true`.",
		"ephemeralContainers":           "Debugging containers; not allowed in a pod template: leave unset.",
		"evictionResponders":            "Eviction request responders, by priority; at most 10, not with `scheduling_group`. Alpha (`EvictionRequestAPI`).",
		"hostAliases":                   "Extra entries for the pod's `/etc/hosts`.",
		"hostIPC":                       "Use the node's IPC namespace. Defaults to `false`.",
		"hostNetwork":                   "Use the node's network namespace; a set `host_port` must equal `container_port`. Defaults to `false`.",
		"hostPID":                       "Use the node's process ID namespace. Defaults to `false`.",
		"hostUsers":                     "`false` gives the pod its own user namespace (not with `host_network`/`host_pid`/`host_ipc`). Defaults to `true`.",
		"hostname":                      "Ignored: set to the pod name; with `group_identity` `Hash`, leaders get a name from the group key.",
		"hostnameOverride":              "Hostname seen inside the pod (DNS unchanged); at most 64 chars, not with `host_network` or `set_hostname_as_fqdn`.",
		"imagePullSecrets":              "Secrets in the namespace with registry credentials for pulling the images.",
		"initContainers":                "Containers run in order before `containers` start; sidecars keep running.",
		"nodeName":                      "Node to bind the pod to directly, bypassing the scheduler; usually leave unset.",
		"nodeSelector":                  "Labels a node must have for the pod to be scheduled on it.",
		"os":                            "Operating system of the pod; fields that do not apply to it are then rejected.",
		"overhead":                      "RuntimeClass overhead, filled in at admission, which rejects a value set here: leave unset.",
		"preemptionPolicy":              "`PreemptLowerPriority` (default) or `Never`; normally set from `priority_class_name` at admission.",
		"priority":                      "Numeric priority, set from `priority_class_name` at admission; leave unset.",
		"priorityClassName":             "PriorityClass setting the pod's priority; unset uses the default class, or 0.",
		"readinessGates":                "Extra pod conditions that must be `True` for the pod to be ready.",
		"resourceClaims":                "Dynamic resource allocation claims the pod needs; containers use them by `name`.",
		"resources":                     "Pod-level requests/limits shared by all containers (`cpu`, `memory`, `hugepages-*` only). Beta, on by default.",
		"restartPolicy":                 "Only `Always` (the default) is allowed in a LeaderWorkerSet template.",
		"runtimeClassName":              "RuntimeClass (`node.k8s.io`) to run the pod with; unset uses the default runtime handler.",
		"schedulerName":                 "Scheduler that places the pod. Defaults to `default-scheduler`.",
		"schedulingGates":               "Gates that keep the pod from being scheduled until each is removed.",
		"schedulingGroup":               "PodGroup the pod belongs to, for group scheduling. Needs the `GenericWorkload` feature gate.",
		"securityContext":               "Pod-level security settings; a container's `security_context` takes precedence.",
		"serviceAccount":                "Deprecated: use `service_account_name`.",
		"serviceAccountName":            "ServiceAccount the pod runs as. Defaults to `default`.",
		"setHostnameAsFQDN":             "Use the pod's FQDN as its hostname instead of the short name. Defaults to `false`.",
		"shareProcessNamespace":         "Let containers see and signal each other's processes; not with `host_pid`. Defaults to `false`.",
		"subdomain":                     "Ignored: set to a headless Service of the LeaderWorkerSet.",
		"terminationGracePeriodSeconds": "Seconds between the stop signal and the forced kill; `0` kills at once. Defaults to `30`.",
		"tolerations":                   "Taints the pod tolerates.",
		"topologySpreadConstraints":     "How pods spread across topology domains (zones, nodes); all constraints must hold.",
		"volumes":                       "Volumes the containers can mount, by name.",
	},
	reflect.TypeOf(corev1.PodSecurityContext{}): {
		"appArmorProfile":          "AppArmor profile for all containers. Linux only.",
		"fsGroup":                  "Group ID that owns supported volumes and is added to every container's groups. Linux only.",
		"fsGroupChangePolicy":      "`Always` (default) or `OnRootMismatch` (skip if the volume root already matches). Linux only.",
		"runAsGroup":               "Group ID for container processes; runtime default if unset. Container setting wins. Linux only.",
		"runAsNonRoot":             "`true` makes the kubelet refuse to start containers running as UID 0. Container setting wins.",
		"runAsUser":                "User ID for container processes; image's user if unset. Container setting wins. Linux only.",
		"seLinuxChangePolicy":      "`MountOption` (default: mount volumes with the label) or `Recursive` (relabel every file). Linux only.",
		"seLinuxOptions":           "SELinux context for all containers; random per container if unset. Container setting wins. Linux only.",
		"seccompProfile":           "Seccomp profile for all containers. Linux only.",
		"supplementalGroups":       "Extra group IDs for each container's first process. Linux only.",
		"supplementalGroupsPolicy": "`Merge` (default: keep the image's groups too) or `Strict` (only the listed groups). Linux only.",
		"sysctls":                  "Namespaced kernel parameters for the pod. Linux only.",
		"windowsOptions":           "Windows settings for all containers; container setting wins. Windows only.",
	},
	reflect.TypeOf(corev1.Sysctl{}): {
		"name":  "Kernel parameter, e.g. `net.core.somaxconn`.",
		"value": "Value to set.",
	},
	reflect.TypeOf(corev1.PodOS{}): {
		"name": "`linux` or `windows`.",
	},
	reflect.TypeOf(corev1.PodDNSConfig{}): {
		"nameservers": "Name server IPs added to those from `dns_policy`; at most 3.",
		"options":     "Resolver options (e.g. `ndots`) merged over those from `dns_policy`.",
		"searches":    "Search domains added to those from `dns_policy`; at most 32.",
	},
	reflect.TypeOf(corev1.PodDNSConfigOption{}): {
		"name":  "Option name, e.g. `ndots`.",
		"value": "Option value, e.g. `\"2\"`; omit for flag options.",
	},
	reflect.TypeOf(corev1.HostAlias{}): {
		"hostnames": "Host names that resolve to `ip`.",
		"ip":        "IP address of the entry.",
	},
	reflect.TypeOf(corev1.Toleration{}): {
		"effect":            "`NoSchedule`, `PreferNoSchedule` or `NoExecute`; empty matches every effect.",
		"key":               "Taint key to match; empty matches every key (with `operator` `Exists`).",
		"operator":          "`Equal` (default), `Exists` (any value), or `Lt`/`Gt` (numeric; `TaintTolerationComparisonOperators` gate).",
		"tolerationSeconds": "For `NoExecute`: seconds the pod stays once tainted; unset is forever, 0 or less evicts at once.",
		"value":             "Taint value to match; leave empty with `operator` `Exists`.",
	},
	reflect.TypeOf(corev1.PodReadinessGate{}): {
		"conditionType": "Pod condition type that must be `True`.",
	},
	reflect.TypeOf(corev1.PodSchedulingGate{}): {
		"name": "Gate name, unique in the list.",
	},
	reflect.TypeOf(corev1.PodSchedulingGroup{}): {
		"podGroupName": "Name of the PodGroup object, a DNS subdomain.",
	},
	reflect.TypeOf(corev1.PodResourceClaim{}): {
		"name":                      "Name containers use to refer to this claim; a DNS label unique in the pod.",
		"resourceClaimName":         "Existing ResourceClaim in the namespace. Exactly one of this and `resource_claim_template_name`.",
		"resourceClaimTemplateName": "ResourceClaimTemplate to make a claim from, per pod (per PodGroup if `scheduling` lists it). Exactly one of this and `resource_claim_name`.",
	},
	reflect.TypeOf(corev1.Lifecycle{}): {
		"postStart":  "Hook run right after the container starts; if it fails, the container is killed and restarted.",
		"preStop":    "Hook run before the container is stopped (not when it exits by itself); counts against the grace period.",
		"stopSignal": "Signal that stops the container, e.g. `SIGTERM`; runtime default if unset. Needs `os`. Alpha (`ContainerStopSignals`).",
	},
	reflect.TypeOf(corev1.LifecycleHandler{}): {
		"exec":      "Run a command in the container.",
		"httpGet":   "Send an HTTP GET request to the container.",
		"sleep":     "Pause for a number of seconds.",
		"tcpSocket": "Deprecated and not supported for hooks: accepted, but the hook fails at run time.",
	},
	reflect.TypeOf(corev1.ProbeHandler{}): {
		"exec":      "Probe by running a command; exit code 0 is success.",
		"grpc":      "Probe with a gRPC health check.",
		"httpGet":   "Probe with an HTTP GET; a 2xx or 3xx status is success.",
		"tcpSocket": "Probe by opening a TCP connection.",
	},
	reflect.TypeOf(corev1.Probe{}): {
		"failureThreshold":              "Consecutive failures before the probe counts as failed. Defaults to `3`.",
		"initialDelaySeconds":           "Seconds after the container starts before the first probe. Defaults to `0`.",
		"periodSeconds":                 "Seconds between probes. Defaults to `10`.",
		"successThreshold":              "Consecutive successes needed after a failure. Defaults to `1`; must be 1 for liveness and startup probes.",
		"terminationGracePeriodSeconds": "Grace period used when this probe's failure kills the container, instead of the pod's; above 0. Not for readiness.",
		"timeoutSeconds":                "Seconds before a probe attempt times out. Defaults to `1`.",
	},
	reflect.TypeOf(corev1.ExecAction{}): {
		"command": "Command and arguments, run without a shell in `/` (wrap in `sh -c` for one); exit code 0 is success.",
	},
	reflect.TypeOf(corev1.HTTPGetAction{}): {
		"host":        "Host to connect to; defaults to the pod IP. For virtual hosts, set a `Host` header instead.",
		"httpHeaders": "Extra request headers; a name may repeat.",
		"path":        "Request path. Defaults to `/`.",
		"port":        "Container port: a number (1-65535) or a port name as a string.",
		"protocol":    "`HTTP1` (default) or `HTTP2` (cleartext, scheme `HTTP` only). Alpha (`H2CContainerProbe`).",
		"scheme":      "`HTTP` (default) or `HTTPS` (certificate not verified).",
	},
	reflect.TypeOf(corev1.HTTPHeader{}): {
		"name":  "Header name (case-insensitive).",
		"value": "Header value.",
	},
	reflect.TypeOf(corev1.TCPSocketAction{}): {
		"host": "Host to connect to; defaults to the pod IP.",
		"port": "Container port: a number (1-65535) or a port name as a string.",
	},
	reflect.TypeOf(corev1.GRPCAction{}): {
		"mode":    "`TLS` (certificate not verified) or `Plaintext`; unset is plaintext. Alpha (`GRPCContainerProbeTLS`).",
		"port":    "Port of the gRPC server, 1-65535.",
		"service": "Service name sent in the health check; empty checks the whole server.",
	},
	reflect.TypeOf(corev1.SleepAction{}): {
		"seconds": "Seconds to sleep, from 0 up to the pod's `termination_grace_period_seconds`.",
	},
}
