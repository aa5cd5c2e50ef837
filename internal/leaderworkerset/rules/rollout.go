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
			"changes still pass. Defaults to `true`."}
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
	// Changed are the fields whose change makes a new revision (none: nothing rolls).
	Changed []*field.Path
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
	if ok {
		fmt.Fprintf(&b, "Rolling update: %s of %s will be recreated, %d at a time, highest index first (max_unavailable = %s, max_surge = %s)",
			GroupRange(first, last), r.Name, r.Step(), r.MaxUnavailableRaw, r.MaxSurgeRaw)
	} else {
		fmt.Fprintf(&b, "New revision of %s: no running group is recreated", r.Name)
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
		fmt.Fprintf(&b, "; %s %s the old revision (partition = %d)", kept, verb, r.Partition)
	}
	if ok && r.MaxSurge > 0 {
		fmt.Fprintf(&b, "; %d surge group(s) (%s) are added during the rollout and removed at its end", r.MaxSurge,
			strings.TrimPrefix(GroupRange(r.Replicas, r.Replicas+int32(r.MaxSurge)-1), "groups "))
	}
	switch {
	case r.Replicas > r.OldReplicas:
		fmt.Fprintf(&b, "; replicas %d -> %d in the same apply: %s are created at the new revision", r.OldReplicas, r.Replicas, GroupRange(r.OldReplicas, r.Replicas-1))
	case r.Replicas < r.OldReplicas:
		fmt.Fprintf(&b, "; replicas %d -> %d in the same apply: %s are deleted", r.OldReplicas, r.Replicas, GroupRange(r.Replicas, r.OldReplicas-1))
	}
	b.WriteString("; changed: ")
	b.WriteString(k8sschema.FieldList(root, r.Changed))
	return b.String()
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

// planUpdate is the kind's PlanUpdate: the rollout preview as a warning on the resource, and
// the guard (allow_group_restarts = false) as an error on the first changed field.
func planUpdate(newObj, oldObj runtime.Object, extras map[string]tftypes.Value, unknown []*field.Path) ([]kindrules.Warning, field.ErrorList) {
	if k8sschema.DependsOnUnknown(unknown, rolloutFields) {
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
	return nil, field.ErrorList{field.Forbidden(r.Changed[0], fmt.Sprintf(
		"allow_group_restarts = false, and this change makes a new revision that recreates %s of %s (changed: %s). "+
			"Revert the change, or set allow_group_restarts = true to roll it out.",
		GroupRange(first, last), r.Name, k8sschema.FieldList(node(), r.Changed)))}
}
