package leaderworkerset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// labelRevision is the revision key the v0.9.0 controller puts on the leader StatefulSet and
// on every pod (RevisionKey, api/leaderworkerset/v1/leaderworkerset_types.go).
const labelRevision = "leaderworkerset.sigs.k8s.io/template-revision-hash"

// rolloutEdit is one generated change of the configuration.
type rolloutEdit struct {
	name  string
	apply func(r *rand.Rand, l *lwsv1.LeaderWorkerSet)
}

var rolloutEdits = []rolloutEdit{
	{"worker image", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		lwsfixture.Worker(l).Image = fmt.Sprintf("vllm/vllm-openai:v0.11.%d", r.Intn(4))
	}},
	{"leader image", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		lwsfixture.Leader(l).Image = fmt.Sprintf("vllm/vllm-openai:v0.11.%d", r.Intn(4))
	}},
	{"worker env", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		setEnv(lwsfixture.Worker(l), "MODE", []string{"a", "b", "c"}[r.Intn(3)])
	}},
	{"leader env", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		setEnv(lwsfixture.Leader(l), "LOG_LEVEL", []string{"info", "debug"}[r.Intn(2)])
	}},
	{"leader cpu", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		// "16" and "16000m" are the same quantity: no new revision.
		lwsfixture.Leader(l).Resources.Requests["cpu"] = resource.MustParse([]string{"16", "16000m", "15"}[r.Intn(3)])
	}},
	{"worker memory", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		lwsfixture.Worker(l).Resources.Limits["memory"] = resource.MustParse([]string{"128Gi", "120Gi"}[r.Intn(2)])
	}},
	{"template label", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		setKey(&l.Spec.LeaderWorkerTemplate.WorkerTemplate.Labels, "example.com/tier", []string{"", "gold", "silver"}[r.Intn(3)])
	}},
	{"template annotation", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		setKey(&l.Spec.LeaderWorkerTemplate.LeaderTemplate.Annotations, "example.com/note", []string{"", "x", "y"}[r.Intn(3)])
	}},
	{"object label", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		setKey(&l.Labels, "example.com/team", []string{"", "a", "b"}[r.Intn(3)])
	}},
	{"object annotation", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		setKey(&l.Annotations, "example.com/runbook", []string{"", "r1", "r2"}[r.Intn(3)])
	}},
	{"replicas", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) { l.Spec.Replicas = ptr.To(int32(1 + r.Intn(3))) }},
	{"rollout strategy", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		ru := rollingUpdate(l)
		ru.MaxUnavailable = []intstr.IntOrString{intstr.FromInt32(1), intstr.FromInt32(2), intstr.FromString("50%")}[r.Intn(3)]
		ru.MaxSurge = []intstr.IntOrString{intstr.FromInt32(0), intstr.FromInt32(1)}[r.Intn(2)]
	}},
	{"partition", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		rollingUpdate(l).Partition = ptr.To(int32(r.Intn(int(*l.Spec.Replicas) + 1)))
	}},
	{"network config", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		p := []lwsv1.SubdomainPolicy{lwsv1.SubdomainShared, lwsv1.SubdomainUniquePerReplica}[r.Intn(2)]
		l.Spec.NetworkConfig = &lwsv1.NetworkConfig{SubdomainPolicy: &p}
	}},
	{"startup policy", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		l.Spec.StartupPolicy = []lwsv1.StartupPolicyType{lwsv1.LeaderCreatedStartupPolicy, lwsv1.LeaderReadyStartupPolicy}[r.Intn(2)]
	}},
	{"subgroup policy", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		// The webhook keeps subGroupSize immutable and the policy present once set
		// (ValidateUpdate, pkg/webhooks/leaderworkerset_webhook.go, v0.9.0): only its type changes.
		l.Spec.LeaderWorkerTemplate.SubGroupPolicy.Type = ptr.To([]lwsv1.SubGroupPolicyType{
			lwsv1.SubGroupPolicyTypeLeaderWorker, lwsv1.SubGroupPolicyTypeLeaderExcluded}[r.Intn(2)])
	}},
	{"restart policy", func(r *rand.Rand, l *lwsv1.LeaderWorkerSet) {
		// "Default" is stored as "None": switching between them makes no new revision.
		l.Spec.LeaderWorkerTemplate.RestartPolicy = []lwsv1.RestartPolicyType{lwsv1.RecreateGroupOnPodRestart,
			lwsv1.NoneRestartPolicy, lwsv1.DeprecatedDefaultRestartPolicy}[r.Intn(3)]
	}},
}

func setEnv(c *corev1.Container, name, value string) {
	for i := range c.Env {
		if c.Env[i].Name == name {
			c.Env[i].Value = value
			return
		}
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: value})
}

