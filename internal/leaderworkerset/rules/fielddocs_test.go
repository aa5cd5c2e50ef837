package rules

import (
	"strings"
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate"
)

func TestEveryAttributeHasOurOwnDescription(t *testing.T) {
	if problems := k8sschema.DocProblems(node(), podtemplate.MergeFieldDocs(podtemplate.FieldDocs, FieldDocs)); len(problems) > 0 {
		t.Errorf("%d description problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
