package leaderworkerset_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// TestAccLeaderWorkerSet_waitFailsOnFailedCreate: a name of 52 characters with groups of 2 pods
// is one the plan only warns about (it fits only with a revision hash of 8 characters), and with
// this template the controller's worker StatefulSet cannot be created. The wait ends on the
// controller's FailedCreate event with an error that quotes it, long before its timeout.
func TestAccLeaderWorkerSet_waitFailsOnFailedCreate(t *testing.T) {
	acctest.SkipAfterFirstCLI(t) // the controller's behaviour, not the CLI's
	name := "acc-failed-create-" + strings.Repeat("n", 52-len("acc-failed-create-"))
	c := acctest.Cluster(t)
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	const timeout = 5 * time.Minute
	cfg := pc + vllm(lwsfixture.VLLM(name, 1, 2, lwsfixture.SmallGPU), `timeouts = { create = "5m", update = "5m" }`)
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { started = time.Now() },
				Config:      cfg,
				ExpectError: regexp.MustCompile(`Warning\s+FailedCreate\s+on\s+(LeaderWorkerSet|StatefulSet)\s+` + name + `[\s\S]*is\s+invalid:`),
			},
			{ // the apply failed: Terraform recorded the object as tainted and plans to replace it
				PreConfig: func() {
					took := time.Since(started)
					t.Logf("the apply failed after %s (timeout %s)", took.Round(100*time.Millisecond), timeout)
					if took > timeout/5 {
						t.Errorf("the apply took %s: the wait did not stop on the event", took)
					}
					events, err := c.Clientset().CoreV1().Events("default").List(context.Background(), metav1.ListOptions{FieldSelector: "type=Warning"})
					if err != nil {
						t.Fatal(err)
					}
					for _, ev := range events.Items {
						if strings.HasPrefix(ev.InvolvedObject.Name, name) {
							t.Logf("event on %s %s: %s %s (%d)", ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Reason, ev.Message, ev.Count)
						}
					}
				},
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}
