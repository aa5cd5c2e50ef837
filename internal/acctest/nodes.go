package acctest

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Simulated nodes of the ReleasedLWS profile. KWOK manages the nodes that carry
// kwokNodeAnnotation: it keeps them Ready (with lease heartbeats) and plays the
// kubelet for the pods bound to them (Running, Ready, deleted).
const (
	kwokNodeAnnotation = "kwok.x-k8s.io/node"

	// GPUResource is the extended resource of the GPU nodes.
	GPUResource = "nvidia.com/gpu"
	// GPUTaintKey taints the GPU nodes (NoSchedule), as GPU node pools usually
	// are: only pods that tolerate it run there. It is the resource's name, so
	// the API server's ExtendedResourceToleration admission plugin adds the
	// toleration to every pod that requests GPUs, as on managed GPU clusters.
	GPUTaintKey = "nvidia.com/gpu"
	// ZoneLabel is the well-known zone label the nodes are spread over.
	ZoneLabel = "topology.kubernetes.io/zone"
)

// Zones of the simulated nodes.
var Zones = []string{"zone-a", "zone-b"}

// NodeSpec describes one simulated node.
type NodeSpec struct {
	Name   string
	Zone   string
	CPU    string
	Memory string
	GPUs   int64 // 0: a CPU node without the GPU taint
}

// Nodes returns the nodes of the ReleasedLWS profile: 8 GPU nodes (8 GPUs,
// 192 CPUs and 2 TiB each, like an 8-GPU H100 server) split over two zones, and
// one untainted CPU node per zone for pods that need no GPU.
func Nodes() []NodeSpec {
	var nodes []NodeSpec
	for i := 0; i < 8; i++ {
		nodes = append(nodes, NodeSpec{Name: fmt.Sprintf("gpu-node-%d", i), Zone: Zones[i/4], CPU: "192", Memory: "2048Gi", GPUs: 8})
	}
	for i, z := range Zones {
		nodes = append(nodes, NodeSpec{Name: fmt.Sprintf("cpu-node-%d", i), Zone: z, CPU: "32", Memory: "128Gi"})
	}
	return nodes
}

// nodeObject is the Node a kubelet would register for spec. Nodes accept their
// status on create, so capacity is set at once.
func nodeObject(spec NodeSpec) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse(spec.CPU),
		corev1.ResourceMemory:           resource.MustParse(spec.Memory),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("3500Gi"),
	}
	labels := map[string]string{
		"kubernetes.io/hostname":        spec.Name,
		"kubernetes.io/os":              "linux",
		"kubernetes.io/arch":            "amd64",
		"topology.kubernetes.io/region": "local",
		ZoneLabel:                       spec.Zone,
		"type":                          "kwok",
	}
	var taints []corev1.Taint
	if spec.GPUs > 0 {
		capacity[GPUResource] = *resource.NewQuantity(spec.GPUs, resource.DecimalSI)
		labels["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3"
		labels["nvidia.com/gpu.count"] = fmt.Sprint(spec.GPUs)
		labels["node.kubernetes.io/instance-type"] = "gpu-8x-h100"
		taints = []corev1.Taint{{Key: GPUTaintKey, Value: "present", Effect: corev1.TaintEffectNoSchedule}}
	} else {
		labels["node.kubernetes.io/instance-type"] = "cpu-32"
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        spec.Name,
			Labels:      labels,
			Annotations: map[string]string{kwokNodeAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"},
		},
		Spec: corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity,
			Phase:       corev1.NodeRunning,
		},
	}
}

// CreateNodes registers the simulated nodes (existing ones are left as they are).
func CreateNodes(ctx context.Context, cs kubernetes.Interface, specs []NodeSpec) error {
	for _, s := range specs {
		_, err := cs.CoreV1().Nodes().Create(ctx, nodeObject(s), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", s.Name, err)
		}
	}
	return nil
}

// nodesReady reports whether every node is Ready.
func (c *TestCluster) nodesReady(ctx context.Context) (bool, error) {
	list, err := c.clientset.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	if len(list.Items) == 0 {
		return false, fmt.Errorf("no nodes")
	}
	for _, n := range list.Items {
		ready := false
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if !ready {
			return false, fmt.Errorf("node %s is not Ready", n.Name)
		}
		// kube-controller-manager's node lifecycle controller taints a node
		// node.kubernetes.io/not-ready until it sees the node Ready.
		for _, taint := range n.Spec.Taints {
			if strings.HasPrefix(taint.Key, "node.kubernetes.io/") {
				return false, fmt.Errorf("node %s still has the %s taint", n.Name, taint.Key)
			}
		}
	}
	return true, nil
}
