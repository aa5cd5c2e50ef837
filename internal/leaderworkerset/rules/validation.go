package rules

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// The rules below restate what the LeaderWorkerSet CRD schema and the LWS
// validating webhook enforce (upstream sources: sigs.k8s.io/lws v0.9.0 and main 060ab4d
// pkg/webhooks/leaderworkerset_webhook.go, PR#987 groupIdentity, PR#877
// maxGroupRestarts, PR#982 and the newer hierarchical scheduling code, and the
// k8s.io/api v0.37.2 scheduling/v1alpha3 building blocks).
//
// Deliberately left out:
//   - anything that depends on the cluster: LWS feature gates, the configured
//     scheduler provider (volcano/kubernetes), served scheduling APIs, and the
//     provider-specific delegation annotations
//     (scheduling.k8s.io/group-template-name, parent-compositepodgroup);
//   - pod template internals (internal/podtemplate validates those);
//   - generic label/annotation syntax of metadata (shared metadata handling).
//
// Paths use the JSON names with the correct lowercase "subGroupPolicy"; the
// server reports the subgroup errors at "SubGroupPolicy".

const (
	maxReplicas            = 1000000
	maxResourceClaims      = 4
	maxTopologyConstraints = 1
)

var (
	metadataPath       = field.NewPath("metadata")
	specPath           = field.NewPath("spec")
	lwtPath            = specPath.Child("leaderWorkerTemplate")
	sizePath           = lwtPath.Child("size")
	subGroupPolicyPath = lwtPath.Child("subGroupPolicy")
	subGroupSizePath   = subGroupPolicyPath.Child("subGroupSize")
	rollingUpdatePath  = specPath.Child("rolloutStrategy", "rollingUpdateConfiguration")
	groupIdentityPath  = specPath.Child("groupIdentity")
	schedulingPath     = specPath.Child("scheduling")

	volumeClaimTemplatesPath = lwtPath.Child("volumeClaimTemplates")
)

// Validate returns every LeaderWorkerSet-level error the API server (CRD
// schema plus the LWS validating webhook) would report for obj on create. It
// expects the object after SetDefaults; missing pointers are read with their
// defaults so that it never panics. Update-only rules are in ValidateUpdate.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/webhooks/leaderworkerset_webhook.go LeaderWorkerSetWebhook.generalValidate, merged with the
// CRD schema rules (sigs.k8s.io/lws@v0.9.0 config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml) and the
// rules of fields no released version has (validateGroupIdentity, validateMaxGroupRestarts, validateScheduling);
// it keeps its own name because it combines them.
func Validate(obj *lwsv1.LeaderWorkerSet) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateMetadata(obj)...)

	spec := &obj.Spec
	replicas := deref(spec.Replicas, 1)
	size := deref(spec.LeaderWorkerTemplate.Size, 1)

	// Replicas and size: CRD minimum/maximum and the webhook's checks.
	if replicas < 0 {
		errs = append(errs, field.Invalid(specPath.Child("replicas"), replicas, "must be greater than or equal to 0"))
	} else if replicas > maxReplicas {
		errs = append(errs, field.Invalid(specPath.Child("replicas"), replicas, fmt.Sprintf("must be less than or equal to %d", maxReplicas)))
	}
	if size < 1 {
		errs = append(errs, field.Invalid(sizePath, size, "must be greater than or equal to 1"))
	}
	if int64(replicas)*int64(size) > math.MaxInt32 {
		errs = append(errs, field.Invalid(specPath.Child("replicas"), replicas,
			fmt.Sprintf("the product of replicas and size must not exceed %d", math.MaxInt32)))
	}

	// startupPolicy has no omitempty, so an empty value reaches the CRD enum.
	errs = append(errs, validateEnum(specPath.Child("startupPolicy"), string(spec.StartupPolicy), false,
		string(lwsv1.LeaderCreatedStartupPolicy), string(lwsv1.LeaderReadyStartupPolicy))...)
	errs = append(errs, validateEnum(lwtPath.Child("restartPolicy"), string(spec.LeaderWorkerTemplate.RestartPolicy), true,
		string(lwsv1.DeprecatedDefaultRestartPolicy), string(lwsv1.RecreateGroupOnPodRestart),
		string(lwsv1.RecreateGroupAfterStart), string(lwsv1.NoneRestartPolicy))...)
	// An empty rollout type is filled in by the mutating webhook before the
	// schema is checked.
	errs = append(errs, validateEnum(specPath.Child("rolloutStrategy", "type"), string(spec.RolloutStrategy.Type), true,
		string(lwsv1.RollingUpdateStrategyType))...)
	if nc := spec.NetworkConfig; nc != nil && nc.SubdomainPolicy != nil {
		errs = append(errs, validateEnum(specPath.Child("networkConfig", "subdomainPolicy"), string(*nc.SubdomainPolicy), false,
			string(lwsv1.SubdomainShared), string(lwsv1.SubdomainUniquePerReplica))...)
	}

	errs = append(errs, validateRollingUpdate(spec.RolloutStrategy.RollingUpdateConfiguration, replicas)...)
	errs = append(errs, validateSubGroupPolicy(obj, size)...)
	errs = append(errs, validateGroupIdentity(spec)...)
	errs = append(errs, validateMaxGroupRestarts(&spec.LeaderWorkerTemplate)...)
	if spec.Scheduling != nil {
		errs = append(errs, validateScheduling(obj, size)...)
	}
	return errs
}

