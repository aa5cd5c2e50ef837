package leaderworkerset_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// TestAccLeaderWorkerSet_webhookParity compares the provider's plan-time verdict on
// LeaderWorkerSets with admission by the released LeaderWorkerSet v0.9.0 (its CRD schema, its
// defaulting and validating webhooks) on the released-profile test cluster.
//
// The corpus (hand-written edges plus seeded random combinations) varies the LWS-level released
// fields only: metadata.name, labels and annotations, replicas, size, restartPolicy,
// startupPolicy, rolloutStrategy, subGroupPolicy, networkConfig and volumeClaimTemplates; the
// pod templates stay small and valid, and the four newer fields are never set (their rules are
// covered by the unit tests of the newer-field rules in validation_test.go).
//
// Each object is written as JSON (what the user means). The server's verdict is a dry-run create
// of it; the provider's verdict is what `terraform plan` says: the object as a Terraform
// configuration value, run through what the resource's ValidateConfig runs (Decode, the kind's
// CheckConfig, Defaults and Validate, as kube.Resource.validate composes them), cross-checked
// against the resource's real ValidateConfig.
//
// Verdicts and, for agreed rejections, field paths must agree. The only tolerated differences
// are listed below: serverPathQuirks (normalized), providerExtras and pathDivergences (the
// deliberate divergences, matched in classify), and knownDisagreements (provider bugs, which
// fail the test); each is counted and reported. A small update corpus compares dry-run
// updates with the provider's ReplaceOn and ValidateUpdate.
func TestAccLeaderWorkerSet_webhookParity(t *testing.T) {
	runsBesideOthers(t)
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	start := time.Now()
	ctx := context.Background()
	env := newProviderEnv(t)
	ri := c.Dynamic().Resource(leaderworkerset.Kind.GVR()).Namespace("default")

	corpus := webhookCorpus(acctest.ParitySeed(t, 20260514))
	if len(corpus) < 500 {
		t.Fatalf("corpus has %d objects, want at least 500", len(corpus))
	}
	results := evaluateCreates(ctx, t, env, ri, corpus)
	if t.Failed() {
		return
	}
	st := newParityStats()
	for _, r := range results {
		st.record(t, r, classify(r))
	}
	st.report(t, "create")

	upd := runUpdateCorpus(ctx, t, env, ri)
	t.Logf("webhook parity summary: create: %d objects (%d generated, %d follow-ups without the schema-stage fields), "+
		"%d valid and %d invalid per the server, %d agreements, %d disagreements, %d known disagreements, %d deliberate divergences; "+
		"update: %d updates, %d valid and %d invalid per the server, %d agreements, %d disagreements, %d deliberate divergences; run time %s",
		st.total, len(corpus), st.total-len(corpus), st.valid, st.invalid, st.agreements, st.disagreements, st.known, st.divergenceCases,
		upd.total, upd.valid, upd.invalid, upd.agreements, upd.disagreements, upd.divergenceCount(), time.Since(start).Round(time.Millisecond))
}

// ---- corpus ----

// whCase is one generated LeaderWorkerSet, as JSON without apiVersion and kind.
type whCase struct {
	desc string
	obj  map[string]any
}

const (
	pName           = "metadata.name"
	pReplicas       = "spec.replicas"
	pStartupPolicy  = "spec.startupPolicy"
	pSize           = "spec.leaderWorkerTemplate.size"
	pSubGroupSize   = "spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize"
	pSubGroupPolicy = "spec.leaderWorkerTemplate.subGroupPolicy"
	pMaxUnavailable = "spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable"
	pMaxSurge       = "spec.rolloutStrategy.rollingUpdateConfiguration.maxSurge"
)

func podTemplate(container string) map[string]any {
	return map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
		"name":      container,
		"image":     "registry.k8s.io/pause:3.10",
		"resources": map[string]any{"requests": map[string]any{"cpu": "10m"}},
	}}}}
}

func baseLWS(name string) map[string]any {
	return map[string]any{
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec": map[string]any{
			"leaderWorkerTemplate": map[string]any{"workerTemplate": podTemplate("worker")},
		},
	}
}

// setAt sets the value at a dotted path (no keys with dots), creating maps on the way; a nil
// value deletes the field.
func setAt(obj map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	m := obj
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			if v == nil {
				return
			}
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	if v == nil {
		delete(m, parts[len(parts)-1])
		return
	}
	m[parts[len(parts)-1]] = v
}

