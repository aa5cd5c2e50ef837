package placement

import (
	"crypto/sha1" //nolint:gosec // the LWS group key is a SHA-1 of the pod name, not a secret
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

// Workload is one LeaderWorkerSet (or one DisaggregatedSet role) as the plan knows it.
type Workload struct {
	Name      string
	Namespace string
	Replicas  int
	Size      int
	// Annotations of the LeaderWorkerSet: the exclusive-topology and subgroup-exclusive-topology keys.
	Annotations map[string]string
	// SubGroupSize is leaderWorkerTemplate.subGroupPolicy.subGroupSize, 0 without a subgroup policy.
	SubGroupSize int
	Leader       corev1.PodTemplateSpec
	// Worker is the worker template; the leader template is used when it is nil.
	Worker *corev1.PodTemplateSpec
	// Rollout is set for an update of an existing object: how the controller goes from the groups
	// running now to this workload. Nil for a create.
	Rollout *Rollout
}

// ExclusiveKey is the topology key of the workload's exclusive placement
// (leaderworkerset.sigs.k8s.io/exclusive-topology), "" without one.
func (w Workload) ExclusiveKey() string { return w.Annotations[lwsv1.ExclusiveKeyAnnotationKey] }

// key names the workload among the snapshot's pods.
func (w Workload) key() string { return w.Namespace + "/" + w.Name }

// Preview places the workload's groups on the snapshot, the leaders in index order then each
// group's workers, and counts the groups whose every pod found a node. Pods of a group that fails
// still take their room, as the scheduler binds them without gang semantics. An update is played
// out round by round as the controller rolls it out (previewRollout).
func Preview(snapshot Snapshot, w Workload) Result {
	return PreviewAll(snapshot, []Workload{w})[0]
}

// PreviewAll previews several workloads in order on one snapshot, each seeing the room the earlier
// ones took, as one plan's resources would be applied together.
func PreviewAll(snapshot Snapshot, workloads []Workload) []Result {
	updates := map[string]bool{}
	for _, w := range workloads {
		if w.Rollout != nil {
			updates[w.key()] = true
		}
	}
	var claim func(*corev1.Pod) string
	if len(updates) > 0 {
		claim = func(p *corev1.Pod) string {
			if name := p.Labels[lwsv1.SetNameLabelKey]; name != "" && updates[p.Namespace+"/"+name] {
				return p.Namespace + "/" + name
			}
			return ""
		}
	}
	s := newState(snapshot, claim)
	results := make([]Result, len(workloads))
	for i, w := range workloads {
		if w.Rollout != nil {
			results[i] = previewRollout(s, w)
			continue
		}
		results[i] = previewOn(s, w, w.Replicas)
	}
	for i := range results {
		results[i].MostPlaceable = max(results[i].MostPlaceable, results[i].Placeable)
	}
	return results
}

// previewOn places the leaders of every group first, in index order, then each group's workers:
// the leader StatefulSet creates all leader pods at once (Parallel pod management) and
// pod_controller.go (lws v0.9.0) creates a group's worker StatefulSet only once its leader pod
// exists, so the scheduling queue (PrioritySort: priority, then creation time) sees the leaders
// first. That order's groups are the ones listed; where some group falls short, or a leader's
// choice of an exclusive domain can strand its workers, the range of whole groups over every
// order and choice among nodes is worked out (partialRange; exclusiveDomains for exclusive placement).
func previewOn(s *state, w Workload, groups int) Result {
	exclusiveKey := w.Annotations[lwsv1.ExclusiveKeyAnnotationKey]
	var domains *domainVerdicts
	if exclusiveKey != "" && w.Size > 1 && groups > 0 {
		domains = s.exclusiveDomains(w, exclusiveKey) // on the cluster before any of the workload's pods
	}
	result := Result{Groups: groups, FirstUnplaceable: -1}
	play := s.play(w, groups, leadersFirst(groups, w.Size))
	for g := 0; g < groups; g++ {
		if play.whole(g) {
			result.Placeable++
			continue
		}
		if result.FirstUnplaceable < 0 {
			result.FirstUnplaceable, result.Reason = g, play.reasons[g]
		}
		result.Unplaceable = append(result.Unplaceable, GroupFailure{Group: g, Reason: play.reasons[g]})
	}
	result.BoundPods = play.leaders + play.workers
	result.MostPlaceable = result.Placeable
	switch {
	case domains != nil:
		domains.apply(&result, groups)
	case w.Size > 1:
		s.partialRange(&result, w, groups, play)
	}
	return result
}

// groupPod builds pod i (0 is the leader) of group g with the labels and affinities the LWS
// controller and pod webhook give it (pkg/webhooks/pod_webhook.go Default, lws v0.9.0).
func groupPod(w Workload, g, i int) *corev1.Pod {
	template := w.Leader
	if i > 0 && w.Worker != nil {
		template = *w.Worker
	}
	pod := &corev1.Pod{ObjectMeta: *template.ObjectMeta.DeepCopy(), Spec: *template.Spec.DeepCopy()}
	pod.Namespace = w.Namespace
	leaderName := fmt.Sprintf("%s-%d", w.Name, g)
	pod.Name = leaderName
	if i > 0 {
		pod.Name = fmt.Sprintf("%s-%d", leaderName, i)
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	groupKey := groupUniqueKey(w.Namespace, leaderName)
	pod.Labels[lwsv1.SetNameLabelKey] = w.Name
	pod.Labels[lwsv1.GroupIndexLabelKey] = strconv.Itoa(g)
	pod.Labels[lwsv1.GroupUniqueHashLabelKey] = groupKey
	pod.Labels[lwsv1.WorkerIndexLabelKey] = strconv.Itoa(i)
	if i == 0 {
		if key := w.Annotations[lwsv1.ExclusiveKeyAnnotationKey]; key != "" {
			setExclusiveAffinities(pod, groupKey, key, lwsv1.GroupUniqueHashLabelKey)
		}
	}
	if key := w.Annotations[lwsv1.SubGroupExclusiveKeyAnnotationKey]; key != "" && w.SubGroupSize > 0 {
		subGroup := "0"
		if i > 0 {
			subGroup = subGroupIndex(w.Size, w.SubGroupSize, i)
		}
		subGroupKey := groupUniqueKey(leaderName, subGroup)
		pod.Labels[lwsv1.SubGroupIndexLabelKey] = subGroup
		pod.Labels[lwsv1.SubGroupUniqueHashLabelKey] = subGroupKey
		setExclusiveAffinities(pod, subGroupKey, key, lwsv1.SubGroupUniqueHashLabelKey)
	}
	return pod
}

// groupUniqueKey ports genGroupUniqueKey (pkg/webhooks/pod_webhook.go, lws v0.9.0).
func groupUniqueKey(namespace, podName string) string {
	sum := sha1.Sum([]byte(namespace + "/" + podName)) //nolint:gosec // same hash as the LWS webhook
	return hex.EncodeToString(sum[:])
}

// subGroupIndex ports getSubGroupIndex (pkg/webhooks/pod_webhook.go, lws v0.9.0).
func subGroupIndex(podCount, subGroupSize, workerIndex int) string {
	if (podCount-1)%subGroupSize == 0 {
		return strconv.Itoa((workerIndex - 1) / subGroupSize)
	}
	return strconv.Itoa(workerIndex / subGroupSize)
}

// setExclusiveAffinities ports SetExclusiveAffinities (pkg/webhooks/pod_webhook.go, lws v0.9.0):
// affinity to pods with the same key in the domain, anti-affinity to pods with another key.
func setExclusiveAffinities(pod *corev1.Pod, uniqueKey, topologyKey, labelKey string) {
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &corev1.Affinity{}
	}
	if pod.Spec.Affinity.PodAffinity == nil {
		pod.Spec.Affinity.PodAffinity = &corev1.PodAffinity{}
	}
	if pod.Spec.Affinity.PodAntiAffinity == nil {
		pod.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	affinity := pod.Spec.Affinity
	affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		corev1.PodAffinityTerm{
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: labelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{uniqueKey}},
			}},
			TopologyKey: topologyKey,
		})
	affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		corev1.PodAffinityTerm{
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: labelKey, Operator: metav1.LabelSelectorOpExists},
				{Key: labelKey, Operator: metav1.LabelSelectorOpNotIn, Values: []string{uniqueKey}},
			}},
			TopologyKey: topologyKey,
		})
}