// validateMetadata checks metadata.name as a DNS-1035 label (it becomes the headless Service name), the
// namespace format, and that the subgroup-exclusive-topology annotation comes with a subGroupPolicy.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/webhooks/leaderworkerset_webhook.go LeaderWorkerSetWebhook.generalValidate
// (its metadata part; upstream runs ValidateObjectMeta with NameIsDNS1035Label).
func validateMetadata(obj *lwsv1.LeaderWorkerSet) field.ErrorList {
	var errs field.ErrorList
	// The name becomes the headless Service name, hence DNS-1035.
	if obj.Name == "" {
		errs = append(errs, field.Required(metadataPath.Child("name"), "name is required"))
	} else {
		for _, msg := range utilvalidation.IsDNS1035Label(obj.Name) {
			errs = append(errs, field.Invalid(metadataPath.Child("name"), obj.Name, msg))
		}
	}
	// Namespace is defaulted by the provider, so only its format is checked.
	if obj.Namespace != "" {
		for _, msg := range utilvalidation.IsDNS1123Label(obj.Namespace) {
			errs = append(errs, field.Invalid(metadataPath.Child("namespace"), obj.Namespace, msg))
		}
	}
	if v, ok := obj.Annotations[lwsv1.SubGroupExclusiveKeyAnnotationKey]; ok && obj.Spec.LeaderWorkerTemplate.SubGroupPolicy == nil {
		errs = append(errs, field.Invalid(metadataPath.Child("annotations").Key(lwsv1.SubGroupExclusiveKeyAnnotationKey), v,
			"requires spec.leaderWorkerTemplate.subGroupPolicy"))
	}
	return errs
}

// validateEnum reports NotSupported unless value is one of allowed. An empty
// value is accepted when emptyOK (the field is omitted and then defaulted).
func validateEnum(path *field.Path, value string, emptyOK bool, allowed ...string) field.ErrorList {
	if value == "" && emptyOK {
		return nil
	}
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(path, value, allowed)}
}

// validateRollingUpdate validates spec.rolloutStrategy.rollingUpdateConfiguration: partition, maxUnavailable,
// maxSurge, and that both do not scale to 0.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/webhooks/leaderworkerset_webhook.go LeaderWorkerSetWebhook.generalValidate
// (its rollingUpdateConfiguration part).
func validateRollingUpdate(cfg *lwsv1.RollingUpdateConfiguration, replicas int32) field.ErrorList {
	if cfg == nil {
		return nil
	}
	var errs field.ErrorList
	if cfg.Partition != nil && *cfg.Partition < 0 {
		errs = append(errs, field.Invalid(rollingUpdatePath.Child("partition"), *cfg.Partition, "must be greater than or equal to 0"))
	}
	unavailablePath := rollingUpdatePath.Child("maxUnavailable")
	surgePath := rollingUpdatePath.Child("maxSurge")
	unavailableErrs := validateIntOrPercent(cfg.MaxUnavailable, unavailablePath)
	surgeErrs := validateIntOrPercent(cfg.MaxSurge, surgePath)
	errs = append(errs, unavailableErrs...)
	errs = append(errs, surgeErrs...)

	// The webhook also scales both values by replicas (maxUnavailable rounded
	// down, maxSurge rounded up) and rejects the pair when both come out 0.
	// It reports a second "invalid value" error for a malformed string and may
	// then add this one too; we report a malformed value once and skip the
	// pair check, since its outcome would be meaningless.
	if len(unavailableErrs) > 0 || len(surgeErrs) > 0 || replicas == 0 {
		return errs
	}
	unavailable, err1 := intstr.GetScaledValueFromIntOrPercent(&cfg.MaxUnavailable, int(replicas), false)
	surge, err2 := intstr.GetScaledValueFromIntOrPercent(&cfg.MaxSurge, int(replicas), true)
	if err1 == nil && err2 == nil && unavailable == 0 && surge == 0 {
		errs = append(errs, field.Invalid(unavailablePath, cfg.MaxUnavailable.String(), "must not be 0 when `maxSurge` is 0"))
	}
	return errs
}