func getAt(obj map[string]any, path string) (any, bool) {
	var cur any = obj
	for _, p := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func strMap(kv ...string) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func validVCT() map[string]any {
	return map[string]any{
		"metadata": map[string]any{"name": "data"},
		"spec": map[string]any{
			"accessModes": []any{"ReadWriteOnce"},
			"resources":   map[string]any{"requests": map[string]any{"storage": "1Gi"}},
		},
	}
}

// vctMissingAccessModes is a claim template kube-apiserver rejects in a StatefulSet (no access
// modes, no storage request); neither the LWS CRD nor the webhook checks it.
func vctMissingAccessModes() map[string]any {
	return map[string]any{"metadata": map[string]any{"name": "data"}, "spec": map[string]any{}}
}

func longName(n int) string { return "n" + strings.Repeat("a", n-1) }

var subGroupAnnotation = lwsv1.SubGroupExclusiveKeyAnnotationKey

// intOrStringPool: values of maxUnavailable and maxSurge (int64 or string).
var intOrStringPool = []any{int64(0), int64(1), int64(2), int64(-1), "0%", "50%", "100%", "101%", "abc", "-5%"}

func webhookCorpus(seed int64) []whCase {
	var cases []whCase
	n := 0
	add := func(desc string, mutate func(o map[string]any)) {
		n++
		o := baseLWS(fmt.Sprintf("wp-%04d", n))
		mutate(o)
		cases = append(cases, whCase{desc: desc, obj: o})
	}
	set := func(path string, v any) func(o map[string]any) {
		return func(o map[string]any) { setAt(o, path, v) }
	}

	add("base", func(map[string]any) {})

	// metadata.name: DNS-1035 label (webhook), DNS-1123 subdomain (kube-apiserver), and the
	// length of the names the controller derives (provider).
	for _, name := range []string{"a", "a-b", "a--b", "1abc", "Abc", "abC", "a.b", "a_b", "abc-", "-abc", "a1",
		longName(40), longName(50), longName(51), longName(52), longName(53), longName(56), longName(62), longName(63),
		longName(64), longName(100), longName(253), longName(254)} {
		add(fmt.Sprintf("name %q (len %d)", name, len(name)), set("metadata.name", name))
	}
	// labels and annotations
	for _, l := range []map[string]any{
		strMap("app", "vllm"), strMap("example.com/team", "infer"), strMap("-bad", "x"), strMap("a/b/c", "x"),
		strMap("app", "-bad-"), strMap("app", strings.Repeat("v", 64)), strMap("app", strings.Repeat("v", 63)),
		strMap("Example.COM/x", "y"), strMap("", "x"), strMap(strings.Repeat("k", 64), "x"),
	} {
		add(fmt.Sprintf("labels %v", l), set("metadata.labels", l))
	}
	for _, a := range []map[string]any{
		strMap("note", "anything at all: ${x}"), strMap("bad!key", "x"), strMap("example.com/x", "y"), strMap("/x", "y"),
		strMap(lwsv1.ExclusiveKeyAnnotationKey, "topology.kubernetes.io/zone"),
		strMap(subGroupAnnotation, "topology.kubernetes.io/zone"),
		strMap(subGroupAnnotation, ""),
	} {
		add(fmt.Sprintf("annotations %v", a), set("metadata.annotations", a))
		add(fmt.Sprintf("annotations %v with subGroupPolicy 2 of size 4", a), func(o map[string]any) {
			setAt(o, "metadata.annotations", a)
			setAt(o, "spec.leaderWorkerTemplate.size", int64(4))
			setAt(o, pSubGroupPolicy, map[string]any{"subGroupSize": int64(2)})
		})
	}
	add("subgroup annotation with an invalid subGroupPolicy", func(o map[string]any) {
		setAt(o, "metadata.annotations", strMap(subGroupAnnotation, "zone"))
		setAt(o, "spec.leaderWorkerTemplate.size", int64(4))
		setAt(o, pSubGroupPolicy, map[string]any{"subGroupSize": int64(3)})
	})

	// replicas and size, and their product
	for _, r := range []int64{-1, 0, 1, 3, 100, 1000, 1000000} {
		add(fmt.Sprintf("replicas %d", r), set("spec.replicas", r))
	}
	for _, s := range []int64{-1, 0, 1, 2, 4, 5, 100, 2147483647} {
		add(fmt.Sprintf("size %d", s), set("spec.leaderWorkerTemplate.size", s))
	}
	for _, rs := range [][2]int64{{65536, 32767}, {65536, 32768}, {2, 1073741823}, {2, 1073741824}, {1000000, 2147}, {1000000, 2148},
		{3, 715827882}, {3, 715827883}, {0, 2147483647}, {-1, 0}, {-1, 4}, {0, 0}, {2147483647, 1}, {2147483647, 2}} {
		add(fmt.Sprintf("replicas %d size %d", rs[0], rs[1]), func(o map[string]any) {
			setAt(o, "spec.replicas", rs[0])
			setAt(o, "spec.leaderWorkerTemplate.size", rs[1])
		})
	}
	// values above the released API's ranges
	add("replicas 1000001", set("spec.replicas", int64(1000001)))
	add("replicas 2147483648 (over int32)", set("spec.replicas", int64(2147483648)))
	add("size 2147483648 (over int32)", set("spec.leaderWorkerTemplate.size", int64(2147483648)))

	// enums
	for _, v := range []string{"Default", "RecreateGroupOnPodRestart", "RecreateGroupAfterStart", "None", "Bogus", "none", ""} {
		add(fmt.Sprintf("restartPolicy %q", v), set("spec.leaderWorkerTemplate.restartPolicy", v))
	}
	for _, v := range []string{"LeaderCreated", "LeaderReady", "Bogus", "leaderready", ""} {
		add(fmt.Sprintf("startupPolicy %q", v), set("spec.startupPolicy", v))
	}
	for _, v := range []string{"Shared", "UniquePerReplica", "Bogus", "shared", ""} {
		add(fmt.Sprintf("subdomainPolicy %q", v), set("spec.networkConfig", map[string]any{"subdomainPolicy": v}))
	}
	add("networkConfig {}", set("spec.networkConfig", map[string]any{}))

	// rolloutStrategy
	add("rolloutStrategy {}", set("spec.rolloutStrategy", map[string]any{}))
	for _, v := range []string{"RollingUpdate", "Recreate", "", "rollingupdate"} {
		add(fmt.Sprintf("rolloutStrategy type %q", v), set("spec.rolloutStrategy", map[string]any{"type": v}))
		add(fmt.Sprintf("rolloutStrategy type %q with a configuration", v), set("spec.rolloutStrategy", map[string]any{"type": v,
			"rollingUpdateConfiguration": map[string]any{"maxUnavailable": int64(2), "maxSurge": int64(1)}}))
	}
	ruc := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return map[string]any{"type": "RollingUpdate", "rollingUpdateConfiguration": m}
	}
	add("rollingUpdateConfiguration {}", set("spec.rolloutStrategy", ruc()))
	for _, v := range intOrStringPool {
		add(fmt.Sprintf("only maxUnavailable %v", v), set("spec.rolloutStrategy", ruc("maxUnavailable", v)))
		add(fmt.Sprintf("only maxSurge %v", v), set("spec.rolloutStrategy", ruc("maxSurge", v)))
	}
	for _, p := range []int64{-1, 0, 5, 2147483647} {
		add(fmt.Sprintf("only partition %d", p), set("spec.rolloutStrategy", ruc("partition", p)))
	}
	// the webhook's arithmetic: every pair at 1 and 4 replicas, the zero pairs at 0 replicas
	for _, replicas := range []int64{1, 4} {
		for _, u := range intOrStringPool {
			for _, s := range intOrStringPool {
				add(fmt.Sprintf("replicas %d maxUnavailable %v maxSurge %v", replicas, u, s), func(o map[string]any) {
					setAt(o, "spec.replicas", replicas)
					setAt(o, "spec.rolloutStrategy", ruc("maxUnavailable", u, "maxSurge", s))
				})
			}
		}
	}
	for _, zero := range [][2]any{{int64(0), int64(0)}, {"0%", "0%"}, {int64(0), "0%"}, {"50%", int64(0)}, {"abc", int64(0)}} {
		add(fmt.Sprintf("replicas 0 maxUnavailable %v maxSurge %v", zero[0], zero[1]), func(o map[string]any) {
			setAt(o, "spec.replicas", int64(0))
			setAt(o, "spec.rolloutStrategy", ruc("maxUnavailable", zero[0], "maxSurge", zero[1]))
		})
	}
	add("replicas 3 maxUnavailable 34% maxSurge 0", func(o map[string]any) {
		setAt(o, "spec.replicas", int64(3))
		setAt(o, "spec.rolloutStrategy", ruc("maxUnavailable", "34%", "maxSurge", int64(0)))
	})
	add("replicas 3 maxUnavailable 33% maxSurge 0", func(o map[string]any) {
		setAt(o, "spec.replicas", int64(3))
		setAt(o, "spec.rolloutStrategy", ruc("maxUnavailable", "33%", "maxSurge", int64(0)))
	})
	add("replicas 3 maxUnavailable 0 maxSurge 1%", func(o map[string]any) {
		setAt(o, "spec.replicas", int64(3))
		setAt(o, "spec.rolloutStrategy", ruc("maxUnavailable", int64(0), "maxSurge", "1%"))
	})
	add("full rollingUpdateConfiguration with partition 5", set("spec.rolloutStrategy", ruc("maxUnavailable", "25%", "maxSurge", int64(1), "partition", int64(5))))
	// numeric strings: JSON a Terraform configuration cannot write (it sends "5" as the number 5)
	for _, v := range []string{"5", "0", "-1"} {
		add(fmt.Sprintf("maxUnavailable as the JSON string %q", v), set("spec.rolloutStrategy", ruc("maxUnavailable", v)))
		add(fmt.Sprintf("maxSurge as the JSON string %q", v), set("spec.rolloutStrategy", ruc("maxSurge", v)))
	}

	// subGroupPolicy: the divisibility grid
	for _, size := range []int64{1, 2, 3, 4, 5, 6, 8, 9} {
		for _, sgs := range []int64{-1, 1, 2, 3, 4, 5, 8, 10} {
			for _, typ := range []string{"", "LeaderWorker", "LeaderExcluded"} {
				policy := map[string]any{"subGroupSize": sgs}
				if typ != "" {
					policy["subGroupPolicyType"] = typ
				}
				add(fmt.Sprintf("size %d subGroupSize %d type %q", size, sgs, typ), func(o map[string]any) {
					setAt(o, "spec.leaderWorkerTemplate.size", size)
					setAt(o, pSubGroupPolicy, policy)
				})
			}
		}
	}
	for _, size := range []int64{0, -1} {
		add(fmt.Sprintf("size %d subGroupSize 1", size), func(o map[string]any) {
			setAt(o, "spec.leaderWorkerTemplate.size", size)
			setAt(o, pSubGroupPolicy, map[string]any{"subGroupSize": int64(1)})
		})
	}
	for _, typ := range []string{"Bogus", "", "leaderworker"} {
		add(fmt.Sprintf("subGroupPolicyType %q", typ), func(o map[string]any) {
			setAt(o, "spec.leaderWorkerTemplate.size", int64(4))
			setAt(o, pSubGroupPolicy, map[string]any{"subGroupSize": int64(2), "subGroupPolicyType": typ})
		})
	}
	for _, size := range []int64{1, 4} {
		add(fmt.Sprintf("size %d subGroupSize 0", size), func(o map[string]any) {
			setAt(o, "spec.leaderWorkerTemplate.size", size)
			setAt(o, pSubGroupPolicy, map[string]any{"subGroupSize": int64(0)})
		})
		add(fmt.Sprintf("size %d subGroupPolicy without subGroupSize", size), func(o map[string]any) {
			setAt(o, "spec.leaderWorkerTemplate.size", size)
			setAt(o, pSubGroupPolicy, map[string]any{"subGroupPolicyType": "LeaderExcluded"})
		})
	}
	add("subGroupPolicy {}", set(pSubGroupPolicy, map[string]any{}))

	// volumeClaimTemplates and a leader template
	add("volumeClaimTemplates: a valid claim", set("spec.leaderWorkerTemplate.volumeClaimTemplates", []any{validVCT()}))
	add("volumeClaimTemplates: no access modes and no storage", set("spec.leaderWorkerTemplate.volumeClaimTemplates", []any{vctMissingAccessModes()}))
	add("volumeClaimTemplates: valid claim with UniquePerReplica and 3 replicas", func(o map[string]any) {
		setAt(o, "spec.leaderWorkerTemplate.volumeClaimTemplates", []any{validVCT()})
		setAt(o, "spec.networkConfig", map[string]any{"subdomainPolicy": "UniquePerReplica"})
		setAt(o, "spec.replicas", int64(3))
	})
	add("leaderTemplate", set("spec.leaderWorkerTemplate.leaderTemplate", podTemplate("leader")))
	add("leaderTemplate, size 3, LeaderReady, RecreateGroupAfterStart", func(o map[string]any) {
		setAt(o, "spec.leaderWorkerTemplate.leaderTemplate", podTemplate("leader"))
		setAt(o, "spec.leaderWorkerTemplate.size", int64(3))
		setAt(o, "spec.startupPolicy", "LeaderReady")
		setAt(o, "spec.leaderWorkerTemplate.restartPolicy", "RecreateGroupAfterStart")
	})

	// seeded random combinations of every dimension
	rng := rand.New(rand.NewSource(seed))
	for i := 0; i < 320; i++ {
		desc, mutate := randomLWS(rng)
		add("random: "+desc, mutate)
	}
	return cases
}

