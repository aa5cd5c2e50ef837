// Package placement previews, offline, how many LeaderWorkerSet groups kube-scheduler v1.37.2 can
// place on a snapshot of nodes and bound pods, and why the first group that cannot be placed fails,
// in the scheduler's words. It ports the default filter plugins and an approximation of the default
// scoring; it never imports k8s.io/kubernetes.
//
// Approximations (each documented where it is made):
//   - Pods are placed one at a time in the order LeaderWorkerSet creates them: every leader in
//     group index order, then each group's workers. The real queue orders pods by priority and
//     creation time, and the workers of a group may be created while leaders are still queued:
//     where the groups fall short, the result is the range of whole groups over every such order
//     (partial.go), and under exclusive placement over every domain a leader fits in.
//   - Every feasible node is scored (the scheduler scores a sample, percentageOfNodesToScore) and
//     ties are broken by node name (the scheduler picks among ties at random; the range covers
//     that choice where the workload's pods are interchangeable, partial.go).
//   - Scoring counts NodeResourcesFit LeastAllocated and NodeResourcesBalancedAllocation over cpu and
//     memory; preferred affinities, PreferNoSchedule taints, topology spread and image scores are not
//     counted. They only choose among feasible nodes.
//   - Pod affinity terms select pods in the pod's namespace or the listed namespaces; a
//     namespaceSelector is not evaluated. Volumes, ports and DRA claims are not checked.
//   - The reason is FitError.Error() without the preemption sentence the scheduler appends.
//   - An update is played out round by round as the LWS v0.9.0 controller rolls it (rollout.go),
//     from the object's groups running in the snapshot taken as a finished rollout; a freed room
//     goes to pods already waiting (the object's pods that waited when the snapshot was taken
//     first, whole groups at a time) before the pods a round creates.
package placement

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

// Scheduler reasons, as in kube-scheduler v1.37.2 pkg/scheduler/framework/plugins.
const (
	reasonUnschedulable        = "node(s) were unschedulable"                        // nodeunschedulable: ErrReasonUnschedulable
	reasonNodeName             = "node(s) didn't match the requested node name"      // nodename: ErrReason
	reasonNodeAffinity         = "node(s) didn't match Pod's node affinity/selector" // nodeaffinity: ErrReasonPod
	reasonTooManyPods          = "Too many pods"                                     // noderesources/fit.go: fitsRequest
	reasonSpreadNotMatch       = "node(s) didn't match pod topology spread constraints"
	reasonSpreadMissingLabel   = "node(s) didn't match pod topology spread constraints (missing required label)"
	reasonUntoleratedTaint     = "node(s) had untolerated taint(s)" // tainttoleration: Filter
	reasonAffinityNotMatch     = "node(s) didn't match pod affinity rules"
	reasonAntiAffinityNotMatch = "node(s) didn't match pod anti-affinity rules"
	reasonExistingAntiAffinity = "node(s) didn't satisfy existing pods anti-affinity rules"
	unschedulableTaintKey      = "node.kubernetes.io/unschedulable"
)

// Snapshot is what the plan reads: the nodes and the pods bound to them.
type Snapshot struct {
	Nodes []corev1.Node
	Pods  []corev1.Pod
}

