package acctest

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// ObjectHCL renders obj, a Go object of the kind whose schema is node, as the resource block
// `typeName` `label`: the attributes k8sschema.Encode gives it (null ones left out), without
// status and the computed metadata (uid, resource_version, generation). top are further
// top-level attributes, one HCL line or block each (`force_conflicts = true`,
// `timeouts = { create = "8s" }`), written first.
func ObjectHCL(node *k8sschema.Node, typeName, label string, obj any, top ...string) string {
	var attrs map[string]tftypes.Value
	_ = k8sschema.Encode(node, obj).As(&attrs)
	delete(attrs, "status")
	var meta map[string]tftypes.Value
	_ = attrs["metadata"].As(&meta)
	for _, k := range []string{"uid", "resource_version", "generation"} {
		delete(meta, k)
	}
	metaTypes := map[string]tftypes.Type{}
	for k, x := range meta {
		metaTypes[k] = x.Type()
	}
	attrs["metadata"] = tftypes.NewValue(tftypes.Object{AttributeTypes: metaTypes}, meta)
	types := map[string]tftypes.Type{}
	for k, x := range attrs {
		types[k] = x.Type()
	}
	block := ResourceHCL(typeName, label, tftypes.NewValue(tftypes.Object{AttributeTypes: types}, attrs))
	if len(top) == 0 {
		return block
	}
	head, body, _ := strings.Cut(block, "\n")
	return head + "\n  " + strings.Join(top, "\n  ") + "\n" + body
}
