package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate/podtemplatecorpus"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/provider"
)

// planApplyWorkers is how many objects go through their lifecycle at once, as Terraform's
// parallelism applies several resources at once.
const planApplyWorkers = 4

// TestAccPlanMatchesApply_podTemplates applies LeaderWorkerSets whose pod templates are the
// valid templates of the pod template parity corpus (every rule at its boundary, and random
// combinations), each written as a user writes it, with nothing the server defaults, and then
// updates each to the next template of the corpus. For each apply it checks what Terraform
// checks and what a user sees:
//   - the apply's new state agrees with every value the plan knew (else Terraform fails with
//     "Provider produced inconsistent result after apply": a default the plan predicted that
//     the CRD's schema or the webhook sets otherwise);
//   - after a refresh, the same configuration plans no change and no replacement (a value the
//     server set that the plan did not expect would show as a diff on every plan).
//
// DisaggregatedSets go the same way, with the templates in their roles. Each object has no
// groups (replicas 0): what is checked is the object the API server stores, not its pods.
// KUBEINFER_PLAN_APPLY_CASES sets how many LeaderWorkerSets run (all with 0; a third as many
// DisaggregatedSets), chosen evenly over the corpus; KUBEINFER_PARITY_SEED chooses the
// combinations.
func TestAccPlanMatchesApply_podTemplates(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	fast, lifecycleOf := planApplyServer(t)

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
	chosen := func(n int) []*podtemplatecorpus.Case {
		if n <= 0 || n >= len(templates) {
			return templates
		}
		step := float64(len(templates)) / float64(n)
		out := make([]*podtemplatecorpus.Case, 0, n)
		for i := 0; i < n; i++ {
			out = append(out, templates[int(float64(i)*step)])
		}
		return out
	}
	n := acctest.EnvInt(t, "KUBEINFER_PLAN_APPLY_CASES", 75)

	// LeaderWorkerSets: each template in turn, then the next; every other one with the leader
	// template too.
	lws, lwsBlock := lifecycleOf("leaderworkerset")
	forEachCase(t, "LeaderWorkerSets", chosen(n), func(i int, cases []*podtemplatecorpus.Case) {
		next := cases[(i+1)%len(cases)]
		name := fmt.Sprintf("plan-apply-%05d", i)
		lws.planApplyPlan(fast, lwsBlock, podtemplatecorpus.LeaderWorkerSet(name, cases[i], i%2 == 1),
			podtemplatecorpus.LeaderWorkerSet(name, next, i%2 == 0), cases[i].Name+" then "+next.Name)
	})

	// DisaggregatedSets: a prefill role of one template and a decode role of the next, then the
	// next two. A third as many: each is two LeaderWorkerSets' worth of templates.
	//
	// Left out: templates with a volume that a claim template of the same name replaces. The
	// StatefulSet never validates such a volume, so the provider does not either, but the
	// DisaggregatedSet CRD checks its required fields (a hostPath without path), which the
	// LeaderWorkerSet webhook fills in and no webhook does for a DisaggregatedSet: a known gap.
	var dsTemplates []*podtemplatecorpus.Case
	for _, cc := range chosen(max(n/3, 1)) {
		if !hasShadowedVolume(cc) {
			dsTemplates = append(dsTemplates, cc)
		}
	}
	ds, dsBlock := lifecycleOf("disaggregatedset")
	forEachCase(t, "DisaggregatedSets", dsTemplates, func(i int, cases []*podtemplatecorpus.Case) {
		at := func(k int) *podtemplatecorpus.Case { return cases[k%len(cases)] }
		name := fmt.Sprintf("plan-apply-ds-%05d", i)
		ds.planApplyPlan(fast, dsBlock, disaggregatedSetWith(t, name, at(i), at(i+1)), disaggregatedSetWith(t, name, at(i+1), at(i+2)),
			at(i).Name+" + "+at(i+1).Name+" then the next")
	})
}

// planApplyServer is the provider's server configured for the test cluster, and the lifecycle
// of each kind (by type name without the provider's prefix) with its schema block.
func planApplyServer(t *testing.T) (tfprotov6.ProviderServer, func(kind string) (lifecycle, *tfprotov6.SchemaBlock)) {
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
	return fast, func(kind string) (lifecycle, *tfprotov6.SchemaBlock) {
		typeName := provider.TypeName + "_" + kind
		typ := sch.ResourceSchemas[typeName].ValueType().(tftypes.Object)
		for _, k := range provider.Kinds {
			if k.TypeName == kind {
				return lifecycle{t: t, ctx: ctx, typeName: typeName, typ: typ, kind: k,
					identity: identities.IdentitySchemas[typeName].ValueType(),
					differ:   provider.NewDiffer(t, fast, typeName, typ, k)}, sch.ResourceSchemas[typeName].Block
			}
		}
		t.Fatalf("no kind %s", kind)
		return lifecycle{}, nil
	}
}