// validateIntOrPercent accepts a non-negative integer or a percentage string
// "N%" of at most 100%. A numeric string without "%" is rejected, as by the
// webhook; the Terraform layer hands whole numbers over as intstr.Int.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/webhooks/leaderworkerset_webhook.go validatePositiveIntOrPercent
// and isNotMoreThan100Percent (with getPercentValue); it keeps its own name because it merges them.
func validateIntOrPercent(v intstr.IntOrString, path *field.Path) field.ErrorList {
	switch v.Type {
	case intstr.Int:
		if v.IntVal < 0 {
			return field.ErrorList{field.Invalid(path, v.IntVal, "must be greater than or equal to 0")}
		}
		return nil
	case intstr.String:
		var errs field.ErrorList
		for _, msg := range utilvalidation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(path, v.StrVal, msg))
		}
		if len(errs) > 0 {
			return errs
		}
		if pct, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%")); pct > 100 {
			return field.ErrorList{field.Invalid(path, v.StrVal, "must not be greater than 100%")}
		}
		return nil
	default:
		return field.ErrorList{field.Invalid(path, v.String(), "must be an integer or percentage (e.g '5%')")}
	}
}

// validateSubGroupPolicy validates spec.leaderWorkerTemplate.subGroupPolicy: the CRD enum of
// subGroupPolicyType, a required subGroupSize, and its divisibility rules. It keeps its own name: upstream's
// validateUpdateSubGroupPolicy runs on create as well, and this also holds the CRD enum.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/webhooks/leaderworkerset_webhook.go validateUpdateSubGroupPolicy.
func validateSubGroupPolicy(obj *lwsv1.LeaderWorkerSet, size int32) field.ErrorList {
	policy := obj.Spec.LeaderWorkerTemplate.SubGroupPolicy
	if policy == nil {
		return nil
	}
	var errs field.ErrorList
	if policy.Type != nil {
		errs = append(errs, validateEnum(subGroupPolicyPath.Child("subGroupPolicyType"), string(*policy.Type), false,
			string(lwsv1.SubGroupPolicyTypeLeaderWorker), string(lwsv1.SubGroupPolicyTypeLeaderExcluded))...)
	}
	if policy.SubGroupSize == nil {
		// The webhook on lws main panics here (rejecting the request);
		// newer code reports Required.
		return append(errs, field.Required(subGroupSizePath, "subGroupSize is required when subGroupPolicy is set"))
	}
	n := *policy.SubGroupSize
	if n < 1 {
		return append(errs, field.Invalid(subGroupSizePath, n, "must be greater than or equal to 1"))
	}
	if size < 1 {
		return errs // already reported on size; the arithmetic below would mislead.
	}
	if size%n != 0 && (size-1)%n != 0 {
		errs = append(errs, field.Invalid(subGroupSizePath, n, "size or size - 1 must be divisible by subGroupSize"))
	}
	if n > size {
		errs = append(errs, field.Invalid(subGroupSizePath, n, "subGroupSize cannot be larger than size"))
	}
	if policy.Type != nil && *policy.Type == lwsv1.SubGroupPolicyTypeLeaderExcluded && (size-1)%n != 0 {
		errs = append(errs, field.Invalid(subGroupSizePath, n, "size - 1 must be divisible by subGroupSize when using LeaderExcluded"))
	}
	return errs
}

func normalizeGroupIdentity(v lwsv1.GroupIdentityType) lwsv1.GroupIdentityType {
	if v == "" {
		return lwsv1.GroupIdentityOrdinal
	}
	return v
}

