package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	"k8s.io/apimachinery/pkg/api/validate/content"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// spec.scheduling (workload-aware scheduling, fields no released LWS version has): the levels
// whose building blocks become PodGroups, and the rules of the first scheduling stage.

// schedulingLevel is the one hierarchy level that the first stage of LWS
// workload-aware scheduling (one active level per object; nested levels come
// later upstream) materializes as PodGroups.
type schedulingLevel string

const (
	levelLWS     schedulingLevel = "lws"
	levelReplica schedulingLevel = "replica"
	levelRole    schedulingLevel = "role"
)

// activeSchedulingLevel selects the active level: top-level fields select the
// whole LWS, replica fields (or an empty replica object) the replica, and
// leader/worker the roles. Nothing selected means replica. ok is false when
// more than one level is active.
func activeSchedulingLevel(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) (level schedulingLevel, ok bool) {
	var active []schedulingLevel
	if s.SchedulingPolicy != nil || s.SchedulingConstraints != nil || s.DisruptionMode != nil {
		active = append(active, levelLWS)
	}
	if r := s.Replica; r != nil {
		roles := r.Leader != nil || r.Worker != nil
		replicaFields := r.SchedulingPolicy != nil || r.SchedulingConstraints != nil || r.DisruptionMode != nil
		if replicaFields || !roles {
			active = append(active, levelReplica)
		}
		if roles {
			active = append(active, levelRole)
		}
	}
	switch len(active) {
	case 0:
		return levelReplica, true
	case 1:
		return active[0], true
	default:
		return "", false
	}
}

// validateScheduling checks spec.scheduling: the shape of every building
// block (unions, minimums, topology, resource claims) and the rules of the
// first scheduling stage that depend on the active level.
func validateScheduling(obj *lwsv1.LeaderWorkerSet, size int32) field.ErrorList {
	s := obj.Spec.Scheduling
	lwt := &obj.Spec.LeaderWorkerTemplate
	leaderTemplate := effectiveLeaderTemplate(lwt)
	var errs field.ErrorList

	// Building blocks. Each level's policy default (for the Basic/all check):
	// LWS Basic, replica Gang, leader and worker Basic.
	errs = append(errs, validateCompositeBlock(schedulingPath, s.SchedulingPolicy, s.SchedulingConstraints, s.DisruptionMode, false)...)
	if r := s.Replica; r != nil {
		replicaPath := schedulingPath.Child("replica")
		errs = append(errs, validateCompositeBlock(replicaPath, r.SchedulingPolicy, r.SchedulingConstraints, r.DisruptionMode, true)...)
		if l := r.Leader; l != nil {
			p := replicaPath.Child("leader")
			errs = append(errs, validatePodGroupBlock(p, l.SchedulingPolicy, l.SchedulingConstraints, l.DisruptionMode, 1)...)
			errs = append(errs, validateResourceClaims(p.Child("resourceClaims"), l.ResourceClaims,
				leaderTemplate, lwtPath.Child(leaderTemplateField(lwt), "spec", "resourceClaims"))...)
		}
		if w := r.Worker; w != nil {
			p := replicaPath.Child("worker")
			errs = append(errs, validatePodGroupBlock(p, w.SchedulingPolicy, w.SchedulingConstraints, w.DisruptionMode, size-1)...)
			errs = append(errs, validateResourceClaims(p.Child("resourceClaims"), w.ResourceClaims,
				&lwt.WorkerTemplate, lwtPath.Child("workerTemplate", "spec", "resourceClaims"))...)
		}
	}

	// One workload-wide priority, and no user-managed scheduling groups, in
	// every mode.
	if leaderTemplate.Spec.PriorityClassName != lwt.WorkerTemplate.Spec.PriorityClassName {
		errs = append(errs, field.Invalid(schedulingPath, leaderTemplate.Spec.PriorityClassName,
			fmt.Sprintf("all pod templates must use the same priorityClassName (leader %q, worker %q)",
				leaderTemplate.Spec.PriorityClassName, lwt.WorkerTemplate.Spec.PriorityClassName)))
	}
	if leaderTemplate.Spec.SchedulingGroup != nil || lwt.WorkerTemplate.Spec.SchedulingGroup != nil {
		errs = append(errs, field.Forbidden(schedulingPath, "pod templates must not set spec.schedulingGroup when scheduling is set"))
	}

	level, ok := activeSchedulingLevel(s)
	if !ok {
		return append(errs, field.Invalid(schedulingPath, "",
			"exactly one active scheduling level is required: set either the top-level fields, replica fields, or replica.leader/replica.worker"))
	}

	if level == levelRole && size < 2 {
		errs = append(errs, field.Invalid(sizePath, size, "leader/worker scheduling requires size >= 2"))
	}

	// A gang that contains the leader and its workers can never start with
	// LeaderReady: the leader waits for the gang, the workers for the leader.
	// A worker-only gang is fine.
	if gangContainsBothRoles(s, level) && obj.Spec.StartupPolicy == lwsv1.LeaderReadyStartupPolicy {
		errs = append(errs, field.Forbidden(schedulingPath,
			"a gang containing the leader and its workers is incompatible with startupPolicy LeaderReady"))
	}
	if obj.Annotations[lwsv1.ExclusiveKeyAnnotationKey] != "" && (gangAtLevel(s, level) || topologyAtLevel(s, level)) {
		errs = append(errs, field.Forbidden(schedulingPath,
			fmt.Sprintf("gang scheduling or topology constraints cannot be combined with the %s annotation", lwsv1.ExclusiveKeyAnnotationKey)))
	}
	return errs
}