// forEachCase runs fn for each case, planApplyWorkers at a time, as Terraform's parallelism
// applies several resources at once.
func forEachCase(t *testing.T, what string, cases []*podtemplatecorpus.Case, fn func(i int, cases []*podtemplatecorpus.Case)) {
	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < planApplyWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				fn(i, cases)
			}
		}()
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()
	t.Logf("%d %s created, updated and destroyed, each apply refreshed and planned again, in %s",
		len(cases), what, time.Since(start).Round(time.Millisecond))
}

// disaggregatedSetWith is a DisaggregatedSet without groups whose prefill and decode roles have
// the templates of the LeaderWorkerSets of prefill and decode (podtemplatecorpus.LeaderWorkerSet).
func disaggregatedSetWith(t *testing.T, name string, prefill, decode *podtemplatecorpus.Case) *disaggv1.DisaggregatedSet {
	o := &disaggv1.DisaggregatedSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	for _, role := range []struct {
		name string
		cc   *podtemplatecorpus.Case
	}{{"prefill", prefill}, {"decode", decode}} {
		var spec releasedlwsv1.LeaderWorkerSetSpec
		b, err := json.Marshal(podtemplatecorpus.LeaderWorkerSet(name, role.cc, true).Spec)
		if err == nil {
			err = json.Unmarshal(b, &spec)
		}
		if err != nil {
			t.Fatal(err)
		}
		o.Spec.Roles = append(o.Spec.Roles, disaggv1.DisaggregatedRoleSpec{Name: role.name,
			LeaderWorkerSetTemplateSpec: releasedlwsv1.LeaderWorkerSetTemplateSpec{Spec: spec}})
	}
	return o
}

// planApplyPlan runs obj through plan, apply, refresh and a plan that must find nothing to do,
// then the same for an update to next, and destroys it, failing the test where Terraform would
// fail or the plan would show a change. Each plan's proposed new state is the one Terraform
// sends (ProposedNew).
func (l lifecycle) planApplyPlan(s tfprotov6.ProviderServer, block *tfprotov6.SchemaBlock, obj, next runtime.Object, desc string) {
	t := l.t
	m, _ := meta.Accessor(obj)
	name := m.GetName() + " (" + desc + ")"
	null := tftypes.NewValue(l.typ, nil)
	plan := func(config, prior tftypes.Value, private []byte, identity *tfprotov6.ResourceIdentityData) planned {
		return l.plan(s, config, prior, provider.ProposedNew(block, prior, config), private, identity)
	}
	ignore := func(string, string) {}
	var applyResponse string
	keep := func(_, response string) { applyResponse = response }

	state, private, identity := null, []byte(nil), (*tfprotov6.ResourceIdentityData)(nil)
	for _, step := range []struct {
		what string
		obj  runtime.Object
	}{{"create", obj}, {"update", next}} {
		config := l.withTimeouts(l.differ.UserConfig(m.GetName(), step.obj), "90s")
		v, err := s.ValidateResourceConfig(l.ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: l.typeName, Config: l.dv(config)})
		if err != nil {
			t.Error(err)
			return
		}
		if hasError(v.Diagnostics) {
			t.Errorf("%s: %s: the kind's rules accept the templates, its validation refuses them: %s", name, step.what, provider.Diagnostics(v.Diagnostics))
			return
		}
		p := plan(config, state, private, identity)
		if p.replaces && !p.failed {
			// An update the controller cannot carry out in place (a claim template changed):
			// Terraform destroys the object, then creates it anew.
			destroy := l.plan(s, null, state, null, private, identity)
			if _, _, _, deleted := l.apply(s, null, state, destroy, ignore, "apply destroy"); !deleted {
				t.Errorf("%s: %s: the destroy of the replacement failed", name, step.what)
				return
			}
			state, private, identity = null, nil, nil
			p = plan(config, state, private, identity)
		}
		if p.failed {
			t.Errorf("%s: %s: plan: %s", name, step.what, p.summary)
			return
		}
		if !state.IsNull() && l.value(p.state).Equal(state) {
			continue // nothing to change: Terraform does not call the apply
		}
		st, pr, idn, applied := l.apply(s, config, state, p, keep, "apply "+step.what+" of "+name)
		if !applied {
			t.Errorf("%s: %s: the apply failed: %s", name, step.what, applyResponse)
			return
		}
		state, private, identity = l.read(s, st, pr, idn, ignore, "read")
		l.assertNoChange(plan(config, state, private, identity), state, "after the "+step.what+" of "+name)
	}
	destroy := l.plan(s, null, state, null, private, identity)
	if _, _, _, deleted := l.apply(s, null, state, destroy, ignore, "apply destroy"); !deleted {
		t.Errorf("%s: the destroy failed", name)
	}
}

