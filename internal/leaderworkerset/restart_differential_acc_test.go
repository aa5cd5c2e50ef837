package leaderworkerset_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// restartChange is one generated change of a running LeaderWorkerSet: the attribute it
// changes (a JSON path of the schema, or a key of a map) and how, or why it is not tried.
type restartChange struct {
	path  string
	apply func(l *lwsv1.LeaderWorkerSet)
	skip  string
}

// The pod template field classes: one representative in-place change for each field of PodSpec
// and of Container that keeps the pods schedulable and Ready on the KWOK nodes of the test
// cluster, or the reason it is not tried. restartChanges fails on a field of the schema that is
// in neither table, so a field of a newer k8s.io/api is covered the day it appears.
var podSpecChanges = map[string]func(p *corev1.PodSpec){
	"volumes": func(p *corev1.PodSpec) {
		p.Volumes = append(p.Volumes, corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	},
	"initContainers": func(p *corev1.PodSpec) {
		p.InitContainers = append(p.InitContainers, corev1.Container{Name: "init", Image: "busybox:1.36", Command: []string{"true"}})
	},
	"terminationGracePeriodSeconds": func(p *corev1.PodSpec) { p.TerminationGracePeriodSeconds = ptr.To[int64](10) },
	"dnsPolicy":                     func(p *corev1.PodSpec) { p.DNSPolicy = corev1.DNSDefault },
	"nodeSelector": func(p *corev1.PodSpec) {
		p.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
	},
	"serviceAccountName":           func(p *corev1.PodSpec) { p.ServiceAccountName = "default" },
	"automountServiceAccountToken": func(p *corev1.PodSpec) { p.AutomountServiceAccountToken = ptr.To(false) },
	"hostPID":                      func(p *corev1.PodSpec) { p.HostPID = true },
	"hostIPC":                      func(p *corev1.PodSpec) { p.HostIPC = true },
	"shareProcessNamespace":        func(p *corev1.PodSpec) { p.ShareProcessNamespace = ptr.To(true) },
	"securityContext": func(p *corev1.PodSpec) {
		p.SecurityContext = &corev1.PodSecurityContext{FSGroup: ptr.To[int64](1000)}
	},
	"imagePullSecrets": func(p *corev1.PodSpec) {
		p.ImagePullSecrets = append(p.ImagePullSecrets, corev1.LocalObjectReference{Name: "registry"})
	},
	"hostname":  func(p *corev1.PodSpec) { p.Hostname = "inference" },
	"subdomain": func(p *corev1.PodSpec) { p.Subdomain = "inference" },
	"affinity": func(p *corev1.PodSpec) {
		p.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: acctest.ZoneLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{acctest.Zones[0]}}}}}}}}
	},
	"tolerations": func(p *corev1.PodSpec) {
		p.Tolerations = append(p.Tolerations, corev1.Toleration{Key: "example.com/maintenance", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	},
	"hostAliases": func(p *corev1.PodSpec) {
		p.HostAliases = append(p.HostAliases, corev1.HostAlias{IP: "10.0.0.10", Hostnames: []string{"models.internal"}})
	},
	"dnsConfig": func(p *corev1.PodSpec) {
		p.DNSConfig = &corev1.PodDNSConfig{Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("2")}}}
	},
	"enableServiceLinks": func(p *corev1.PodSpec) { p.EnableServiceLinks = ptr.To(false) },
	"topologySpreadConstraints": func(p *corev1.PodSpec) {
		p.TopologySpreadConstraints = append(p.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: 3, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"example.com/spread": "x"}}})
	},
	"setHostnameAsFQDN": func(p *corev1.PodSpec) { p.SetHostnameAsFQDN = ptr.To(true) },
	"os":                func(p *corev1.PodSpec) { p.OS = &corev1.PodOS{Name: corev1.Linux} },
	"hostUsers":         func(p *corev1.PodSpec) { p.HostUsers = ptr.To(false) },
	"resources": func(p *corev1.PodSpec) {
		// Pod-level requests that cover the containers' (SmallGPU: 16 CPUs for the leader).
		p.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("32")}}
	},
}