func validateGroupIdentity(spec *lwsv1.LeaderWorkerSetSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateEnum(groupIdentityPath, string(spec.GroupIdentity), true,
		string(lwsv1.GroupIdentityOrdinal), string(lwsv1.GroupIdentityHash))...)
	replacementPath := specPath.Child("groupReplacementPolicy")
	errs = append(errs, validateEnum(replacementPath, string(spec.GroupReplacementPolicy), true,
		string(lwsv1.GroupReplacementPostTermination), string(lwsv1.GroupReplacementImmediate))...)

	hash := normalizeGroupIdentity(spec.GroupIdentity) == lwsv1.GroupIdentityHash
	// kubernetes-sigs/lws PR #1050 (KEP-898), as the newer-fields API in
	// internal/apis/leaderworkerset/v1 describes it: Immediate only with Hash.
	// No merged webhook code shows the error kind; Invalid is the webhook's usual kind.
	if spec.GroupReplacementPolicy == lwsv1.GroupReplacementImmediate && !hash {
		errs = append(errs, field.Invalid(replacementPath, spec.GroupReplacementPolicy,
			"Immediate is only supported with groupIdentity Hash"))
	}
	if !hash {
		return errs
	}
	// An earlier revision of kubernetes-sigs/lws PR #987 also rejected
	// subGroupPolicy and subdomainPolicy UniquePerReplica with Hash; the merged
	// PR (and the newer-fields API) accept them, so only these two remain.
	if len(spec.LeaderWorkerTemplate.VolumeClaimTemplates) > 0 {
		errs = append(errs, field.Invalid(groupIdentityPath, spec.GroupIdentity,
			"volumeClaimTemplates are not supported with groupIdentity Hash"))
	}
	if cfg := spec.RolloutStrategy.RollingUpdateConfiguration; cfg != nil && deref(cfg.Partition, 0) != 0 {
		errs = append(errs, field.Invalid(groupIdentityPath, spec.GroupIdentity,
			"rollingUpdateConfiguration.partition is not supported with groupIdentity Hash"))
	}
	return errs
}

func validateMaxGroupRestarts(lwt *lwsv1.LeaderWorkerTemplate) field.ErrorList {
	if lwt.MaxGroupRestarts == nil {
		return nil
	}
	path := lwtPath.Child("maxGroupRestarts")
	if *lwt.MaxGroupRestarts < 0 {
		return field.ErrorList{field.Invalid(path, *lwt.MaxGroupRestarts, "must be greater than or equal to 0")}
	}
	// An earlier revision of kubernetes-sigs/lws PR #877 allowed only
	// RecreateGroupOnPodRestart; the newer-fields API and later code also allow
	// RecreateGroupAfterStart, which we follow.
	// Whether Hash rejects the field is unsettled upstream, so it is not
	// checked.
	switch lwt.RestartPolicy {
	case "", lwsv1.RecreateGroupOnPodRestart, lwsv1.RecreateGroupAfterStart:
		return nil
	}
	return field.ErrorList{field.Invalid(path, *lwt.MaxGroupRestarts,
		"maxGroupRestarts is only supported when restartPolicy recreates the group (RecreateGroupOnPodRestart or RecreateGroupAfterStart)")}
}

