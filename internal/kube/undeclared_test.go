package kube

import (
	"encoding/json"
	"testing"
)

// TestFieldPathOf: structured-merge-diff paths of undeclared fields map to Kubernetes field
// paths, list selectors resolved against the sent body, including a selector whose key the body
// leaves to the server's default (the port's protocol).
func TestFieldPathOf(t *testing.T) {
	var body any
	_ = json.Unmarshal([]byte(`{"spec": {"leaderWorkerTemplate": {"workerTemplate": {"spec": {"containers": [
	  {"name": "sidecar"},
	  {"name": "vllm", "ports": [{"containerPort": 8000}, {"containerPort": 8080, "protocol": "UDP"}]}]}}}}}`), &body)
	for smd, want := range map[string]string{
		".spec.groupIdentity":                         "spec.groupIdentity",
		".spec.leaderWorkerTemplate.maxGroupRestarts": "spec.leaderWorkerTemplate.maxGroupRestarts",
		`.spec.leaderWorkerTemplate.workerTemplate.spec.containers[name="vllm"].resizePolicy`:                                          "spec.leaderWorkerTemplate.workerTemplate.spec.containers[1].resizePolicy",
		`.spec.leaderWorkerTemplate.workerTemplate.spec.containers[name="vllm"].ports[containerPort=8000,protocol="TCP"].hostIPFamily`: "spec.leaderWorkerTemplate.workerTemplate.spec.containers[1].ports[0].hostIPFamily",
		`.spec.leaderWorkerTemplate.workerTemplate.spec.containers[name="vllm"].ports[containerPort=8080,protocol="UDP"].x`:            "spec.leaderWorkerTemplate.workerTemplate.spec.containers[1].ports[1].x",
	} {
		if got := fieldPathOf(smd, body); got != want {
			t.Errorf("fieldPathOf(%s) = %s, want %s", smd, got, want)
		}
	}
}
