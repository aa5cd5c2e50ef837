package flowschema_test

import (
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema"
)

// lifecycle { destroy = false } (Terraform 1.16): terraform destroy forgets the flow schema and
// leaves it in the cluster; an import block adopts it again with an empty plan.
func TestAccFlowSchema_destroyFalse(t *testing.T) {
	const name = "acc-fs-destroy-false"
	acctest.DestroyFalseTest(t, flowschema.Kind, acctest.ProviderConfig(t)+configSchema(name, `"workload-low"`, ""), addr, name, nil)
}