// maxOrdered bounds the workloads PreviewAnyOrder plays in every order (4! = 24 orders: about 120 ms
// over 1,000 nodes, BenchmarkPreviewAnyOrder; 5! would take 5 times that). More
// are played in the given order, its reverse, and with each workload moved first and moved last:
// 3n+2 orders, where every order would be n! (720 for 6).
const maxOrdered = 4

// PreviewAnyOrder previews workloads that a controller creates in no fixed order, so that the
// scheduler may see any of them first: it plays every order (up to maxOrdered workloads) and gives
// each workload its result in the order least favourable to it, with MostPlaceable the most
// groups it places in any order played.
func PreviewAnyOrder(snapshot Snapshot, workloads []Workload) []Result {
	results := PreviewAll(snapshot, workloads)
	if len(workloads) < 2 {
		return results
	}
	order := make([]int, len(workloads))
	for i := range order {
		order[i] = i
	}
	given := slices.Clone(results)
	play := func(order []int) {
		ws := make([]Workload, len(order))
		for k, i := range order {
			ws[k] = workloads[i]
		}
		for k, r := range PreviewAll(snapshot, ws) {
			i := order[k]
			merged := results[i]
			if r.Placeable < merged.Placeable {
				merged = r
			}
			merged.MostPlaceable = max(results[i].MostPlaceable, r.MostPlaceable)
			merged.Timing = results[i].Timing || r.Timing
			merged.PartialPods = max(results[i].PartialPods, r.PartialPods)
			merged.PartialGPUs = max(results[i].PartialGPUs, r.PartialGPUs)
			merged.Reordered = results[i].Reordered || r.Placeable != given[i].Placeable || r.MostPlaceable != given[i].MostPlaceable
			results[i] = merged
		}
	}
	if len(workloads) > maxOrdered {
		slices.Reverse(order)
		play(order)
		for i := range workloads {
			rest := make([]int, 0, len(workloads)-1)
			for j := range workloads {
				if j != i {
					rest = append(rest, j)
				}
			}
			play(append([]int{i}, rest...))
			play(append(slices.Clone(rest), i))
			slices.Reverse(rest)
			play(append(rest, i))
		}
		return results
	}
	for nextPermutation(order) {
		play(order)
	}
	return results
}

// nextPermutation rearranges order into the next permutation in lexicographic order and reports
// whether there was one (the last permutation is left as it is).
func nextPermutation(order []int) bool {
	i := len(order) - 2
	for i >= 0 && order[i] >= order[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(order) - 1
	for order[j] <= order[i] {
		j--
	}
	order[i], order[j] = order[j], order[i]
	slices.Reverse(order[i+1:])
	return true
}
