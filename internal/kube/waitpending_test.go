package kube

import "testing"

// The private state is the framework's encoding: a JSON object of keys to base64 of JSON values.
func TestPrivateStateEdits(t *testing.T) {
	imported := []byte(`{".import_before_read":"dHJ1ZQ=="}`)
	for _, c := range []struct {
		name    string
		got     []byte
		want    string
		pending bool
	}{
		{"marker set on nothing", WithWaitPending(nil, true), `{"wait_pending":"dHJ1ZQ=="}`, true},
		{"marker set beside another key", WithWaitPending(imported, true), `{".import_before_read":"dHJ1ZQ==","wait_pending":"dHJ1ZQ=="}`, true},
		{"marker removed", WithWaitPending([]byte(`{"wait_pending":"dHJ1ZQ=="}`), false), ``, false},
		{"import marker removed", WithoutPrivateKey(imported, ".import_before_read"), ``, false},
		{"other keys kept", WithoutPrivateKey([]byte(`{".import_before_read":"dHJ1ZQ==","wait_pending":"dHJ1ZQ=="}`), ".import_before_read"), `{"wait_pending":"dHJ1ZQ=="}`, true},
		{"nothing to remove", WithoutPrivateKey(nil, ".import_before_read"), ``, false},
		{"not ours to rewrite", WithoutPrivateKey([]byte(`not json`), ".import_before_read"), `not json`, false},
	} {
		if string(c.got) != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
		}
		if HasWaitPending(c.got) != c.pending {
			t.Errorf("%s: HasWaitPending = %v, want %v", c.name, !c.pending, c.pending)
		}
	}
}