func setKey(m *map[string]string, key, value string) {
	if value == "" {
		delete(*m, key)
		return
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[key] = value
}

func rollingUpdate(l *lwsv1.LeaderWorkerSet) *lwsv1.RollingUpdateConfiguration {
	if l.Spec.RolloutStrategy.RollingUpdateConfiguration == nil {
		l.Spec.RolloutStrategy = lwsv1.RolloutStrategy{Type: lwsv1.RollingUpdateStrategyType,
			RollingUpdateConfiguration: &lwsv1.RollingUpdateConfiguration{Partition: ptr.To[int32](0),
				MaxUnavailable: intstr.FromInt32(1), MaxSurge: intstr.FromInt32(0)}}
	}
	return l.Spec.RolloutStrategy.RollingUpdateConfiguration
}

// TestAccLeaderWorkerSet_rolloutDifferential applies generated edits one after another to a
// running LeaderWorkerSet on the released v0.9.0 controller and compares, for each, the
// preview's verdict (which running groups are recreated) with what the controller did: the
// groups whose pods were replaced, and whether the leader StatefulSet's revision changed. The
// verdict holds for v0.10.0 too: its revision code (pkg/utils/revision/revision_utils.go at
// 2161f38) and LeaderWorkerTemplate type are those of v0.9.0.
func TestAccLeaderWorkerSet_rolloutDifferential(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	const name, edits = "acc-rollout-diff", 60
	ri := lwsClient(t)
	cluster := acctest.Cluster(t)
	ctx := context.Background()
	t.Cleanup(func() {
		_ = ri.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
		_ = leaderworkerset.Kind.Hooks.AfterDelete(ctx, cluster.Dynamic(), "default", name)
	})
	cfg := lwsfixture.VLLM(name, 2, 2, lwsfixture.SmallGPU, lwsfixture.Image("vllm/vllm-openai:v0.11.0"))
	// A subgroup policy from creation on, so that the edits can change its type.
	cfg.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](1)}
	ssa := serverSideApply(t, name)
	apply := func(l *lwsv1.LeaderWorkerSet) {
		t.Helper()
		if err := ssa(l); err != nil {
			t.Fatal(err)
		}
	}
	apply(cfg)
	groups, rev, revs := settle(t, name)
	rng := rand.New(rand.NewSource(29))
	agree, rolled := 0, 0
	var disagreements []string
	for i := 0; i < edits; i++ {
		next := cfg.DeepCopy()
		var what []string
		for n := 1 + rng.Intn(2); n > 0; n-- {
			e := rolloutEdits[rng.Intn(len(rolloutEdits))]
			e.apply(rng, next)
			what = append(what, e.name)
		}
		// The planned object as the plan computes it: the configuration, its planned defaults
		// (webhook and CRD, pod template defaults included).
		node := leaderworkerset.Kind.Node()
		config := k8sschema.Encode(node, next)
		defaulted := next.DeepCopy()
		leaderworkerset.Kind.Defaults(defaulted, config)
		planned := &lwsv1.LeaderWorkerSet{}
		k8sschema.Decode(node, k8sschema.PlanDefaults(node, config, config, defaulted), planned, nil)
		if errs := leaderworkerset.Kind.Validate(defaulted); len(errs) > 0 {
			i-- // not a valid configuration: the plan would fail; draw another
			continue
		}
		// The prior state as the refresh before the plan reads it (status included).
		u, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		prior, err := leaderworkerset.Kind.FromServer(u)
		if err != nil {
			t.Fatal(err)
		}
		preview := lwsrules.PreviewRollout(planned, prior.(*lwsv1.LeaderWorkerSet))
		want := map[int]bool{}
		if first, last, ok := preview.Recreated(); ok {
			for g := first; g <= last; g++ {
				want[int(g)] = true
			}
		}
		apply(next)
		after, afterRev, afterRevs := settle(t, name)
		got := map[int]bool{}
		for g, uids := range groups {
			if now, ok := after[g]; ok && now != uids {
				got[g] = true
			}
		}
		newRevision := afterRev != rev
		previewNew := preview.NewRevision()
		line := fmt.Sprintf("edit %d (%s): preview recreates %v (new revision %v), controller recreated %v (new revision %v)",
			i+1, strings.Join(what, ", "), sortedGroups(want), previewNew, sortedGroups(got), newRevision)
		if fmt.Sprint(sortedGroups(want)) == fmt.Sprint(sortedGroups(got)) && previewNew == newRevision {
			agree++
			t.Log(line)
		} else {
			disagreements = append(disagreements, fmt.Sprintf("%s\n    preview: %s\n    group revisions before %v (leader StatefulSet %s), after %v (%s)",
				line, preview.Message(leaderworkerset.Kind.Node()), revs, rev, afterRevs, afterRev))
		}
		if len(got) > 0 {
			rolled++
		}
		cfg, groups, rev, revs = next, after, afterRev, afterRevs
	}
	acctest.Report(t, "rollout differential: %d edits, %d agreements, %d disagreements (%d edits recreated groups)", edits, agree, len(disagreements), rolled)
	for _, d := range disagreements {
		t.Error(d)
	}
}