// Result is the preview of one workload.
type Result struct {
	// Groups is the number of groups asked for (replicas, plus the surge for an update).
	Groups int
	// Placeable is the number of groups whose every pod found a node.
	Placeable int
	// FirstUnplaceable is the index of the first group that cannot be placed, or -1.
	FirstUnplaceable int
	// Reason is the scheduler's message for the first pod of that group that found no node.
	Reason string
	// Unplaceable lists every group that cannot be placed, in index order.
	Unplaceable []GroupFailure
	// For an update (Workload.Rollout): Updated counts the groups below replicas that run the new
	// template once the rollout settles (the fewest, where a scale-up's groups come up partially); Stalled says that a rolling update cannot finish, and
	// StallGroup is the group it waits for (FirstUnplaceable and Reason are that group's).
	Updated    int
	Stalled    bool
	StallGroup int
	// MostPlaceable is the most groups that come up whole: Placeable is the fewest, over the order
	// kube-scheduler binds the workload's pods in and its choice among nodes (Timing), and for
	// workloads previewed in any order (PreviewAnyOrder) over their order too (Reordered). The
	// rest of the result (FirstUnplaceable, Reason, Unplaceable) is the preview's order's: every
	// leader, then each group's workers, ties broken by node name.
	MostPlaceable int
	// Timing says that the whole groups depend on the order the scheduler binds the workload's
	// pods in and its choice among nodes (partial.go): MostPlaceable > Placeable.
	Timing bool
	// Reordered says that the whole groups depend on the order of the workloads (PreviewAnyOrder).
	Reordered bool
	// BoundPods is the count of the workload's pods bound in the preview's order; for a create
	// whose leaders and workers are alike, in any order.
	BoundPods int
	// PartialPods and PartialGPUs are the most pods, and their nvidia.com/gpu, that groups which
	// do not come up whole may hold (bound, serving nothing), in the least favourable order.
	PartialPods int
	PartialGPUs int64
	// Under exclusive placement, ExclusiveDomains is the count of the topology's domains where a
	// leader fits, and StrandingDomains of those where it may be bound with too little room left
	// for its workers.
	ExclusiveDomains, StrandingDomains int
}

// GroupFailure is a group that cannot be placed and the scheduler's message for the first of its
// pods that found no node.
type GroupFailure struct {
	Group  int
	Reason string
}

type resourceIndex map[corev1.ResourceName]int

type simNode struct {
	node        *corev1.Node
	allocatable []int64 // by resourceIndex; cpu in millicores
	requested   []int64
	nonZeroCPU  int64 // requests with the scheduler's non-zero defaults, for scoring
	nonZeroMem  int64
	cpuAlloc    int64
	memAlloc    int64
	allowedPods int64
	podCount    int64
	pods        []*simPod
}

type simPod struct {
	namespace string
	labels    labels.Set
	// required anti-affinity terms of this pod, parsed once, for the symmetric check (existing pods'
	// anti-affinity)
	antiAffinity []affinityTerm
	node         *simNode
	req          podRequest // what it takes from its node, given back by unbind
}

// state is the simulated cluster: nodes sorted by name and every pod on them.
type state struct {
	index       resourceIndex
	names       []corev1.ResourceName
	nodes       []*simNode
	withAntiAff []*simPod
	allPods     []*simPod
	numAllNodes int
	// owned are the bound pods of the workloads being updated, by workload key and group index
	// (newState's claim): their room is given back group by group as the rollout replaces them.
	owned map[string]map[int][]*simPod
	// ownedWaiting are the pods of those workloads that wait for a node, by workload key and group
	// index: the scheduler keeps trying them, ahead of the pods the rollout creates.
	ownedWaiting map[string]map[int][]*corev1.Pod
	// pick, when set (tests), chooses among n equally scored nodes at random as the scheduler
	// does (selectHost, pkg/scheduler/schedule_one.go, v1.37.2); unset, ties go by node name.
	pick func(n int) int
}

// Defaults the scheduler gives pods without cpu or memory requests when scoring
// (pkg/scheduler/util/pod_resources.go, DefaultMilliCPURequest and DefaultMemoryRequest, v1.37.2).
const (
	defaultMilliCPURequest = 100
	defaultMemoryRequest   = 200 * 1024 * 1024
)