// ValidateUpdate returns the errors of the update-only rules (immutable
// fields) for changing oldObj into newObj. It does not repeat Validate:
// callers run Validate(newObj) as well. Both objects are expected after
// SetDefaults.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/webhooks/leaderworkerset_webhook.go LeaderWorkerSetWebhook.ValidateUpdate
// (the update-only part), with the update rules of fields no released version has.
func ValidateUpdate(newObj, oldObj *lwsv1.LeaderWorkerSet) field.ErrorList {
	var errs field.ErrorList
	if newObj.Name != oldObj.Name {
		errs = append(errs, field.Invalid(metadataPath.Child("name"), newObj.Name, "field is immutable"))
	}
	if newObj.Namespace != oldObj.Namespace {
		errs = append(errs, field.Invalid(metadataPath.Child("namespace"), newObj.Namespace, "field is immutable"))
	}

	newSG, oldSG := newObj.Spec.LeaderWorkerTemplate.SubGroupPolicy, oldObj.Spec.LeaderWorkerTemplate.SubGroupPolicy
	switch {
	case newSG != nil && oldSG == nil:
		errs = append(errs, field.Invalid(subGroupSizePath, derefOrNil(newSG.SubGroupSize), "cannot enable subGroupPolicy after the LeaderWorkerSet is created"))
	case newSG == nil && oldSG != nil:
		errs = append(errs, field.Invalid(subGroupSizePath, derefOrNil(oldSG.SubGroupSize), "cannot remove subGroupPolicy after it is enabled"))
	case subGroupSizeChanged(newSG, oldSG):
		errs = append(errs, field.Invalid(subGroupSizePath, derefOrNil(newSG.SubGroupSize), "field is immutable"))
	}
	// subGroupPolicyType, groupReplacementPolicy and maxGroupRestarts are
	// mutable. The webhook's "cannot set subdomainPolicy as null" never
	// fires because the mutating webhook refills it first, so it is omitted.

	if normalizeGroupIdentity(newObj.Spec.GroupIdentity) != normalizeGroupIdentity(oldObj.Spec.GroupIdentity) {
		errs = append(errs, field.Invalid(groupIdentityPath, newObj.Spec.GroupIdentity, "groupIdentity is immutable"))
	}

	newS, oldS := newObj.Spec.Scheduling, oldObj.Spec.Scheduling
	switch {
	case newS != nil && oldS == nil:
		errs = append(errs, field.Forbidden(schedulingPath, "cannot add scheduling after creation"))
	case newS == nil && oldS != nil:
		errs = append(errs, field.Forbidden(schedulingPath, "cannot remove scheduling after creation"))
	case newS != nil:
		newLevel, newOK := activeSchedulingLevel(newS)
		oldLevel, oldOK := activeSchedulingLevel(oldS)
		if newOK && oldOK && newLevel != oldLevel {
			errs = append(errs, field.Forbidden(schedulingPath, "cannot switch the active scheduling level after creation"))
		} else if !schedulingEqual(newS, oldS) {
			// The newer-fields API declares the whole field immutable.
			// (KEP-666 would still let an explicit leaf gang.minCount follow
			// size; we follow the API.)
			errs = append(errs, field.Forbidden(schedulingPath, "field is immutable"))
		}
		// The Workload's priority is fixed once compiled.
		oldPC, oldConsistent := workloadPriorityClassName(&oldObj.Spec.LeaderWorkerTemplate)
		newPC, newConsistent := workloadPriorityClassName(&newObj.Spec.LeaderWorkerTemplate)
		if oldConsistent && newConsistent && oldPC != newPC {
			errs = append(errs, field.Forbidden(lwtPath, "cannot change priorityClassName while scheduling is set"))
		}
	}
	return errs
}

// RequiresReplacement returns the paths whose change from oldObj to newObj
// the server refuses as an update, so that Terraform must plan a replacement:
// groupIdentity, spec.scheduling (added, removed or changed), subGroupSize,
// adding or removing subGroupPolicy, and a change of the volume claim templates
// that the controller cannot carry into its StatefulSets (claimTemplatesChanged).
func RequiresReplacement(newObj, oldObj *lwsv1.LeaderWorkerSet) []*field.Path {
	var paths []*field.Path
	if claimTemplatesChanged(newObj.Spec.LeaderWorkerTemplate.VolumeClaimTemplates, oldObj.Spec.LeaderWorkerTemplate.VolumeClaimTemplates) {
		paths = append(paths, volumeClaimTemplatesPath)
	}
	if normalizeGroupIdentity(newObj.Spec.GroupIdentity) != normalizeGroupIdentity(oldObj.Spec.GroupIdentity) {
		paths = append(paths, groupIdentityPath)
	}
	if newS, oldS := newObj.Spec.Scheduling, oldObj.Spec.Scheduling; (newS == nil) != (oldS == nil) ||
		(newS != nil && !schedulingEqual(newS, oldS)) {
		paths = append(paths, schedulingPath)
	}
	newSG, oldSG := newObj.Spec.LeaderWorkerTemplate.SubGroupPolicy, oldObj.Spec.LeaderWorkerTemplate.SubGroupPolicy
	if (newSG == nil) != (oldSG == nil) {
		paths = append(paths, subGroupPolicyPath)
	} else if subGroupSizeChanged(newSG, oldSG) {
		paths = append(paths, subGroupSizePath)
	}
	return paths
}

