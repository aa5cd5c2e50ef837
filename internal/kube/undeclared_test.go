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

// TestDeleteSMDPath: the dry runs that look for further undeclared fields send the body without
// the fields named before, list elements found by their keys; a path that does not resolve
// changes nothing.
func TestDeleteSMDPath(t *testing.T) {
	const body = `{"spec": {"groupIdentity": "Hash", "leaderWorkerTemplate": {"maxGroupRestarts": 3, "workerTemplate": {"spec": {"containers": [
	  {"name": "sidecar", "resizePolicy": []},
	  {"name": "vllm", "resizePolicy": [], "ports": [{"containerPort": 8000, "hostIPFamily": "x"}]}]}}}}}`
	var doc any
	_ = json.Unmarshal([]byte(body), &doc)
	for _, p := range []string{
		".spec.groupIdentity",
		".spec.leaderWorkerTemplate.maxGroupRestarts",
		`.spec.leaderWorkerTemplate.workerTemplate.spec.containers[name="vllm"].resizePolicy`,
		`.spec.leaderWorkerTemplate.workerTemplate.spec.containers[name="vllm"].ports[containerPort=8000,protocol="TCP"].hostIPFamily`,
		`.spec.leaderWorkerTemplate.workerTemplate.spec.containers[name="absent"].resizePolicy`,
		".spec.nothing.deeper",
	} {
		deleteSMDPath(doc, p)
	}
	got, _ := json.Marshal(doc)
	const want = `{"spec":{"leaderWorkerTemplate":{"workerTemplate":{"spec":{"containers":[{"name":"sidecar","resizePolicy":[]},{"name":"vllm","ports":[{"containerPort":8000}]}]}}}}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
