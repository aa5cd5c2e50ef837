package placement

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// WithExtendedResourceTolerations returns the workload with the tolerations the
// ExtendedResourceToleration admission plugin adds to its pods: for every extended resource a
// container or init container requests (nvidia.com/gpu), an Exists toleration of the NoSchedule
// taint of that name. GPU node pools are tainted with the resource's name for this plugin, and
// managed GPU clusters enable it, so a template that asks for GPUs tolerates them without saying so.
//
// Port of plugin/pkg/admission/extendedresourcetoleration/admission.go Admit (kubernetes v1.37.2).
func WithExtendedResourceTolerations(w Workload) Workload {
	w.Leader = *w.Leader.DeepCopy()
	addExtendedResourceTolerations(&w.Leader.Spec)
	if w.Worker != nil {
		worker := *w.Worker.DeepCopy()
		addExtendedResourceTolerations(&worker.Spec)
		w.Worker = &worker
	}
	if w.Rollout != nil {
		ro := *w.Rollout
		ro.Current = WithExtendedResourceTolerations(ro.Current)
		w.Rollout = &ro
	}
	return w
}

func addExtendedResourceTolerations(spec *corev1.PodSpec) {
	names := map[string]bool{}
	for _, containers := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for _, c := range containers {
			for name := range c.Resources.Requests {
				if isExtendedResourceName(name) {
					names[string(name)] = true
				}
			}
		}
	}
	sorted := make([]string, 0, len(names))
	for name := range names {
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	for _, name := range sorted {
		addOrUpdateToleration(spec, corev1.Toleration{Key: name, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
}

// addOrUpdateToleration ports AddOrUpdateTolerationInPod (pkg/apis/core/helper/helpers.go,
// kubernetes v1.37.2): a toleration with the same key, operator, value and effect is replaced,
// any other added.
func addOrUpdateToleration(spec *corev1.PodSpec, t corev1.Toleration) {
	for i, existing := range spec.Tolerations {
		if existing.Key == t.Key && existing.Operator == t.Operator && existing.Value == t.Value && existing.Effect == t.Effect {
			spec.Tolerations[i] = t
			return
		}
	}
	spec.Tolerations = append(spec.Tolerations, t)
}

// isExtendedResourceName ports IsExtendedResourceName (pkg/apis/core/helper/helpers.go,
// kubernetes v1.37.2): a fully qualified name outside the kubernetes.io namespaces, not a
// requests. quota name.
func isExtendedResourceName(name corev1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) ||
		strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+s)) == 0
}
