package leaderworkerset

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

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate"
)

// ValidateAll checks a defaulted LeaderWorkerSet with every rule that rejects it or its groups:
// the webhook rules (released and newer fields), object metadata, the pod template rules the API server applies to
// the StatefulSets the controller creates, and the runtime name limits.
func ValidateAll(obj *lwsv1.LeaderWorkerSet) field.ErrorList {
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
	errs = append(errs, podtemplate.ValidateVolumeClaimTemplates(lwt.VolumeClaimTemplates, lwtPath.Child("volumeClaimTemplates"))...)
	errs = append(errs, podtemplate.ValidatePersistentVolumeClaimRetentionPolicy(lwt.PersistentVolumeClaimRetentionPolicy, lwtPath.Child("persistentVolumeClaimRetentionPolicy"))...)
	errs = append(errs, validateRuntimeNames(obj)...)
	return errs
}

// revisionHashLength is the longest hash the StatefulSet controller appends to a StatefulSet
// name in the controller-revision-hash label (a rand.SafeEncodeString of a 32-bit hash).
const revisionHashLength = 10

// validateRuntimeNames checks the names the controller derives from the LWS name. The webhook
// accepts any DNS-1035 label of up to 63 characters, but the worker StatefulSet of group i is
// "<name>-<i>", its pods "<name>-<i>-<j>", and the pods carry the labels
// controller-revision-hash="<statefulset>-<hash>" and statefulset.kubernetes.io/pod-name,
// which must be valid label values (63 characters at most). A name that is too long is
// accepted and then no group ever comes up.
func validateRuntimeNames(obj *lwsv1.LeaderWorkerSet) field.ErrorList {
	name := obj.Name
	if name == "" || obj.Spec.Replicas == nil || obj.Spec.LeaderWorkerTemplate.Size == nil {
		return nil
	}
	replicas, size := *obj.Spec.Replicas, *obj.Spec.LeaderWorkerTemplate.Size
	groupDigits := len(strconv.Itoa(int(max(replicas-1, 0))))
	if obj.Spec.GroupIdentity == lwsv1.GroupIdentityHash {
		groupDigits = revisionHashLength // hash-suffixed group names
	}
	workerDigits := len(strconv.Itoa(int(max(size-1, 0))))
	longestRevisionLabel := len(name) + 1 + groupDigits + 1 + revisionHashLength
	longestPodName := len(name) + 1 + groupDigits + 1 + workerDigits
	longest := max(longestRevisionLabel, longestPodName)
	if longest <= 63 {
		return nil
	}
	limit := len(name) - (longest - 63)
	return field.ErrorList{field.Invalid(metadataPath.Child("name"), name, fmt.Sprintf(
		"too long for the objects the controller creates: with %d groups of %d pods the worker StatefulSets' "+
			"controller-revision-hash label and pod names reach %d characters, over the 63 allowed for label values, "+
			"so pods would never be created; use a name of at most %d characters", replicas, size, longest, limit))}
}

// secretLikeEnv matches env var names that usually hold credentials.
var secretLikeEnv = regexp.MustCompile(`(?i)(^HF_TOKEN$|_TOKEN$|_KEY$|PASSWORD|SECRET)`)

// envPlaceholder matches values that only stand for a secret: a shell variable ($HF_TOKEN,
// ${HF_TOKEN}), a Kubernetes dependent variable reference ($(HF_TOKEN), expanded from another
// env var by the kubelet), or a template slot (<your-token>), as examples write them.
var envPlaceholder = regexp.MustCompile(`^\s*(\$[A-Za-z_][A-Za-z0-9_]*|\$\{[^}]+\}|\$\([^)]+\)|<[^<>]+>)\s*$`)

// checkConfig returns provider-only errors and warnings on the configuration as written.
func checkConfig(obj runtime.Object, config tftypes.Value) (field.ErrorList, []kube.Warning) {
	lws := kube.As[*lwsv1.LeaderWorkerSet](obj)
	var errs field.ErrorList
	var warnings []kube.Warning
	if v, ok := k8sschema.ValueAt(node(), config, "spec.replicas"); ok && !v.IsNull() {
		if mv, ok := configExtra(config, attrManageReplicas); ok && !mv {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "replicas"),
				"manage_replicas = false leaves spec.replicas to the autoscaler; remove spec.replicas (the object starts with the server default of 1 and the autoscaler scales it)"))
		}
	}
	// startupPolicy has no omitempty: a written "" is sent as it is, and neither the CRD default
	// (absent fields only) nor the webhook replaces it, so the CRD's enum rejects it. Defaults
	// would turn it into LeaderCreated before Validate sees it: check the value as written.
	if v, ok := k8sschema.ValueAt(node(), config, "spec.startupPolicy"); ok && !v.IsNull() && lws.Spec.StartupPolicy == "" {
		errs = append(errs, field.NotSupported(field.NewPath("spec", "startupPolicy"), "",
			[]string{string(lwsv1.LeaderCreatedStartupPolicy), string(lwsv1.LeaderReadyStartupPolicy)}))
	}
	lwt := &lws.Spec.LeaderWorkerTemplate
	check := func(tplPath *field.Path, containers []containerEnv) {
		for _, c := range containers {
			for i, e := range c.env {
				if e.Value != "" && secretLikeEnv.MatchString(e.Name) && !envPlaceholder.MatchString(e.Value) {
					p := tplPath.Child("spec", c.list).Index(c.index).Child("env").Index(i).Child("value")
					warnings = append(warnings, kube.Warning{Path: p, Summary: "Secret in a literal env value",
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