// UnknownRequiresReplacement lists the immutable fields (see RequiresReplacement) whose value
// is not known yet (for the volume claim templates, any value in them), at or under one of the unknown paths: they may change once known. A
// subGroupSize that oldObj does not have yet may be set once in place, so an unknown one forces
// nothing unless the whole policy is unknown.
func UnknownRequiresReplacement(oldObj *lwsv1.LeaderWorkerSet, unknown []*field.Path) []*field.Path {
	var paths []*field.Path
	covers := func(p *field.Path) bool {
		for _, u := range unknown {
			us, ps := u.String(), p.String()
			if us == ps || strings.HasPrefix(us, ps+".") || strings.HasPrefix(us, ps+"[") ||
				strings.HasPrefix(ps, us+".") {
				return true
			}
		}
		return false
	}
	for _, p := range []*field.Path{groupIdentityPath, schedulingPath, volumeClaimTemplatesPath} {
		if covers(p) {
			paths = append(paths, p)
		}
	}
	oldSG := oldObj.Spec.LeaderWorkerTemplate.SubGroupPolicy
	switch {
	case slices.ContainsFunc(unknown, func(u *field.Path) bool {
		return u.String() == subGroupPolicyPath.String() || strings.HasPrefix(subGroupPolicyPath.String(), u.String()+".")
	}):
		paths = append(paths, subGroupPolicyPath)
	case oldSG != nil && oldSG.SubGroupSize != nil && covers(subGroupSizePath):
		paths = append(paths, subGroupSizePath)
	}
	return paths
}

// subGroupSizeChanged reports a change of subGroupSize between two set
// policies. A legacy object without a size may set it once (newer upstream).
func subGroupSizeChanged(newSG, oldSG *lwsv1.SubGroupPolicy) bool {
	if newSG == nil || oldSG == nil || oldSG.SubGroupSize == nil {
		return false
	}
	return newSG.SubGroupSize == nil || *newSG.SubGroupSize != *oldSG.SubGroupSize
}

// schedulingEqual compares two scheduling configurations, treating an empty
// replica object like an absent one (both select the replica level with
// defaults).
func schedulingEqual(a, b *lwsv1.LeaderWorkerSetSchedulingConfiguration) bool {
	return equality.Semantic.DeepEqual(normalizeScheduling(a), normalizeScheduling(b))
}

func normalizeScheduling(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) *lwsv1.LeaderWorkerSetSchedulingConfiguration {
	if s == nil || s.Replica == nil || *s.Replica != (lwsv1.LeaderWorkerSetReplicaScheduling{}) {
		return s
	}
	out := *s
	out.Replica = nil
	return &out
}

// workloadPriorityClassName returns the priorityClassName shared by both
// templates, and false when they differ (reported by Validate).
func workloadPriorityClassName(lwt *lwsv1.LeaderWorkerTemplate) (string, bool) {
	worker := lwt.WorkerTemplate.Spec.PriorityClassName
	return worker, effectiveLeaderTemplate(lwt).Spec.PriorityClassName == worker
}

func deref(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func derefOrNil(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}

func equalStringPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// claimTemplatesChanged reports whether two lists of volume claim templates differ in what the
// controller copies into the StatefulSets it applies for the groups: each claim's name, access
// modes, storage class, volume mode and resources (sigs.k8s.io/lws@v0.9.0 and v0.10.0
// pkg/utils/controller/controller_utils.go GetPVCApplyConfiguration, applied by
// pkg/controllers/leaderworkerset_controller.go constructLeaderStatefulSetApplyConfiguration and
// pod_controller.go constructWorkerStatefulSetApplyConfiguration). A StatefulSet's
// volumeClaimTemplates are immutable (k8s.io/kubernetes@v1.37.2 pkg/apis/apps/validation
// ValidateStatefulSetUpdate), so after an in-place update with such a change the controller
// fails on every StatefulSet, and the groups never take the new revision. The other fields of a
// claim template are not copied, and change in place. The server defaults an unset volume mode
// to Filesystem, so the two are the same.
func claimTemplatesChanged(newVCTs, oldVCTs []corev1.PersistentVolumeClaim) bool {
	if len(newVCTs) != len(oldVCTs) {
		return true
	}
	for i := range newVCTs {
		if !equality.Semantic.DeepEqual(copiedClaim(&newVCTs[i]), copiedClaim(&oldVCTs[i])) {
			return true
		}
	}
	return false
}

// copiedClaim is what the controller copies of a claim template into its StatefulSets.
func copiedClaim(c *corev1.PersistentVolumeClaim) corev1.PersistentVolumeClaim {
	mode := c.Spec.VolumeMode
	if mode == nil {
		mode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
	return corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      c.Spec.AccessModes,
			StorageClassName: c.Spec.StorageClassName,
			VolumeMode:       mode,
			Resources:        corev1.VolumeResourceRequirements{Requests: c.Spec.Resources.Requests, Limits: c.Spec.Resources.Limits},
		},
	}
}
