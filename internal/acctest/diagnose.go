package acctest

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Diagnose describes what a test that waits on the cluster needs to know
// when a rollout never finishes: the nodes that are not Ready or carry a
// taint other than the GPU one, the pods whose label selector matches and
// are not Ready (phase, node, conditions), and the last output of the first
// component that exited or else of every component. It asks the API server,
// so it reports the error if that fails.
func (c *TestCluster) Diagnose(ctx context.Context, namespace, podSelector string) string {
	var b strings.Builder
	nodes, err := c.clientset.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Fprintf(&b, "listing nodes: %v\n", err)
	}
	if nodes != nil {
		for _, n := range nodes.Items {
			if line := nodeTrouble(n); line != "" {
				fmt.Fprintf(&b, "node %s: %s\n", n.Name, line)
			}
		}
	}
	pods, err := c.clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: podSelector})
	if err != nil {
		fmt.Fprintf(&b, "listing pods: %v\n", err)
	}
	if pods != nil {
		sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
		notReady := 0
		for _, p := range pods.Items {
			if PodReady(&p) {
				continue
			}
			notReady++
			fmt.Fprintf(&b, "pod %s: phase %s, node %q, deleting %t, conditions %s\n",
				p.Name, p.Status.Phase, p.Spec.NodeName, p.DeletionTimestamp != nil, podConditions(p))
		}
		fmt.Fprintf(&b, "%d pods, %d not Ready\n", len(pods.Items), notReady)
	}
	if err := c.exitedComponent(); err != nil {
		fmt.Fprintf(&b, "%v\n", err) // the exit and the component's last output
		return b.String()
	}
	b.WriteString(c.componentReports())
	return b.String()
}

func nodeTrouble(n corev1.Node) string {
	var problems []string
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady && cond.Status != corev1.ConditionTrue {
			problems = append(problems, fmt.Sprintf("Ready=%s (%s, since %s)", cond.Status, cond.Reason, cond.LastTransitionTime.Format("15:04:05")))
		}
	}
	for _, taint := range n.Spec.Taints {
		if taint.Key != GPUTaintKey {
			problems = append(problems, "taint "+taint.ToString())
		}
	}
	return strings.Join(problems, "; ")
}

// PodReady reports whether a pod is Ready and not being deleted.
func PodReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil {
		return false
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podConditions(p corev1.Pod) string {
	var parts []string
	for _, cond := range p.Status.Conditions {
		part := fmt.Sprintf("%s=%s", cond.Type, cond.Status)
		if cond.Reason != "" {
			part += " (" + cond.Reason + ")"
		}
		parts = append(parts, part)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
