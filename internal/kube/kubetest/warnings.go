// Package kubetest helps the kinds' acceptance tests observe what Terraform shows the user and
// who owns an object's fields.
package kubetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Warnings records the warnings of the refreshes (ReadResource) of the provider servers it
// wraps: the warnings `terraform plan` prints before the plan. terraform-plugin-testing has no
// check for them.
type Warnings struct {
	mu    sync.Mutex
	seen  []*tfprotov6.Diagnostic
	apply []*tfprotov6.Diagnostic // warnings of ApplyResourceChange, kept apart
	plan  []*tfprotov6.Diagnostic // warnings of PlanResourceChange, kept apart
	read  []*tfprotov6.Diagnostic // warnings of ReadDataSource, kept apart
}

// Factories wraps the servers of factories.
func (w *Warnings) Factories(factories map[string]func() (tfprotov6.ProviderServer, error)) map[string]func() (tfprotov6.ProviderServer, error) {
	out := make(map[string]func() (tfprotov6.ProviderServer, error), len(factories))
	for name, f := range factories {
		out[name] = func() (tfprotov6.ProviderServer, error) {
			s, err := f()
			if err != nil {
				return nil, err
			}
			return &recordingServer{ProviderServer: s, w: w}, nil
		}
	}
	return out
}

// Take returns the warnings recorded since the last Take, each as "summary\ndetail".
func (w *Warnings) Take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, len(w.seen))
	for i, d := range w.seen {
		out[i] = d.Summary + "\n" + d.Detail
	}
	w.seen = nil
	return out
}

// Distinct returns the distinct warnings of Take (a plan and the apply after it refresh the
// same object, so they warn twice).
func (w *Warnings) Distinct() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range w.Take() {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// String lists ws for a test failure.
func String(ws []string) string {
	if len(ws) == 0 {
		return "(no warnings)"
	}
	return "\n---\n" + strings.Join(ws, "\n---\n")
}

// record appends the warnings of diags to *to.
func (w *Warnings) record(to *[]*tfprotov6.Diagnostic, diags []*tfprotov6.Diagnostic) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityWarning {
			*to = append(*to, d)
		}
	}
}

type recordingServer struct {
	tfprotov6.ProviderServer
	w *Warnings
}

func (s *recordingServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := s.ProviderServer.ReadResource(ctx, req)
	if resp != nil {
		s.w.record(&s.w.seen, resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		s.w.record(&s.w.apply, resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		s.w.record(&s.w.plan, resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.ProviderServer.ReadDataSource(ctx, req)
	if resp != nil {
		s.w.record(&s.w.read, resp.Diagnostics)
	}
	return resp, err
}

// TakeDataSource returns the distinct warnings of data source reads recorded since the last
// TakeDataSource (a plan and the apply after it may read the same data source), each as
// "summary\ndetail".
func (w *Warnings) TakeDataSource() []string { return w.takeDistinct(&w.read) }

// TakePlan returns the distinct warnings of plans recorded since the last TakePlan, each as
// "summary\ndetail".
func (w *Warnings) TakePlan() []string { return w.takeDistinct(&w.plan) }

// takeDistinct empties *from and returns its distinct warnings, each as "summary\ndetail".
func (w *Warnings) takeDistinct(from *[]*tfprotov6.Diagnostic) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, d := range *from {
		if s := d.Summary + "\n" + d.Detail; !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	*from = nil
	return out
}

// TakeApply returns the warnings of applies recorded since the last TakeApply, each as
// "summary\ndetail".
func (w *Warnings) TakeApply() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, len(w.apply))
	for i, d := range w.apply {
		out[i] = d.Summary + "\n" + d.Detail
	}
	w.apply = nil
	return out
}

// Expect checks that the distinct warnings recorded since the last Take are exactly want.
func (w *Warnings) Expect(want ...string) error {
	got := w.Distinct()
	missing := map[string]bool{}
	for _, s := range want {
		missing[s] = true
	}
	extra := false
	for _, s := range got {
		if !missing[s] {
			extra = true
		}
		delete(missing, s)
	}
	if extra || len(missing) > 0 || len(got) != len(want) {
		return fmt.Errorf("refresh warnings:%s\nwant:%s", String(got), String(want))
	}
	return nil
}

// Owners names the entries of u's metadata.managedFields that own the field at parts
// (fieldpath.MakePath parts: field names, list keys as *value.FieldList), e.g.
// `kubectl-edit (Update)`, sorted.
func Owners(u *unstructured.Unstructured, parts ...any) ([]string, error) {
	p, err := fieldpath.MakePath(parts...)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range u.GetManagedFields() {
		if e.FieldsV1 == nil {
			continue
		}
		var set fieldpath.Set
		if err := set.FromJSON(e.FieldsV1.GetRawReader()); err != nil {
			return nil, err
		}
		if set.Has(p) {
			out = append(out, fmt.Sprintf("%s (%s)", e.Manager, e.Operation))
		}
	}
	sort.Strings(out)
	return out, nil
}
