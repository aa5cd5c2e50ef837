package kube

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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
	workloads := r.kind.Placement(obj, update)
	if len(workloads) == 0 {
		return nil
	}
	var diags diag.Diagnostics
	snapshot, err := r.data.PlacementSnapshot(ctx)
	if err != nil {
		if mode == PlacementError {
			diags.AddError("Placement preview failed",
				"placement_preview = \"error\", and the preview could not read the cluster's nodes and pods: "+err.Error()+
					". Give the provider's credentials get and list on nodes and pods, or set placement_preview = \"warn\" to plan without it.")
		} else {
			diags.AddWarning("Placement preview skipped", "placement preview skipped: "+err.Error())
		}
		return diags
	}
	ws := make([]placement.Workload, len(workloads))
	for i, w := range workloads {
		ws[i] = placement.WithExtendedResourceTolerations(w.Workload)
	}
	for i, result := range placement.PreviewAll(snapshot, ws) {
		if result.Placeable >= result.Groups {
			continue
		}
		w := workloads[i]
		p, _ := k8sschema.AttributePath(node, w.Path.String())
		summary := fmt.Sprintf("Placement preview: %d of %d groups can be placed", result.Placeable, result.Groups)
		if w.Subject != "" {
			summary = fmt.Sprintf("Placement preview: %s: %d of %d groups can be placed", w.Subject, result.Placeable, result.Groups)
		}
		detail := fmt.Sprintf("%s: %s", p, placementDetail(ws[i], result, len(snapshot.Nodes)))
		if mode == PlacementError {
			diags.AddAttributeError(p, summary, detail)
		} else {
			diags.AddAttributeWarning(p, summary, detail)
		}
	}
	return diags
}

// placementDetail says how many groups of the workload kube-scheduler can place and why each of
// the others cannot, in the scheduler's words.
func placementDetail(w placement.Workload, result placement.Result, nodes int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kube-scheduler can place %d of the %d groups of %d pod(s) of %s/%s on the cluster's %d nodes as they are now",
		result.Placeable, result.Groups, w.Size, w.Namespace, w.Name, nodes)
	if w.Update && w.MaxSurge > 0 {
		fmt.Fprintf(&b, " (%d replicas and %d surge group(s) of the rolling update)", w.Replicas, w.MaxSurge)
	}
	b.WriteString(". The groups that cannot be placed would stay Pending and the apply would wait for its timeout:")
	for i, f := range result.Unplaceable {
		if i == maxListedGroups {
			fmt.Fprintf(&b, "\n  ... and %d more group(s)", len(result.Unplaceable)-maxListedGroups)
			break
		}
		fmt.Fprintf(&b, "\n  group %d: %s", f.Group, f.Reason)
	}
	return b.String()
}
