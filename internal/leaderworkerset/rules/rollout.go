package rules

import (
	"fmt"
	"strings"

	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

// AttrAllowGroupRestarts is the guard against plans that recreate running groups (both kinds).
const AttrAllowGroupRestarts = "allow_group_restarts"

// AllowGroupRestartsAttribute is the schema of AttrAllowGroupRestarts; what names the kind's
// rollout ("groups", "roles").
func AllowGroupRestartsAttribute(what string) rschema.Attribute {
	return rschema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
		MarkdownDescription: "Whether a plan may recreate running " + what + ". Every plan of an in-place update says, " +
			"offline (also with `-refresh=false` and no credentials), whether the controller will roll the change out " +
			"and which groups it recreates, in a warning on the resource. Set to `false` in production workspaces: such a " +
			"plan then fails with an error naming the changed fields, while scaling, rollout strategy and object metadata " +
			"changes still pass (but for the `leaderworkerset.sigs.k8s.io/exclusive-topology` and `subgroup-exclusive-topology` " +
			"annotations of a LeaderWorkerSet, which its controller copies into the pod templates). Defaults to `true`."}
}

// revisionPaths are the fields the released controller's revision covers: getPatch in
// pkg/utils/revision/revision_utils.go (sigs.k8s.io/lws v0.9.0) keeps spec.networkConfig and
// spec.leaderWorkerTemplate of the (webhook-defaulted) object and nothing else, and the
// controller starts a rolling update when that patch differs from the current revision's
// (EqualRevision). replicas, startupPolicy, rolloutStrategy and metadata never roll.
var revisionPaths = []string{"spec.networkConfig", "spec.leaderWorkerTemplate"}

// revisionFields returns the JSON form of the fields the revision covers. As getPatch does, a
// missing networkConfig counts as subdomainPolicy Shared; a restartPolicy "Default" counts as
// "None", the value the webhook stores for it; fields the controller's types lack are left
// out (DropNewerCoreFields).
func revisionFields(lws *lwsv1.LeaderWorkerSet) (networkConfig, template any) {
	nc := lws.Spec.NetworkConfig
	if nc == nil || nc.SubdomainPolicy == nil {
		shared := lwsv1.SubdomainShared
		nc = &lwsv1.NetworkConfig{SubdomainPolicy: &shared}
	}
	lwt := lws.Spec.LeaderWorkerTemplate.DeepCopy()
	DropNewerCoreFields(lwt)
	if lwt.RestartPolicy == lwsv1.DeprecatedDefaultRestartPolicy {
		lwt.RestartPolicy = lwsv1.NoneRestartPolicy
	}
	return k8sschema.JSONValue(nc), k8sschema.JSONValue(lwt)
}

// Rollout is what the released controller does with an in-place update of a LeaderWorkerSet.
type Rollout struct {
	Name string // namespace/name
	// Changed are the fields whose change recreates groups (none: nothing rolls): those that
	// make a new revision, then the object annotations of Copied.
	Changed []*field.Path
	// Copied are the object annotations among Changed that the controller copies into the
	// leader StatefulSet's pod template (CopiedAnnotations): their change makes no new
	// revision, but the StatefulSet controller rolls the new template out by itself.
	Copied []*field.Path
	// OldReplicas and Replicas are the group counts before and after the apply.
	OldReplicas, Replicas int32
	// Partition: groups below it keep the old revision.
	Partition int32
	// PartitionOnly: no new revision, but a lower partition releases groups an earlier
	// partitioned rollout left at the previous revision (prior status.updatedReplicas below
	// replicas): the controller now recreates them.
	PartitionOnly bool
	// MaxUnavailable and MaxSurge as written and scaled by Replicas as the controller scales them.
	MaxUnavailableRaw, MaxSurgeRaw string
	MaxUnavailable, MaxSurge       int

	partitionFrom int32 // the prior partition, with PartitionOnly
	// exclusiveKey is the new exclusive-topology key when the update sets or changes it.
	exclusiveKey string
}

