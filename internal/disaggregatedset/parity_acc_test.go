package disaggregatedset_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset"
	dsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// parityCases is the size of the generated corpus.
const parityCases = 320

// TestAccDisaggregatedSet_parity compares the provider's plan-time verdict on generated
// DisaggregatedSets with the real admission on the released-profile cluster: a dry-run create
// of the DisaggregatedSet (the v0.9.0 CRD schema, its CEL rule and the DisaggregatedSet
// webhook), and, when that passes, a dry-run create of the LeaderWorkerSet each role becomes
// (as LeaderWorkerSetManager.Create builds it from the stored, defaulted set: the v0.9.0
// LeaderWorkerSet CRD and webhooks), since an object the set's admission accepts but whose
// LeaderWorkerSets the LWS admission refuses never runs. Verdicts must agree on every case;
// field-path differences are logged. Mutations stay away from the pod templates (covered by
// internal/podtemplate's StatefulSet parity) and from names between the LeaderWorkerSet's
// 63 characters and the runtime-name limit (the provider is stricter there by design).
// Field paths differ, and are only logged, where the provider reports more than the server,
// which stops at the first stage that rejects (schema, then webhook, then the LeaderWorkerSets),
// and where a set name too long for the LeaderWorkerSets' labels is reported on metadata.name
// rather than on the generated labels.
func TestAccDisaggregatedSet_parity(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	dsRI := c.Dynamic().Resource(disaggregatedset.Kind.GVR()).Namespace("default")
	lwsRI := c.Dynamic().Resource(lwsv1.GroupVersion.WithResource("leaderworkersets")).Namespace("default")
	rng := rand.New(rand.NewSource(acctest.ParitySeed(t, 13)))
	var cases []acctest.ParityCase
	for i := range parityCases {
		obj, desc, want := generate(rng, i)
		cases = append(cases, acctest.ParityCase{
			Desc: desc,
			Want: want,
			Provider: func() acctest.Verdict {
				ds := &disaggv1.DisaggregatedSet{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(copyMap(obj), ds); err != nil {
					return acctest.Verdict{Msg: err.Error()}
				}
				dsrules.SetDefaults(ds, k8sschema.NullValue(disaggregatedset.Kind.Node()))
				return acctest.VerdictFromFieldErrors(dsrules.Validate(ds))
			},
			Server: func(ctx context.Context) (acctest.Verdict, error) {
				stored, err := dsRI.Create(ctx, &unstructured.Unstructured{Object: copyMap(obj)}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				if err != nil {
					return serverVerdict(err)
				}
				ds := &disaggv1.DisaggregatedSet{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(stored.Object, ds); err != nil {
					return acctest.Verdict{}, err
				}
				var paths, msgs []string
				for i := range ds.Spec.Roles {
					lws, err := dsrules.RoleLeaderWorkerSet(ds, i)
					if err != nil {
						return acctest.Verdict{}, err
					}
					u, err := lwsUnstructured(lws)
					if err != nil {
						return acctest.Verdict{}, err
					}
					_, err = lwsRI.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
					if err == nil {
						continue
					}
					v, verr := serverVerdict(err)
					if verr != nil {
						return acctest.Verdict{}, fmt.Errorf("LeaderWorkerSet of role %s: %w", ds.Spec.Roles[i].Name, verr)
					}
					for _, p := range v.Paths {
						paths = append(paths, rerootLWSPath(p, i))
					}
					msgs = append(msgs, v.Msg)
				}
				if len(msgs) == 0 {
					return acctest.Verdict{Valid: true}, nil
				}
				return acctest.Verdict{Paths: acctest.SortedPaths(paths), Msg: strings.Join(msgs, "; ")}, nil
			},
		})
	}
	acctest.RunParity(t, cases)
}

// webhookDenial is how kube-apiserver reports a validating webhook's rejection; the webhook's
// field errors follow in their string form.
var (
	webhookDenial  = regexp.MustCompile(`^admission webhook "[^"]+" denied the request: `)
	webhookErrorRE = regexp.MustCompile(`(?:^\[?|, )(\S+): (?:Invalid value|Required value|Unsupported value|Forbidden|Too long|Too many|Duplicate value|Not found|Internal error)`)
)

// serverVerdict is the verdict of a dry-run create: a schema rejection (Invalid, with causes)
// or a webhook's denial (field errors in the message).
func serverVerdict(err error) (acctest.Verdict, error) {
	var status apierrors.APIStatus
	if errors.As(err, &status) && webhookDenial.MatchString(status.Status().Message) {
		msg := status.Status().Message
		var paths []string
		for _, m := range webhookErrorRE.FindAllStringSubmatch(webhookDenial.ReplaceAllString(msg, ""), -1) {
			// The LWS webhook names subGroupPolicy with a capital S.
			paths = append(paths, strings.Replace(m[1], ".SubGroupPolicy.", ".subGroupPolicy.", 1))
		}
		return acctest.Verdict{Paths: acctest.SortedPaths(paths), Msg: msg}, nil
	}
	v, verr := acctest.VerdictFromError(err)
	// A schema rejection carries a cause without a field (printed "<nil>") for the rules it
	// skipped; it names no attribute.
	v.Paths = slices.DeleteFunc(v.Paths, func(p string) bool { return p == "<nil>" || p == "" })
	return v, verr
}

// rerootLWSPath maps a field path of role i's LeaderWorkerSet to the set's field (as the
// provider reports it).
func rerootLWSPath(p string, i int) string {
	if p == "metadata.name" || p == "" {
		return "metadata.name"
	}
	return fmt.Sprintf("spec.roles[%d].%s", i, p)
}

func lwsUnstructured(lws *lwsv1.LeaderWorkerSet) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(lws)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(lwsv1.GroupVersion.String())
	u.SetKind("LeaderWorkerSet")
	return u, nil
}

func copyMap(m map[string]any) map[string]any { return runtime.DeepCopyJSON(m) }

func roleObj(name string, replicas any) map[string]any {
	spec := map[string]any{
		"leaderWorkerTemplate": map[string]any{
			"workerTemplate": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
				"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
				"resources": map[string]any{"limits": map[string]any{"nvidia.com/gpu": "8"}},
			}}}},
		},
	}
	if replicas != nil {
		spec["replicas"] = replicas
	}
	return map[string]any{"name": name, "spec": spec}
}

