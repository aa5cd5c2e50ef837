package footprint

import (
	"context"
	"sort"

	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
)

// AttrFootprint is the name of the computed top-level attribute.
const AttrFootprint = "footprint"

const (
	attrPodsPerGroup = "pods_per_group"
	attrGroups       = "groups"
	attrPods         = "pods"
	attrRequests     = "requests"
	attrLimits       = "limits"
	attrPeakGroups   = "peak_groups"
	attrPeakPods     = "peak_pods"
	attrPeakRequests = "peak_requests"
	attrPeakLimits   = "peak_limits"
	attrRoles        = "roles"
)

const quantitiesNote = " by resource name, as canonical quantities"

// totalAttributes are the attributes of a total over pods.
func totalAttributes(what string) map[string]rschema.Attribute {
	m := func(desc string) rschema.Attribute {
		return rschema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: desc}
	}
	return map[string]rschema.Attribute{
		attrPods:         rschema.Int64Attribute{Computed: true, MarkdownDescription: "Pods of " + what + " at `replicas`."},
		attrRequests:     m("Their summed requests" + quantitiesNote + "."),
		attrLimits:       m("Their summed limits" + quantitiesNote + "."),
		attrPeakPods:     rschema.Int64Attribute{Computed: true, MarkdownDescription: "Pods at the peak of a rollout, surge groups included."},
		attrPeakRequests: m("Summed requests at that peak."),
		attrPeakLimits:   m("Summed limits at that peak."),
	}
}

// groupAttributes are the attributes of a Group.
func groupAttributes(what string) map[string]rschema.Attribute {
	attrs := totalAttributes(what)
	attrs[attrPodsPerGroup] = rschema.Int64Attribute{Computed: true, MarkdownDescription: "Pods of one group: the leader and `size - 1` workers."}
	attrs[attrGroups] = rschema.Int64Attribute{Computed: true, MarkdownDescription: "Groups at `replicas`."}
	attrs[attrPeakGroups] = rschema.Int64Attribute{Computed: true, MarkdownDescription: "Groups at the peak of a rollout."}
	return attrs
}

const footprintNote = "Known at plan from the configuration alone (also with `-refresh=false` and no credentials), " +
	"for budget checks on `terraform show -json`. Pods are counted as the scheduler counts them; pod overhead is not included."

// LeaderWorkerSetAttribute is the footprint attribute of kubeinfer_leaderworkerset.
func LeaderWorkerSetAttribute() rschema.Attribute {
	return rschema.SingleNestedAttribute{Computed: true, Attributes: groupAttributes("the LeaderWorkerSet"),
		MarkdownDescription: "The pods this LeaderWorkerSet runs and their summed requests and limits, at `replicas` and " +
			"at the peak of a rolling update (`replicas + max_surge` groups). " + footprintNote + " Unknown while " +
			"`spec` has unknown values (and `spec.replicas` with `manage_replicas = false` counts its last known value)."}
}

// DisaggregatedSetAttribute is the footprint attribute of kubeinfer_disaggregatedset.
func DisaggregatedSetAttribute() rschema.Attribute {
	attrs := totalAttributes("every role of every slice")
	attrs[attrRoles] = rschema.MapNestedAttribute{Computed: true,
		MarkdownDescription: "Each role's footprint by role name, all slices counted.",
		NestedObject:        rschema.NestedAttributeObject{Attributes: groupAttributes("the role")}}
	return rschema.SingleNestedAttribute{Computed: true, Attributes: attrs,
		MarkdownDescription: "The pods this DisaggregatedSet runs and their summed requests and limits, per role and in " +
			"total, at `replicas` and at the peak of a rollout (every role's surge groups at once: all roles roll " +
			"together). An `External` role counts the groups that run (as of the last refresh). " + footprintNote}
}

// quantities is a map(string) of canonical quantities.
func quantities(l corev1.ResourceList) tftypes.Value {
	names := make([]string, 0, len(l))
	for name := range l {
		names = append(names, string(name))
	}
	sort.Strings(names)
	m := make(map[string]tftypes.Value, len(names))
	for _, name := range names {
		m[name] = tftypes.NewValue(tftypes.String, canonical(l[corev1.ResourceName(name)]))
	}
	return tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, m)
}

func int64Value(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }

// totalValues are the totalAttributes of pods at replicas and at the peak.
func totalValues(pods, peakPods int64, at, peak Pod) map[string]tftypes.Value {
	return map[string]tftypes.Value{
		attrPods:         int64Value(pods),
		attrRequests:     quantities(at.Requests),
		attrLimits:       quantities(at.Limits),
		attrPeakPods:     int64Value(peakPods),
		attrPeakRequests: quantities(peak.Requests),
		attrPeakLimits:   quantities(peak.Limits),
	}
}

func (g Group) values() map[string]tftypes.Value {
	v := totalValues(g.Groups*g.PodsPerGroup, g.PeakGroups*g.PodsPerGroup, g.Total(g.Groups), g.Total(g.PeakGroups))
	v[attrPodsPerGroup] = int64Value(g.PodsPerGroup)
	v[attrGroups] = int64Value(g.Groups)
	v[attrPeakGroups] = int64Value(g.PeakGroups)
	return v
}

// LeaderWorkerSetValue is the footprint value of a LeaderWorkerSet with t the attribute's type.
func LeaderWorkerSetValue(t tftypes.Type, g Group) tftypes.Value {
	return tftypes.NewValue(t, g.values())
}

// Role is one role's footprint, for all slices.
type Role struct {
	Name string
	Group
}

// DisaggregatedSetValue is the footprint value of a DisaggregatedSet's roles with t the
// attribute's type.
func DisaggregatedSetValue(t tftypes.Type, roles []Role) tftypes.Value {
	obj, _ := t.(tftypes.Object)
	rolesType, _ := obj.AttributeTypes[attrRoles].(tftypes.Map)
	roleType := rolesType.ElementType
	byName := make(map[string]tftypes.Value, len(roles))
	var pods, peakPods int64
	var at, peak []Pod
	for _, r := range roles {
		byName[r.Name] = tftypes.NewValue(roleType, r.values())
		pods += r.Groups * r.PodsPerGroup
		peakPods += r.PeakGroups * r.PodsPerGroup
		at = append(at, r.Total(r.Groups))
		peak = append(peak, r.Total(r.PeakGroups))
	}
	v := totalValues(pods, peakPods, Sum(at...), Sum(peak...))
	v[attrRoles] = tftypes.NewValue(obj.AttributeTypes[attrRoles], byName)
	return tftypes.NewValue(t, v)
}

// Unknown is the footprint attribute's unknown value.
func Unknown(t tftypes.Type) tftypes.Value { return tftypes.NewValue(t, tftypes.UnknownValue) }

// TypeOf is the Terraform type of a footprint attribute.
func TypeOf(a rschema.Attribute) tftypes.Type {
	return a.GetType().TerraformType(context.Background())
}
