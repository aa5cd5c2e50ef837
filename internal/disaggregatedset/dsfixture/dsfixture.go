// Package dsfixture builds the DisaggregatedSets of the tests, for the tests of the rules
// (internal/disaggregatedset/rules) and of the wiring (internal/disaggregatedset) alike: two
// roles, prefill and decode, of vLLM LeaderWorkerSets with 8 GPUs a pod. Only tests import it.
package dsfixture

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
)

// Role is a role of replicas groups of two pods (a leader and a worker) running image.
func Role(name string, replicas int32, image string) disaggv1.DisaggregatedRoleSpec {
	return disaggv1.DisaggregatedRoleSpec{
		Name: name,
		LeaderWorkerSetTemplateSpec: releasedlws.LeaderWorkerSetTemplateSpec{
			Spec: releasedlws.LeaderWorkerSetSpec{
				Replicas: ptr.To(replicas),
				LeaderWorkerTemplate: releasedlws.LeaderWorkerTemplate{
					Size: ptr.To[int32](2),
					WorkerTemplate: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name: "vllm", Image: image,
						Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}},
					}}}},
				},
			},
		},
	}
}

// Pair is the DisaggregatedSet default/llama: 2 prefill groups and 4 decode groups.
func Pair() *disaggv1.DisaggregatedSet {
	return &disaggv1.DisaggregatedSet{
		ObjectMeta: metav1.ObjectMeta{Name: "llama", Namespace: "default"},
		Spec: disaggv1.DisaggregatedSetSpec{Roles: []disaggv1.DisaggregatedRoleSpec{
			Role("prefill", 2, "vllm/vllm-openai:v0.11.0"), Role("decode", 4, "vllm/vllm-openai:v0.11.0"),
		}},
	}
}

// External leaves the replicas of role i to its scaler (scaling.mode = External).
func External(ds *disaggv1.DisaggregatedSet, i int) {
	ds.Spec.Roles[i].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingExternal}
}