// pick returns one of good with probability pGood, else one of bad.
func pick[T any](rng *rand.Rand, pGood float64, good, bad []T) T {
	if len(bad) > 0 && rng.Float64() >= pGood {
		return bad[rng.Intn(len(bad))]
	}
	return good[rng.Intn(len(good))]
}

// absent marks a field left out.
type absentT struct{}

var absent = absentT{}

func randomLWS(rng *rand.Rand) (string, func(o map[string]any)) {
	var parts []string
	var muts []func(o map[string]any)
	dim := func(path string, v any) {
		if _, ok := v.(absentT); ok {
			return
		}
		parts = append(parts, fmt.Sprintf("%s=%v", path[strings.LastIndex(path, ".")+1:], v))
		muts = append(muts, func(o map[string]any) { setAt(o, path, v) })
	}
	if rng.Intn(6) == 0 {
		dim("metadata.name", pick(rng, 0.5, []any{"wp-r-" + strconv.Itoa(rng.Intn(1000)), longName(45)},
			[]any{"1r", "R-x", "r.x", longName(60), longName(64), "r-"}))
	}
	if rng.Intn(5) == 0 {
		dim("metadata.labels", pick(rng, 0.7, []any{strMap("app", "vllm"), strMap("example.com/a", "b")},
			[]any{strMap("-x", "y"), strMap("app", "-y")}))
	}
	replicas := pick(rng, 0.93, []any{absent, int64(0), int64(1), int64(2), int64(3), int64(10), int64(65536)}, []any{int64(-1)})
	dim("spec.replicas", replicas)
	size := pick(rng, 0.93, []any{absent, int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(8), int64(32768)},
		[]any{int64(0), int64(-2)})
	dim("spec.leaderWorkerTemplate.size", size)
	dim("spec.leaderWorkerTemplate.restartPolicy", pick(rng, 0.93,
		[]any{absent, absent, "Default", "RecreateGroupOnPodRestart", "RecreateGroupAfterStart", "None"}, []any{"Bogus"}))
	dim("spec.startupPolicy", pick(rng, 0.93, []any{absent, absent, "LeaderCreated", "LeaderReady"}, []any{"Bogus"}))
	switch rng.Intn(4) {
	case 0: // absent
	case 1:
		dim("spec.networkConfig", map[string]any{})
	default:
		dim("spec.networkConfig.subdomainPolicy", pick(rng, 0.93, []any{"Shared", "UniquePerReplica"}, []any{"Bogus"}))
	}
	switch rng.Intn(4) {
	case 0: // absent
	case 1:
		dim("spec.rolloutStrategy.type", pick(rng, 0.93, []any{"RollingUpdate", ""}, []any{"Recreate"}))
	default:
		dim("spec.rolloutStrategy.type", "RollingUpdate")
		good := []any{absent, int64(0), int64(1), int64(2), "0%", "25%", "50%", "100%"}
		bad := []any{int64(-1), "101%", "abc"}
		dim("spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable", pick(rng, 0.9, good, bad))
		dim("spec.rolloutStrategy.rollingUpdateConfiguration.maxSurge", pick(rng, 0.9, good, bad))
		dim("spec.rolloutStrategy.rollingUpdateConfiguration.partition", pick(rng, 0.93, []any{absent, int64(0), int64(1), int64(5)}, []any{int64(-1)}))
	}
	if rng.Intn(3) == 0 {
		dim("spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize", pick(rng, 0.95,
			[]any{int64(1), int64(2), int64(3), int64(4), int64(5), int64(7)}, []any{int64(0), int64(-1), absent}))
		dim("spec.leaderWorkerTemplate.subGroupPolicy.subGroupPolicyType", pick(rng, 0.93,
			[]any{absent, "LeaderWorker", "LeaderExcluded"}, []any{"Bogus"}))
		if rng.Intn(3) == 0 {
			dim("metadata.annotations", strMap(subGroupAnnotation, "topology.kubernetes.io/zone"))
		}
	} else if rng.Intn(12) == 0 {
		dim("metadata.annotations", strMap(subGroupAnnotation, "topology.kubernetes.io/zone"))
	}
	if rng.Intn(10) == 0 {
		dim("spec.leaderWorkerTemplate.volumeClaimTemplates", []any{validVCT()})
	}
	if rng.Intn(5) == 0 {
		dim("spec.leaderWorkerTemplate.leaderTemplate", podTemplate("leader"))
	}
	return strings.Join(parts, " "), func(o map[string]any) {
		for _, m := range muts {
			m(o)
		}
	}
}

// ---- provider verdict ----

// providerEnv evaluates objects the way `terraform plan` does.
type providerEnv struct {
	node      *k8sschema.Node
	rootType  tftypes.Object
	schema    fwresource.SchemaResponse
	validator fwresource.ResourceWithValidateConfig
}