var podSpecSkips = map[string]string{
	"containers":            "its elements are the Container classes",
	"ephemeralContainers":   "the API server refuses them in a pod template",
	"restartPolicy":         "a StatefulSet's pods allow only Always, its default",
	"activeDeadlineSeconds": "the API server refuses it in a StatefulSet's template (ValidatePodTemplateSpecForStatefulSet)",
	"serviceAccount":        "the deprecated alias of serviceAccountName",
	"nodeName":              "it binds every pod to one node, bypassing the scheduler and its GPU accounting",
	"hostNetwork":           "the fixture's container ports become host ports, which conflict between pods on one node",
	"schedulerName":         "no other scheduler runs in the test cluster: the pods would stay Pending",
	"priorityClassName":     "the test cluster has no PriorityClass besides the system ones, which the Priority admission plugin keeps to kube-system",
	"priority":              "the Priority admission plugin refuses a pod that sets it",
	"preemptionPolicy":      "the Priority admission plugin sets it from the priority class",
	"readinessGates":        "nothing sets the gate's condition: the pods would never turn Ready",
	"runtimeClassName":      "the test cluster has no RuntimeClass",
	"overhead":              "the RuntimeClass admission plugin refuses it without a RuntimeClass",
	"schedulingGates":       "the pods would stay Pending until the gate is removed",
	"resourceClaims":        "the test cluster has no DRA driver",
	"hostnameOverride":      "alpha in Kubernetes 1.37 and off in the test cluster",
	"schedulingGroup":       "alpha in Kubernetes 1.37 and off in the test cluster",
	"workloadRef":           "alpha in Kubernetes 1.37 and off in the test cluster",
	"evictionResponders":    "alpha in Kubernetes 1.37 and off in the test cluster",
}

var containerChanges = map[string]func(c *corev1.Container){
	"name":       func(c *corev1.Container) { c.Name += "-2" },
	"image":      func(c *corev1.Container) { c.Image = "vllm/vllm-openai:v0.11.1" },
	"command":    func(c *corev1.Container) { c.Command = append(c.Command, "--") },
	"args":       func(c *corev1.Container) { c.Args = append(c.Args, "--enforce-eager") },
	"workingDir": func(c *corev1.Container) { c.WorkingDir = "/workspace" },
	"ports": func(c *corev1.Container) {
		c.Ports = append(c.Ports, corev1.ContainerPort{Name: "extra", ContainerPort: 9000})
	},
	"envFrom": func(c *corev1.Container) {
		c.EnvFrom = append(c.EnvFrom, corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "vllm-config"}, Optional: ptr.To(true)}})
	},
	"env": func(c *corev1.Container) { setEnv(c, "VLLM_LOGGING_LEVEL", "DEBUG") },
	"resources": func(c *corev1.Container) {
		c.Resources.Requests = c.Resources.Requests.DeepCopy()
		c.Resources.Requests["cpu"] = resource.MustParse("1")
	},
	"resizePolicy": func(c *corev1.Container) {
		c.ResizePolicy = append(c.ResizePolicy, corev1.ContainerResizePolicy{ResourceName: "cpu", RestartPolicy: corev1.NotRequired})
	},
	"volumeMounts": func(c *corev1.Container) {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "dshm", MountPath: "/cache", ReadOnly: true})
	},
	"livenessProbe": func(c *corev1.Container) {
		c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, PeriodSeconds: 30}
	},
	"readinessProbe": func(c *corev1.Container) {
		c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, PeriodSeconds: 5}
	},
	"startupProbe": func(c *corev1.Container) {
		c.StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, FailureThreshold: 60}
	},
	"lifecycle": func(c *corev1.Container) {
		c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 5}}}
	},
	"terminationMessagePath":   func(c *corev1.Container) { c.TerminationMessagePath = "/tmp/termination-log" },
	"terminationMessagePolicy": func(c *corev1.Container) { c.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError },
	"imagePullPolicy":          func(c *corev1.Container) { c.ImagePullPolicy = corev1.PullAlways },
	"securityContext": func(c *corev1.Container) {
		c.SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}
	},
	"stdin":     func(c *corev1.Container) { c.Stdin = true },
	"stdinOnce": func(c *corev1.Container) { c.Stdin, c.StdinOnce = true, true },
	"tty":       func(c *corev1.Container) { c.TTY = true },
}

