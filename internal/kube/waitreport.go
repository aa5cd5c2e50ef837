package kube

import (
	"context"
	"slices"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// waitReport is what a wait says besides its result: its progress (the Warning events it
// quotes as they come) and the permissions it found missing.
type waitReport struct {
	progress func(string)

	mu    sync.Mutex
	notes []string
}

type waitReportKey struct{}

// WithWaitReport returns a context whose waits send their progress to progress (nil: the log
// only) and record the permissions they lack; notes returns those, each once.
func WithWaitReport(ctx context.Context, progress func(string)) (_ context.Context, notes func() []string) {
	r := &waitReport{progress: progress}
	return context.WithValue(ctx, waitReportKey{}, r), func() []string {
		r.mu.Lock()
		defer r.mu.Unlock()
		return slices.Clone(r.notes)
	}
}

func reportOf(ctx context.Context) *waitReport {
	r, _ := ctx.Value(waitReportKey{}).(*waitReport)
	return r
}

// WaitProgress reports a step of a wait: in the log (TF_LOG=info) and to the progress of the
// context's report (an action's progress events).
func WaitProgress(ctx context.Context, msg string) {
	tflog.Info(ctx, "Waiting: "+msg)
	if r := reportOf(ctx); r != nil && r.progress != nil {
		r.progress(msg)
	}
}

// NoteMissingPermission records that the API server refused verb on resource (of group, in
// namespace) to a wait: the log says it at once, and the apply turns the context's notes into
// warnings (a missing permission is never silent). It returns the note (MissingPermission).
func NoteMissingPermission(ctx context.Context, group, resource, verb, namespace string, err error) string {
	note := MissingPermission(group, resource, verb, namespace)
	tflog.Warn(ctx, note, map[string]any{"error": err.Error()})
	if r := reportOf(ctx); r != nil {
		r.mu.Lock()
		if !slices.Contains(r.notes, note) {
			r.notes = append(r.notes, note)
		}
		r.mu.Unlock()
	}
	return note
}