// TestAccPlanMatchesApply_leaderWorkerSetSpecs is TestAccPlanMatchesApply_podTemplates for the
// LeaderWorkerSet's own fields: each variant below leaves some of what the CRD and the webhook
// default unset or half set (a rollout configuration with only maxSurge, an empty networkConfig,
// a subGroupPolicy without its type, the deprecated restartPolicy "Default") and is created, then
// updated to the next variant. The apply must store what the plan said, and the refreshed state
// plan no change.
func TestAccPlanMatchesApply_leaderWorkerSetSpecs(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	fast, lifecycleOf := planApplyServer(t)
	l, block := lifecycleOf("leaderworkerset")
	rollout := func(cfg *lwsv1.RollingUpdateConfiguration, typ lwsv1.RolloutStrategyType) lwsfixture.Option {
		return func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.RolloutStrategy = lwsv1.RolloutStrategy{Type: typ, RollingUpdateConfiguration: cfg}
		}
	}
	variants := []struct {
		name string
		size int32
		opt  lwsfixture.Option
	}{
		{"defaults only", 2, func(*lwsv1.LeaderWorkerSet) {}},
		{"rollout: only maxSurge", 2, rollout(&lwsv1.RollingUpdateConfiguration{MaxSurge: intstr.FromInt32(1)}, "")},
		{"rollout: only maxUnavailable, as a percentage", 2, rollout(&lwsv1.RollingUpdateConfiguration{MaxUnavailable: intstr.FromString("50%")}, lwsv1.RollingUpdateStrategyType)},
		{"rollout: only partition", 2, rollout(&lwsv1.RollingUpdateConfiguration{Partition: ptr.To[int32](0)}, "")},
		{"rollout: only the type", 2, rollout(nil, lwsv1.RollingUpdateStrategyType)},
		{"empty networkConfig", 2, func(o *lwsv1.LeaderWorkerSet) { o.Spec.NetworkConfig = &lwsv1.NetworkConfig{} }},
		{"subdomainPolicy UniquePerReplica", 2, func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.NetworkConfig = &lwsv1.NetworkConfig{SubdomainPolicy: ptr.To(lwsv1.SubdomainUniquePerReplica)}
		}},
		{"subGroupPolicy without its type", 4, func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](2)}
		}},
		{"subGroupPolicy LeaderExcluded", 5, func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{Type: ptr.To(lwsv1.SubGroupPolicyTypeLeaderExcluded), SubGroupSize: ptr.To[int32](2)}
		}},
		{"restartPolicy Default (deprecated, stored as None)", 2, func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.DeprecatedDefaultRestartPolicy
		}},
		{"restartPolicy RecreateGroupAfterStart, startupPolicy LeaderReady", 2, func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.RecreateGroupAfterStart
			o.Spec.StartupPolicy = lwsv1.LeaderReadyStartupPolicy
		}},
		{"size 1, no leader template", 1, func(o *lwsv1.LeaderWorkerSet) { o.Spec.LeaderWorkerTemplate.LeaderTemplate = nil }},
		{"claim template with a retention policy for deletion only", 2, func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "model-cache"},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: apiresource.MustParse("100Gi")}}},
			}}
			o.Spec.LeaderWorkerTemplate.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType}
		}},
		{"empty label and annotation values", 2, func(o *lwsv1.LeaderWorkerSet) {
			o.Labels["example.com/flag"] = ""
			o.Annotations = map[string]string{"example.com/note": ""}
		}},
	}
	start := time.Now()
	for i, v := range variants {
		next := variants[(i+1)%len(variants)]
		name := fmt.Sprintf("plan-apply-spec-%02d", i)
		obj := lwsfixture.VLLM(name, 0, v.size, lwsfixture.SmallGPU, v.opt)
		nextObj := lwsfixture.VLLM(name, 0, next.size, lwsfixture.SmallGPU, next.opt)
		// A sub-group size is immutable (a change replaces the object): an update keeps the
		// variant's size and sub-group policy when either has one.
		if obj.Spec.LeaderWorkerTemplate.SubGroupPolicy != nil || nextObj.Spec.LeaderWorkerTemplate.SubGroupPolicy != nil {
			nextObj.Spec.LeaderWorkerTemplate.SubGroupPolicy = obj.Spec.LeaderWorkerTemplate.SubGroupPolicy.DeepCopy()
			nextObj.Spec.LeaderWorkerTemplate.Size = ptr.To(v.size)
		}
		l.planApplyPlan(fast, block, obj, nextObj, v.name+" then "+next.name)
	}
	t.Logf("%d LeaderWorkerSet variants created, updated and destroyed in %s", len(variants), time.Since(start).Round(time.Millisecond))
}

// withTimeouts is config with every timeout set to d: a wait that does not end says why in
// time for the test to report it.
func (l lifecycle) withTimeouts(config tftypes.Value, d string) tftypes.Value {
	var attrs map[string]tftypes.Value
	if err := config.As(&attrs); err != nil {
		l.t.Fatal(err)
	}
	typ := l.typ.AttributeTypes["timeouts"].(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(at, d)
	}
	attrs["timeouts"] = tftypes.NewValue(typ, values)
	return tftypes.NewValue(config.Type(), attrs)
}

// hasShadowedVolume reports whether a volume of cc's template has the name of one of its claim
// templates, which replaces it in the StatefulSets.
func hasShadowedVolume(cc *podtemplatecorpus.Case) bool {
	for _, v := range cc.Tpl.Spec.Volumes {
		if slices.Contains(cc.VCTNames(), v.Name) {
			return true
		}
	}
	return false
}