var containerSkips = map[string]string{
	"volumeDevices":      "it needs a block-mode volume claim, which the test cluster cannot provision",
	"restartPolicy":      "a regular container's restartPolicy is an alpha field (ContainerRestartRules), off in the test cluster",
	"restartPolicyRules": "alpha in Kubernetes 1.37 (ContainerRestartRules) and off in the test cluster",
}

// specChanges are the representative changes of the spec fields outside the pod templates, by
// JSON path; specSkips the fields not tried, and why. rolloutBase sets replicas 2, size 2 and a
// subgroup policy of size 1.
var specChanges = map[string]func(l *lwsv1.LeaderWorkerSet){
	"spec.replicas":                           func(l *lwsv1.LeaderWorkerSet) { l.Spec.Replicas = ptr.To[int32](3) },
	"spec.startupPolicy":                      func(l *lwsv1.LeaderWorkerSet) { l.Spec.StartupPolicy = lwsv1.LeaderReadyStartupPolicy },
	"spec.leaderWorkerTemplate.size":          func(l *lwsv1.LeaderWorkerSet) { l.Spec.LeaderWorkerTemplate.Size = ptr.To[int32](3) },
	"spec.leaderWorkerTemplate.restartPolicy": func(l *lwsv1.LeaderWorkerSet) { l.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.NoneRestartPolicy },
	"spec.leaderWorkerTemplate.subGroupPolicy.subGroupPolicyType": func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.SubGroupPolicy.Type = ptr.To(lwsv1.SubGroupPolicyTypeLeaderExcluded)
	},
	"spec.networkConfig.subdomainPolicy": func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.NetworkConfig = &lwsv1.NetworkConfig{SubdomainPolicy: ptr.To(lwsv1.SubdomainUniquePerReplica)}
	},
	"spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable": func(l *lwsv1.LeaderWorkerSet) {
		rollingUpdate(l).MaxUnavailable = intstr.FromInt32(2)
	},
	"spec.rolloutStrategy.rollingUpdateConfiguration.maxSurge": func(l *lwsv1.LeaderWorkerSet) { rollingUpdate(l).MaxSurge = intstr.FromInt32(1) },
	"spec.rolloutStrategy.rollingUpdateConfiguration.partition": func(l *lwsv1.LeaderWorkerSet) {
		rollingUpdate(l).Partition = ptr.To[int32](1)
	},
	"spec.leaderWorkerTemplate.persistentVolumeClaimRetentionPolicy": func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}
	},
}

var specSkips = map[string]string{
	"spec.rolloutStrategy.type":                             "RollingUpdate is its one value in the released API",
	"spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize": "immutable: the webhook refuses a change (ValidateUpdate, pkg/webhooks/leaderworkerset_webhook.go, lws v0.9.0)",
	"spec.leaderWorkerTemplate.volumeClaimTemplates":        "the test cluster has no storage provisioner: the claims would stay Pending",
}

// templateRoots are the two pod templates whose field classes are tried.
var templateRoots = []struct {
	name string
	get  func(l *lwsv1.LeaderWorkerSet) *corev1.PodTemplateSpec
}{
	{"leaderTemplate", func(l *lwsv1.LeaderWorkerSet) *corev1.PodTemplateSpec {
		return l.Spec.LeaderWorkerTemplate.LeaderTemplate
	}},
	{"workerTemplate", func(l *lwsv1.LeaderWorkerSet) *corev1.PodTemplateSpec {
		return &l.Spec.LeaderWorkerTemplate.WorkerTemplate
	}},
}