// validateCompositeBlock validates the WorkloadCompositePodGroup* building
// blocks of the LWS or replica level. In the first scheduling stage these levels are lowered to a
// flat PodGroup whose gang minimum LWS derives (replicas*size or size), so an
// explicit minGroupCount is Forbidden. (The replica-level "minCount must equal
// size" rule of the flat PR#982 design has no field to apply to here.)
func validateCompositeBlock(path *field.Path, policy *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy,
	constraints *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints,
	disruption *schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode, defaultGang bool) field.ErrorList {
	var errs field.ErrorList
	basic := !defaultGang
	if policy != nil {
		p := path.Child("schedulingPolicy")
		errs = append(errs, validateUnion(p, []string{"basic", "gang"}, policy.Basic != nil, policy.Gang != nil)...)
		if policy.Basic != nil || policy.Gang != nil {
			basic = policy.Basic != nil && policy.Gang == nil
		}
		if policy.Gang != nil && policy.Gang.MinGroupCount != nil {
			mp := p.Child("gang", "minGroupCount")
			if v := *policy.Gang.MinGroupCount; v < 1 {
				errs = append(errs, field.Invalid(mp, v, "must be greater than or equal to 1"))
			} else {
				errs = append(errs, field.Forbidden(mp, "minGroupCount requires CompositePodGroup support, which is not available yet"))
			}
		}
	}
	if constraints != nil {
		errs = append(errs, validateTopology(path.Child("schedulingConstraints", "topology"), constraints.Topology)...)
	}
	if disruption != nil {
		errs = append(errs, validateDisruption(path.Child("disruptionMode"), disruption.Single != nil, disruption.All != nil, basic)...)
	}
	return errs
}