// newState builds the simulated cluster. claim, when set, names the workload a pod belongs to
// ("" for none): such a pod, when bound, is bound like any other and also recorded in owned under
// its group index label; when it waits for a node, it is recorded in ownedWaiting. Other pods that
// wait for a node take no room and are left out.
func newState(snapshot Snapshot, claim func(*corev1.Pod) string) *state {
	s := &state{index: resourceIndex{}, numAllNodes: len(snapshot.Nodes), owned: map[string]map[int][]*simPod{},
		ownedWaiting: map[string]map[int][]*corev1.Pod{}}
	byName := make(map[string]*simNode, len(snapshot.Nodes))
	for i := range snapshot.Nodes {
		node := &snapshot.Nodes[i]
		n := &simNode{
			node:        node,
			allowedPods: node.Status.Allocatable.Pods().Value(),
			cpuAlloc:    node.Status.Allocatable.Cpu().MilliValue(),
			memAlloc:    node.Status.Allocatable.Memory().Value(),
		}
		for name, q := range node.Status.Allocatable {
			idx := s.resource(name)
			n.grow(len(s.names))
			n.allocatable[idx] = quantityValue(name, &q)
		}
		s.nodes = append(s.nodes, n)
		byName[node.Name] = n
	}
	sort.Slice(s.nodes, func(i, j int) bool { return s.nodes[i].node.Name < s.nodes[j].node.Name })
	for i := range snapshot.Pods {
		pod := &snapshot.Pods[i]
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		if pod.Spec.NodeName == "" {
			s.recordWaiting(pod, claim)
			continue
		}
		n, ok := byName[pod.Spec.NodeName]
		if !ok {
			continue
		}
		p := s.newSimPod(pod)
		s.bind(p, s.requests(pod), n)
		if claim == nil {
			continue
		}
		if key := claim(pod); key != "" {
			group, err := strconv.Atoi(pod.Labels[lwsv1.GroupIndexLabelKey])
			if err != nil || group < 0 {
				continue
			}
			if s.owned[key] == nil {
				s.owned[key] = map[int][]*simPod{}
			}
			s.owned[key][group] = append(s.owned[key][group], p)
		}
	}
	return s
}

// recordWaiting records a pod that waits for a node when it belongs to a workload being updated
// (claim) and is not being deleted.
func (s *state) recordWaiting(pod *corev1.Pod, claim func(*corev1.Pod) string) {
	if claim == nil || pod.DeletionTimestamp != nil {
		return
	}
	key := claim(pod)
	group, err := strconv.Atoi(pod.Labels[lwsv1.GroupIndexLabelKey])
	if key == "" || err != nil || group < 0 {
		return
	}
	if s.ownedWaiting[key] == nil {
		s.ownedWaiting[key] = map[int][]*corev1.Pod{}
	}
	s.ownedWaiting[key][group] = append(s.ownedWaiting[key][group], pod)
}

func (n *simNode) grow(size int) {
	for len(n.allocatable) < size {
		n.allocatable = append(n.allocatable, 0)
		n.requested = append(n.requested, 0)
	}
}

func (s *state) resource(name corev1.ResourceName) int {
	if idx, ok := s.index[name]; ok {
		return idx
	}
	s.index[name] = len(s.names)
	s.names = append(s.names, name)
	return len(s.names) - 1
}

