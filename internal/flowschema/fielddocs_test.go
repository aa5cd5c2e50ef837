package flowschema

import (
	"strings"
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// Every attribute carries a description written for this provider (FieldDocs or the resource's
// Descriptions), none is empty, and no entry names a field that does not exist or copies the
// API's own sentence.
func TestEveryAttributeHasOurOwnDescription(t *testing.T) {
	docs := fieldDocs
	if missing := node().APIDocFields(); len(missing) > 0 {
		t.Errorf("%d fields still use the Kubernetes API description; add them to FieldDocs:\n%s", len(missing), strings.Join(missing, "\n"))
	}
	if unused := k8sschema.UnusedFieldDocs(node(), docs); len(unused) > 0 {
		t.Errorf("FieldDocs entries naming no attribute:\n%s", strings.Join(unused, "\n"))
	}
	if copied := k8sschema.CopiedFieldDocs(docs); len(copied) > 0 {
		t.Errorf("FieldDocs entries copying the API's sentence:\n%s", strings.Join(copied, "\n"))
	}
	node().Walk(func(n *k8sschema.Node) {
		if n.TFName != "" && strings.TrimSpace(n.Description) == "" {
			t.Errorf("%s has no description", n.Path())
		}
		if strings.Contains(n.Description, "\n") {
			t.Errorf("%s: description spans lines", n.Path())
		}
	})
}
