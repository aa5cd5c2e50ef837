package kube

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/placement"
)

// PlacementWorkload is one workload of a planned object for the placement preview: a
// LeaderWorkerSet, or one role (one slice of a role) of a DisaggregatedSet.
type PlacementWorkload struct {
	// Path is the attribute the verdict is reported on (spec.replicas, a role's replicas).
	Path *field.Path
	// Subject names the workload in the summary, empty for the object itself ("role prefill").
	Subject  string
	Workload placement.Workload
	// AnyOrder, when set on every workload of the object, says why their controller may create
	// them in any order ("the controller creates the roles' LeaderWorkerSets in no fixed order"):
	// the preview then plays every order and reports each workload's least favourable one, and
	// the range.
	AnyOrder string
}

// maxListedGroups bounds the groups a placement diagnostic lists one by one.
const maxListedGroups = 10

// placementPreview places the planned object's groups on the cluster's nodes as kube-scheduler
// would, when the provider's placement_preview asks for it, and reports the groups that cannot be
// placed. It reads the cluster (once per command) only for a create, or an update that changes
// the spec, whose spec and name are known.
func (r *Resource) placementPreview(ctx context.Context, planned, prior tftypes.Value) diag.Diagnostics {
	if r.kind.Placement == nil || r.data == nil || planned.IsNull() || !planned.IsKnown() {
		return nil
	}
	mode := r.data.PlacementPreview
	if mode != PlacementWarn && mode != PlacementError {
		return nil
	}
	attrs := ObjectAttrs(planned)
	update := !prior.IsNull() && prior.IsKnown()
	if update && attrs["spec"].Equal(ObjectAttrs(prior)["spec"]) {
		return nil // nothing new to place
	}
	node := r.kind.Node()
	obj := r.kind.NewObject()
	dec := k8sschema.Decode(node, planned, obj, nil)
	for _, u := range dec.Unknown {
		if s := u.String(); s == "metadata.name" || s == "metadata.namespace" || u.Root().String() == "spec" ||
			strings.HasPrefix(s, "metadata.annotations") {
			return nil // the apply decides; there is nothing to place yet
		}
	}
	var current runtime.Object
	if update {
		current = r.kind.NewObject()
		k8sschema.Decode(node, prior, current, nil)
	}
	workloads := r.kind.Placement(obj, current)
	if len(workloads) == 0 {
		return nil
	}
	var diags diag.Diagnostics
	snapshot, err := r.data.PlacementSnapshot(ctx)
	if err != nil {
		if mode == PlacementError {
			diags.AddError("Placement preview failed",
				"placement_preview = \"error\", and the preview could not read the cluster's nodes and pods: "+err.Error()+
					". Give the provider's credentials list on nodes and pods, or set placement_preview = \"warn\" to plan without it.")
		} else {
			diags.AddWarning("Placement preview skipped", "placement preview skipped: "+err.Error())
		}
		return diags
	}
	ws, results := PreviewPlacement(snapshot, workloads)
	for i, result := range results {
		if result.Placeable >= result.Groups && !result.Stalled {
			continue
		}
		w := workloads[i]
		p, _ := k8sschema.AttributePath(node, w.Path.String())
		verdict := fmt.Sprintf("%d of %d groups can be placed", result.Placeable, result.Groups)
		if result.MostPlaceable > result.Placeable {
			verdict = fmt.Sprintf("%d to %d of %d groups can be placed", result.Placeable, result.MostPlaceable, result.Groups)
		}
		if result.Timing || result.PartialPods > 0 {
			verdict = partialVerdict(result)
		}
		if result.Stalled {
			verdict = fmt.Sprintf("the rolling update stalls at group %d", result.StallGroup)
		}
		summary := "Placement preview: " + verdict
		if w.Subject != "" {
			summary = fmt.Sprintf("Placement preview: %s: %s", w.Subject, verdict)
		}
		detail := fmt.Sprintf("%s: %s", p, placementDetail(ws[i], result, len(snapshot.Nodes)))
		if result.Reordered {
			subject := cmp.Or(w.Subject, "this workload")
			detail += fmt.Sprintf("\n%s, and they compete for the same nodes: %s places %d groups in the order least favourable to it "+
				"(the groups listed) and up to %d in the most favourable one.", w.AnyOrder, subject, result.Placeable, result.MostPlaceable)
		}
		if mode == PlacementError {
			diags.AddAttributeError(p, summary, detail)
		} else {
			diags.AddAttributeWarning(p, summary, detail)
		}
	}
	return diags
}

// PreviewPlacement previews the workloads of one planned object (the kind's Placement) on the
// snapshot as the plan does: each with the tolerations the ExtendedResourceToleration admission
// plugin adds, in order, each seeing the room the earlier ones took, or in every order when their
// controller creates them in any (AnyOrder). It returns the workloads as
// previewed and their results; the placement differential tests call it too.
func PreviewPlacement(snapshot placement.Snapshot, workloads []PlacementWorkload) ([]placement.Workload, []placement.Result) {
	ws := make([]placement.Workload, len(workloads))
	for i, w := range workloads {
		ws[i] = placement.WithExtendedResourceTolerations(w.Workload)
	}
	if len(workloads) > 1 && !slices.ContainsFunc(workloads, func(w PlacementWorkload) bool { return w.AnyOrder == "" }) {
		return ws, placement.PreviewAnyOrder(snapshot, ws)
	}
	return ws, placement.PreviewAll(snapshot, ws)
}