// quantityValue is how the scheduler's framework.Resource stores a quantity: cpu in millicores,
// everything else in units.
func quantityValue(name corev1.ResourceName, q *resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

type podRequest struct {
	amounts    []resourceAmount
	nonZeroCPU int64
	nonZeroMem int64
}

type resourceAmount struct {
	index int
	value int64
}

// requests follows noderesources/fit.go computePodResourceRequest (v1.37.2): the component-helpers
// PodRequests (max of init containers, sidecars, sum of containers, plus overhead).
func (s *state) requests(pod *corev1.Pod) podRequest {
	list := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	req := podRequest{nonZeroCPU: defaultMilliCPURequest, nonZeroMem: defaultMemoryRequest}
	names := make([]corev1.ResourceName, 0, len(list))
	for name := range list {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	for _, name := range names {
		q := list[name]
		v := quantityValue(name, &q)
		if v == 0 {
			continue
		}
		req.amounts = append(req.amounts, resourceAmount{index: s.resource(name), value: v})
		switch name {
		case corev1.ResourceCPU:
			req.nonZeroCPU = v
		case corev1.ResourceMemory:
			req.nonZeroMem = v
		}
	}
	return req
}

func (s *state) newSimPod(pod *corev1.Pod) *simPod {
	p := &simPod{namespace: pod.Namespace, labels: labels.Set(pod.Labels)}
	if a := pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		p.antiAffinity = newAffinityTerms(pod, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	return p
}

func (s *state) bind(p *simPod, req podRequest, n *simNode) {
	n.grow(len(s.names))
	for _, a := range req.amounts {
		n.requested[a.index] += a.value
	}
	n.nonZeroCPU += req.nonZeroCPU
	n.nonZeroMem += req.nonZeroMem
	n.podCount++
	n.pods = append(n.pods, p)
	p.node = n
	p.req = req
	s.allPods = append(s.allPods, p)
	if len(p.antiAffinity) > 0 {
		s.withAntiAff = append(s.withAntiAff, p)
	}
}

// unbind gives a bound pod's room back, as the scheduler's cache does when the pod is deleted.
func (s *state) unbind(p *simPod) {
	n := p.node
	if n == nil {
		return
	}
	for _, a := range p.req.amounts {
		n.requested[a.index] -= a.value
	}
	n.nonZeroCPU -= p.req.nonZeroCPU
	n.nonZeroMem -= p.req.nonZeroMem
	n.podCount--
	n.pods = without(n.pods, p)
	s.allPods = without(s.allPods, p)
	if len(p.antiAffinity) > 0 {
		s.withAntiAff = without(s.withAntiAff, p)
	}
	p.node = nil
}

func without(pods []*simPod, p *simPod) []*simPod {
	for i, q := range pods {
		if q == p {
			return append(pods[:i], pods[i+1:]...)
		}
	}
	return pods
}

// schedule finds a node for pod as one scheduling cycle would, binds it, and returns the bound
// pod, or nil and the FitError message.
func (s *state) schedule(pod *corev1.Pod) (*simPod, string) {
	req := s.requests(pod)
	pf := s.preFilter(pod)
	reasons := map[string]int{}
	var best *simNode
	bestScore, ties := int64(-1), 0
	for _, n := range s.nodes {
		n.grow(len(s.names))
		if nodeReasons := s.filter(pod, pf, req, n); len(nodeReasons) > 0 {
			for _, r := range nodeReasons {
				reasons[r]++
			}
			continue
		}
		switch sc := score(req, n); {
		case sc > bestScore:
			best, bestScore, ties = n, sc, 1
		case sc == bestScore && s.pick != nil:
			// Reservoir sampling: each of the tied nodes is kept with the same chance.
			if ties++; s.pick(ties) == 0 {
				best = n
			}
		}
	}
	if best == nil {
		return nil, fitErrorMessage(s.numAllNodes, reasons)
	}
	p := s.newSimPod(pod)
	s.bind(p, req, best)
	return p, ""
}

// fitErrorMessage ports FitError.Error() (pkg/scheduler/framework/types.go, v1.37.2): each reason
// with the number of nodes that gave it, sorted as strings, after "0/N nodes are available".
func fitErrorMessage(numAllNodes int, reasons map[string]int) string {
	parts := make([]string, 0, len(reasons))
	for reason, count := range reasons {
		parts = append(parts, fmt.Sprintf("%v %v", count, reason))
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%v nodes are available: %v.", numAllNodes, strings.Join(parts, ", "))
}

// filter runs the default filter plugins in the order of the default profile
// (pkg/scheduler/apis/config/v1/default_plugins.go, v1.37.2); the framework stops at a node's first
// failing plugin (RunFilterPlugins), so a node gives the reasons of one plugin.
func (s *state) filter(pod *corev1.Pod, pf *preFilterState, req podRequest, n *simNode) []string {
	node := n.node
	// nodeunschedulable/node_unschedulable.go Filter: tolerated only by a toleration of the
	// node.kubernetes.io/unschedulable:NoSchedule taint.
	if node.Spec.Unschedulable && !tolerates(pod.Spec.Tolerations, corev1.Taint{Key: unschedulableTaintKey, Effect: corev1.TaintEffectNoSchedule}) {
		return []string{reasonUnschedulable}
	}
	// nodename/node_name.go Fits.
	if pod.Spec.NodeName != "" && pod.Spec.NodeName != node.Name {
		return []string{reasonNodeName}
	}
	// tainttoleration/taint_toleration.go Filter: a NoSchedule or NoExecute taint not tolerated. The
	// message names no taint in v1.37.2 (the key and value are only logged).
	for _, taint := range node.Spec.Taints {
		if taint.Effect != corev1.TaintEffectNoSchedule && taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !tolerates(pod.Spec.Tolerations, taint) {
			return []string{reasonUntoleratedTaint}
		}
	}
	// nodeaffinity/node_affinity.go Filter: nodeSelector and required node affinity.
	if ok, _ := pf.nodeAffinity.Match(node); !ok {
		return []string{reasonNodeAffinity}
	}
	// noderesources/fit.go fitsRequest.
	if r := s.fits(req, n); len(r) > 0 {
		return r
	}
	// podtopologyspread/filtering.go Filter.
	if r := pf.spreadFilter(n); r != "" {
		return []string{r}
	}
	// interpodaffinity/filtering.go Filter.
	if r := pf.interPodAffinityFilter(n); r != "" {
		return []string{r}
	}
	return nil
}

// fits ports noderesources/fit.go fitsRequest (v1.37.2): the pod count first, then every requested
// resource the node lacks, each as "Insufficient <name>".
func (s *state) fits(req podRequest, n *simNode) []string {
	var reasons []string
	if n.podCount+1 > n.allowedPods {
		reasons = append(reasons, reasonTooManyPods)
	}
	for _, a := range req.amounts {
		if a.value > n.allocatable[a.index]-n.requested[a.index] {
			reasons = append(reasons, fmt.Sprintf("Insufficient %v", s.names[a.index]))
		}
	}
	return reasons
}

// score approximates the default scoring: NodeResourcesFit LeastAllocated
// (noderesources/least_allocated.go leastResourceScorer) plus NodeResourcesBalancedAllocation
// (noderesources/balanced_allocation.go balancedResourceScorer) over cpu and memory, weight 1 each,
// on requests with the non-zero defaults.
func score(req podRequest, n *simNode) int64 {
	cpuAlloc, memAlloc := n.cpuAlloc, n.memAlloc
	cpuReq, memReq := n.nonZeroCPU+req.nonZeroCPU, n.nonZeroMem+req.nonZeroMem
	least := (leastAllocated(cpuReq, cpuAlloc) + leastAllocated(memReq, memAlloc)) / 2
	cpuFrac, memFrac := fraction(cpuReq, cpuAlloc), fraction(memReq, memAlloc)
	diff := cpuFrac - memFrac
	if diff < 0 {
		diff = -diff
	}
	// With two resources the standard deviation is |a-b|/2.
	balanced := int64((1 - diff/2) * 100)
	return least + balanced
}

func leastAllocated(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * 100 / capacity
}

func fraction(requested, capacity int64) float64 {
	if capacity == 0 {
		return 1
	}
	f := float64(requested) / float64(capacity)
	if f > 1 {
		return 1
	}
	return f
}

// tolerates ports corev1 Toleration.ToleratesTaint (k8s.io/api v0.37.2, without the comparison
// operators that are behind a feature gate): an empty effect matches every effect, an empty key
// with Exists matches every taint.
func tolerates(tolerations []corev1.Toleration, taint corev1.Taint) bool {
	for _, t := range tolerations {
		if t.Effect != "" && t.Effect != taint.Effect {
			continue
		}
		if t.Key != "" && t.Key != taint.Key {
			continue
		}
		switch t.Operator {
		case corev1.TolerationOpExists:
			return true
		case "", corev1.TolerationOpEqual:
			if t.Value == taint.Value {
				return true
			}
		}
	}
	return false
}

// requiredNodeAffinity is the nodeSelector plus required node affinity of a pod.
func requiredNodeAffinity(pod *corev1.Pod) nodeaffinity.RequiredNodeAffinity {
	return nodeaffinity.GetRequiredNodeAffinity(pod)
}
