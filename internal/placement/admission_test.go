package placement

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestWithExtendedResourceTolerations: a pod that requests nvidia.com/gpu tolerates the GPU
// nodes' taint of that name, as the admission plugin makes it; a pod without GPUs, and a taint of
// another key, still fail, with the scheduler's reason; the caller's templates are not changed.
func TestWithExtendedResourceTolerations(t *testing.T) {
	snapshot := Snapshot{Nodes: nodes(2, "gpu", 8, withTaint(string(gpu), "present", corev1.TaintEffectNoSchedule))}
	asked := lws(2, 1, gpuTemplate(8))
	if got := Preview(snapshot, asked); got.Placeable != 0 {
		t.Fatalf("without the admission plugin's toleration: placeable %d, want 0", got.Placeable)
	}
	admitted := WithExtendedResourceTolerations(asked)
	if got := Preview(snapshot, admitted); got.Placeable != 2 {
		t.Errorf("with the toleration: placeable %d, want 2 (%s)", got.Placeable, got.Reason)
	}
	if len(asked.Leader.Spec.Tolerations) != 0 {
		t.Errorf("the caller's template was changed: %v", asked.Leader.Spec.Tolerations)
	}
	want := corev1.Toleration{Key: string(gpu), Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	if tl := admitted.Leader.Spec.Tolerations; len(tl) != 1 || tl[0] != want {
		t.Errorf("tolerations %v, want [%v]", tl, want)
	}

	cpuOnly := gpuTemplate(0)
	delete(cpuOnly.Spec.Containers[0].Resources.Requests, gpu)
	cpuOnly.Spec.Containers[0].Resources.Requests[corev1.ResourceEphemeralStorage] = resource.MustParse("1Gi")
	got := Preview(snapshot, WithExtendedResourceTolerations(lws(1, 1, cpuOnly)))
	if got.Placeable != 0 || !strings.Contains(got.Reason, "2 node(s) had untolerated taint(s)") {
		t.Errorf("no GPUs asked: placeable %d reason %q, want the untolerated taint", got.Placeable, got.Reason)
	}
	if len(got.Unplaceable) != 1 || got.Unplaceable[0].Group != 0 || got.Unplaceable[0].Reason != got.Reason {
		t.Errorf("unplaceable groups %+v, want group 0 with the reason", got.Unplaceable)
	}

	for name, want := range map[corev1.ResourceName]bool{
		"nvidia.com/gpu": true, "example.com/fpga": true, "cpu": false, "hugepages-2Mi": false,
		"kubernetes.io/something": false, "requests.nvidia.com/gpu": false,
	} {
		if got := isExtendedResourceName(name); got != want {
			t.Errorf("isExtendedResourceName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestPreviewListsEveryUnplaceableGroup: each group that cannot be placed is listed with its reason.
func TestPreviewListsEveryUnplaceableGroup(t *testing.T) {
	got := Preview(Snapshot{Nodes: nodes(2, "gpu", 8)}, lws(4, 1, gpuTemplate(8)))
	if got.Placeable != 2 || len(got.Unplaceable) != 2 || got.Unplaceable[0].Group != 2 || got.Unplaceable[1].Group != 3 {
		t.Fatalf("placeable %d, unplaceable %+v; want 2 and groups 2, 3", got.Placeable, got.Unplaceable)
	}
	for _, f := range got.Unplaceable {
		if !strings.Contains(f.Reason, "Insufficient nvidia.com/gpu") {
			t.Errorf("group %d: reason %q", f.Group, f.Reason)
		}
	}
}
