package rules

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate"
)

// ValidateAll checks a defaulted LeaderWorkerSet with every rule that rejects it or its groups:
// the webhook rules (released and newer fields), object metadata, the CRD's list-map keys in the
// pod templates, the nulls the webhook writes, the pod template rules the API server applies to
// the StatefulSets the controller creates, and the runtime name limits, with the surge groups
// of its rolling updates.
func ValidateAll(obj *lwsv1.LeaderWorkerSet) field.ErrorList {
	return validateAll(obj, false)
}

// ValidateAllScaledOnly is ValidateAll for a LeaderWorkerSet another kind's controller creates
// and then only scales (a DisaggregatedSet role's): its revision never changes, so it never
// has the surge groups of a rolling update (runtimeNamesOfObject).
func ValidateAllScaledOnly(obj *lwsv1.LeaderWorkerSet) field.ErrorList {
	return validateAll(obj, true)
}

func validateAll(obj *lwsv1.LeaderWorkerSet, scaledOnly bool) field.ErrorList {
	errs := Validate(obj)
	errs = append(errs, metav1validation.ValidateLabels(obj.Labels, metadataPath.Child("labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(obj.Annotations, metadataPath.Child("annotations"))...)

	lwt := &obj.Spec.LeaderWorkerTemplate
	var vctNames []string
	for _, vct := range lwt.VolumeClaimTemplates {
		vctNames = append(vctNames, vct.Name)
	}
	opts := podtemplate.Options{VolumeClaimTemplateNames: vctNames}
	if lwt.LeaderTemplate != nil {
		errs = append(errs, podtemplate.ValidatePodTemplateSpec(lwt.LeaderTemplate, lwtPath.Child("leaderTemplate"), opts)...)
	}
	errs = append(errs, podtemplate.ValidatePodTemplateSpec(&lwt.WorkerTemplate, lwtPath.Child("workerTemplate"), opts)...)
	errs = append(errs, podtemplate.ValidateListMapKeys(lwt.LeaderTemplate, lwtPath.Child("leaderTemplate"))...)
	errs = append(errs, podtemplate.ValidateListMapKeys(&lwt.WorkerTemplate, lwtPath.Child("workerTemplate"))...)
	errs = append(errs, validateWebhookNulls(lwt)...)
	errs = append(errs, podtemplate.ValidateVolumeClaimTemplates(lwt.VolumeClaimTemplates, lwtPath.Child("volumeClaimTemplates"))...)
	errs = append(errs, podtemplate.ValidatePersistentVolumeClaimRetentionPolicy(lwt.PersistentVolumeClaimRetentionPolicy, lwtPath.Child("persistentVolumeClaimRetentionPolicy"))...)
	errs = append(errs, validateRuntimeNamesAs(obj, scaledOnly)...)
	return errs
}

// The StatefulSet controller names a StatefulSet's revisions "<statefulset>-<hash>" and labels
// every pod with it (controller-revision-hash), a label value of at most 63 characters. The
// hash is the decimal form of a 32-bit FNV hash of the template (k8s.io/kubernetes
// pkg/controller/history, ControllerRevisionName and HashControllerRevision, v1.37.2): 10
// characters for 77% of templates, 9 for 21%, 8 for 2%, fewer almost never.
const (
	revisionHashLength    = 10 // the longest hash
	minRevisionHashLength = 8  // the shortest hash that is not a rarity
)

// runtimeNames are the lengths of the names and label values the controller derives from a
// LeaderWorkerSet's name, for its spec (sigs.k8s.io/lws v0.9.0 pkg/controllers: the leader
// StatefulSet is "<name>" with pods "<name>-<group>" (constructLeaderStatefulSetApplyConfiguration);
// only when size > 1, the worker StatefulSet of each group is named after its leader pod,
// "<name>-<group>", with pods "<name>-<group>-<worker>" (constructWorkerStatefulSetApplyConfiguration,
// pod_controller.go)).
//
// The groups are those of the leader StatefulSet's replicas, which a rolling update raises to
// spec.replicas plus the surge (burstReplicas in rollingUpdateParameters, leaderworkerset_controller.go,
// v0.9.0 and v0.10.0): the surge groups replicas..replicas+surge-1 get the same names, and the
// first of them can need one more digit than any group of spec.replicas.
type runtimeNames struct {
	replicas, size int32
	surge          int32 // the surge groups a rolling update adds (scaledMaxSurge)
	// longestFixed is the longest pod name (the statefulset.kubernetes.io/pod-name label), and
	// longestPrefix the longest StatefulSet name whose revision label adds "-<hash>".
	longestFixed, longestPrefix int
	what                        string // the StatefulSets whose revision label is longest, for messages
}

// runtimeNamesOf is the runtime names of a LeaderWorkerSet named name with replicas groups of
// size pods, whose rolling updates add surge groups.
func runtimeNamesOf(name string, replicas, size, surge int32, hashedGroups bool) runtimeNames {
	r := runtimeNames{replicas: replicas, size: size, what: "the leader StatefulSet's"}
	groupDigits := revisionHashLength // hash-suffixed group names, whatever their count
	if !hashedGroups {
		r.surge = max(surge, 0)
		groupDigits = len(strconv.Itoa(int(max(r.lastGroup(), 0))))
	}
	r.longestFixed = len(name) + 1 + groupDigits
	r.longestPrefix = len(name)
	if size > 1 {
		workerDigits := len(strconv.Itoa(int(size - 1)))
		r.longestFixed += 1 + workerDigits
		r.longestPrefix = len(name) + 1 + groupDigits
		r.what = "the worker StatefulSets'"
	}
	return r
}

// lastGroup is the highest group index the controller creates, a surge group's in a rolling update.
func (r runtimeNames) lastGroup() int32 { return r.replicas + r.surge - 1 }

// firstLongGroup is the first group index with more digits than every group of spec.replicas.
func (r runtimeNames) firstLongGroup() int32 {
	g := int32(10)
	for g <= max(r.replicas-1, 0) {
		g *= 10
	}
	return g
}

// surgeDecides says whether the surge groups need more digits than the groups of spec.replicas:
// then the names fit spec.replicas and not the rolling update.
func (r runtimeNames) surgeDecides() bool {
	return r.surge > 0 && r.lastGroup() >= r.firstLongGroup()
}

// longest is the longest derived value with a revision hash of hashLength characters.
func (r runtimeNames) longest(hashLength int) int {
	return max(r.longestFixed, r.longestPrefix+1+hashLength)
}

// groupsOf spells "2 groups of 1 pod", and the surge groups when they decide: "10 groups of 2
// pods and, during a rolling update, surge group 10 (max_surge = 1)".
func (r runtimeNames) groupsOf(maxSurge string) string {
	s := fmt.Sprintf("%d groups of %d pod%s", r.replicas, r.size, map[bool]string{true: "s"}[r.size != 1])
	if r.surgeDecides() {
		s += fmt.Sprintf(" and, during a rolling update, surge %s (%s = %s)", GroupRange(r.replicas, r.lastGroup()), maxSurgeAttribute, maxSurge)
	}
	return s
}

// maxSurgeAttribute is the attribute that adds the surge groups, for messages.
const maxSurgeAttribute = "spec.rollout_strategy.rolling_update_configuration.max_surge"

// fix is the end of a message on a name too long: the longest name that fits, and, when only
// the surge groups do not fit, the surge that keeps their indices as short as the others'
// (none when replicas is a power of ten).
func (r runtimeNames) fix(name string, longest int) string {
	s := fmt.Sprintf("use a name of at most %d characters", len(name)-(longest-63))
	switch room := r.firstLongGroup() - r.replicas; {
	case !r.surgeDecides():
	case room == 0:
		s += fmt.Sprintf(", or %s = 0 (with max_unavailable above 0)", maxSurgeAttribute)
	default:
		s += fmt.Sprintf(", or a %s of at most %d", maxSurgeAttribute, room)
	}
	return s
}

// runtimeNamesOfObject are the runtime names of a LeaderWorkerSet the LeaderWorkerSet controller
// rolls (its own: a template change makes a rolling update, with surge groups); scaledOnly, of one
// whose revision never changes after its creation (a DisaggregatedSet role's: that controller
// creates a LeaderWorkerSet per revision and then only scales it, LeaderWorkerSetManager.Create
// and Scale in pkg/controllers/disaggregatedset/lws_manager.go, v0.9.0 and v0.10.0, and
// computeNextNewReplicas in planner.go, v0.9.0 and v0.10.0, never scales it above the role's replicas),
// which never has surge groups.
func runtimeNamesOfObject(obj *lwsv1.LeaderWorkerSet, scaledOnly bool) runtimeNames {
	surge := int32(0)
	if !scaledOnly {
		surge = int32(scaledMaxSurge(obj))
	}
	return runtimeNamesOf(obj.Name, ptr.Deref(obj.Spec.Replicas, 1), ptr.Deref(obj.Spec.LeaderWorkerTemplate.Size, 1), surge,
		obj.Spec.GroupIdentity == lwsv1.GroupIdentityHash)
}

// maxSurgeString is max_surge as written, for messages.
func maxSurgeString(obj *lwsv1.LeaderWorkerSet) string {
	if ru := obj.Spec.RolloutStrategy.RollingUpdateConfiguration; ru != nil {
		return ru.MaxSurge.String()
	}
	return "0"
}

// validateRuntimeNames rejects a name that leaves no room for the names and labels the
// controller derives from it (63 characters for a label value): the webhook accepts such a name
// and then no group ever comes up, or, when only the surge groups of a rolling update do not
// fit, the next rolling update stalls on its first surge group. A name that fits only when the
// template's revision hash is shorter than 10 characters is left to runtimeNameWarnings.
func validateRuntimeNames(obj *lwsv1.LeaderWorkerSet) field.ErrorList {
	return validateRuntimeNamesAs(obj, false)
}

// validateRuntimeNamesAs is validateRuntimeNames, without surge groups when scaledOnly.
func validateRuntimeNamesAs(obj *lwsv1.LeaderWorkerSet, scaledOnly bool) field.ErrorList {
	name := obj.Name
	if name == "" || obj.Spec.Replicas == nil || obj.Spec.LeaderWorkerTemplate.Size == nil {
		return nil
	}
	r := runtimeNamesOfObject(obj, scaledOnly)
	if r.longest(minRevisionHashLength) <= 63 {
		return nil
	}
	longest := r.longest(revisionHashLength)
	if r.surgeDecides() {
		if plain := runtimeNamesOfObject(obj, true); plain.longest(minRevisionHashLength) <= 63 {
			return field.ErrorList{field.Invalid(metadataPath.Child("name"), name, fmt.Sprintf(
				"too long for the surge groups of a rolling update: the groups of spec.replicas fit, but with %s "+
					"the surge group %d's worker StatefulSet's controller-revision-hash label and pod names reach %d characters, "+
					"over the 63 allowed for label values, so that group's pods would never be created and the next rolling update "+
					"(any change of the template) would stall; %s",
				r.groupsOf(maxSurgeString(obj)), r.firstLongGroup(), longest, r.fix(name, longest)))}
		}
	}
	return field.ErrorList{field.Invalid(metadataPath.Child("name"), name, fmt.Sprintf(
		"too long for the objects the controller creates: with %s %s controller-revision-hash label and pod names "+
			"reach %d characters, over the 63 allowed for label values, so pods would never be created; %s",
		r.groupsOf(maxSurgeString(obj)), r.what, longest, r.fix(name, longest)))}
}

// runtimeNameWarnings warns about a name whose groups come up only if the StatefulSet
// controller's revision hash of the template is shorter than 10 characters.
func runtimeNameWarnings(obj *lwsv1.LeaderWorkerSet) []kindrules.Warning {
	return runtimeNameWarningsAs(obj, false)
}

// runtimeNameWarningsAs is runtimeNameWarnings, without surge groups when scaledOnly.
func runtimeNameWarningsAs(obj *lwsv1.LeaderWorkerSet, scaledOnly bool) []kindrules.Warning {
	if obj.Name == "" {
		return nil
	}
	r := runtimeNamesOfObject(obj, scaledOnly)
	longest := r.longest(revisionHashLength)
	if longest <= 63 || r.longest(minRevisionHashLength) > 63 {
		return nil // always fits, or rejected by validateRuntimeNames
	}
	fits := 63 - r.longestPrefix - 1
	what, otherwise := r.what, "the StatefulSet's pods are never created and the apply fails on the StatefulSet's FailedCreate event"
	if r.surgeDecides() && runtimeNamesOfObject(obj, true).longest(revisionHashLength) <= 63 {
		what = fmt.Sprintf("the surge group %d's worker StatefulSet's", r.firstLongGroup())
		otherwise = "that group's pods are never created and the next rolling update (any change of the template) stalls on it"
	}
	return []kindrules.Warning{{Path: metadataPath.Child("name"), Summary: "Name may be too long for the controller's objects",
		Detail: fmt.Sprintf("with %s, %s controller-revision-hash label is %d characters plus the revision hash the StatefulSet "+
			"controller computes from the template (8 to 10 characters; 10 for most templates). It fits the 63 allowed for a "+
			"label value only with a hash of at most %d characters: otherwise %s; %s to be sure",
			r.groupsOf(maxSurgeString(obj)), what, r.longestPrefix+1, fits, otherwise, r.fix(obj.Name, longest))}}
}

// RuntimeNameWarnings is runtimeNameWarnings: the warnings of a LeaderWorkerSet's name, its
// rolling updates' surge groups included.
func RuntimeNameWarnings(obj *lwsv1.LeaderWorkerSet) []kindrules.Warning {
	return runtimeNameWarnings(obj)
}

// ScaledOnlyRuntimeNameWarnings is runtimeNameWarnings for a LeaderWorkerSet another kind's
// controller creates and then only scales (a DisaggregatedSet role's): no surge groups.
func ScaledOnlyRuntimeNameWarnings(obj *lwsv1.LeaderWorkerSet) []kindrules.Warning {
	return runtimeNameWarningsAs(obj, true)
}

// secretLikeEnv matches env var names that usually hold credentials.
var secretLikeEnv = regexp.MustCompile(`(?i)(^HF_TOKEN$|_TOKEN$|_KEY$|PASSWORD|SECRET)`)

// envPlaceholder matches values that only stand for a secret: a shell variable ($HF_TOKEN,
// ${HF_TOKEN}), a Kubernetes dependent variable reference ($(HF_TOKEN), expanded from another
// env var by the kubelet), or a template slot (<your-token>), as examples write them.
var envPlaceholder = regexp.MustCompile(`^\s*(\$[A-Za-z_][A-Za-z0-9_]*|\$\{[^}]+\}|\$\([^)]+\)|<[^<>]+>)\s*$`)

// checkWritten forbids spec.replicas beside manage_replicas = false: any written value, known
// or not, since the provider would never send it.
func checkWritten(config tftypes.Value) field.ErrorList {
	v, ok := k8sschema.ValueAt(node(), config, "spec.replicas")
	if !ok || v.IsNull() {
		return nil
	}
	if mv, ok := configExtra(config, AttrManageReplicas); ok && !mv {
		return field.ErrorList{field.Forbidden(field.NewPath("spec", "replicas"),
			"manage_replicas = false leaves spec.replicas to the autoscaler; remove spec.replicas (the object starts with the server default of 1 and the autoscaler scales it)")}
	}
	return nil
}

// checkConfig returns provider-only errors and warnings on the configuration as written.
func checkConfig(obj runtime.Object, config tftypes.Value) (field.ErrorList, []kindrules.Warning) {
	lws := kindrules.As[*lwsv1.LeaderWorkerSet](obj)
	var errs field.ErrorList
	var warnings []kindrules.Warning
	// startupPolicy has no omitempty: a written "" is sent as it is, and neither the CRD default
	// (absent fields only) nor the webhook replaces it, so the CRD's enum rejects it. Defaults
	// would turn it into LeaderCreated before Validate sees it: check the value as written.
	if v, ok := k8sschema.ValueAt(node(), config, "spec.startupPolicy"); ok && !v.IsNull() && lws.Spec.StartupPolicy == "" {
		errs = append(errs, field.NotSupported(field.NewPath("spec", "startupPolicy"), "",
			[]string{string(lwsv1.LeaderCreatedStartupPolicy), string(lwsv1.LeaderReadyStartupPolicy)}))
	}
	warnings = append(warnings, runtimeNameWarnings(lws)...)
	lwt := &lws.Spec.LeaderWorkerTemplate
	warnings = append(warnings, newerCoreFieldWarnings(lwt, lwtPath)...)
	check := func(tplPath *field.Path, containers []containerEnv) {
		for _, c := range containers {
			for i, e := range c.env {
				if e.Value != "" && secretLikeEnv.MatchString(e.Name) && !envPlaceholder.MatchString(e.Value) {
					p := tplPath.Child("spec", c.list).Index(c.index).Child("env").Index(i).Child("value")
					warnings = append(warnings, kindrules.Warning{Path: p, Summary: "Secret in a literal env value",
						Detail: fmt.Sprintf("env var %q holds a literal value, which is stored in plain text in the Terraform state and in the LeaderWorkerSet. "+
							"Reference a Secret instead: value_from = { secret_key_ref = { name = \"...\", key = \"...\" } }.", e.Name)})
				}
			}
		}
	}
	if lwt.LeaderTemplate != nil {
		check(lwtPath.Child("leaderTemplate"), envOf(lwt.LeaderTemplate.Spec.Containers, lwt.LeaderTemplate.Spec.InitContainers))
	}
	check(lwtPath.Child("workerTemplate"), envOf(lwt.WorkerTemplate.Spec.Containers, lwt.WorkerTemplate.Spec.InitContainers))
	return errs, warnings
}

func configExtra(config tftypes.Value, name string) (bool, bool) {
	var attrs map[string]tftypes.Value
	if !config.IsKnown() || config.IsNull() || config.As(&attrs) != nil {
		return false, false
	}
	v, ok := attrs[name]
	if !ok || !v.IsKnown() || v.IsNull() {
		return false, false
	}
	var b bool
	_ = v.As(&b)
	return b, true
}

type containerEnv struct {
	list  string
	index int
	env   []envVar
}

type envVar struct{ Name, Value string }

type corev1Container = corev1.Container

func envOf(containers, initContainers []corev1Container) []containerEnv {
	var out []containerEnv
	for i, c := range containers {
		out = append(out, containerEnv{"containers", i, toEnv(c)})
	}
	for i, c := range initContainers {
		out = append(out, containerEnv{"initContainers", i, toEnv(c)})
	}
	return out
}

func toEnv(c corev1Container) []envVar {
	out := make([]envVar, len(c.Env))
	for i, e := range c.Env {
		out[i] = envVar{e.Name, strings.TrimSpace(e.Value)}
	}
	return out
}