func newProviderEnv(t *testing.T) *providerEnv {
	ctx := context.Background()
	r := leaderworkerset.NewResource()
	e := &providerEnv{node: leaderworkerset.Kind.Node()}
	r.Schema(ctx, fwresource.SchemaRequest{}, &e.schema)
	if e.schema.Diagnostics.HasError() {
		t.Fatalf("schema: %v", e.schema.Diagnostics)
	}
	e.rootType = e.schema.Schema.Type().TerraformType(ctx).(tftypes.Object)
	e.validator = r.(fwresource.ResourceWithValidateConfig)
	return e
}

// tfValue converts the JSON value v of node n into the Terraform value a configuration that
// writes the same object has: an int-or-string is a string attribute ("1", "50%"), and
// absent fields are null.
func tfValue(n *k8sschema.Node, v any, path string) (tftypes.Value, error) {
	typ := n.TFType()
	if v == nil {
		return tftypes.NewValue(typ, nil), nil
	}
	switch n.Kind {
	case k8sschema.KindString:
		switch x := v.(type) {
		case string:
			return tftypes.NewValue(typ, x), nil
		case int64:
			if n.Format == k8sschema.FormatIntOrString {
				return tftypes.NewValue(typ, strconv.FormatInt(x, 10)), nil
			}
		}
	case k8sschema.KindInt:
		if x, ok := v.(int64); ok {
			return tftypes.NewValue(typ, new(big.Float).SetInt64(x)), nil
		}
	case k8sschema.KindBool:
		if x, ok := v.(bool); ok {
			return tftypes.NewValue(typ, x), nil
		}
	case k8sschema.KindList:
		if l, ok := v.([]any); ok {
			elems := make([]tftypes.Value, len(l))
			for i, e := range l {
				ev, err := tfValue(n.Elem, e, fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return ev, err
				}
				elems[i] = ev
			}
			return tftypes.NewValue(typ, elems), nil
		}
	case k8sschema.KindMap:
		if m, ok := v.(map[string]any); ok {
			elems := make(map[string]tftypes.Value, len(m))
			for k, e := range m {
				ev, err := tfValue(n.Elem, e, fmt.Sprintf("%s[%s]", path, k))
				if err != nil {
					return ev, err
				}
				elems[k] = ev
			}
			return tftypes.NewValue(typ, elems), nil
		}
	case k8sschema.KindObject:
		if m, ok := v.(map[string]any); ok {
			attrs := make(map[string]tftypes.Value, len(n.Fields))
			for _, f := range n.Fields {
				fv, err := tfValue(f, m[f.JSONName], path+"."+f.JSONName)
				if err != nil {
					return fv, err
				}
				attrs[f.TFName] = fv
			}
			for k := range m {
				if n.FieldJSON(k) == nil {
					return tftypes.Value{}, fmt.Errorf("%s.%s: no such attribute", path, k)
				}
			}
			return tftypes.NewValue(typ, attrs), nil
		}
	}
	return tftypes.Value{}, fmt.Errorf("%s: cannot write %T as a %v attribute", path, v, typ)
}

// providerResult is the provider's verdict on one object.
type providerResult struct {
	acctest.Verdict
	errs     field.ErrorList
	obj      *lwsv1.LeaderWorkerSet // decoded and defaulted, as Validate saw it
	body     map[string]any         // what an apply would send (before the settings annotation)
	decodeOK bool
}

// rootConfig is the resource configuration holding the object's attributes (the provider-only
// attributes left null).
func (e *providerEnv) rootConfig(obj map[string]any) (tftypes.Value, error) {
	v, err := tfValue(e.node, obj, "")
	if err != nil {
		return v, err
	}
	var nodeAttrs map[string]tftypes.Value
	if err := v.As(&nodeAttrs); err != nil {
		return v, err
	}
	attrs := make(map[string]tftypes.Value, len(e.rootType.AttributeTypes))
	for name, at := range e.rootType.AttributeTypes {
		if x, ok := nodeAttrs[name]; ok {
			attrs[name] = x
		} else {
			attrs[name] = tftypes.NewValue(at, nil)
		}
	}
	return tftypes.NewValue(e.rootType, attrs), nil
}

// evaluate runs what kube.Resource.validate runs for a configuration (Decode, CheckConfig,
// Defaults, Validate), keeping the field errors, and checks that the resource's ValidateConfig
// reaches the same verdict.
func (e *providerEnv) evaluate(obj map[string]any) (providerResult, error) {
	config, err := e.rootConfig(obj)
	if err != nil {
		return providerResult{}, err
	}
	kind := leaderworkerset.Kind
	var lws lwsv1.LeaderWorkerSet
	dec := k8sschema.Decode(e.node, config, &lws, nil)
	errs := append(field.ErrorList{}, dec.Errs...)
	if kind.CheckConfig != nil {
		more, _ := kind.CheckConfig(&lws, config)
		errs = append(errs, more...)
	}
	defaulted := lws.DeepCopy()
	kind.Defaults(defaulted, config)
	errs = append(errs, kind.Validate(defaulted)...)

	var resp fwresource.ValidateConfigResponse
	e.validator.ValidateConfig(context.Background(), fwresource.ValidateConfigRequest{
		Config: tfsdk.Config{Raw: config, Schema: e.schema.Schema},
	}, &resp)
	if resp.Diagnostics.HasError() != (len(errs) > 0) {
		return providerResult{}, fmt.Errorf("the composed validation (%v) and the resource's ValidateConfig (%v) differ", errs, resp.Diagnostics)
	}

	raw, err := json.Marshal(&lws)
	if err != nil {
		return providerResult{}, err
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return providerResult{}, err
	}
	k8sschema.ConfiguredOnly(e.node, config, body)
	return providerResult{Verdict: acctest.VerdictFromFieldErrors(errs), errs: errs, obj: defaulted, body: body,
		decodeOK: len(dec.Errs) == 0}, nil
}

// ---- server verdict ----

// serverResult is the API server's verdict on one request, with its field paths normalized
// (serverPathQuirks).
type serverResult struct {
	acctest.Verdict
	// stage is where the request was rejected: "schema" (kube-apiserver: CRD schema, object
	// metadata, scale subresource; 422 with causes), "webhook" (the validating webhook's
	// field.ErrorList), "panic" (the validating webhook panicked; controller-runtime turns the
	// recovered panic into a denial without a field), "decode" (the defaulting webhook could not
	// decode the object into the released Go type).
	stage  string
	quirks []string
}

const (
	validatingWebhookDenial = `admission webhook "vleaderworkerset.kb.io" denied the request: `
	mutatingWebhookDenial   = `admission webhook "mleaderworkerset.kb.io" denied the request: `
)

// webhookErrorRE finds the field paths in a webhook denial, the text of a field.ErrorList's
// aggregate: "path: Invalid value: ...", several joined by ", " inside "[...]".
var webhookErrorRE = regexp.MustCompile(`(?:^\[?|, )(\S+): (?:Invalid value|Required value|Unsupported value|Forbidden|Too long|Too many|Duplicate value|Not found|Internal error)`)

// decodeErrorRE finds the field of a JSON decoding error of the defaulting webhook.
var decodeErrorRE = regexp.MustCompile(`json: cannot unmarshal .* into Go struct field \w+\.(\S+) of type`)

// serverPathQuirk is a path the server reports differently from the field's JSON path. The
// paths are normalized before comparison; each use is counted.
type serverPathQuirk struct {
	name, reason string
	fix          func(p string) (string, bool)
}