// PreviewRollout decides, as sigs.k8s.io/lws v0.9.0 does, whether an update of oldObj to newObj
// (both defaulted) rolls groups, and with which parameters.
func PreviewRollout(newObj, oldObj *lwsv1.LeaderWorkerSet) Rollout {
	r := Rollout{Name: newObj.Namespace + "/" + newObj.Name, OldReplicas: ReplicasOf(oldObj), Replicas: ReplicasOf(newObj)}
	newNC, newLWT := revisionFields(newObj)
	oldNC, oldLWT := revisionFields(oldObj)
	root := node()
	r.Changed = append(k8sschema.ChangedFields(k8sschema.NodeAt(root, revisionPaths[0]), field.NewPath("spec", "networkConfig"), oldNC, newNC),
		k8sschema.ChangedFields(k8sschema.NodeAt(root, revisionPaths[1]), field.NewPath("spec", "leaderWorkerTemplate"), oldLWT, newLWT)...)
	r.Copied = copiedAnnotationChanges(newObj, oldObj)
	if key := CopiedAnnotation(newObj, lwsv1.ExclusiveKeyAnnotationKey); key != "" && key != CopiedAnnotation(oldObj, lwsv1.ExclusiveKeyAnnotationKey) {
		r.exclusiveKey = key
	}
	r.Changed = append(r.Changed, r.Copied...)
	ru := newObj.Spec.RolloutStrategy.RollingUpdateConfiguration
	if ru == nil {
		ru = &lwsv1.RollingUpdateConfiguration{MaxUnavailable: intstr.FromInt32(1), MaxSurge: intstr.FromInt32(0)}
	}
	if ru.Partition != nil {
		r.Partition = *ru.Partition
	}
	r.MaxUnavailableRaw, r.MaxSurgeRaw = ru.MaxUnavailable.String(), ru.MaxSurge.String()
	// rollingUpdateParameters (pkg/controllers/leaderworkerset_controller.go, v0.9.0): maxSurge
	// rounds up and maxUnavailable down, both scaled by spec.replicas; the surge never exceeds
	// the replicas.
	r.MaxSurge = scaledMaxSurge(newObj)
	r.MaxUnavailable, _ = intstr.GetScaledValueFromIntOrPercent(&ru.MaxUnavailable, int(r.Replicas), false)
	// A partitioned rollout stops at the partition (rollingUpdateParameters keeps the leader
	// StatefulSet's partition at least spec's): its groups below stay at the previous revision,
	// which the status counts as not updated (updateConditions). Lowering the partition without
	// a new revision lets the rolling update go on down to the new partition.
	oldPartition := int32(0)
	if oru := oldObj.Spec.RolloutStrategy.RollingUpdateConfiguration; oru != nil && oru.Partition != nil {
		oldPartition = *oru.Partition
	}
	if len(r.Changed) == 0 && r.Partition < oldPartition && oldObj.Status.UpdatedReplicas < r.OldReplicas {
		r.PartitionOnly = true
		r.Changed = []*field.Path{field.NewPath("spec", "rolloutStrategy", "rollingUpdateConfiguration", "partition")}
		r.partitionFrom = oldPartition
	}
	return r
}

// CopiedAnnotations are the object annotations the controller copies into the pod templates of
// the StatefulSets it owns, so that their change recreates groups although the revision
// (getPatch: spec only) stays: constructLeaderStatefulSetApplyConfiguration
// (pkg/controllers/leaderworkerset_controller.go) writes them into the leader StatefulSet's pod
// template on every reconcile, and constructWorkerStatefulSetApplyConfiguration
// (pkg/controllers/pod_controller.go) into each worker StatefulSet it creates, in sigs.k8s.io/lws
// v0.9.0 and v0.10.0 (2161f38) alike. Both copy a key only when its value is not empty, the
// subgroup one only with a subGroupPolicy. No other key of the object reaches a pod template:
// v0.10.0 also copies the object's labels and annotations into the StatefulSets' own metadata
// (mergeMetadata, pkg/controllers/metadata.go), which recreates no pod.
var CopiedAnnotations = []string{lwsv1.ExclusiveKeyAnnotationKey, lwsv1.SubGroupExclusiveKeyAnnotationKey}

// CopiedAnnotation is the value the controller writes into the pod templates for the object
// annotation key ("" for none): see CopiedAnnotations.
func CopiedAnnotation(lws *lwsv1.LeaderWorkerSet, key string) string {
	if key == lwsv1.SubGroupExclusiveKeyAnnotationKey && lws.Spec.LeaderWorkerTemplate.SubGroupPolicy == nil {
		return ""
	}
	return lws.Annotations[key]
}

// copiedAnnotationChanges are the paths of the copied annotations whose copy changes.
func copiedAnnotationChanges(newObj, oldObj *lwsv1.LeaderWorkerSet) []*field.Path {
	var out []*field.Path
	for _, key := range CopiedAnnotations {
		if CopiedAnnotation(newObj, key) != CopiedAnnotation(oldObj, key) {
			out = append(out, field.NewPath("metadata", "annotations").Key(key))
		}
	}
	return out
}

// NewRevision says whether the update makes a new revision (a change of the fields getPatch
// keeps), as opposed to a change of copied annotations or a lower partition alone.
func (r Rollout) NewRevision() bool {
	return len(r.Changed) > len(r.Copied) && !r.PartitionOnly
}

