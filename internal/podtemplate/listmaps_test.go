package podtemplate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestValidateListMapKeys: the second occurrence of a list-map key is a Duplicate at its index
// with the key as value, as kube-apiserver answers for a LeaderWorkerSet (checked against the
// released CRD by TestAccLeaderWorkerSet_templateParity); a third is not reported again; a
// port's unset protocol is the CRD's default, TCP.
func TestValidateListMapKeys(t *testing.T) {
	p := field.NewPath("spec", "leaderWorkerTemplate", "workerTemplate")
	cases := []struct {
		name   string
		mutate func(*corev1.PodTemplateSpec)
		want   []string
	}{
		{"no duplicates", func(*corev1.PodTemplateSpec) {}, nil},
		{"env named three times, another twice", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A"}, {Name: "A"}, {Name: "A"}, {Name: "B"}, {Name: "B"}}
		}, []string{`spec.containers[0].env[1]: Duplicate value: {"name":"A"}`, `spec.containers[0].env[4]: Duplicate value: {"name":"B"}`}},
		{"ports by number and defaulted protocol", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 80, Protocol: "UDP"}, {ContainerPort: 80, Protocol: "TCP"}}
		}, []string{`spec.containers[0].ports[2]: Duplicate value: {"containerPort":80,"protocol":"TCP"}`}},
		{"init container mounts", func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "x", VolumeMounts: []corev1.VolumeMount{{Name: "a", MountPath: "/a"}, {Name: "b", MountPath: "/a"}}}}
		}, []string{`spec.initContainers[0].volumeMounts[1]: Duplicate value: {"mountPath":"/a"}`}},
		{"pod-level lists", func(t *corev1.PodTemplateSpec) {
			t.Spec.HostAliases = []corev1.HostAlias{{IP: "10.0.0.1"}, {IP: "10.0.0.1"}}
			t.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "r"}, {Name: "r"}}
			t.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{
				{TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule}, {TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway},
				{TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule}}
			t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "main", Image: "y"})
		}, []string{
			`spec.containers[1]: Duplicate value: {"name":"main"}`,
			`spec.hostAliases[1]: Duplicate value: {"ip":"10.0.0.1"}`,
			`spec.imagePullSecrets[1]: Duplicate value: {"name":"r"}`,
			`spec.topologySpreadConstraints[2]: Duplicate value: {"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}`,
		}},
		{"restart rule exit codes (a list-set)", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{{Action: "Restart",
				ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: "In", Values: []int32{1, 2, 1, 1}}}}
		}, []string{`spec.containers[0].restartPolicyRules[0].exitCodes.values[2]: Duplicate value: 1`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tpl := base()
			c.mutate(tpl)
			var got []string
			for _, e := range ValidateListMapKeys(tpl, p) {
				got = append(got, e.Error()[len(p.String())+1:])
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
