package leaderworkerset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/podtemplate/podtemplatecorpus"
)

// TestAccLeaderWorkerSet_templateParity compares the provider's verdict on LeaderWorkerSets with
// the released LWS v0.9.0 (CRD schema, defaulting and validating webhooks) for every template of
// the pod template parity corpus, valid and invalid, and random combinations of its mutations.
// The pod template corpus is checked elsewhere against a StatefulSet; here each template is the
// worker template (and every other one also the leader template) of a LeaderWorkerSet without
// groups, which finds what a LeaderWorkerSet adds: the list-map keys of its CRD, and the
// webhook's re-encoding through Go types.
//
//   - The server refuses: the provider refuses too, naming every field the server names.
//   - The server accepts: the provider accepts, or refuses only with the StatefulSet rules (the
//     controller's StatefulSets would be refused: a deliberate divergence, counted).
//
// KUBEINFER_PARITY_SEED chooses other combinations, KUBEINFER_PARITY_CASES their number.
func TestAccLeaderWorkerSet_templateParity(t *testing.T) {
	runsBesideOthers(t)
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	ri := c.Dynamic().Resource(leaderworkerset.Kind.GVR()).Namespace("default")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	templates := podtemplatecorpus.Build()
	templates = append(templates, podtemplatecorpus.Combinations(uint64(acctest.ParitySeed(t, 20261207)), acctest.EnvInt(t, "KUBEINFER_PARITY_CASES", 500))...)
	start := time.Now()
	type outcome struct {
		server   serverResult
		err      error
		provider field.ErrorList
		sts      field.ErrorList // the StatefulSet rules alone
	}
	results := make([]outcome, len(templates))
	forEachParallel(len(templates), func(i int) {
		obj := podtemplatecorpus.LeaderWorkerSet(fmt.Sprintf("template-parity-%05d", i), templates[i], i%2 == 1)
		body, err := userJSON(obj)
		if err != nil {
			results[i].err = err
			return
		}
		results[i].server, results[i].err = dryRunCreate(ctx, ri, body)
		results[i].provider, results[i].sts = providerVerdict(obj)
	})

	var valid, agree, divergent int
	for i, r := range results {
		name := fmt.Sprintf("%d %s", i, templates[i].Name)
		if r.err != nil {
			t.Errorf("%s: %v", name, r.err)
			continue
		}
		provValid := len(r.provider) == 0
		switch {
		case r.server.Valid && provValid:
			valid++
			agree++
		case r.server.Valid && len(r.sts) > 0:
			divergent++ // the StatefulSets the controller creates would be refused
		case r.server.Valid:
			t.Errorf("%s: DISAGREEMENT: the server accepts, the provider refuses: %v", name, r.provider.ToAggregate())
		case provValid:
			t.Errorf("%s: DISAGREEMENT: the server refuses %v, the provider accepts", name, r.server.Paths)
		default:
			agree++
			var paths []string
			for _, e := range r.provider {
				paths = append(paths, e.Field)
			}
			for _, p := range r.server.Paths {
				if !slices.Contains(paths, p) {
					t.Errorf("%s: the server names %s, the provider does not: %v", name, p, r.provider.ToAggregate())
				}
			}
		}
	}
	t.Logf("%d LeaderWorkerSets (%d templates of the corpus, %d combinations): %d valid, %d agreements, %d refused by the StatefulSet rules alone, in %s",
		len(templates), len(podtemplatecorpus.Build()), len(templates)-len(podtemplatecorpus.Build()), valid, agree, divergent,
		time.Since(start).Round(time.Millisecond))
}

// userJSON is obj as a user writes it: its JSON without the nulls of unset Go fields.
func userJSON(obj *lwsv1.LeaderWorkerSet) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return fixNumbers(withoutNulls(m)).(map[string]any), nil
}

func withoutNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = withoutNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = withoutNulls(e)
		}
	}
	return v
}

// providerVerdict is what the plan says of obj (the kind's defaults, then its rules), and the
// StatefulSet rules' part of it.
func providerVerdict(obj *lwsv1.LeaderWorkerSet) (all, sts field.ErrorList) {
	obj = obj.DeepCopy()
	lwsrules.SetDefaults(obj)
	lwt := &obj.Spec.LeaderWorkerTemplate
	var vctNames []string
	for _, v := range lwt.VolumeClaimTemplates {
		vctNames = append(vctNames, v.Name)
	}
	opts := podtemplate.Options{VolumeClaimTemplateNames: vctNames}
	p := field.NewPath("spec", "leaderWorkerTemplate")
	if lwt.LeaderTemplate != nil {
		sts = append(sts, podtemplate.ValidatePodTemplateSpec(lwt.LeaderTemplate, p.Child("leaderTemplate"), opts)...)
	}
	sts = append(sts, podtemplate.ValidatePodTemplateSpec(&lwt.WorkerTemplate, p.Child("workerTemplate"), opts)...)
	sts = append(sts, podtemplate.ValidateVolumeClaimTemplates(lwt.VolumeClaimTemplates, p.Child("volumeClaimTemplates"))...)
	return lwsrules.ValidateAll(obj), sts
}
