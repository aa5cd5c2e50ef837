package acctest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// Verdict is what one validator says about one object.
type Verdict struct {
	Valid bool
	Paths []string // field paths of the errors, sorted and unique
	Msg   string   // the error message, empty when valid
}

// ParityCase is one object of a parity corpus: how to get the provider's
// plan-time verdict on it and the API server's verdict on it.
type ParityCase struct {
	Desc string
	// Want is what the generator meant; a case where provider and server agree
	// with each other but not with Want is logged, not failed.
	Want     bool
	Provider func() Verdict
	Server   func(ctx context.Context) (Verdict, error)
}

// SortedPaths returns the unique field paths in fields, sorted.
func SortedPaths(fields []string) []string {
	set := map[string]bool{}
	for _, f := range fields {
		set[f] = true
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// VerdictFromFieldErrors turns the result of a provider Validate function
// into a verdict.
func VerdictFromFieldErrors(errs field.ErrorList) Verdict {
	fields := make([]string, len(errs))
	for i, e := range errs {
		fields[i] = e.Field
	}
	v := Verdict{Valid: len(errs) == 0, Paths: SortedPaths(fields)}
	if agg := errs.ToAggregate(); agg != nil {
		v.Msg = agg.Error()
	}
	return v
}

// VerdictFromError turns the result of a dry-run create or update into a
// verdict: nil is valid, an Invalid status error is invalid with the field
// paths of its causes, and any other error is returned as an error.
func VerdictFromError(err error) (Verdict, error) {
	if err == nil {
		return Verdict{Valid: true}, nil
	}
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		return Verdict{}, fmt.Errorf("not a validation verdict: %w", err)
	}
	var fields []string
	if d := status.Status().Details; d != nil {
		for _, c := range d.Causes {
			fields = append(fields, c.Field)
		}
	}
	return Verdict{Valid: false, Paths: SortedPaths(fields), Msg: status.Status().Message}, nil
}

type parityResult struct {
	c                ParityCase
	provider, server Verdict
	err              error
}

// RunParity computes both verdicts of every case, eight cases at a time. It
// fails the test on any server error and on any case where provider and
// server disagree on validity; field-path mismatches and cases off the
// generator's intent are only logged. It ends by logging the totals.
func RunParity(t *testing.T, cases []ParityCase) {
	t.Helper()
	ctx := context.Background()
	results := make([]parityResult, len(cases))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r := parityResult{c: cases[i], provider: cases[i].Provider()}
				r.server, r.err = cases[i].Server(ctx)
				results[i] = r
			}
		}()
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()

	var valid, invalid, agree, disagree, pathMismatch, offIntent int
	for _, r := range results {
		if r.err != nil {
			t.Errorf("%s: %v", r.c.Desc, r.err)
			continue
		}
		if r.server.Valid {
			valid++
		} else {
			invalid++
		}
		if r.provider.Valid != r.server.Valid {
			disagree++
			t.Errorf("verdict disagreement on %q: provider valid=%v (%s), server valid=%v (%s)",
				r.c.Desc, r.provider.Valid, r.provider.Msg, r.server.Valid, r.server.Msg)
			continue
		}
		agree++
		if r.server.Valid != r.c.Want {
			offIntent++
			t.Logf("generator intent differs on %q: both say valid=%v (%s)", r.c.Desc, r.server.Valid, r.server.Msg)
		}
		if !r.server.Valid && strings.Join(r.provider.Paths, ",") != strings.Join(r.server.Paths, ",") {
			pathMismatch++
			t.Logf("field path mismatch on %q: provider %v, server %v\n  provider: %s\n  server:   %s",
				r.c.Desc, r.provider.Paths, r.server.Paths, r.provider.Msg, r.server.Msg)
		}
	}
	Report(t, "parity: %d objects (%d valid, %d invalid per the server), %d agreements, %d verdict disagreements, %d field-path mismatches, %d cases off the generator's intent",
		len(cases), valid, invalid, agree, disagree, pathMismatch, offIntent)
}

// DryRunReplace dry-runs replacing the stored object of u's name with u: a PUT with the stored
// resourceVersion and uid, read again and retried when another writer got in between
// (retry.RetryOnConflict). answer is the server's (nil when it admits u); readErr is a failure to
// read the stored object, which says nothing about u.
func DryRunReplace(ctx context.Context, ri dynamic.ResourceInterface, u *unstructured.Unstructured) (answer, readErr error) {
	answer = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
		if err != nil {
			return readFailure{err}
		}
		u.SetResourceVersion(cur.GetResourceVersion())
		u.SetUID(cur.GetUID())
		_, err = ri.Update(ctx, u, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	})
	var rf readFailure
	if errors.As(answer, &rf) {
		return nil, rf.err
	}
	return answer, nil
}

// readFailure is a failed read of the stored object in DryRunReplace; it is no conflict, so it
// ends the retries.
type readFailure struct{ err error }

func (r readFailure) Error() string { return "reading the stored object: " + r.err.Error() }

// ParitySeed is the seed of a parity test's random corpus: KUBEINFER_PARITY_SEED when set, so
// that a run can try another corpus, else def, the corpus every run checks. The seed in use is
// logged, so a disagreement found with another seed can be replayed.
func ParitySeed(t *testing.T, def int64) int64 {
	t.Helper()
	seed := def
	if v := os.Getenv("KUBEINFER_PARITY_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("KUBEINFER_PARITY_SEED=%q: want an integer", v)
		}
		seed = n
	}
	t.Logf("parity corpus seed %d (KUBEINFER_PARITY_SEED chooses another)", seed)
	return seed
}

// EnvInt is the non-negative integer in the environment variable name, or def when it is unset:
// how a test is told to run a larger or smaller corpus than the one every run checks.
func EnvInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, v)
	}
	return n
}