// placementDetail says how many groups of the workload kube-scheduler can place and why each of
// the others cannot, in the scheduler's words; for a rolling update that cannot finish, where it
// stalls and why.
func placementDetail(w placement.Workload, result placement.Result, nodes int) string {
	var b strings.Builder
	if result.Stalled {
		ro := w.Rollout
		fmt.Fprintf(&b, "the rolling update stalls at group %d", result.StallGroup)
		if result.StallGroup >= w.Replicas {
			b.WriteString(", a surge group, which needs room beside the running groups before any of them is replaced")
		}
		if result.Reason != "" {
			fmt.Fprintf(&b, ": %s", strings.TrimSuffix(result.Reason, "."))
		}
		templates := "the new template and %d the previous one"
		if !ro.NewRevision { // a lowered partition: the groups below the old one run an older revision
			templates = "the current template and %d an older revision"
		}
		fmt.Fprintf(&b, ". Played out round by round as the LeaderWorkerSet controller rolls %s/%s out (maxSurge %d, maxUnavailable %d, partition %d) on the cluster's %d nodes as they are now, "+
			"%d of its %d groups of %d pod(s) would run "+templates+" when it stops; the apply would wait for its timeout",
			w.Namespace, w.Name, ro.MaxSurge, ro.MaxUnavailable, ro.Partition, nodes, result.Updated, result.Groups, w.Size, result.Placeable-result.Updated)
		if len(result.Unplaceable) > 0 {
			b.WriteString(". Groups left without a node:")
		}
	} else if result.Timing || result.PartialPods > 0 {
		partialDetail(&b, w, result, nodes)
	} else {
		fmt.Fprintf(&b, "kube-scheduler can place %d of the %d groups of %d pod(s) of %s/%s on the cluster's %d nodes as they are now",
			result.Placeable, result.Groups, w.Size, w.Namespace, w.Name, nodes)
		if w.Rollout != nil && w.Rollout.MaxSurge > 0 && w.Rollout.NewRevision {
			fmt.Fprintf(&b, " (played out round by round with %d surge group(s) of the rolling update)", w.Rollout.MaxSurge)
		}
		b.WriteString(". The groups that cannot be placed would stay Pending and the apply would wait for its timeout:")
	}
	for i, f := range result.Unplaceable {
		if i == maxListedGroups {
			fmt.Fprintf(&b, "\n  ... and %d more group(s)", len(result.Unplaceable)-maxListedGroups)
			break
		}
		reason := f.Reason
		if reason == "" {
			reason = "not ready"
		}
		fmt.Fprintf(&b, "\n  group %d: %s", f.Group, reason)
	}
	return b.String()
}

// partialVerdict is the summary of a workload whose groups may come up partially: the whole groups
// (a range where they depend on the order the scheduler binds the pods in) and what partial
// groups may hold.
func partialVerdict(result placement.Result) string {
	verdict := fmt.Sprintf("%d of %d groups can come up whole", result.Placeable, result.Groups)
	if result.MostPlaceable > result.Placeable {
		verdict = fmt.Sprintf("between %d and %d of %d groups can come up whole", result.Placeable, result.MostPlaceable, result.Groups)
	}
	if result.PartialPods > 0 {
		verdict += "; partial groups may hold up to " + partialHolding(result)
	}
	return verdict
}

// partialHolding is what partial groups may hold: "24 GPUs (6 pods)", or "6 pods" without GPUs.
func partialHolding(result placement.Result) string {
	pods := plural(int64(result.PartialPods), "pod")
	if result.PartialGPUs > 0 {
		return fmt.Sprintf("%s (%s)", plural(result.PartialGPUs, "GPU"), pods)
	}
	return pods
}

func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// partialDetail explains a partial-groups verdict: why the count is a range (the controller
// creates every group's pods at once and kube-scheduler binds them one by one, or, under exclusive
// placement, a leader's choice of domain), and what partial groups hold.
func partialDetail(b *strings.Builder, w placement.Workload, result placement.Result, nodes int) {
	whole := fmt.Sprintf("%d", result.Placeable)
	if result.MostPlaceable > result.Placeable {
		whole = fmt.Sprintf("between %d and %d", result.Placeable, result.MostPlaceable)
	}
	if key := w.ExclusiveKey(); key != "" && result.StrandingDomains > 0 {
		fmt.Fprintf(b, "%s of the %d groups of %d pod(s) of %s/%s can come up whole on the cluster's %d nodes as they are now. "+
			"Under exclusive placement (%s) a group's workers follow its leader's %s, and kube-scheduler binds a leader in any %s it fits in "+
			"(its score does not weigh the room the workers need): the leader fits in %d, and in %d of them its workers would not all fit",
			whole, result.Groups, w.Size, w.Namespace, w.Name, nodes, key, key, key, result.ExclusiveDomains, result.StrandingDomains)
	} else {
		fmt.Fprintf(b, "%s of the %d groups of %d pod(s) of %s/%s can come up whole on the cluster's %d nodes as they are now: "+
			"kube-scheduler can bind %d of their %d pods, and the LeaderWorkerSet controller creates every group's pods at once, which the scheduler binds one by one "+
			"in an order no plan knows, choosing among equally scored nodes at random",
			whole, result.Groups, w.Size, w.Namespace, w.Name, nodes, result.BoundPods, result.Groups*w.Size)
	}
	if result.PartialPods > 0 {
		fmt.Fprintf(b, ". Groups that do not come up whole may hold up to %s that serve nothing until the apply times out", partialHolding(result))
	}
	if len(result.Unplaceable) == 0 {
		b.WriteString(". Played with every leader first, then each group's workers, ties going by node name, every group comes up whole; " +
			"the groups that do not would stay Pending and the apply would wait for its timeout.")
		return
	}
	b.WriteString(". Played with every leader first, then each group's workers, ties going by node name, these groups cannot be placed; " +
		"they would stay Pending and the apply would wait for its timeout:")
}