// restartChanges walks the kind's schema and returns a change (or a reason to skip) for every
// attribute a user can change in place: the object's labels and annotations (an arbitrary key
// and every leaderworkerset.sigs.k8s.io/ key the API packages declare), each spec field, and
// each class of pod template field of both templates (template labels and annotations, each
// field of PodSpec and of Container). A field of the schema with neither fails the test.
func restartChanges(t *testing.T) []restartChange {
	t.Helper()
	root := leaderworkerset.Kind.Node()
	var out []restartChange
	var missing []string
	meta := k8sschema.NodeAt(root, "metadata")
	for _, key := range append([]string{"example.com/team"}, lwsKeys(t)...) {
		for _, m := range []string{"labels", "annotations"} {
			if meta.FieldJSON(m) == nil {
				t.Fatalf("no metadata.%s in the schema", m)
			}
			value := "x"
			switch {
			case m == "labels":
			case strings.HasSuffix(key, "exclusive-topology"):
				// A group (or subgroup) per node. Not per zone: a group recreated under the
				// annotation must avoid every zone that holds another group's pods, and the
				// groups not yet recreated straddle both zones (the fixture spreads leaders
				// over zones), so the rollout would stall with the new leader Pending.
				value = "kubernetes.io/hostname"
			}
			out = append(out, restartChange{path: fmt.Sprintf("metadata.%s[%s]", m, key), apply: func(l *lwsv1.LeaderWorkerSet) {
				if m == "labels" {
					setKey(&l.Labels, key, value)
				} else {
					setKey(&l.Annotations, key, value)
				}
			}})
		}
	}
	newer := map[string]string{}
	for _, f := range lwsrules.NewerFields {
		newer[f.Path] = "not in the released CRD (" + f.Feature + "): a server-side apply that carries it fails"
	}
	var walk func(n *k8sschema.Node)
	walk = func(n *k8sschema.Node) {
		p := n.Path()
		if n.Mode == k8sschema.Computed {
			return
		}
		if reason, ok := newer[p]; ok {
			out = append(out, restartChange{path: p, skip: reason})
			return
		}
		if reason, ok := specSkips[p]; ok {
			out = append(out, restartChange{path: p, skip: reason})
			return
		}
		if change, ok := specChanges[p]; ok {
			out = append(out, restartChange{path: p, apply: change})
			return
		}
		if p == "spec.leaderWorkerTemplate.leaderTemplate" || p == "spec.leaderWorkerTemplate.workerTemplate" {
			return // the field classes below
		}
		if n.Kind == k8sschema.KindObject {
			for _, f := range n.Fields {
				walk(f)
			}
			return
		}
		missing = append(missing, p)
	}
	walk(k8sschema.NodeAt(root, "spec"))
	for _, tr := range templateRoots {
		base := "spec.leaderWorkerTemplate." + tr.name
		for _, m := range []string{"labels", "annotations"} {
			out = append(out, restartChange{path: base + ".metadata." + m + "[example.com/tier]", apply: func(l *lwsv1.LeaderWorkerSet) {
				meta := &tr.get(l).ObjectMeta
				if m == "labels" {
					setKey(&meta.Labels, "example.com/tier", "gold")
				} else {
					setKey(&meta.Annotations, "example.com/tier", "gold")
				}
			}})
		}
		for _, f := range k8sschema.NodeAt(root, base+".spec").Fields {
			p := base + ".spec." + f.JSONName
			switch change, ok := podSpecChanges[f.JSONName]; {
			case ok:
				out = append(out, restartChange{path: p, apply: func(l *lwsv1.LeaderWorkerSet) { change(&tr.get(l).Spec) }})
			case podSpecSkips[f.JSONName] != "":
				out = append(out, restartChange{path: p, skip: podSpecSkips[f.JSONName]})
			default:
				missing = append(missing, p)
			}
		}
		for _, f := range k8sschema.NodeAt(root, base+".spec.containers").Elem.Fields {
			p := base + ".spec.containers[0]." + f.JSONName
			switch change, ok := containerChanges[f.JSONName]; {
			case ok:
				out = append(out, restartChange{path: p, apply: func(l *lwsv1.LeaderWorkerSet) { change(&tr.get(l).Spec.Containers[0]) }})
			case containerSkips[f.JSONName] != "":
				out = append(out, restartChange{path: p, skip: containerSkips[f.JSONName]})
			default:
				missing = append(missing, p)
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("fields of the schema without a representative change or a reason to skip (add them to the tables of %s):\n  %s",
			"restart_differential_acc_test.go", strings.Join(missing, "\n  "))
	}
	return out
}

// lwsKeys are the leaderworkerset.sigs.k8s.io/ keys the API packages declare: the constants of
// our internal/apis/leaderworkerset/v1 and of the released module's api/leaderworkerset/v1
// (the keys its controller reads and writes), read from their source with go/parser so that a
// new constant is tried the day it appears.
func lwsKeys(t *testing.T) []string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	dirs := []string{filepath.Join(filepath.Dir(self), "..", "apis", "leaderworkerset", "v1")}
	if out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/lws").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		dirs = append(dirs, filepath.Join(strings.TrimSpace(string(out)), "api", "leaderworkerset", "v1"))
	} else {
		t.Fatalf("go list -m sigs.k8s.io/lws: %v", err)
	}
	keys := map[string]bool{}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "leaderworkerset.sigs.k8s.io/") && !strings.ContainsAny(s, " =,") {
						keys[s] = true
					}
				}
				return true
			})
		}
	}
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// restartBase is the running set every change starts from: 2 groups of 2 pods with a subgroup
// policy (so that the subgroup annotation and the policy's type can change).
func restartBase(name string) *lwsv1.LeaderWorkerSet {
	l := lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU)
	l.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](1)}
	return l
}