var serverPathQuirks = []serverPathQuirk{
	{"webhook path SubGroupPolicy", "the v0.9.0 webhook builds subGroupSize errors with the Go field name, spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize",
		func(p string) (string, bool) {
			const bad = "spec.leaderWorkerTemplate.SubGroupPolicy."
			if strings.HasPrefix(p, bad) {
				return "spec.leaderWorkerTemplate.subGroupPolicy." + strings.TrimPrefix(p, bad), true
			}
			return p, false
		}},
	{"webhook annotation path", "the v0.9.0 webhook reports the subgroup-exclusive-topology annotation at metadata.annotations.<key> (Child, not Key)",
		func(p string) (string, bool) {
			bad := "metadata.annotations." + subGroupAnnotation
			if p == bad {
				return "metadata.annotations[" + subGroupAnnotation + "]", true
			}
			return p, false
		}},
	{"scale subresource path", "kube-apiserver checks spec.replicas for the scale subresource and reports the JSONPath .spec.replicas",
		func(p string) (string, bool) {
			if strings.HasPrefix(p, ".") {
				return strings.TrimPrefix(p, "."), true
			}
			return p, false
		}},
}

func normalizeServerPaths(paths []string) ([]string, []string) {
	var quirks []string
	out := make([]string, len(paths))
	for i, p := range paths {
		for _, q := range serverPathQuirks {
			if fixed, ok := q.fix(p); ok {
				p = fixed
				quirks = append(quirks, q.name)
			}
		}
		out[i] = p
	}
	return acctest.SortedPaths(out), quirks
}

// serverVerdictFromError turns the result of a dry-run request into a verdict. Anything that is
// not a rejection of the object (a connection error, a webhook that cannot be called) is an error.
func serverVerdictFromError(err error) (serverResult, error) {
	if err == nil {
		return serverResult{Verdict: acctest.Verdict{Valid: true}}, nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return serverResult{}, fmt.Errorf("not an API status: %w", err)
	}
	msg := status.Status().Message
	var r serverResult
	var paths []string
	switch {
	case apierrors.IsInvalid(err):
		v, verr := acctest.VerdictFromError(err)
		if verr != nil {
			return r, verr
		}
		r.stage, paths = "schema", v.Paths
	case strings.HasPrefix(msg, validatingWebhookDenial):
		rest := strings.TrimPrefix(msg, validatingWebhookDenial)
		if strings.HasPrefix(rest, "panic: ") && strings.HasSuffix(rest, "[recovered]") {
			r.stage = "panic"
			break
		}
		for _, m := range webhookErrorRE.FindAllStringSubmatch(rest, -1) {
			paths = append(paths, m[1])
		}
		if len(paths) == 0 {
			return r, fmt.Errorf("a webhook denial without field errors: %w", err)
		}
		r.stage = "webhook"
	case strings.HasPrefix(msg, mutatingWebhookDenial) && decodeErrorRE.MatchString(msg):
		r.stage, paths = "decode", []string{decodeErrorRE.FindStringSubmatch(msg)[1]}
	default:
		return r, fmt.Errorf("not a validation verdict: %w", err)
	}
	r.Paths, r.quirks = normalizeServerPaths(paths)
	r.Msg = msg
	return r, nil
}

func toUnstructured(obj map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: runtimeDeepCopy(obj)}
	u.SetAPIVersion(leaderworkerset.Kind.GVK.GroupVersion().String())
	u.SetKind(leaderworkerset.Kind.GVK.Kind)
	return u
}

// runtimeDeepCopy copies a JSON object through encoding/json (numbers become int64 or float64).
func runtimeDeepCopy(obj map[string]any) map[string]any {
	raw, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	return fixNumbers(out).(map[string]any)
}

func fixNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = fixNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = fixNumbers(e)
		}
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	}
	return v
}