// scaledMaxSurge is the surge groups of a rolling update as rollingUpdateParameters
// (pkg/controllers/leaderworkerset_controller.go, sigs.k8s.io/lws v0.9.0) scales maxSurge:
// rounded up, never more than the replicas; 0 without a rollingUpdateConfiguration.
func scaledMaxSurge(lws *lwsv1.LeaderWorkerSet) int {
	ru := lws.Spec.RolloutStrategy.RollingUpdateConfiguration
	if ru == nil {
		return 0
	}
	replicas := int(ReplicasOf(lws))
	surge, _ := intstr.GetScaledValueFromIntOrPercent(&ru.MaxSurge, replicas, true)
	return max(0, min(surge, replicas))
}

// ReplicasOf is spec.replicas, 1 when unset (the CRD default).
func ReplicasOf(lws *lwsv1.LeaderWorkerSet) int32 {
	if lws.Spec.Replicas == nil {
		return 1
	}
	return *lws.Spec.Replicas
}

// Recreated is the range of running groups the rollout recreates: those that exist before and
// after the apply, from the partition up (rollingUpdateParameters: groups added by a scale-up
// start at the new revision; groups below the partition keep the old one). ok is false when
// none is.
func (r Rollout) Recreated() (first, last int32, ok bool) {
	if len(r.Changed) == 0 {
		return 0, 0, false
	}
	first, last = max(r.Partition, 0), min(r.OldReplicas, r.Replicas)-1
	if r.PartitionOnly {
		last = min(last, r.partitionFrom-1)
	}
	return first, last, first <= last
}

// Step is how many groups the controller recreates at once: maxUnavailable plus the surge
// groups (rollingUpdateParameters, Case 5: rollingStep), at least 1.
func (r Rollout) Step() int {
	first, last, ok := r.Recreated()
	if !ok {
		return 0
	}
	return max(1, min(r.MaxUnavailable+r.MaxSurge, int(last-first+1)))
}

// Message is the plan's warning, "" when no running group is recreated and nothing rolls.
func (r Rollout) Message(root *k8sschema.Node) string {
	if len(r.Changed) == 0 {
		return ""
	}
	var b strings.Builder
	first, last, ok := r.Recreated()
	newRevision := r.NewRevision()
	switch {
	case ok:
		fmt.Fprintf(&b, "Rolling update: %s of %s will be recreated, %d at a time, highest index first (max_unavailable = %s, max_surge = %s)",
			GroupRange(first, last), r.Name, r.Step(), r.MaxUnavailableRaw, r.MaxSurgeRaw)
	case newRevision || r.PartitionOnly:
		fmt.Fprintf(&b, "New revision of %s: no running group is recreated", r.Name)
	default:
		fmt.Fprintf(&b, "New pod template of %s: no running group is recreated", r.Name)
	}
	if len(r.Copied) > 0 {
		b.WriteString(r.copiedMessage(root, ok, newRevision))
	}
	if r.PartitionOnly {
		fmt.Fprintf(&b, "; no new revision, but partition %d -> %d releases groups an earlier partitioned rollout left at the previous revision", r.partitionFrom, r.Partition)
	}
	if r.Partition > 0 {
		kept := GroupRange(0, min(r.Partition, max(r.OldReplicas, r.Replicas))-1)
		verb := "keep"
		if strings.HasPrefix(kept, "group ") {
			verb = "keeps"
		}
		what := "the old revision"
		if !newRevision && !r.PartitionOnly {
			what = "their pods"
		}
		fmt.Fprintf(&b, "; %s %s %s (partition = %d)", kept, verb, what, r.Partition)
	}
	if ok && r.MaxSurge > 0 && newRevision {
		fmt.Fprintf(&b, "; %d surge group(s) (%s) are added during the rollout and removed at its end", r.MaxSurge,
			strings.TrimPrefix(GroupRange(r.Replicas, r.Replicas+int32(r.MaxSurge)-1), "groups "))
	}
	switch {
	case r.Replicas > r.OldReplicas:
		at := "at the new revision"
		if !newRevision {
			at = "from the new pod template"
		}
		fmt.Fprintf(&b, "; replicas %d -> %d in the same apply: %s %s created %s", r.OldReplicas, r.Replicas, GroupRange(r.OldReplicas, r.Replicas-1), areIs(r.Replicas-r.OldReplicas), at)
	case r.Replicas < r.OldReplicas:
		fmt.Fprintf(&b, "; replicas %d -> %d in the same apply: %s %s deleted", r.OldReplicas, r.Replicas, GroupRange(r.Replicas, r.OldReplicas-1), areIs(r.OldReplicas-r.Replicas))
	}
	b.WriteString("; changed: ")
	b.WriteString(k8sschema.FieldList(root, r.Changed))
	return b.String()
}

