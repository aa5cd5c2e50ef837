package leaderworkerset

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/lwswait"
)

// waitForRollout is the resource's AfterApply: unless wait_for_rollout is false, it watches the
// object until its rollout is done or ctx ends (the create or update timeout), and returns the
// last object seen so the state holds the latest status even when the wait fails.
func waitForRollout(ctx context.Context, dyn dynamic.Interface, ri dynamic.ResourceInterface, u *unstructured.Unstructured, extras map[string]tftypes.Value) (*unstructured.Unstructured, error) {
	if !kindrules.BoolExtra(extras, attrWaitForRollout, true) {
		return u, nil
	}
	return lwswait.Rollout(ctx, dyn, ri, u)
}

// waitForCleanup waits, after the LeaderWorkerSet is gone, until the garbage collector has
// deleted its pods and StatefulSets (the LWS controller labels them all with the set's name), so
// that the GPUs are free when destroy returns and a replacement never meets the old pods. Each
// wait is a list and, while something remains, a watch: a few
// requests per object, however long the garbage collector takes.
func waitForCleanup(ctx context.Context, dyn dynamic.Interface, namespace, name string) error {
	for _, r := range []struct {
		gvr  schema.GroupVersionResource
		what string
	}{{lwswait.PodsGVR, "pods"}, {lwswait.StatefulSetsGVR, "StatefulSets"}} {
		if err := kube.WaitNoneLeft(ctx, dyn.Resource(r.gvr).Namespace(namespace), lwswait.PodsSelector(name), r.what, "LeaderWorkerSet"); err != nil {
			return err
		}
	}
	return nil
}