// validatePodGroupBlock validates the WorkloadPodGroup* building blocks of the
// leader or worker level. members is the number of pods of the leaf: an
// explicit gang minCount must equal it (1 for the leader, size-1 for workers).
func validatePodGroupBlock(path *field.Path, policy *schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy,
	constraints *schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints,
	disruption *schedulingv1alpha3.WorkloadPodGroupDisruptionMode, members int32) field.ErrorList {
	var errs field.ErrorList
	basic := true
	if policy != nil {
		p := path.Child("schedulingPolicy")
		errs = append(errs, validateUnion(p, []string{"basic", "gang"}, policy.Basic != nil, policy.Gang != nil)...)
		if policy.Basic != nil || policy.Gang != nil {
			basic = policy.Basic != nil && policy.Gang == nil
		}
		if policy.Gang != nil && policy.Gang.MinCount != nil {
			mp := p.Child("gang", "minCount")
			if v := *policy.Gang.MinCount; v < 1 {
				errs = append(errs, field.Invalid(mp, v, "must be greater than or equal to 1"))
			} else if v != members {
				errs = append(errs, field.Invalid(mp, v, fmt.Sprintf("must equal the number of pods in the group (%d)", members)))
			}
		}
	}
	if constraints != nil {
		errs = append(errs, validateTopology(path.Child("schedulingConstraints", "topology"), constraints.Topology)...)
	}
	if disruption != nil {
		errs = append(errs, validateDisruption(path.Child("disruptionMode"), disruption.Single != nil, disruption.All != nil, basic)...)
	}
	return errs
}

// validateUnion requires exactly one set member, with the messages of
// apimachinery's declarative union validation.
func validateUnion(path *field.Path, members []string, set ...bool) field.ErrorList {
	var chosen []string
	for i, s := range set {
		if s {
			chosen = append(chosen, members[i])
		}
	}
	switch len(chosen) {
	case 1:
		return nil
	case 0:
		return field.ErrorList{field.Invalid(path, "", "must specify one of: "+strings.Join(members, ", "))}
	default:
		return field.ErrorList{field.Invalid(path, "{"+strings.Join(chosen, ", ")+"}", "must specify exactly one of: "+strings.Join(members, ", "))}
	}
}

func validateDisruption(path *field.Path, single, all, basicPolicy bool) field.ErrorList {
	errs := validateUnion(path, []string{"single", "all"}, single, all)
	if len(errs) == 0 && all && basicPolicy {
		errs = append(errs, field.Invalid(path, "all", "the disruptionMode `all` is not supported with the Basic scheduling policy"))
	}
	return errs
}

func validateTopology(path *field.Path, topology []schedulingv1alpha3.TopologyConstraint) field.ErrorList {
	var errs field.ErrorList
	if len(topology) > maxTopologyConstraints {
		errs = append(errs, field.TooMany(path, len(topology), maxTopologyConstraints))
	}
	for i, t := range topology {
		kp := path.Index(i).Child("key")
		if t.Key == "" {
			errs = append(errs, field.Required(kp, "key is required"))
			continue
		}
		for _, msg := range content.IsLabelKey(t.Key) {
			errs = append(errs, field.Invalid(kp, t.Key, msg))
		}
	}
	return errs
}

// validateResourceClaims validates the claims shared by a leaf PodGroup and
// checks that the pod template of that leaf references each claim in its
// spec.resourceClaims with the same name and source.
func validateResourceClaims(path *field.Path, claims []schedulingv1alpha3.WorkloadPodGroupResourceClaim,
	template *corev1.PodTemplateSpec, templateClaimsPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(claims) > maxResourceClaims {
		errs = append(errs, field.TooMany(path, len(claims), maxResourceClaims))
	}
	seen := map[string]bool{}
	for i, c := range claims {
		p := path.Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), "name is required"))
		} else {
			for _, msg := range utilvalidation.IsDNS1123Label(c.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), c.Name, msg))
			}
			if seen[c.Name] {
				errs = append(errs, field.Duplicate(p, c.Name))
			}
			seen[c.Name] = true
		}
		unionErrs := validateUnion(p, []string{"resourceClaimName", "resourceClaimTemplateName"},
			c.ResourceClaimName != nil, c.ResourceClaimTemplateName != nil)
		errs = append(errs, unionErrs...)
		for _, ref := range []struct {
			name  string
			value *string
		}{{"resourceClaimName", c.ResourceClaimName}, {"resourceClaimTemplateName", c.ResourceClaimTemplateName}} {
			if ref.value == nil {
				continue
			}
			for _, msg := range utilvalidation.IsDNS1123Subdomain(*ref.value) {
				errs = append(errs, field.Invalid(p.Child(ref.name), *ref.value, msg))
			}
		}
		if c.Name != "" && len(unionErrs) == 0 && !templateReferencesClaim(template, c) {
			errs = append(errs, field.Invalid(p, c.Name,
				fmt.Sprintf("must have a matching reference (same name and claim source) in %s", templateClaimsPath)))
		}
	}
	return errs
}

