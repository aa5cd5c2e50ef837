// Package footprint works out, from a workload's specification alone, how many pods it runs
// and what they request and limit in total: at its replicas, and at the peak of a rolling
// update with surge groups. It is what a GPU budget is checked against in a pull request,
// from `terraform show -json` of a plan made without cluster credentials.
//
// A pod's requests and limits are those the scheduler and the kubelet count:
// PodRequests and PodLimits of k8s.io/component-helpers/resource (sidecars, init containers,
// pod-level resources), after the defaulting kube-apiserver applies to every pod created from
// a template (SetDefaults_Pod, pkg/apis/core/v1/defaults.go, k8s.io/kubernetes v1.37.2:
// a container's limit stands in for its missing request). Pod overhead, which a RuntimeClass
// adds at admission, is not known offline and is left out.
package footprint

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Pod is what one pod made from a template requests and limits.
type Pod struct {
	Requests, Limits corev1.ResourceList
}

// PodOf is the footprint of one pod created from template.
func PodOf(template *corev1.PodTemplateSpec) Pod {
	pod := &corev1.Pod{Spec: *template.Spec.DeepCopy()}
	defaultRequestsToLimits(pod.Spec.Containers)
	defaultRequestsToLimits(pod.Spec.InitContainers)
	defaultPodLevelRequests(pod)
	opts := resourcehelper.PodResourcesOptions{ExcludeOverhead: true}
	return Pod{Requests: resourcehelper.PodRequests(pod, opts), Limits: resourcehelper.PodLimits(pod, opts)}
}

// defaultRequestsToLimits: a container's limit is its request where the request is not set
// (SetDefaults_Pod, k8s.io/kubernetes v1.37.2 pkg/apis/core/v1/defaults.go).
func defaultRequestsToLimits(containers []corev1.Container) {
	for i := range containers {
		res := &containers[i].Resources
		for name, limit := range res.Limits {
			if _, ok := res.Requests[name]; ok {
				continue
			}
			if res.Requests == nil {
				res.Requests = corev1.ResourceList{}
			}
			res.Requests[name] = limit.DeepCopy()
		}
	}
}

// defaultPodLevelRequests: a pod-level limit stands in for the pod-level request of a
// resource no container requests (defaultPodRequests, k8s.io/kubernetes v1.37.2
// pkg/apis/core/v1/defaults.go; the requests the containers make are what PodRequests counts
// anyway).
func defaultPodLevelRequests(pod *corev1.Pod) {
	res := pod.Spec.Resources
	if res == nil || len(res.Limits) == 0 {
		return
	}
	containers := resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{})
	for name, limit := range res.Limits {
		if _, ok := res.Requests[name]; ok || !resourcehelper.IsSupportedPodLevelResource(name) {
			continue
		}
		if _, ok := containers[name]; ok {
			continue
		}
		if res.Requests == nil {
			res.Requests = corev1.ResourceList{}
		}
		res.Requests[name] = limit.DeepCopy()
	}
}

// Group is a set of identical groups of pods: a LeaderWorkerSet, or one role of a
// DisaggregatedSet.
type Group struct {
	// PodsPerGroup is the pods of one group, leader included.
	PodsPerGroup int64
	// Groups is the groups at the configured replicas; PeakGroups adds the surge groups that
	// a rolling update runs next to them.
	Groups, PeakGroups int64
	// PerGroup is what one group requests and limits.
	PerGroup Pod
}

// NewGroup is a group of one leader and size - 1 workers (size nil: 1). leader nil means the
// worker template, as in a LeaderWorkerSet without leaderTemplate.
func NewGroup(leader, worker *corev1.PodTemplateSpec, size *int32, groups, peakGroups int64) Group {
	if leader == nil {
		leader = worker
	}
	pods := int64(1)
	if size != nil {
		pods = max(int64(*size), 0)
	}
	lp, wp := PodOf(leader), PodOf(worker)
	per := Pod{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	add(per.Requests, lp.Requests, 1)
	add(per.Limits, lp.Limits, 1)
	add(per.Requests, wp.Requests, pods-1)
	add(per.Limits, wp.Limits, pods-1)
	return Group{PodsPerGroup: pods, Groups: groups, PeakGroups: max(peakGroups, groups), PerGroup: per}
}

// Total is what n groups request and limit.
func (g Group) Total(n int64) Pod {
	t := Pod{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	add(t.Requests, g.PerGroup.Requests, n)
	add(t.Limits, g.PerGroup.Limits, n)
	return t
}

// add adds n times each quantity of from to sum.
func add(sum, from corev1.ResourceList, n int64) {
	if n <= 0 {
		return
	}
	for name, q := range from {
		q = q.DeepCopy()
		q.Mul(n)
		if s, ok := sum[name]; ok {
			s.Add(q)
			sum[name] = s
		} else {
			sum[name] = q
		}
	}
}

// Sum is the sum of pods' footprints.
func Sum(pods ...Pod) Pod {
	t := Pod{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	for _, p := range pods {
		add(t.Requests, p.Requests, 1)
		add(t.Limits, p.Limits, 1)
	}
	return t
}

// canonical is the quantity's canonical string ("64", "500m", "256Gi"): equal amounts written
// differently ("0.5" and "500m") read the same.
func canonical(q resource.Quantity) string {
	return q.String()
}
