package rules

import (
	"strings"
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

func TestEveryAttributeHasOurOwnDescription(t *testing.T) {
	if problems := k8sschema.DocProblems(node(), fieldDocs); len(problems) > 0 {
		t.Errorf("%d description problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