// copiedMessage says why a change of copied annotations recreates groups, and how: the revision
// stays, so rollingUpdateParameters (pkg/controllers/leaderworkerset_controller.go, sigs.k8s.io/lws
// v0.9.0 and v0.10.0) keeps the leader StatefulSet at spec.replicas (no surge group) and its
// partition at spec's, and the StatefulSet controller replaces the leader pods by itself, highest
// ordinal first, maxUnavailable + maxSurge at a time (the StatefulSet's maxUnavailable that
// constructLeaderStatefulSetApplyConfiguration sets). A replaced leader pod takes its worker
// StatefulSet (owned by it) and the workers with it; the pod controller creates the new one from
// the new leader pod.
func (r Rollout) copiedMessage(root *k8sschema.Node, ok, newRevision bool) string {
	verb := "is"
	if len(r.Copied) > 1 {
		verb = "are"
	}
	s := fmt.Sprintf("; %s %s copied by the controller into the pod templates of the leader StatefulSet and the worker StatefulSets",
		k8sschema.FieldList(root, r.Copied), verb)
	if !newRevision && ok {
		s += ", without a new revision: the StatefulSet controller replaces the leader pods, and with them their groups, " +
			"max_unavailable + max_surge at a time, without surge groups"
	}
	if key := r.exclusiveKey; key != "" && ok && max(r.OldReplicas, r.Replicas) > 1 {
		// SetExclusiveAffinities (pkg/webhooks/pod_webhook.go, lws v0.9.0 and v0.10.0) keeps a
		// recreated group's pods out of every domain that holds a pod of another group, and the
		// groups not recreated yet stay where they were placed without that rule.
		s += fmt.Sprintf("; each recreated group needs a %s domain that holds no pod of another group, the groups not "+
			"recreated yet included: where none is free, its pods stay Pending and the rollout stops", key)
	}
	return s
}

func areIs(n int32) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// GroupRange renders a range of group indices: "group 3", "groups 0-3".
func GroupRange(first, last int32) string {
	if first == last {
		return fmt.Sprintf("group %d", first)
	}
	return fmt.Sprintf("groups %d-%d", first, last)
}

// rolloutFields are the planned values the preview depends on: when one is unknown, the plan
// gives no verdict (the check runs again at apply with the final values).
var rolloutFields = []string{"spec.networkConfig", "spec.leaderWorkerTemplate", "spec.replicas", "spec.rolloutStrategy", "metadata.name", "metadata.namespace"}

// copiedUnknown says whether an unknown planned value hides one of CopiedAnnotations (the
// annotations themselves, or the whole map): then the preview waits for the apply, as for
// rolloutFields. Other annotations' unknown values do not matter.
func copiedUnknown(unknown []*field.Path) bool {
	for _, u := range unknown {
		switch us := u.String(); us {
		case "metadata", "metadata.annotations":
			return true
		default:
			for _, key := range CopiedAnnotations {
				if us == field.NewPath("metadata", "annotations").Key(key).String() {
					return true
				}
			}
		}
	}
	return false
}

// planUpdate is the kind's PlanUpdate: the rollout preview as a warning on the resource, and
// the guard (allow_group_restarts = false) as an error on the first changed field.
func planUpdate(newObj, oldObj runtime.Object, extras map[string]tftypes.Value, unknown []*field.Path) ([]kindrules.Warning, field.ErrorList) {
	if k8sschema.DependsOnUnknown(unknown, rolloutFields) || copiedUnknown(unknown) {
		return nil, nil
	}
	r := PreviewRollout(kindrules.As[*lwsv1.LeaderWorkerSet](newObj), kindrules.As[*lwsv1.LeaderWorkerSet](oldObj))
	msg := r.Message(node())
	if msg == "" {
		return nil, nil
	}
	warnings := []kindrules.Warning{{Summary: "Rolling update of LeaderWorkerSet " + r.Name, Detail: msg}}
	first, last, ok := r.Recreated()
	if !ok || kindrules.BoolExtra(extras, AttrAllowGroupRestarts, true) {
		return warnings, nil
	}
	what := "makes a new revision that recreates"
	if !r.NewRevision() && !r.PartitionOnly {
		what = "changes the pod templates the controller copies " + k8sschema.FieldList(node(), r.Copied) + " into, which recreates"
	}
	return nil, field.ErrorList{field.Forbidden(r.Changed[0], fmt.Sprintf(
		"allow_group_restarts = false, and this change %s %s of %s (changed: %s). "+
			"Revert the change, or set allow_group_restarts = true to roll it out.",
		what, GroupRange(first, last), r.Name, k8sschema.FieldList(node(), r.Changed)))}
}