func dryRunCreate(ctx context.Context, ri dynamic.ResourceInterface, obj map[string]any) (serverResult, error) {
	_, err := ri.Create(ctx, toUnstructured(obj), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return serverVerdictFromError(err)
}

// ---- evaluation ----

type createResult struct {
	c    whCase
	prov providerResult
	srv  serverResult
	// bodyDiffers: the apply body differs from the object as written (JSON a configuration
	// cannot write); bodySrv is then the server's verdict on the body.
	bodyDiffers bool
	bodySrv     *serverResult
	// followUp is the same object without the fields the server's schema stage rejected.
	followUp *createResult
}

const parityWorkers = 4

func forEachParallel(n int, fn func(i int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < parityWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
}

func sameJSON(a, b map[string]any) bool {
	return reflect.DeepEqual(runtimeDeepCopy(a), runtimeDeepCopy(b))
}

// evaluateCreates computes both verdicts of every case. A case the server rejects at the schema
// stage gets a follow-up case without the rejected fields, so that the webhook-level errors the
// provider reports alongside are checked against the webhook too.
func evaluateCreates(ctx context.Context, t *testing.T, env *providerEnv, ri dynamic.ResourceInterface, corpus []whCase) []*createResult {
	var all []*createResult
	pending := make([]*createResult, len(corpus))
	for i, c := range corpus {
		pending[i] = &createResult{c: c}
	}
	for round := 0; len(pending) > 0 && round < 3; round++ {
		forEachParallel(len(pending), func(i int) {
			r := pending[i]
			var err error
			if r.prov, err = env.evaluate(r.c.obj); err == nil {
				r.srv, err = dryRunCreate(ctx, ri, r.c.obj)
			}
			if err == nil && r.prov.decodeOK {
				want := runtimeDeepCopy(r.c.obj)
				if r.bodyDiffers = !sameJSON(want, r.prov.body); r.bodyDiffers {
					var bs serverResult
					if bs, err = dryRunCreate(ctx, ri, r.prov.body); err == nil {
						r.bodySrv = &bs
					}
				}
			}
			if err != nil {
				t.Errorf("%s: %v", r.c.desc, err)
			}
		})
		all = append(all, pending...)
		var next []*createResult
		for _, r := range pending {
			if r.srv.stage != "schema" && r.srv.stage != "decode" {
				continue
			}
			if obj, ok := stripSchemaStage(r.c.obj, r.srv.Paths); ok {
				r.followUp = &createResult{c: whCase{desc: r.c.desc + " | without the schema-stage fields", obj: obj}}
				next = append(next, r.followUp)
			}
		}
		pending = next
	}
	return all
}

// stripSchemaStage returns obj without the fields the server's schema stage rejected: such a
// field is removed (its default applies), invalid label or annotation keys are dropped, an
// invalid name is replaced.
func stripSchemaStage(obj map[string]any, paths []string) (map[string]any, bool) {
	out := runtimeDeepCopy(obj)
	for _, p := range paths {
		switch {
		case p == pName:
			setAt(out, pName, "wp-renamed")
		case strings.HasPrefix(p, "metadata.labels"):
			setAt(out, "metadata.labels", nil)
		case strings.HasPrefix(p, "metadata.annotations"):
			anns, _ := getAt(out, "metadata.annotations")
			if m, ok := anns.(map[string]any); ok {
				for k := range m {
					if len(utilvalidation.IsQualifiedName(strings.ToLower(k))) > 0 {
						delete(m, k)
					}
				}
			}
		case strings.ContainsAny(p, "[]"):
			return nil, false
		default:
			if _, ok := getAt(out, p); !ok {
				return nil, false
			}
			setAt(out, p, nil)
		}
	}
	return out, true
}

// ---- classification ----

type outcomeKind int

const (
	agreed outcomeKind = iota
	diverged
	knownDisagreement
	disagreed
)

type outcome struct {
	kind   outcomeKind
	names  []string // divergence or known disagreement names
	detail string
}

// providerExtra is a rule the provider applies on purpose although neither the LWS CRD nor the
// webhook does; its errors are set aside before the comparison.
type providerExtra struct {
	name, reason string
	match        func(e *field.Error) bool
}

var providerExtras = []providerExtra{
	{"runtime names", "the provider rejects a name that leaves no room for the names and labels the controller derives from it " +
		"(<name>-<group>-<worker> pods, the controller-revision-hash label, 63 characters): the webhook accepts such a name and " +
		"then no group ever comes up, or no surge group of a rolling update (validateRuntimeNames)",
		func(e *field.Error) bool {
			return e.Field == pName && (strings.HasPrefix(e.Detail, "too long for the objects the controller creates") ||
				strings.HasPrefix(e.Detail, "too long for the surge groups of a rolling update"))
		}},
	{"replicas above 1000000", "the provider applies the newer LeaderWorkerSet API's maximum of 1000000 to spec.replicas on " +
		"every cluster (a plan cannot know which CRD is installed, and a configuration must stay valid when the CRD is " +
		"upgraded); the released v0.9.0 CRD has no maximum and its webhook only bounds replicas*size by MaxInt32",
		func(e *field.Error) bool {
			return e.Field == pReplicas && strings.Contains(e.Detail, "less than or equal to 1000000")
		}},
	{"StatefulSet template rules", "the provider validates the templates as kube-apiserver validates the StatefulSets the controller " +
		"creates from them; the LWS webhook does not look into them, so the LWS is accepted and its StatefulSets are not",
		func(e *field.Error) bool {
			for _, p := range []string{"volumeClaimTemplates", "workerTemplate", "leaderTemplate"} {
				if strings.HasPrefix(e.Field, "spec.leaderWorkerTemplate."+p) {
					return true
				}
			}
			return false
		}},
}

// pathDivergences are the deliberate differences in field paths on agreed rejections.
var pathDivergences = map[string]string{
	"webhook panic": "the v0.9.0 webhook dereferences a missing subGroupSize and divides by a subGroupSize of 0; controller-runtime " +
		"turns the recovered panic into a denial without a field path, the provider reports the field",
	"staged validation": "kube-apiserver rejects the object at the schema stage (CRD schema, object metadata, scale subresource) or " +
		"the defaulting webhook cannot decode it, so the validating webhook never runs; the provider reports every error at once. " +
		"Each extra provider error is checked on a follow-up object without the schema-stage fields",
	"pair check scaled by rejected replicas": "a staged rejection of a negative spec.replicas: the provider scales maxUnavailable " +
		"and maxSurge by it as the webhook's code would and reports \"must not be 0 when `maxSurge` is 0\"; the server stops at " +
		"the scale subresource check, and the follow-up object (replicas removed, so 1) scales differently, so this one error " +
		"cannot be confirmed on the server",
	"pair check on a malformed value": "with a malformed maxSurge the webhook still scales it (to 0) and may add \"must not be 0 when " +
		"`maxSurge` is 0\" at maxUnavailable; the provider reports the malformed value once and skips the pair check",
	"subgroup arithmetic with size < 1": "with a size below 1 the webhook still compares subGroupSize with size and reports " +
		"\"subGroupSize cannot be larger than size\"; the provider reports the size only",
	"not expressible": "the JSON writes an int-or-string as a numeric string (\"5\"), which a Terraform configuration cannot: the " +
		"provider sends \"5\" as the number 5 (k8sschema.ParseIntOrString); the server's verdict on what the provider sends agrees",
}

// knownDisagreement is a case where the provider is wrong about the released API: it fails the
// test until the provider is fixed.
type knownDisagreementRule struct {
	name, reason string
	// providerExtra: provider errors the server does not report; serverOnly: server paths the
	// provider misses (given the object).
	providerExtra func(e *field.Error) bool
	serverOnly    func(obj map[string]any, path string) bool
}

var knownDisagreements = []knownDisagreementRule{}

// hasPairError reports the provider's "both scale to 0" error of the rolling update.
func hasPairError(errs field.ErrorList) bool {
	for _, e := range errs {
		if e.Field == pMaxUnavailable && strings.Contains(e.Detail, "must not be 0 when `maxSurge` is 0") {
			return true
		}
	}
	return false
}

func hasPath(paths []string, p string) bool {
	for _, x := range paths {
		if x == p {
			return true
		}
	}
	return false
}

// minus returns the paths of a not in b.
func minus(a, b []string) []string {
	var out []string
	for _, p := range a {
		if !hasPath(b, p) {
			out = append(out, p)
		}
	}
	return out
}

func samePaths(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

func verdictsMatch(s acctest.Verdict, p acctest.Verdict) bool {
	return s.Valid == p.Valid && (s.Valid || samePaths(s.Paths, p.Paths))
}

func intAt(obj map[string]any, path string, def int64) int64 {
	v, ok := getAt(obj, path)
	if !ok {
		return def
	}
	i, _ := v.(int64)
	return i
}

// classify compares the two verdicts of a case.
func classify(r *createResult) outcome {
	srv, pv := r.srv, r.prov
	if verdictsMatch(srv.Verdict, pv.Verdict) {
		return outcome{kind: agreed}
	}

	// Set aside the provider's deliberate extra rules.
	var core field.ErrorList
	var names []string
	for _, e := range pv.errs {
		extra := false
		for _, x := range providerExtras {
			if x.match(e) {
				extra = true
				if !hasPath(names, x.name) {
					names = append(names, x.name)
				}
				break
			}
		}
		if !extra {
			core = append(core, e)
		}
	}
	cv := acctest.VerdictFromFieldErrors(core)
	if verdictsMatch(srv.Verdict, cv) {
		return outcome{kind: diverged, names: names}
	}

	if !srv.Valid && !cv.Valid {
		missing, extra := minus(srv.Paths, cv.Paths), minus(cv.Paths, srv.Paths)
		switch {
		case srv.stage == "panic" && hasPath(cv.Paths, pSubGroupSize):
			return outcome{kind: diverged, names: append(names, "webhook panic")}
		case (srv.stage == "schema" || srv.stage == "decode") && len(missing) == 0:
			f := r.followUp
			if f == nil {
				return outcome{kind: disagreed, detail: "staged rejection without a follow-up object"}
			}
			names = append(names, "staged validation")
			m := minus(extra, f.prov.Paths)
			if len(m) > 0 && samePaths(m, []string{pMaxUnavailable}) && hasPath(srv.Paths, pReplicas) && hasPairError(core) {
				return outcome{kind: diverged, names: append(names, "pair check scaled by rejected replicas")}
			}
			if len(m) > 0 {
				return outcome{kind: disagreed, detail: fmt.Sprintf("the provider's extra errors %v do not all come back on the follow-up object (provider %v)", m, f.prov.Paths)}
			}
			return outcome{kind: diverged, names: names}
		case srv.stage == "webhook" && len(extra) == 0 && samePaths(missing, []string{pMaxUnavailable}) &&
			hasPath(cv.Paths, pMaxSurge) && strings.Contains(srv.Msg, "must not be 0 when `maxSurge` is 0"):
			return outcome{kind: diverged, names: append(names, "pair check on a malformed value")}
		case srv.stage == "webhook" && len(extra) == 0 && samePaths(missing, []string{pSubGroupSize}) &&
			hasPath(cv.Paths, pSize) && intAt(r.c.obj, pSize, 1) < 1:
			return outcome{kind: diverged, names: append(names, "subgroup arithmetic with size < 1")}
		}
	}
	if r.bodyDiffers && r.bodySrv != nil && verdictsMatch(r.bodySrv.Verdict, pv.Verdict) {
		return outcome{kind: diverged, names: append(names, "not expressible")}
	}

	for _, k := range knownDisagreements {
		kv, ks := cv, srv.Verdict
		if k.providerExtra != nil {
			var rest field.ErrorList
			for _, e := range core {
				if !k.providerExtra(e) {
					rest = append(rest, e)
				}
			}
			if len(rest) == len(core) {
				continue
			}
			kv = acctest.VerdictFromFieldErrors(rest)
		}
		if k.serverOnly != nil {
			var rest []string
			for _, p := range srv.Paths {
				if !k.serverOnly(r.c.obj, p) {
					rest = append(rest, p)
				}
			}
			if len(rest) == len(srv.Paths) {
				continue
			}
			ks = acctest.Verdict{Valid: len(rest) == 0, Paths: rest, Msg: srv.Msg}
		}
		if verdictsMatch(ks, kv) {
			return outcome{kind: knownDisagreement, names: []string{k.name}}
		}
	}
	if srv.Valid != pv.Valid {
		return outcome{kind: disagreed, detail: "verdicts differ"}
	}
	return outcome{kind: disagreed, detail: "field paths differ"}
}

// ---- statistics ----

type parityStats struct {
	total, valid, invalid, agreements, divergenceCases, known, disagreements int
	quirks                                                                   map[string]int
	divergences                                                              map[string][]string
	knownCases                                                               map[string][]string
}

func newParityStats() *parityStats {
	return &parityStats{quirks: map[string]int{}, divergences: map[string][]string{}, knownCases: map[string][]string{}}
}

func describe(r *createResult) string {
	return fmt.Sprintf("%q\n    provider: valid=%v %v %s\n    server:   valid=%v stage=%s %v %s",
		r.c.desc, r.prov.Valid, r.prov.Paths, r.prov.Msg, r.srv.Valid, r.srv.stage, r.srv.Paths, r.srv.Msg)
}

func (s *parityStats) record(t *testing.T, r *createResult, o outcome) {
	t.Helper()
	s.total++
	if r.srv.Valid {
		s.valid++
	} else {
		s.invalid++
	}
	for _, q := range r.srv.quirks {
		s.quirks[q]++
	}
	switch o.kind {
	case agreed:
		s.agreements++
	case diverged:
		s.divergenceCases++
		for _, n := range o.names {
			s.divergences[n] = append(s.divergences[n], describe(r))
		}
	case knownDisagreement:
		s.known++
		for _, n := range o.names {
			s.knownCases[n] = append(s.knownCases[n], r.c.desc)
		}
		t.Errorf("KNOWN DISAGREEMENT (%s; the provider is wrong about the released API): %s", strings.Join(o.names, ", "), describe(r))
	case disagreed:
		s.disagreements++
		t.Errorf("DISAGREEMENT (%s): %s", o.detail, describe(r))
	}
}

func (s *parityStats) report(t *testing.T, what string) {
	t.Helper()
	reasons := map[string]string{}
	for _, x := range providerExtras {
		reasons[x.name] = x.reason
	}
	for n, r := range pathDivergences {
		reasons[n] = r
	}
	const examples = 5
	for _, n := range sortedKeys(s.divergences) {
		cases := s.divergences[n]
		t.Logf("deliberate divergence %q: %d cases. Why: %s", n, len(cases), reasons[n])
		for i, c := range cases {
			if i == examples {
				t.Logf("  ... and %d more", len(cases)-examples)
				break
			}
			t.Logf("  e.g. %s", c)
		}
	}
	for _, k := range knownDisagreements {
		if cases := s.knownCases[k.name]; len(cases) > 0 {
			t.Logf("known disagreement %q (fails the test): %d cases: %q. Why: %s", k.name, len(cases), cases, k.reason)
		}
	}
	for _, q := range serverPathQuirks {
		if n := s.quirks[q.name]; n > 0 {
			t.Logf("server path quirk %q normalized in %d cases: %s", q.name, n, q.reason)
		}
	}
	var div []string
	for _, n := range sortedKeys(s.divergences) {
		div = append(div, fmt.Sprintf("%s %d", n, len(s.divergences[n])))
	}
	acctest.Report(t, "webhook parity (%s): %d objects (%d valid, %d invalid per the server), %d agreements, %d disagreements, "+
		"%d known disagreements, %d deliberate divergences (%s)",
		what, s.total, s.valid, s.invalid, s.agreements, s.disagreements, s.known, s.divergenceCases, strings.Join(div, ", "))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ---- updates ----

// updateCase changes a stored object.
type updateCase struct {
	desc   string
	base   string // name of the stored object
	mutate func(o map[string]any)
}

// runUpdateCorpus creates three objects (replicas 0, so no pods), dry-runs updates of them and
// compares the server's verdict with the provider's plan: an update is accepted in place when the
// provider plans no replacement (ReplaceOn) and reports no error (Validate, ValidateUpdate). A
// planned replacement agrees with a refused update whose errors are at or under the replaced
// paths (or a webhook panic).
func runUpdateCorpus(ctx context.Context, t *testing.T, env *providerEnv, ri dynamic.ResourceInterface) updateStats {
	bases := map[string]map[string]any{}
	mk := func(name string, mutate func(o map[string]any)) {
		o := baseLWS(name)
		setAt(o, "spec.replicas", int64(0))
		setAt(o, "spec.leaderWorkerTemplate.size", int64(4))
		mutate(o)
		bases[name] = o
	}
	mk("wp-upd-subgroup", func(o map[string]any) { setAt(o, pSubGroupPolicy, map[string]any{"subGroupSize": int64(2)}) })
	mk("wp-upd-plain", func(map[string]any) {})
	mk("wp-upd-unique", func(o map[string]any) {
		setAt(o, "spec.networkConfig", map[string]any{"subdomainPolicy": "UniquePerReplica"})
	})
	for _, name := range sortedKeys(bases) {
		_ = ri.Delete(ctx, name, metav1.DeleteOptions{})
		if err := waitGone(ctx, ri, name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := ri.Create(ctx, toUnstructured(bases[name]), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", name, err)
		}
		t.Cleanup(func() { _ = ri.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}

	set := func(path string, v any) func(o map[string]any) { return func(o map[string]any) { setAt(o, path, v) } }
	cases := []updateCase{
		{"subGroupSize unchanged", "wp-upd-subgroup", func(map[string]any) {}},
		{"subGroupSize 2 -> 4", "wp-upd-subgroup", set(pSubGroupSize, int64(4))},
		{"subGroupSize 2 -> 1", "wp-upd-subgroup", set(pSubGroupSize, int64(1))},
		{"subGroupSize 2 -> 3", "wp-upd-subgroup", set(pSubGroupSize, int64(3))},
		{"subGroupSize 2 -> 0", "wp-upd-subgroup", set(pSubGroupSize, int64(0))},
		{"subGroupPolicyType -> LeaderExcluded (size 4: invalid)", "wp-upd-subgroup", set(pSubGroupPolicy+".subGroupPolicyType", "LeaderExcluded")},
		{"subGroupPolicyType -> LeaderExcluded, size 5", "wp-upd-subgroup", func(o map[string]any) {
			setAt(o, pSubGroupPolicy+".subGroupPolicyType", "LeaderExcluded")
			setAt(o, pSize, int64(5))
		}},
		{"size 4 -> 6 with subGroupSize 2", "wp-upd-subgroup", set(pSize, int64(6))},
		{"size 4 -> 3 with subGroupSize 2 (size - 1 divisible)", "wp-upd-subgroup", set(pSize, int64(3))},
		{"size 4 -> 1 with subGroupSize 2", "wp-upd-subgroup", set(pSize, int64(1))},
		{"remove subGroupPolicy", "wp-upd-subgroup", set(pSubGroupPolicy, nil)},
		{"remove subGroupPolicy, add the subgroup annotation", "wp-upd-subgroup", func(o map[string]any) {
			setAt(o, pSubGroupPolicy, nil)
			setAt(o, "metadata.annotations", strMap(subGroupAnnotation, "zone"))
		}},
		{"add the subgroup annotation", "wp-upd-subgroup", set("metadata.annotations", strMap(subGroupAnnotation, "zone"))},
		{"add subGroupPolicy 2", "wp-upd-plain", set(pSubGroupPolicy, map[string]any{"subGroupSize": int64(2)})},
		{"add subGroupPolicy 4 LeaderWorker", "wp-upd-plain", set(pSubGroupPolicy, map[string]any{"subGroupSize": int64(4), "subGroupPolicyType": "LeaderWorker"})},
		{"add subGroupPolicy 3 (invalid for size 4)", "wp-upd-plain", set(pSubGroupPolicy, map[string]any{"subGroupSize": int64(3)})},
		{"add the subgroup annotation without subGroupPolicy", "wp-upd-plain", set("metadata.annotations", strMap(subGroupAnnotation, "zone"))},
		{"replicas 0 -> 2", "wp-upd-plain", set(pReplicas, int64(2))},
		{"replicas 0 -> -1", "wp-upd-plain", set(pReplicas, int64(-1))},
		{"size 4 -> 2", "wp-upd-plain", set(pSize, int64(2))},
		{"size 4 -> 0", "wp-upd-plain", set(pSize, int64(0))},
		{"restartPolicy -> None", "wp-upd-plain", set("spec.leaderWorkerTemplate.restartPolicy", "None")},
		{"restartPolicy -> Default", "wp-upd-plain", set("spec.leaderWorkerTemplate.restartPolicy", "Default")},
		{"startupPolicy -> LeaderReady", "wp-upd-plain", set(pStartupPolicy, "LeaderReady")},
		{"subdomainPolicy -> UniquePerReplica", "wp-upd-plain", set("spec.networkConfig", map[string]any{"subdomainPolicy": "UniquePerReplica"})},
		{"maxSurge 0 -> 2, replicas 2", "wp-upd-plain", func(o map[string]any) {
			setAt(o, pReplicas, int64(2))
			setAt(o, "spec.rolloutStrategy", map[string]any{"type": "RollingUpdate",
				"rollingUpdateConfiguration": map[string]any{"maxUnavailable": int64(0), "maxSurge": int64(2)}})
		}},
		{"maxUnavailable 0 and maxSurge 0, replicas 2", "wp-upd-plain", func(o map[string]any) {
			setAt(o, pReplicas, int64(2))
			setAt(o, "spec.rolloutStrategy", map[string]any{"type": "RollingUpdate",
				"rollingUpdateConfiguration": map[string]any{"maxUnavailable": int64(0), "maxSurge": int64(0)}})
		}},
		{"subdomainPolicy set to null (networkConfig {})", "wp-upd-unique", set("spec.networkConfig", map[string]any{})},
		{"networkConfig removed", "wp-upd-unique", set("spec.networkConfig", nil)},
		{"subdomainPolicy -> Shared", "wp-upd-unique", set("spec.networkConfig", map[string]any{"subdomainPolicy": "Shared"})},
		{"subdomainPolicy -> Bogus", "wp-upd-unique", set("spec.networkConfig", map[string]any{"subdomainPolicy": "Bogus"})},
		{"subdomainPolicy unchanged, add subGroupPolicy", "wp-upd-unique", set(pSubGroupPolicy, map[string]any{"subGroupSize": int64(2)})},
	}

	st := updateStats{total: len(cases), quirks: map[string]int{}, divergences: map[string]int{}}
	for _, uc := range cases {
		newObj := runtimeDeepCopy(bases[uc.base])
		uc.mutate(newObj)
		pNew, err := env.evaluate(newObj)
		if err != nil {
			t.Errorf("update %q: %v", uc.desc, err)
			continue
		}
		pOld, err := env.evaluate(bases[uc.base])
		if err != nil {
			t.Errorf("update %q: %v", uc.desc, err)
			continue
		}
		replace := leaderworkerset.Kind.ReplaceOn(pNew.obj, pOld.obj, nil)
		errs := append(field.ErrorList{}, pNew.errs...)
		if len(replace) == 0 {
			errs = append(errs, leaderworkerset.Kind.ValidateUpdate(pNew.obj, pOld.obj)...)
		}
		prov := acctest.VerdictFromFieldErrors(errs)
		var replacePaths []string
		for _, p := range replace {
			replacePaths = append(replacePaths, p.String())
		}
		srv, err := dryRunUpdate(ctx, ri, uc.base, newObj)
		if err != nil {
			t.Errorf("update %q: %v", uc.desc, err)
			continue
		}
		if srv.Valid {
			st.valid++
		} else {
			st.invalid++
		}
		for _, q := range srv.quirks {
			st.quirks[q]++
		}
		line := fmt.Sprintf("update %q: provider replace=%v in-place valid=%v %v %s; server valid=%v stage=%s %v %s",
			uc.desc, replacePaths, prov.Valid && len(replace) == 0, prov.Paths, prov.Msg, srv.Valid, srv.stage, srv.Paths, srv.Msg)
		switch {
		case len(replace) > 0:
			// The provider never sends this update: it plans a replacement. That agrees with a
			// server that refuses the update at or under the replaced paths.
			ok := !srv.Valid
			for _, p := range srv.Paths {
				under := hasPath(prov.Paths, p)
				for _, rp := range replacePaths {
					under = under || p == rp || strings.HasPrefix(p, rp+".")
				}
				ok = ok && under
			}
			switch {
			case !ok:
				st.disagreements++
				t.Errorf("UPDATE DISAGREEMENT: the provider plans a replacement, the server says: %s", line)
			case srv.stage == "panic":
				st.divergences["webhook panic"]++
				t.Logf("deliberate divergence (webhook panic, replacement planned): %s", line)
			default:
				st.agreements++
				st.replaced++
				t.Logf("agreement (replacement planned): %s", line)
			}
		case verdictsMatch(srv.Verdict, prov):
			st.agreements++
		case !srv.Valid && !prov.Valid && srv.stage == "panic" && hasPath(prov.Paths, pSubGroupSize):
			st.divergences["webhook panic"]++
			t.Logf("deliberate divergence (webhook panic): %s", line)
		default:
			st.disagreements++
			t.Errorf("UPDATE DISAGREEMENT: %s", line)
		}
	}
	t.Logf("webhook parity (update): %s", st)
	return st
}

// updateStats counts the update corpus.
type updateStats struct {
	total, valid, invalid, agreements, replaced, disagreements int
	quirks, divergences                                        map[string]int
}

func (s updateStats) divergenceCount() int {
	n := 0
	for _, v := range s.divergences {
		n += v
	}
	return n
}

func (s updateStats) String() string {
	list := func(m map[string]int) string {
		var out []string
		for _, k := range sortedKeys(m) {
			out = append(out, fmt.Sprintf("%s %d", k, m[k]))
		}
		return strings.Join(out, ", ")
	}
	return fmt.Sprintf("%d updates (%d valid, %d invalid per the server), %d agreements (%d of them planned replacements of refused "+
		"updates), %d disagreements, %d deliberate divergences (%s); server path quirks normalized: %s",
		s.total, s.valid, s.invalid, s.agreements, s.replaced, s.disagreements, s.divergenceCount(), list(s.divergences), list(s.quirks))
}

func waitGone(ctx context.Context, ri dynamic.ResourceInterface, name string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := ri.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still there after 30s (%v)", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dryRunUpdate dry-runs replacing the stored object with obj.
func dryRunUpdate(ctx context.Context, ri dynamic.ResourceInterface, name string, obj map[string]any) (serverResult, error) {
	u := toUnstructured(obj)
	u.SetName(name)
	answer, readErr := acctest.DryRunReplace(ctx, ri, u)
	if readErr != nil {
		return serverResult{}, readErr
	}
	return serverVerdictFromError(answer)
}
