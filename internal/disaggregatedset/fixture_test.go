package disaggregatedset

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
)

// The fixtures of the rules' tests (package rules), for the tests of the hooks and the waits.

var node = rules.Kind.Node

func role(name string, replicas int32, image string) disaggv1.DisaggregatedRoleSpec {
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

func pair() *disaggv1.DisaggregatedSet {
	return &disaggv1.DisaggregatedSet{
		ObjectMeta: metav1.ObjectMeta{Name: "llama", Namespace: "default"},
		Spec: disaggv1.DisaggregatedSetSpec{Roles: []disaggv1.DisaggregatedRoleSpec{
			role("prefill", 2, "vllm/vllm-openai:v0.11.0"), role("decode", 4, "vllm/vllm-openai:v0.11.0"),
		}},
	}
}

func external(ds *disaggv1.DisaggregatedSet, i int) {
	ds.Spec.Roles[i].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingExternal}
}