// generate returns the i-th object of the corpus, its description and whether the generator
// means it to be valid (mutations marked bad).
func generate(rng *rand.Rand, i int) (map[string]any, string, bool) {
	name := fmt.Sprintf("par-%d", i)
	roles := []any{roleObj("prefill", int64(1)), roleObj("decode", int64(2))}
	want := true
	var desc []string
	role := func(j int) map[string]any { return roles[min(j, len(roles)-1)].(map[string]any) }
	spec := func(j int) map[string]any { return role(j)["spec"].(map[string]any) }
	lwt := func(j int) map[string]any { return spec(j)["leaderWorkerTemplate"].(map[string]any) }
	type mutation struct {
		desc  string
		valid bool
		apply func()
	}
	choose := func(options ...mutation) mutation { return options[rng.Intn(len(options))] }
	j := rng.Intn(2)
	pool := []func() mutation{
		func() mutation {
			return choose(
				mutation{"one role", false, func() { roles = roles[:1] }},
				mutation{"three roles", true, func() { roles = append(roles, roleObj("router", int64(1))) }},
				mutation{"eleven roles", false, func() {
					for k := range 9 {
						roles = append(roles, roleObj(fmt.Sprintf("r%d", k), int64(1)))
					}
				}},
			)
		},
		func() mutation {
			return mutation{"duplicate role names", false, func() { role(1)["name"] = role(0)["name"] }}
		},
		func() mutation {
			return choose(
				mutation{"role name Decode", false, func() { role(j)["name"] = "Decode" }},
				mutation{"role name -x", false, func() { role(j)["name"] = "-x" }},
				mutation{"role name a_b", false, func() { role(j)["name"] = "a_b" }},
				mutation{"empty role name", false, func() { role(j)["name"] = "" }},
				mutation{"role name of 64", false, func() { role(j)["name"] = strings.Repeat("r", 64) }},
				mutation{"role name 2d", true, func() { role(j)["name"] = "2d" }},
			)
		},
		func() mutation {
			return choose(
				mutation{"replicas 0 on one role", false, func() { spec(j)["replicas"] = int64(0) }},
				mutation{"replicas 0 on all roles", true, func() {
					for k := range roles {
						spec(k)["replicas"] = int64(0)
					}
				}},
				mutation{"replicas left out", true, func() { delete(spec(j), "replicas") }},
				mutation{"replicas -1", false, func() { spec(j)["replicas"] = int64(-1) }},
			)
		},
		func() mutation {
			p := int64(rng.Intn(2))
			return mutation{fmt.Sprintf("partition %d", p), p == 0, func() {
				spec(j)["rolloutStrategy"] = map[string]any{"rollingUpdateConfiguration": map[string]any{
					"partition": p, "maxUnavailable": int64(1), "maxSurge": int64(0)}}
			}}
		},
		func() mutation {
			return choose(
				mutation{"rollout type RollingUpdate", true, func() { spec(j)["rolloutStrategy"] = map[string]any{"type": "RollingUpdate"} }},
				mutation{"rollout type Recreate", false, func() { spec(j)["rolloutStrategy"] = map[string]any{"type": "Recreate"} }},
			)
		},
		func() mutation {
			type pair struct {
				u, s  any
				valid bool
			}
			v := []pair{{int64(0), int64(0), false}, {"50%", int64(0), true}, {"150%", int64(0), false}, {int64(1), "10%", true}, {"5", int64(0), false}}[rng.Intn(5)]
			return mutation{fmt.Sprintf("maxUnavailable %v maxSurge %v", v.u, v.s), v.valid, func() {
				spec(j)["rolloutStrategy"] = map[string]any{"type": "RollingUpdate", "rollingUpdateConfiguration": map[string]any{
					"maxUnavailable": v.u, "maxSurge": v.s}}
			}}
		},
		func() mutation {
			size := []int64{0, 1, 3, 4}[rng.Intn(4)]
			sub := []int64{0, 2, 4}[rng.Intn(3)]
			valid := size >= 1
			if sub > 0 {
				valid = valid && sub <= size && (size%sub == 0 || (size-1)%sub == 0)
			}
			return mutation{fmt.Sprintf("size %d subGroupSize %d", size, sub), valid, func() {
				lwt(j)["size"] = size
				if sub > 0 {
					lwt(j)["subGroupPolicy"] = map[string]any{"subGroupSize": sub}
				}
			}}
		},
		func() mutation {
			return choose(
				mutation{"startupPolicy LeaderReady", true, func() { spec(j)["startupPolicy"] = "LeaderReady" }},
				mutation{"startupPolicy Bogus", false, func() { spec(j)["startupPolicy"] = "Bogus" }},
				mutation{"restartPolicy None", true, func() { lwt(j)["restartPolicy"] = "None" }},
				mutation{"restartPolicy Default", true, func() { lwt(j)["restartPolicy"] = "Default" }},
				mutation{"restartPolicy Bogus", false, func() { lwt(j)["restartPolicy"] = "Bogus" }},
				mutation{"subdomainPolicy UniquePerReplica", true, func() { spec(j)["networkConfig"] = map[string]any{"subdomainPolicy": "UniquePerReplica"} }},
				mutation{"subdomainPolicy Bogus", false, func() { spec(j)["networkConfig"] = map[string]any{"subdomainPolicy": "Bogus"} }},
			)
		},
		func() mutation {
			return choose(
				mutation{"set name of 20", true, func() { name = strings.Repeat("p", 16) + fmt.Sprintf("%04d", i) }},
				mutation{"set name of 60", false, func() { name = strings.Repeat("p", 56) + fmt.Sprintf("%04d", i) }},
				mutation{"set name of 70", false, func() { name = strings.Repeat("p", 66) + fmt.Sprintf("%04d", i) }},
				mutation{"set name starting with a digit", false, func() { name = fmt.Sprintf("%d-pd", i) }},
				mutation{"set name with a dot", false, func() { name = fmt.Sprintf("pd.%d", i) }},
			)
		},
		func() mutation {
			return choose(
				mutation{"invalid role label value", false, func() { role(j)["metadata"] = map[string]any{"labels": map[string]any{"tier": "-bad-"}} }},
				mutation{"role labels and annotations", true, func() {
					role(j)["metadata"] = map[string]any{"labels": map[string]any{"tier": "x"}, "annotations": map[string]any{"a": "b"}}
				}},
				mutation{"invalid role annotation key", false, func() { role(j)["metadata"] = map[string]any{"annotations": map[string]any{"bad key": "b"}} }},
			)
		},
	}
	for n := rng.Intn(3); n > 0; n-- {
		m := pool[rng.Intn(len(pool))]()
		m.apply()
		want = want && m.valid
		desc = append(desc, m.desc)
	}
	if len(desc) == 0 {
		desc = append(desc, "unchanged pair")
	}
	obj := map[string]any{
		"apiVersion": disaggv1.GroupVersion.String(), "kind": "DisaggregatedSet",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     map[string]any{"roles": roles},
	}
	return obj, fmt.Sprintf("#%d %s", i, strings.Join(desc, ", ")), want
}