// TestAccLeaderWorkerSet_restartDifferential applies each generated change (restartChanges) to a
// running LeaderWorkerSet on the released controller, then reverts it, and compares for both
// steps the plan's verdict (PreviewRollout: which groups are recreated) and the guard's
// (planUpdate with allow_group_restarts = false: refused or not) with what happened: the groups
// whose pod UIDs changed. Each step's line also gives the leader StatefulSet's revision label and
// template generation. make test tries a sample (the copied annotations and 10 drawn changes,
// KUBEINFER_RESTART_DIFF_SEED); KUBEINFER_RESTART_DIFF_ALL=1 tries every change.
func TestAccLeaderWorkerSet_restartDifferential(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	const name = "acc-restart-diff"
	all := restartChanges(t)
	var tried, skipped []restartChange
	var unclassified []string
	for _, c := range all {
		if c.skip != "" {
			skipped = append(skipped, c)
			continue
		}
		tried = append(tried, c)
		if lwsrules.RestartClassOf(c.path) == "" {
			unclassified = append(unclassified, c.path)
		}
	}
	if len(unclassified) > 0 {
		// The guide's table of what restarts what has a row per class: a change of no class
		// would be tried here and stated nowhere.
		t.Fatalf("changes of no class of lwsrules.RestartClasses (add the class, its row of the guide's table and its representative change):\n  %s",
			strings.Join(unclassified, "\n  "))
	}
	if os.Getenv("KUBEINFER_RESTART_DIFF_ALL") == "" {
		seed := int64(1)
		if s := os.Getenv("KUBEINFER_RESTART_DIFF_SEED"); s != "" {
			seed, _ = strconv.ParseInt(s, 10, 64)
		}
		var sample, rest []restartChange
		for _, c := range tried {
			if strings.Contains(c.path, "exclusive-topology") && strings.HasPrefix(c.path, "metadata.annotations") {
				sample = append(sample, c)
			} else {
				rest = append(rest, c)
			}
		}
		rng := rand.New(rand.NewSource(seed))
		rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		tried = append(sample, rest[:min(10, len(rest))]...)
		t.Logf("sample of %d of the %d changes (seed %d; KUBEINFER_RESTART_DIFF_ALL=1 for all)", len(tried), len(all)-len(skipped), seed)
	}
	for _, c := range skipped {
		t.Logf("not tried: %s: %s", c.path, c.skip)
	}
	ri := lwsClient(t)
	cluster := acctest.Cluster(t)
	ctx := context.Background()
	t.Cleanup(func() {
		_ = ri.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
		_ = leaderworkerset.Kind.Hooks.AfterDelete(ctx, cluster.Dynamic(), "default", name)
	})
	apply := serverSideApply(t, name)
	base := restartBase(name)
	if err := apply(base); err != nil {
		t.Fatal(err)
	}
	state := settleRestart(t, name)
	deny := map[string]tftypes.Value{lwsrules.AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, false)}
	steps, agree := 0, 0
	var disagreements []string
	byClass := map[string]*classCount{}
	count := func(path string) *classCount {
		name := lwsrules.RestartClassOf(path)
		if byClass[name] == nil {
			byClass[name] = &classCount{}
		}
		return byClass[name]
	}
	refused := 0
	for _, c := range tried {
		next := base.DeepCopy()
		c.apply(next)
		if _, errs := plannedObject(next); len(errs) > 0 {
			// The change is not valid on this set: the plan fails, as the webhook would.
			refused++
			t.Logf("not tried: %s: the plan refuses it: %v", c.path, errs)
			continue
		}
		count(c.path).changes++
		for _, step := range []struct {
			what string
			obj  *lwsv1.LeaderWorkerSet
		}{{"change", next}, {"revert", base}} {
			planned, _ := plannedObject(step.obj)
			u, err := ri.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			prior, err := leaderworkerset.Kind.FromServer(u)
			if err != nil {
				t.Fatal(err)
			}
			preview := lwsrules.PreviewRollout(planned, prior.(*lwsv1.LeaderWorkerSet))
			want := map[int]bool{}
			if first, last, ok := preview.Recreated(); ok {
				for g := first; g <= last; g++ {
					want[int(g)] = true
				}
			}
			_, guardErrs := leaderworkerset.Kind.PlanUpdate(planned, prior, deny, nil)
			steps++
			if err := apply(step.obj); err != nil {
				// The plan accepted what the server refuses: a validation rule the plan misses.
				disagreements = append(disagreements, fmt.Sprintf("%s (%s): the plan accepts it, the server refuses it: %v", c.path, step.what, err))
				count(c.path).disagree++
				break
			}
			after := settleRestart(t, name)
			got := map[int]bool{}
			for g, uids := range state.groups {
				if now, ok := after.groups[g]; ok && now != uids {
					got[g] = true
				}
			}
			line := fmt.Sprintf("%s (%s): plan recreates %v, guard refuses %v; controller recreated %v (leader StatefulSet revision %s -> %s, template generation %d -> %d)",
				c.path, step.what, sortedGroups(want), len(guardErrs) > 0, sortedGroups(got), state.revision, after.revision, state.generation, after.generation)
			if fmt.Sprint(sortedGroups(want)) == fmt.Sprint(sortedGroups(got)) && (len(guardErrs) > 0) == (len(got) > 0) {
				agree++
				count(c.path).agree++
				t.Log(line)
			} else {
				disagreements = append(disagreements, line+"\n    plan: "+preview.Message(leaderworkerset.Kind.Node()))
				count(c.path).disagree++
			}
			state = after
		}
	}
	acctest.Report(t, "restart differential: %d changes tried in %d steps (change and revert), %d agreements, %d disagreements; "+
		"%d attributes not tried and %d changes the plan refuses (reasons logged)",
		len(tried)-refused, steps, agree, len(disagreements), len(skipped), refused)
	// Per class of the guide's table (lwsrules.RestartClasses), in its order: the rows this run
	// checked on the controller, and those it did not reach.
	for _, class := range lwsrules.RestartClasses {
		n := byClass[class.Name]
		if n == nil {
			t.Logf("  class %s: not tried in this run", class.Name)
			continue
		}
		acctest.Report(t, "  class %s: %d changes tried, %d agreements, %d disagreements", class.Name, n.changes, n.agree, n.disagree)
	}
	for _, d := range disagreements {
		t.Error(d)
	}
}

