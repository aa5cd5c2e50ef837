package provider_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate/podtemplatecorpus"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// planApplyWorkers is how many objects go through their lifecycle at once, as Terraform's
// parallelism applies several resources at once.
const planApplyWorkers = 4

// TestAccPlanMatchesApply_podTemplates applies LeaderWorkerSets whose pod templates are the
// valid templates of the pod template parity corpus (every rule at its boundary, and random
// combinations), each written as a user writes it, with nothing the server defaults. For each
// it checks what Terraform checks and what a user sees:
//   - the apply's new state agrees with every value the plan knew (else Terraform fails with
//     "Provider produced inconsistent result after apply": a default the plan predicted that
//     the CRD's schema or the webhook sets otherwise);
//   - after a refresh, the same configuration plans no change and no replacement (a value the
//     server set that the plan did not expect would show as a diff on every plan).
//
// Each object has no groups (replicas 0): what is checked is the object the API server stores,
// not its pods. KUBEINFER_PLAN_APPLY_CASES sets how many templates run (all with 0), chosen
// evenly over the corpus; KUBEINFER_PARITY_SEED chooses the combinations.
func TestAccPlanMatchesApply_podTemplates(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	ctx := context.Background()
	fast := provider.NewServer("test")()
	sch, err := fast.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	configureProvider(t, fast, sch, c.KubeconfigPath())
	identities, err := fast.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typeName := provider.TypeName + "_leaderworkerset"
	typ := sch.ResourceSchemas[typeName].ValueType().(tftypes.Object)
	var l lifecycle
	for _, k := range provider.Kinds {
		if provider.TypeName+"_"+k.TypeName == typeName {
			l = lifecycle{t: t, ctx: ctx, typeName: typeName, typ: typ, kind: k,
				identity: identities.IdentitySchemas[typeName].ValueType(),
				differ:   provider.NewDiffer(t, fast, typeName, typ, k)}
		}
	}

	// The templates a LeaderWorkerSet may have: TestAccLeaderWorkerSet_templateParity shows that
	// the provider's verdict on them is the server's.
	var templates []*podtemplatecorpus.Case
	corpus := append(podtemplatecorpus.Build(), podtemplatecorpus.Combinations(uint64(acctest.ParitySeed(t, 20261207)), 600)...)
	for _, cc := range corpus {
		if strings.Contains(cc.Name, "gatedFields/") {
			// Fields of Kubernetes feature gates that are off by default: the released CRD does
			// not declare them, and the apply says so (TestAccLeaderWorkerSet_newerFieldOnReleasedCRD).
			continue
		}
		obj := podtemplatecorpus.LeaderWorkerSet("plan-apply", cc, true)
		lwsrules.SetDefaults(obj)
		if len(lwsrules.ValidateAll(obj)) == 0 {
			templates = append(templates, cc)
		}
	}
	if n := acctest.EnvInt(t, "KUBEINFER_PLAN_APPLY_CASES", 150); n > 0 && n < len(templates) {
		step := float64(len(templates)) / float64(n)
		chosen := make([]*podtemplatecorpus.Case, 0, n)
		for i := 0; i < n; i++ {
			chosen = append(chosen, templates[int(float64(i)*step)])
		}
		templates = chosen
	}

	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < planApplyWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				l.planApplyPlan(fast, podtemplatecorpus.LeaderWorkerSet(fmt.Sprintf("plan-apply-%05d", i), templates[i], i%2 == 1), templates[i].Name)
			}
		}()
	}
	for i := range templates {
		work <- i
	}
	close(work)
	wg.Wait()
	t.Logf("%d LeaderWorkerSets planned, applied, refreshed, planned again and destroyed in %s",
		len(templates), time.Since(start).Round(time.Millisecond))
}

// planApplyPlan runs obj through plan, apply, refresh, a plan that must find nothing to do, and
// destroy, failing the test where Terraform would fail or the plan would show a change.
func (l lifecycle) planApplyPlan(s tfprotov6.ProviderServer, obj *lwsv1.LeaderWorkerSet, desc string) {
	t := l.t
	name := obj.Name + " (" + desc + ")"
	config := l.differ.UserConfig(obj.Name, obj)
	v, err := s.ValidateResourceConfig(l.ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: l.typeName, Config: l.dv(config)})
	if err != nil {
		t.Error(err)
		return
	}
	if hasError(v.Diagnostics) {
		t.Errorf("%s: the provider's rules accept this LeaderWorkerSet, its validation refuses it: %s", name, provider.Diagnostics(v.Diagnostics))
		return
	}
	ignore := func(string, string) {}
	var applyResponse string
	keep := func(_, response string) { applyResponse = response }
	null := tftypes.NewValue(l.typ, nil)
	plan := l.plan(s, config, null, config, nil, nil)
	if plan.failed {
		t.Errorf("%s: plan: %s", name, plan.summary)
		return
	}
	state, private, identity, applied := l.apply(s, config, null, plan, keep, "apply create of "+name)
	if !applied {
		t.Errorf("%s: the apply failed: %s", name, applyResponse)
		return
	}
	state, private, identity = l.read(s, state, private, identity, ignore, "read")
	l.assertNoChange(l.plan(s, config, state, state, private, identity), state, "after the create of "+name)
	destroy := l.plan(s, null, state, null, private, identity)
	if _, _, _, deleted := l.apply(s, null, state, destroy, ignore, "apply destroy"); !deleted {
		t.Errorf("%s: the destroy failed", name)
	}
}