func templateReferencesClaim(template *corev1.PodTemplateSpec, c schedulingv1alpha3.WorkloadPodGroupResourceClaim) bool {
	for _, pc := range template.Spec.ResourceClaims {
		if pc.Name == c.Name && equalStringPtr(pc.ResourceClaimName, c.ResourceClaimName) &&
			equalStringPtr(pc.ResourceClaimTemplateName, c.ResourceClaimTemplateName) {
			return true
		}
	}
	return false
}

func gangContainsBothRoles(s *lwsv1.LeaderWorkerSetSchedulingConfiguration, level schedulingLevel) bool {
	switch level {
	case levelLWS:
		return compositeIsGang(s.SchedulingPolicy, false)
	case levelReplica:
		return compositeIsGang(replicaPolicy(s), true)
	}
	return false
}

func gangAtLevel(s *lwsv1.LeaderWorkerSetSchedulingConfiguration, level schedulingLevel) bool {
	switch level {
	case levelLWS, levelReplica:
		return gangContainsBothRoles(s, level)
	case levelRole:
		r := s.Replica
		return (r.Leader != nil && podGroupIsGang(r.Leader.SchedulingPolicy)) ||
			(r.Worker != nil && podGroupIsGang(r.Worker.SchedulingPolicy))
	}
	return false
}

func topologyAtLevel(s *lwsv1.LeaderWorkerSetSchedulingConfiguration, level schedulingLevel) bool {
	switch level {
	case levelLWS:
		return s.SchedulingConstraints != nil && len(s.SchedulingConstraints.Topology) > 0
	case levelReplica:
		r := s.Replica
		return r != nil && r.SchedulingConstraints != nil && len(r.SchedulingConstraints.Topology) > 0
	case levelRole:
		r := s.Replica
		return (r.Leader != nil && r.Leader.SchedulingConstraints != nil && len(r.Leader.SchedulingConstraints.Topology) > 0) ||
			(r.Worker != nil && r.Worker.SchedulingConstraints != nil && len(r.Worker.SchedulingConstraints.Topology) > 0)
	}
	return false
}

func replicaPolicy(s *lwsv1.LeaderWorkerSetSchedulingConfiguration) *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy {
	if s.Replica == nil {
		return nil
	}
	return s.Replica.SchedulingPolicy
}

// compositeIsGang resolves a composite policy: unset (or an empty object,
// which is reported separately) means the level default.
func compositeIsGang(p *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy, defaultGang bool) bool {
	if p == nil || (p.Basic == nil && p.Gang == nil) {
		return defaultGang
	}
	return p.Basic == nil
}

func podGroupIsGang(p *schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy) bool {
	return p != nil && p.Basic == nil && p.Gang != nil
}

// effectiveLeaderTemplate is the leader template, or the worker template when
// no leader template is given.
func effectiveLeaderTemplate(lwt *lwsv1.LeaderWorkerTemplate) *corev1.PodTemplateSpec {
	if lwt.LeaderTemplate != nil {
		return lwt.LeaderTemplate
	}
	return &lwt.WorkerTemplate
}

func leaderTemplateField(lwt *lwsv1.LeaderWorkerTemplate) string {
	if lwt.LeaderTemplate != nil {
		return "leaderTemplate"
	}
	return "workerTemplate"
}
