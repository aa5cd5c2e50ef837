package placement

import (
	"math/rand/v2"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

// Partial groups. The LWS controller (lws v0.9.0) creates every leader pod at once (the leader
// StatefulSet's Parallel pod management) and each group's worker StatefulSet as soon as its leader
// pod exists (PodReconciler.Reconcile, pkg/controllers/pod_controller.go), so the workers of every
// group are queued with the leaders still pending. kube-scheduler binds them one by one in the
// order they leave the queue, without gang semantics, and picks among equally scored nodes at
// random (selectHost, pkg/scheduler/schedule_one.go, v1.37.2). When fewer pods fit than the
// groups need, which groups come up whole is a matter of timing: the preview gives the range.
//
// The pods of one workload that request the same thing and are constrained alike are
// interchangeable: the count the scheduler binds does not depend on their order, for a pod that
// fits nowhere more keeps failing as the cluster only fills, and a node that cannot take one
// cannot take any. Which groups those pods belong to does: in the least favourable order every
// group gets pods before any gets all (fewest whole groups), in the best one group after group.

// gpuResource is the resource whose amounts partial groups hold that the preview reports.
const gpuResource corev1.ResourceName = "nvidia.com/gpu"

// podRef is pod index of group in a playing order (index 0 is the leader).
type podRef struct{ group, index int }

// leadersFirst is the preview's order: every leader, then each group's workers.
func leadersFirst(groups, size int) []podRef {
	order := make([]podRef, 0, groups*size)
	for g := 0; g < groups; g++ {
		order = append(order, podRef{g, 0})
	}
	for g := 0; g < groups; g++ {
		for i := 1; i < size; i++ {
			order = append(order, podRef{g, i})
		}
	}
	return order
}

// groupByGroup binds each group whole before the next: the most favourable order.
func groupByGroup(groups, size int) []podRef {
	order := make([]podRef, 0, groups*size)
	for g := 0; g < groups; g++ {
		for i := 0; i < size; i++ {
			order = append(order, podRef{g, i})
		}
	}
	return order
}

// workersFirst binds the workers one group after another round by round, then the leaders: the
// pods spread over every group before any is whole.
func workersFirst(groups, size int) []podRef {
	order := make([]podRef, 0, groups*size)
	for i := 1; i < size; i++ {
		for g := 0; g < groups; g++ {
			order = append(order, podRef{g, i})
		}
	}
	for g := 0; g < groups; g++ {
		order = append(order, podRef{g, 0})
	}
	return order
}

// played is what one order of a workload's pods left on the state.
type played struct {
	leaders, workers int
	bound            []int     // per group, its pods bound
	leader           []*simPod // per group, its bound leader
	reasons          []string  // per group, the scheduler's message for its first pod that found no node
	pods             []*simPod // every pod bound, in order
	nodes            []*simNode
	size             int
}

// whole says whether every pod of group g is bound.
func (p *played) whole(g int) bool { return p.leader[g] != nil && p.bound[g] == p.size }

// play schedules the workload's pods in order, each as one scheduling cycle would. Under exclusive
// placement a worker is created once its leader is bound and follows the leader's domain
// (setNodeSelectorForWorkerPods, pkg/controllers/pod_controller.go, lws v0.9.0); a worker whose
// leader is not bound is not created.
func (s *state) play(w Workload, groups int, order []podRef) *played {
	p := &played{bound: make([]int, groups), leader: make([]*simPod, groups), reasons: make([]string, groups), size: w.Size}
	exclusiveKey := w.Annotations[lwsv1.ExclusiveKeyAnnotationKey]
	for _, ref := range order {
		pod := groupPod(w, ref.group, ref.index)
		if ref.index > 0 && exclusiveKey != "" {
			leader := p.leader[ref.group]
			if leader == nil {
				continue
			}
			if pod.Spec.NodeSelector == nil {
				pod.Spec.NodeSelector = map[string]string{}
			}
			pod.Spec.NodeSelector[exclusiveKey] = leader.node.node.Labels[exclusiveKey]
		}
		sp, reason := s.schedule(pod)
		if sp == nil {
			// The group's reason is its leader's, or its first worker's once the leader is bound.
			if p.reasons[ref.group] == "" && (ref.index == 0 || p.leader[ref.group] != nil) {
				p.reasons[ref.group] = reason
			}
			continue
		}
		p.pods = append(p.pods, sp)
		p.bound[ref.group]++
		if ref.index == 0 {
			p.leader[ref.group] = sp
			p.leaders++
		} else {
			p.workers++
		}
	}
	return p
}

// undo gives back the room of the pods p bound (redo binds them again where they were).
func (s *state) undo(p *played) {
	p.nodes = make([]*simNode, len(p.pods))
	for i := len(p.pods) - 1; i >= 0; i-- {
		p.nodes[i] = p.pods[i].node
		s.unbind(p.pods[i])
	}
}

func (s *state) redo(p *played) {
	for i, sp := range p.pods {
		s.bind(sp, sp.req, p.nodes[i])
	}
}

// gpus is the amount of gpuResource a pod requests.
func (s *state) gpus(req podRequest) int64 {
	idx, ok := s.index[gpuResource]
	if !ok {
		return 0
	}
	for _, a := range req.amounts {
		if a.index == idx {
			return a.value
		}
	}
	return 0
}

// partialRange widens a result to the range of whole groups over every order of the workload's
// pods, and says how much partial groups may hold.
//
// With leaders and workers alike (schedulingAlike) and nothing tied to a group, the bound count is
// the preview's (see above), and the groups hold it as whole groups at best size pods at a time, at
// worst size-1 pods per group before any is whole; that is worked out only when the groups fall
// short. Otherwise the pods are not interchangeable and the count depends on their order and the
// choice among tied nodes too: the orders where leaders go first, groups go whole and workers go
// first, and a few shuffled ones, are played with ties going by node name and the other way round,
// each counted the same way over its leaders and workers (or, with a constraint tied to a group,
// as it came out). That range is an approximation: an order not played may do better
// or worse.
func (s *state) partialRange(r *Result, w Workload, groups int, preview *played) {
	keyed := groupKeyed(w)
	if r.Placeable == groups && w.Worker == nil && !keyed {
		return // one template: every group whole in one order is every group whole in any
	}
	leader, worker := groupPod(w, 0, 0), groupPod(w, 0, 1)
	leaderReq, workerReq := s.requests(leader), s.requests(worker)
	leaderGPUs, workerGPUs := s.gpus(leaderReq), s.gpus(workerReq)
	alike := schedulingAlike(w, leaderReq, workerReq)
	if alike && !keyed && r.Placeable == groups {
		return
	}
	plays := []*played{preview}
	if !alike || keyed {
		s.undo(preview)
		orders := [][]podRef{groupByGroup(groups, w.Size), workersFirst(groups, w.Size)}
		for seed := uint64(0); seed < shuffledOrders; seed++ {
			order := leadersFirst(groups, w.Size)
			rng := rand.New(rand.NewPCG(seed, uint64(groups)))
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			orders = append(orders, order)
		}
		// Each order with ties going by node name, then the other way round.
		last := func(int) int { return 0 }
		pick := s.pick
		for _, tie := range []func(int) int{pick, last} {
			s.pick = tie
			for _, order := range orders {
				p := s.play(w, groups, order)
				s.undo(p)
				plays = append(plays, p)
			}
		}
		s.pick = pick
		s.redo(preview)
	}
	perGroup := w.Size - 1
	least, most := r.Placeable, r.Placeable
	for _, p := range plays {
		whole := 0
		for g := 0; g < groups; g++ {
			if p.whole(g) {
				whole++
			}
		}
		lo, hi := whole, whole
		if !keyed {
			lo = max(0, p.leaders+p.workers-groups*perGroup)
			hi = min(p.leaders, p.workers/perGroup)
			if alike {
				hi = min(groups, (p.leaders+p.workers)/w.Size)
			}
		}
		least, most = min(least, lo), max(most, hi, whole)
		pods := p.leaders + p.workers - w.Size*lo
		gpus := int64(p.leaders)*leaderGPUs + int64(p.workers)*workerGPUs - int64(lo)*(leaderGPUs+int64(perGroup)*workerGPUs)
		r.PartialPods, r.PartialGPUs = max(r.PartialPods, pods), max(r.PartialGPUs, gpus)
	}
	r.Placeable, r.MostPlaceable = least, max(most, r.MostPlaceable)
	r.Timing = r.MostPlaceable > r.Placeable
}

// shuffledOrders is how many shuffled orders partialRange plays for a workload whose pods are not
// interchangeable.
const shuffledOrders = 4

// schedulingAlike says whether a workload's leaders and workers are the same pod to the scheduler:
// the same requests, labels (which others' selectors see) and scheduling constraints.
func schedulingAlike(w Workload, leaderReq, workerReq podRequest) bool {
	if w.Worker == nil {
		return true
	}
	if !slices.Equal(leaderReq.amounts, workerReq.amounts) || leaderReq.nonZeroCPU != workerReq.nonZeroCPU || leaderReq.nonZeroMem != workerReq.nonZeroMem {
		return false
	}
	type constraints struct {
		labels map[string]string
		spec   corev1.PodSpec
	}
	of := func(t *corev1.PodTemplateSpec) constraints {
		return constraints{labels: t.Labels, spec: corev1.PodSpec{
			NodeSelector: t.Spec.NodeSelector, NodeName: t.Spec.NodeName, Affinity: t.Spec.Affinity, Tolerations: t.Spec.Tolerations,
			TopologySpreadConstraints: t.Spec.TopologySpreadConstraints, SchedulerName: t.Spec.SchedulerName,
			PriorityClassName: t.Spec.PriorityClassName, Priority: t.Spec.Priority,
		}}
	}
	a, b := of(&w.Leader), of(w.Worker)
	return apiequality.Semantic.DeepEqual(a.labels, b.labels) && apiequality.Semantic.DeepEqual(a.spec, b.spec)
}

// groupKeyed says whether a template constrains its pods by the labels that tell one group (or
// subgroup, or worker) from another, so that the workload's pods are not interchangeable.
func groupKeyed(w Workload) bool {
	if w.Annotations[lwsv1.SubGroupExclusiveKeyAnnotationKey] != "" && w.SubGroupSize > 0 {
		return true
	}
	templates := []*corev1.PodTemplateSpec{&w.Leader}
	if w.Worker != nil {
		templates = append(templates, w.Worker)
	}
	for _, t := range templates {
		for _, c := range t.Spec.TopologySpreadConstraints {
			if selectsGroup(c.LabelSelector, c.MatchLabelKeys) {
				return true
			}
		}
		a := t.Spec.Affinity
		if a == nil {
			continue
		}
		var terms []corev1.PodAffinityTerm
		if a.PodAffinity != nil {
			terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		}
		if a.PodAntiAffinity != nil {
			terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		}
		for _, term := range terms {
			if selectsGroup(term.LabelSelector, append(slices.Clone(term.MatchLabelKeys), term.MismatchLabelKeys...)) {
				return true
			}
		}
	}
	return false
}

// selectsGroup says whether a selector (or its matchLabelKeys) names an LWS label other than the
// set's name and revision, which are the same in every group.
func selectsGroup(selector *metav1.LabelSelector, keys []string) bool {
	perGroup := func(key string) bool {
		return strings.HasPrefix(key, "leaderworkerset.sigs.k8s.io/") && key != lwsv1.SetNameLabelKey && key != lwsv1.RevisionKey
	}
	if slices.ContainsFunc(keys, perGroup) {
		return true
	}
	if selector == nil {
		return false
	}
	for key := range selector.MatchLabels {
		if perGroup(key) {
			return true
		}
	}
	for _, e := range selector.MatchExpressions {
		if perGroup(e.Key) {
			return true
		}
	}
	return false
}

// domainVerdicts is, under exclusive placement, what a leader's choice of domain does to its
// group: the scheduler's score does not see the room a domain keeps for the workers (it scores
// cpu and memory), so a leader may be bound in any domain where it fits.
type domainVerdicts struct {
	feasible int // domains where a leader fits
	good     int // of them, where some node for the leader leaves room for every worker
	// stranding, for each domain where some node for the leader leaves too little room for the
	// workers, the most pods the group then holds there (its leader and the workers that fit)
	stranding              []int
	leaderGPUs, workerGPUs int64
}

// exclusiveDomains judges every domain of the exclusive topology key for the workload's groups,
// on the state before any of their pods: each group takes a domain of its own (the leaders'
// affinity and anti-affinity, SetExclusiveAffinities), and its workers, pinned to that domain,
// fit there or not.
func (s *state) exclusiveDomains(w Workload, key string) *domainVerdicts {
	leader := groupPod(w, 0, 0)
	leaderReq := s.requests(leader)
	leaderPF := s.preFilter(leader)
	worker := groupPod(w, 0, 1)
	workerReq := s.requests(worker)
	v := &domainVerdicts{leaderGPUs: s.gpus(leaderReq), workerGPUs: s.gpus(workerReq)}
	domains := map[string][]*simNode{}
	var names []string
	for _, n := range s.nodes {
		n.grow(len(s.names))
		value, ok := n.node.Labels[key]
		if !ok {
			continue // the leader's affinity needs the key
		}
		if domains[value] == nil {
			names = append(names, value)
		}
		domains[value] = append(domains[value], n)
	}
	need := w.Size - 1
	leaderFits := func(n *simNode) bool { return len(s.filter(leader, leaderPF, leaderReq, n)) == 0 }
	// Workers without a spread or pod affinity of their own fill the domain node by node, in any
	// order, to the sum of what each node takes; otherwise they are played. Such a worker is
	// judged on its domain's nodes alike whatever the domain (its node selector for the domain
	// holds there), so one prefilter serves every domain.
	workerPF := s.preFilter(worker)
	_, selectsKey := worker.Spec.NodeSelector[key]
	nodeLocal := len(workerPF.spread) == 0 && len(workerPF.affinityTerms) == 0 && len(workerPF.antiAffinityTerms) == 0 && !selectsKey
	var takes []int
	for _, value := range names {
		nodes := domains[value]
		pinned, pf := worker, workerPF
		if !nodeLocal {
			pinned = worker.DeepCopy()
			if pinned.Spec.NodeSelector == nil {
				pinned.Spec.NodeSelector = map[string]string{}
			}
			pinned.Spec.NodeSelector[key] = value
			pf = s.preFilter(pinned)
		}
		total, most := 0, 0
		takes = takes[:0]
		if nodeLocal {
			for _, m := range nodes {
				t := s.takes(pinned, pf, workerReq, m, nil, need)
				takes = append(takes, t)
				total, most = total+t, max(most, t)
			}
			if total-most >= need {
				// Room for the workers wherever the leader goes: the domain only needs a node
				// for the leader.
				if slices.ContainsFunc(nodes, leaderFits) {
					v.feasible++
					v.good++
				}
				continue
			}
		}
		feasible, good, hold := false, false, 0
		for i, n := range nodes {
			if !leaderFits(n) {
				continue
			}
			feasible = true
			var fit int
			if nodeLocal {
				fit = total - takes[i] + s.takes(pinned, pf, workerReq, n, &leaderReq, need)
			} else {
				fit = s.workersBeside(leader, leaderReq, n, pinned, need)
			}
			if fit >= need {
				good = true
			} else {
				hold = max(hold, 1+fit)
			}
		}
		if feasible {
			v.feasible++
		}
		if good {
			v.good++
		}
		if hold > 0 {
			v.stranding = append(v.stranding, hold)
		}
	}
	return v
}

// takes is how many of the pod (up to limit) node n takes, with extra bound there first: 0 when a
// filter turns the pod away, else what its free room holds.
func (s *state) takes(pod *corev1.Pod, pf *preFilterState, req podRequest, n *simNode, extra *podRequest, limit int) int {
	if extra != nil {
		for _, a := range extra.amounts {
			n.requested[a.index] += a.value
		}
		n.podCount++
		defer func() {
			for _, a := range extra.amounts {
				n.requested[a.index] -= a.value
			}
			n.podCount--
		}()
	}
	if len(s.filter(pod, pf, req, n)) > 0 {
		return 0
	}
	count := int(n.allowedPods - n.podCount)
	for _, a := range req.amounts {
		count = min(count, int((n.allocatable[a.index]-n.requested[a.index])/a.value))
	}
	return min(count, limit)
}

// workersBeside binds the leader on n, plays need workers pinned to its domain, and gives the
// room back: how many of them were bound.
func (s *state) workersBeside(leader *corev1.Pod, leaderReq podRequest, n *simNode, worker *corev1.Pod, need int) int {
	p := &played{}
	lp := s.newSimPod(leader)
	s.bind(lp, leaderReq, n)
	p.pods = append(p.pods, lp)
	for i := 0; i < need; i++ {
		if wp, _ := s.schedule(worker); wp != nil {
			p.pods = append(p.pods, wp)
		}
	}
	s.undo(p)
	return len(p.pods) - 1
}

// apply gives the result the range over the leaders' choices of domain: at worst every domain
// that can strand a group gets one, at best the groups take domains with room for them.
func (v *domainVerdicts) apply(r *Result, groups int) {
	placed := min(groups, v.feasible)
	stranded := min(placed, len(v.stranding))
	least, most := placed-stranded, min(groups, v.good)
	slices.Sort(v.stranding)
	slices.Reverse(v.stranding)
	pods := 0
	for _, hold := range v.stranding[:stranded] {
		pods += hold
	}
	r.PartialPods = pods
	r.PartialGPUs = int64(stranded)*v.leaderGPUs + int64(pods-stranded)*v.workerGPUs
	r.StrandingDomains = len(v.stranding)
	r.ExclusiveDomains = v.feasible
	r.Placeable, r.MostPlaceable = min(r.Placeable, least), max(r.MostPlaceable, most)
	r.Timing = r.MostPlaceable > r.Placeable
}