// classCount is the restart differential's count for one class of change: changes tried, and
// the steps (change and revert) that agree or disagree.
type classCount struct{ changes, agree, disagree int }

// plannedObject is the object the plan computes for the configuration l: its planned defaults
// (webhook and CRD, pod template defaults included), and the validation errors of the plan.
func plannedObject(l *lwsv1.LeaderWorkerSet) (*lwsv1.LeaderWorkerSet, []error) {
	node := leaderworkerset.Kind.Node()
	config := k8sschema.Encode(node, l)
	defaulted := l.DeepCopy()
	leaderworkerset.Kind.Defaults(defaulted, config)
	planned := &lwsv1.LeaderWorkerSet{}
	k8sschema.Decode(node, k8sschema.PlanDefaults(node, config, config, defaulted), planned, nil)
	var errs []error
	for _, e := range leaderworkerset.Kind.Validate(defaulted) {
		errs = append(errs, e)
	}
	return planned, errs
}

// restartState is what settleRestart observed: each group's pod UIDs, the leader StatefulSet's
// revision label and generation.
type restartState struct {
	groups     map[int]string
	revision   string
	generation int64
}

// settleRestart waits as settle does, and further until the controllers acted on a change that
// makes no new revision: the leader StatefulSet observed, its template carrying the copied
// annotations, every leader pod from the partition up of its update revision; then it requires
// the same pods and leader StatefulSet a second later (a change that a controller acts on with
// a delay would show then).
func settleRestart(t *testing.T, name string) restartState {
	t.Helper()
	ctx := context.Background()
	cs := acctest.Cluster(t).Clientset()
	ri := lwsClient(t)
	var why string
	for attempt := 0; ; attempt++ {
		err := wait.PollUntilContextTimeout(ctx, 300*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
			u, err := ri.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			var l lwsv1.LeaderWorkerSet
			if err := fromUnstructured(u, &l); err != nil {
				return false, err
			}
			sts, err := cs.AppsV1().StatefulSets("default").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				why = err.Error()
				return false, nil //nolint:nilerr // not there yet
			}
			if sts.Status.ObservedGeneration < sts.Generation {
				why = "leader StatefulSet not observed"
				return false, nil
			}
			for _, key := range lwsrules.CopiedAnnotations {
				if sts.Spec.Template.Annotations[key] != lwsrules.CopiedAnnotation(&l, key) {
					why = "leader StatefulSet's template without the set's " + key
					return false, nil
				}
			}
			partition := 0
			if ru := l.Spec.RolloutStrategy.RollingUpdateConfiguration; ru != nil && ru.Partition != nil {
				partition = int(*ru.Partition)
			}
			for _, p := range listPods(t, name) {
				g, _ := strconv.Atoi(p.Labels[labelGroupIndex])
				if p.Labels[labelWorkerIndex] == "0" && g >= partition && p.Labels[appsv1.ControllerRevisionHashLabelKey] != sts.Status.UpdateRevision {
					why = fmt.Sprintf("leader pod %s (%s, Ready %v) not of the leader StatefulSet's update revision %s (current %s, partition %d, updated %d, generation %d observed %d)",
						p.Name, p.Labels[appsv1.ControllerRevisionHashLabelKey], acctest.PodReady(&p), sts.Status.UpdateRevision, sts.Status.CurrentRevision,
						ptr.Deref(sts.Spec.UpdateStrategy.RollingUpdate.Partition, -1), sts.Status.UpdatedReplicas, sts.Generation, sts.Status.ObservedGeneration)
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			for _, p := range listPods(t, name) {
				t.Logf("pod %s: revision %s, %s, phase %s, Ready %v, node %s, deleting %v", p.Name, p.Labels[appsv1.ControllerRevisionHashLabelKey],
					p.Labels[labelRevision], p.Status.Phase, acctest.PodReady(&p), p.Spec.NodeName, p.DeletionTimestamp != nil)
			}
			if revs, err := cs.AppsV1().ControllerRevisions("default").List(ctx, metav1.ListOptions{LabelSelector: labelName + "=" + name}); err == nil {
				for _, r := range revs.Items {
					t.Logf("controller revision %s (%d): %s", r.Name, r.Revision, r.Data.Raw)
				}
			}
			t.Fatalf("LeaderWorkerSet %s did not settle: %v (%s)", name, err, why)
		}
		groups, rev, _ := settle(t, name)
		sts, err := cs.AppsV1().StatefulSets("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		again, _, _ := settle(t, name)
		sts2, err := cs.AppsV1().StatefulSets("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(groups) == fmt.Sprint(again) && sts.Generation == sts2.Generation {
			return restartState{groups: groups, revision: rev, generation: sts.Generation}
		}
		if attempt == 5 {
			t.Fatalf("LeaderWorkerSet %s does not stay settled", name)
		}
	}
}
