package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// kubernetesManifestState is the state JSON of a hashicorp/kubernetes kubernetes_manifest (schema
// version 1, as terraform-provider-kubernetes v2.38 writes it) holding a LeaderWorkerSet: its
// dynamic attributes "manifest" and "object" are {"value": ..., "type": ...}, and "object" has
// every attribute of the CRD's schema, null where the server has none.
const kubernetesManifestState = `{
  "computed_fields": null,
  "field_manager": [],
  "manifest": {
    "value": {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
      "metadata": {"name": "vllm", "namespace": "inference"},
      "spec": {"replicas": 2, "leaderWorkerTemplate": {"size": 4, "workerTemplate": {"spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0"}]}}}}},
    "type": ["object", {"apiVersion": "string", "kind": "string", "metadata": ["object", {"name": "string", "namespace": "string"}], "spec": ["object", {}]}]
  },
  "object": {
    "value": {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
      "metadata": {"name": "vllm", "namespace": "inference", "labels": null, "annotations": null, "uid": null, "generateName": null},
      "spec": {"replicas": 2, "startupPolicy": "LeaderCreated", "networkConfig": null,
        "leaderWorkerTemplate": {"size": 4, "restartPolicy": "RecreateGroupOnPodRestart", "leaderTemplate": null,
          "workerTemplate": {"metadata": null, "spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "args": null, "ports": null}]}}}}},
    "type": ["object", {"apiVersion": "string", "kind": "string", "metadata": ["object", {}], "spec": ["object", {}]}]
  },
  "timeouts": [],
  "wait": [],
  "wait_for": null
}`

// A `moved` block from kubernetes_manifest to kubeinfer_leaderworkerset: MoveResourceState builds
// the state (and identity) from the object kubernetes_manifest recorded; the read that follows
// refreshes it from the cluster. A manifest of another kind is refused with a message.
func TestMoveFromKubernetesManifest(t *testing.T) {
	ctx := context.Background()
	srv := NewServer("test")()
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	move := func(target string) *tfprotov6.MoveResourceStateResponse {
		resp, err := srv.MoveResourceState(ctx, &tfprotov6.MoveResourceStateRequest{
			SourceProviderAddress: "registry.terraform.io/hashicorp/kubernetes",
			SourceTypeName:        "kubernetes_manifest",
			SourceSchemaVersion:   1,
			SourceState:           &tfprotov6.RawState{JSON: []byte(kubernetesManifestState)},
			TargetTypeName:        target,
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := move("kubeinfer_leaderworkerset")
	if len(resp.Diagnostics) > 0 || resp.TargetState == nil {
		t.Fatalf("move: %v", resp.Diagnostics)
	}
	typ := sch.ResourceSchemas["kubeinfer_leaderworkerset"].ValueType()
	st, err := resp.TargetState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	attrs := objectAttrsOf(st)
	meta := objectAttrsOf(attrs["metadata"])
	spec := objectAttrsOf(attrs["spec"])
	lwt := objectAttrsOf(spec["leader_worker_template"])
	var containers []tftypes.Value
	_ = objectAttrsOf(objectAttrsOf(lwt["worker_template"])["spec"])["containers"].As(&containers)
	checks := map[string]struct{ got, want tftypes.Value }{
		"id":             {attrs["id"], tftypes.NewValue(tftypes.String, "inference/vllm")},
		"metadata.name":  {meta["name"], tftypes.NewValue(tftypes.String, "vllm")},
		"spec.replicas":  {spec["replicas"], tftypes.NewValue(tftypes.Number, 2)},
		"spec.lwt.size":  {lwt["size"], tftypes.NewValue(tftypes.Number, 4)},
		"container name": {objectAttrsOf(containers[0])["name"], tftypes.NewValue(tftypes.String, "vllm")},
	}
	for name, c := range checks {
		if !c.got.Equal(c.want) {
			t.Errorf("%s = %v, want %v", name, c.got, c.want)
		}
	}
	if resp.TargetIdentity == nil || resp.TargetIdentity.IdentityData == nil {
		t.Error("no target identity")
	}

	// The same manifest is no PriorityLevelConfiguration.
	if resp := move("kubeinfer_priority_level_configuration"); len(resp.Diagnostics) == 0 {
		t.Error("moving a LeaderWorkerSet manifest to a priority level was accepted")
	}
}