// serverSideApply returns a function that applies a LeaderWorkerSet named name as the
// configuration would (status left out, unset fields pruned), with field manager difftest.
func serverSideApply(t *testing.T, name string) func(l *lwsv1.LeaderWorkerSet) error {
	ri := lwsClient(t)
	return func(l *lwsv1.LeaderWorkerSet) error {
		m, err := json.Marshal(l)
		if err != nil {
			return err
		}
		var body map[string]any
		_ = json.Unmarshal(m, &body)
		delete(body, "status")
		body = prune(body).(map[string]any)
		body["apiVersion"], body["kind"] = "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"
		raw, _ := json.Marshal(body)
		if _, err := ri.Patch(context.Background(), name, types.ApplyPatchType, raw, metav1.PatchOptions{FieldManager: "difftest", Force: ptr.To(true)}); err != nil {
			return fmt.Errorf("apply: %w\n%s", err, raw)
		}
		return nil
	}
}

// prune drops the empty strings, nulls and empty objects and lists that the Go types render
// for fields left unset, as a configuration leaves them out.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e = prune(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		var out []any
		for _, e := range x {
			if e = prune(e); e != nil {
				out = append(out, e)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case string:
		if x == "" {
			return nil
		}
	}
	return v
}

func sortedGroups(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for g := range m {
		out = append(out, g)
	}
	sort.Ints(out)
	return out
}

// settle waits until the controller has observed the object's generation and the rollout is
// as far as it goes: the leader StatefulSet at spec.replicas (surge groups gone), every pod
// Ready and none terminating, and every group from the partition up at the StatefulSet's
// revision. It returns each group's pod UIDs, the revision, and each group's revisions (the
// distinct revision labels of its pods).
func settle(t *testing.T, name string) (map[int]string, string, map[int]string) {
	t.Helper()
	ctx := context.Background()
	cluster := acctest.Cluster(t)
	ri := lwsClient(t)
	var groups, revs map[int]string
	var rev, why string
	err := wait.PollUntilContextTimeout(ctx, 300*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		u, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		var l lwsv1.LeaderWorkerSet
		if err := fromUnstructured(u, &l); err != nil {
			return false, err
		}
		if l.Status.ObservedGeneration < l.Generation {
			why = "generation not observed"
			return false, nil
		}
		replicas := int(ptr.Deref(l.Spec.Replicas, 1))
		size := int(ptr.Deref(l.Spec.LeaderWorkerTemplate.Size, 1))
		partition := 0
		if ru := l.Spec.RolloutStrategy.RollingUpdateConfiguration; ru != nil && ru.Partition != nil {
			partition = int(*ru.Partition)
		}
		sts, err := cluster.Clientset().AppsV1().StatefulSets("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			why = err.Error()
			return false, nil //nolint:nilerr // the leader StatefulSet may not be there yet: poll again
		}
		if int(ptr.Deref(sts.Spec.Replicas, 0)) != replicas {
			why = "surge groups left"
			return false, nil
		}
		rev = sts.Labels[labelRevision]
		pods := listPods(t, name)
		groups, revs = map[int]string{}, map[int]string{}
		uids, podRevs := map[int][]string{}, map[int]map[string]bool{}
		for i := range pods {
			p := &pods[i]
			g, _ := strconv.Atoi(p.Labels[labelGroupIndex])
			if p.DeletionTimestamp != nil || !acctest.PodReady(p) {
				why = "pod " + p.Name + " not ready"
				return false, nil
			}
			if g >= partition && p.Labels[labelRevision] != rev {
				why = "pod " + p.Name + " at an old revision"
				return false, nil
			}
			uids[g] = append(uids[g], string(p.UID))
			if podRevs[g] == nil {
				podRevs[g] = map[string]bool{}
			}
			podRevs[g][p.Labels[labelRevision]] = true
		}
		if len(pods) != replicas*size {
			why = fmt.Sprintf("%d pods, want %d", len(pods), replicas*size)
			return false, nil
		}
		// The right number of pods is not enough: at the end of a rollout with surge, the
		// StatefulSet is back at spec.replicas while a surge group still runs and a recreated
		// group is not back yet (groups 1 and 2 of 2 replicas). Every group 0..replicas-1 and
		// no other, and the StatefulSet's own status caught up.
		for g := 0; g < replicas; g++ {
			if len(uids[g]) != size {
				why = fmt.Sprintf("group %d has %d pods, want %d", g, len(uids[g]), size)
				return false, nil
			}
		}
		if len(uids) != replicas {
			why = fmt.Sprintf("%d groups, want %d", len(uids), replicas)
			return false, nil
		}
		if sts.Status.ObservedGeneration < sts.Generation || int(sts.Status.Replicas) != replicas ||
			int(sts.Status.ReadyReplicas) != replicas {
			why = "leader StatefulSet status not caught up"
			return false, nil
		}
		for g, u := range uids {
			sort.Strings(u)
			groups[g] = strings.Join(u, ",")
			var rs []string
			for r := range podRevs[g] {
				rs = append(rs, r)
			}
			sort.Strings(rs)
			revs[g] = strings.Join(rs, "+")
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("LeaderWorkerSet %s did not settle: %v (%s)", name, err, why)
	}
	return groups, rev, revs
}

func fromUnstructured(u *unstructured.Unstructured, out *lwsv1.LeaderWorkerSet) error {
	raw, err := u.MarshalJSON()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}
