package acctest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

var lwsGVR = schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}

// The ReleasedLWS profile runs the simulated GPU nodes, Ready, in two zones.
func TestAccHarness_releasedNodes(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	nodes, err := c.Clientset().CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := acctest.Nodes()
	if len(nodes.Items) != len(want) {
		t.Fatalf("%d nodes, want %d", len(nodes.Items), len(want))
	}
	gpusPerZone := map[string]int64{}
	for _, n := range nodes.Items {
		ready := false
		for _, cond := range n.Status.Conditions {
			ready = ready || (cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue)
		}
		if !ready {
			t.Errorf("node %s is not Ready", n.Name)
		}
		gpus := n.Status.Allocatable.Name(acctest.GPUResource, resource.DecimalSI).Value()
		gpusPerZone[n.Labels[acctest.ZoneLabel]] += gpus
		if gpus > 0 && (len(n.Spec.Taints) != 1 || n.Spec.Taints[0].Key != acctest.GPUTaintKey) {
			t.Errorf("GPU node %s has taints %v, want the %s taint", n.Name, n.Spec.Taints, acctest.GPUTaintKey)
		}
	}
	for _, z := range acctest.Zones {
		if gpusPerZone[z] != 32 {
			t.Errorf("zone %s has %d GPUs, want 32", z, gpusPerZone[z])
		}
	}
}

// The released LWS webhooks default and validate; the CRD is the release's (no groupIdentity).
func TestAccHarness_releasedWebhooks(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lws := func(size int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "leaderworkerset.x-k8s.io/v1",
			"kind":       "LeaderWorkerSet",
			"metadata":   map[string]any{"name": "harness-webhook", "namespace": "default"},
			"spec": map[string]any{"leaderWorkerTemplate": map[string]any{
				"size":           size,
				"workerTemplate": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}},
			}},
		}}
	}
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	out, err := c.Dynamic().Resource(lwsGVR).Namespace("default").Create(ctx, lws(2), dry)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"spec.leaderWorkerTemplate.restartPolicy": "RecreateGroupOnPodRestart",
		"spec.rolloutStrategy.type":               "RollingUpdate",
		"spec.networkConfig.subdomainPolicy":      "Shared",
		"spec.startupPolicy":                      "LeaderCreated",
	} {
		got, _, _ := unstructured.NestedString(out.Object, strings.Split(path, ".")...)
		if got != want {
			t.Errorf("%s = %q after the webhook, want %q", path, got, want)
		}
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(out.Object, "spec", "groupIdentity"); found {
		t.Error("spec.groupIdentity is set: the CRD is not the released one")
	}
	_, err = c.Dynamic().Resource(lwsGVR).Namespace("default").Create(ctx, lws(0), dry)
	if err == nil || !strings.Contains(err.Error(), "size must be equal or greater than 1") {
		t.Errorf("size 0: want the webhook's denial, got %v", err)
	}
}

// A pod that requests GPUs is placed on a GPU node by kube-scheduler (the API server adds the
// toleration of the GPU taint) and turns Ready under KWOK; a pod asking for more GPUs than any
// node has stays Pending with the scheduler's reason, and TestCluster.Diagnose names it.
func TestAccHarness_releasedScheduling(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	cs := c.Clientset()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pod := func(name, gpus string) *corev1.Pod {
		q := corev1.ResourceList{acctest.GPUResource: resource.MustParse(gpus)}
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
				Resources: corev1.ResourceRequirements{Limits: q, Requests: q}}}},
		}
	}
	for _, p := range []*corev1.Pod{pod("harness-gpu-4", "4"), pod("harness-gpu-16", "16")} {
		if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		name := p.Name
		t.Cleanup(func() {
			zero := int64(0)
			_ = cs.CoreV1().Pods("default").Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		})
	}
	var placed, pending bool
	for !placed || !pending {
		p4, err1 := cs.CoreV1().Pods("default").Get(ctx, "harness-gpu-4", metav1.GetOptions{})
		p16, err2 := cs.CoreV1().Pods("default").Get(ctx, "harness-gpu-16", metav1.GetOptions{})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		placed = strings.HasPrefix(p4.Spec.NodeName, "gpu-node-") && hasCondition(p4, corev1.PodReady, corev1.ConditionTrue, "")
		pending = hasCondition(p16, corev1.PodScheduled, corev1.ConditionFalse, "Insufficient nvidia.com/gpu")
		select {
		case <-ctx.Done():
			t.Fatalf("after 60 s: 4-GPU pod placed and Ready = %v, 16-GPU pod unschedulable = %v", placed, pending)
		case <-time.After(200 * time.Millisecond):
		}
	}

	// What a fault test prints when a rollout never finishes names the pending
	// pod and why, and leaves out the Ready one.
	report := c.Diagnose(ctx, "default", "")
	if !strings.Contains(report, "pod harness-gpu-16: phase Pending") || !strings.Contains(report, "PodScheduled=False (Unschedulable)") {
		t.Errorf("the diagnosis does not name the unschedulable pod:\n%s", report)
	}
	if strings.Contains(report, "pod harness-gpu-4:") {
		t.Errorf("the diagnosis lists a Ready pod:\n%s", report)
	}
}

func hasCondition(p *corev1.Pod, typ corev1.PodConditionType, status corev1.ConditionStatus, msg string) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == typ && c.Status == status && strings.Contains(c.Message, msg) {
			return true
		}
	}
	return false
}
