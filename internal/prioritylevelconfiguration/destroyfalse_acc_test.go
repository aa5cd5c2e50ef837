package prioritylevelconfiguration_test

import (
	"testing"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration"
)

// lifecycle { destroy = false } (Terraform 1.16): terraform destroy forgets the priority level
// and leaves it in the cluster; an import block adopts it again with an empty plan.
func TestAccPriorityLevelConfiguration_destroyFalse(t *testing.T) {
	const name = "acc-plc-destroy-false"
	acctest.DestroyFalseTest(t, prioritylevelconfiguration.Kind, acctest.ProviderConfig(t)+configQueued(name, ""), addr, name, nil)
}
