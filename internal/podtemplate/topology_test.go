package podtemplate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func spread(mut func(c *corev1.TopologySpreadConstraint)) func(t *corev1.PodTemplateSpec) {
	return func(t *corev1.PodTemplateSpec) {
		c := corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
		}
		if mut != nil {
			mut(&c)
		}
		t.Spec.TopologySpreadConstraints = append(t.Spec.TopologySpreadConstraints, c)
	}
}

func TestTopologySpreadConstraints(t *testing.T) {
	const p = "spec.topologySpreadConstraints[0]"
	runCases(t, []tc{
		{name: "valid", mutate: spread(nil)},
		{name: "maxSkew zero", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.MaxSkew = 0 }), want: "FieldValueInvalid " + p + ".maxSkew"},
		{name: "maxSkew negative", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.MaxSkew = -1 }), want: "FieldValueInvalid " + p + ".maxSkew"},
		{name: "topologyKey any string ok", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.TopologyKey = "not a/valid//key" })},
		{name: "topologyKey empty", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.TopologyKey = "" }), want: "FieldValueRequired " + p + ".topologyKey"},
		{name: "whenUnsatisfiable ScheduleAnyway", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.WhenUnsatisfiable = corev1.ScheduleAnyway })},
		{name: "whenUnsatisfiable empty", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.WhenUnsatisfiable = "" }), want: "FieldValueNotSupported " + p + ".whenUnsatisfiable"},
		{name: "whenUnsatisfiable bogus", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.WhenUnsatisfiable = "Never" }), want: "FieldValueNotSupported " + p + ".whenUnsatisfiable"},
		{name: "minDomains ok", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.MinDomains = ptr.To[int32](3) })},
		{name: "minDomains zero", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.MinDomains = ptr.To[int32](0) }), want: "FieldValueInvalid " + p + ".minDomains"},
		{name: "minDomains with ScheduleAnyway", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.MinDomains = ptr.To[int32](2)
			c.WhenUnsatisfiable = corev1.ScheduleAnyway
		}), want: "FieldValueInvalid " + p + ".minDomains"},
		{name: "nodeAffinityPolicy Ignore", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.NodeAffinityPolicy = ptr.To(corev1.NodeInclusionPolicyIgnore)
		})},
		{name: "nodeAffinityPolicy bogus", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.NodeAffinityPolicy = ptr.To(corev1.NodeInclusionPolicy("Maybe"))
		}), want: "FieldValueNotSupported " + p + ".nodeAffinityPolicy"},
		{name: "nodeTaintsPolicy Honor", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.NodeTaintsPolicy = ptr.To(corev1.NodeInclusionPolicyHonor) })},
		{name: "nodeTaintsPolicy bogus", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.NodeTaintsPolicy = ptr.To(corev1.NodeInclusionPolicy("honor"))
		}), want: "FieldValueNotSupported " + p + ".nodeTaintsPolicy"},
		{name: "selector bad label key", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector.MatchLabels = map[string]string{"bad key": "x"}
		}), want: "FieldValueInvalid " + p + ".labelSelector.matchLabels"},
		{name: "selector bad label value", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector.MatchLabels = map[string]string{"app": "bad value"}
		}), want: "FieldValueInvalid " + p + ".labelSelector.matchLabels"},
		{name: "selector expression In ok", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}}
		})},
		{name: "selector bad operator", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Like", Values: []string{"a"}}}
		}), want: "FieldValueInvalid " + p + ".labelSelector.matchExpressions[0].operator"},
		{name: "selector In without values", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn}}
		}), want: "FieldValueRequired " + p + ".labelSelector.matchExpressions[0].values"},
		{name: "selector Exists with values", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpExists, Values: []string{"a"}}}
		}), want: "FieldValueForbidden " + p + ".labelSelector.matchExpressions[0].values"},
		{name: "selector invalid value", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"-bad-"}}}
		}), want: "FieldValueInvalid " + p + ".labelSelector.matchExpressions[0].values[0]"},
		{name: "matchLabelKeys ok", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.MatchLabelKeys = []string{"pod-template-hash"} })},
		{name: "matchLabelKeys invalid key", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.MatchLabelKeys = []string{"bad key"} }), want: "FieldValueInvalid " + p + ".matchLabelKeys[0]"},
		{name: "matchLabelKeys without selector", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector = nil
			c.MatchLabelKeys = []string{"pod-template-hash"}
		}), want: "FieldValueForbidden " + p + ".matchLabelKeys"},
		{name: "matchLabelKeys overlaps matchLabels (stricter)", mutate: spread(func(c *corev1.TopologySpreadConstraint) { c.MatchLabelKeys = []string{"app"} }), want: "FieldValueInvalid " + p + ".matchLabelKeys[0]"},
		{name: "matchLabelKeys overlaps matchExpressions (stricter)", mutate: spread(func(c *corev1.TopologySpreadConstraint) {
			c.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpExists}}
			c.MatchLabelKeys = []string{"x", "tier"}
		}), want: "FieldValueInvalid " + p + ".matchLabelKeys[1]"},
		{name: "two distinct constraints", mutate: func(t *corev1.PodTemplateSpec) {
			spread(nil)(t)
			spread(func(c *corev1.TopologySpreadConstraint) { c.TopologyKey = "kubernetes.io/hostname" })(t)
		}},
		{name: "duplicate pair", mutate: func(t *corev1.PodTemplateSpec) { spread(nil)(t); spread(nil)(t) }, want: "FieldValueDuplicate " + p + ".{topologyKey, whenUnsatisfiable}"},
	})
}
