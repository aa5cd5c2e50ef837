package placement

import (
	"cmp"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
)

// Rollout is how the LeaderWorkerSet controller (lws v0.9.0) goes from the groups running now to
// the planned workload.
type Rollout struct {
	// Current is the object as it is now (the prior state): its replicas, size and templates.
	Current Workload
	// NewRevision: the change makes a new revision (leader-worker template or network
	// configuration), so the groups from the partition up are replaced. Without one the
	// controller only scales.
	NewRevision bool
	// MaxSurge and MaxUnavailable are scaled by the new replicas as rollingUpdateParameters scales
	// them (surge rounded up and at most the replicas, unavailable rounded down); Partition is
	// rollingUpdateConfiguration.partition.
	MaxSurge, MaxUnavailable, Partition int
	// CurrentPartition is the partition of the object as it is now: the leader StatefulSet's
	// partition once its last rollout is over, and the groups below it may still run an older
	// revision, which lowering the partition alone replaces.
	CurrentPartition int
}

// replicaState ports replicaState (pkg/controllers/leaderworkerset_controller.go, lws v0.9.0).
type replicaState struct{ ready, updated bool }

// controllerView is what rollingUpdateParameters reads: the LeaderWorkerSet's spec and its leader
// StatefulSet.
type controllerView struct {
	replicas, maxSurge, maxUnavailable, partition int
	stsReplicas, stsPartition                     int
	annotatedReplicas                             int  // the StatefulSet's leaderworkerset.sigs.k8s.io/replicas
	updated                                       bool // this reconcile made the new revision
}

// rollingUpdateParameters ports LeaderWorkerSetReconciler.rollingUpdateParameters
// (pkg/controllers/leaderworkerset_controller.go, lws v0.9.0) for an existing StatefulSet.
func rollingUpdateParameters(v controllerView, states []replicaState) (partition, replicas int) {
	defer func() { partition = max(partition, v.partition) }()
	burst := v.replicas + v.maxSurge
	want := func(unready int) int {
		return calculateRollingUpdateReplicas(v.replicas, v.maxSurge, v.maxUnavailable, unready)
	}
	if v.updated { // Case 2: a new rolling update, scaling first.
		partition = min(v.replicas, v.stsReplicas)
		if v.stsReplicas < v.replicas {
			return partition, v.replicas
		}
		return partition, want(v.replicas)
	}
	partition = v.stsPartition
	if partition == 0 && v.stsReplicas == v.replicas { // Case 3
		return 0, v.replicas
	}
	if v.stsReplicas < v.replicas {
		return partition, v.replicas
	}
	unready := calculateLWSUnreadyReplicas(states, v.replicas)
	if v.annotatedReplicas != v.replicas { // Case 4: replicas changed during the rolling update.
		return min(partition, burst), want(unready)
	}
	// Case 5.
	step := v.maxUnavailable + v.maxSurge - (burst - v.stsReplicas)
	return rollingUpdatePartition(states, v.stsReplicas, step, partition), want(unready)
}

// rollingUpdatePartition ports rollingUpdatePartition (leaderworkerset_controller.go, lws v0.9.0).
func rollingUpdatePartition(states []replicaState, stsReplicas, rollingStep, currentPartition int) int {
	continuous := calculateContinuousReadyReplicas(states)
	stepPartition := max(stsReplicas-continuous-rollingStep, 0)
	unavailable := 0
	for idx := 0; idx < stepPartition; idx++ {
		if !states[idx].ready {
			unavailable++
		}
	}
	partition := stepPartition + unavailable
	for idx := min(partition, stsReplicas-1); idx >= stepPartition; idx-- {
		if !states[idx].ready || states[idx].updated {
			partition = idx
		} else {
			break
		}
	}
	return min(partition, currentPartition)
}

// calculateLWSUnreadyReplicas ports the function of that name (leaderworkerset_controller.go, lws v0.9.0).
func calculateLWSUnreadyReplicas(states []replicaState, lwsReplicas int) int {
	unready := 0
	for idx := 0; idx < lwsReplicas; idx++ {
		if idx >= len(states) || !states[idx].ready || !states[idx].updated {
			unready++
		}
	}
	return unready
}

// calculateRollingUpdateReplicas ports the function of that name (leaderworkerset_controller.go,
// lws v0.9.0): the surge groups are kept while more groups are unready than the surge covers.
func calculateRollingUpdateReplicas(lwsReplicas, maxSurge, maxUnavailable, unready int) int {
	if unready <= maxSurge {
		return lwsReplicas + max(unready-maxUnavailable, 0)
	}
	return lwsReplicas + maxSurge
}

// calculateContinuousReadyReplicas ports the function of that name (leaderworkerset_controller.go,
// lws v0.9.0): the ready and updated groups at the tail.
func calculateContinuousReadyReplicas(states []replicaState) int {
	n := 0
	for idx := len(states) - 1; idx >= 0; idx-- {
		if !states[idx].ready || !states[idx].updated {
			break
		}
		n++
	}
	return n
}

// simGroup is one group of the workload during the simulated rollout.
type simGroup struct {
	index   int
	updated bool
	want    int
	bound   []*simPod
	leader  *simPod
	waiting []*corev1.Pod // created, not bound yet, leader first
	// carried: the group's waiting pods were waiting before the update (keepWaiting)
	carried bool
	// created: the rollout created the group (create)
	created bool
	reason  string // the scheduler's message for the last pod of the group that found no node
}

func (g *simGroup) ready() bool { return g != nil && len(g.waiting) == 0 && len(g.bound) >= g.want }

func (g *simGroup) leaderAvailable() bool { return g != nil && g.leader != nil }

// rolloutSim plays the controller's rounds against the scheduler.
type rolloutSim struct {
	s      *state
	w      Workload
	ro     *Rollout
	groups []*simGroup
	queue  []*simGroup // groups with pods waiting, in the order they were created
	view   controllerView
	// rolling: the controller replaces groups, for a new revision or because a lowered partition
	// reaches groups on an older one.
	rolling bool
}

// previewRollout plays an update out round by round: the controller's partition and replicas
// (rollingUpdateParameters), the leader StatefulSet's rolling update (Parallel pod management and
// maxUnavailable = maxUnavailable + maxSurge: updateStatefulSetAfterInvariantEstablished in
// pkg/controller/statefulset/stateful_set_control.go, kubernetes v1.37.2, MaxUnavailableStatefulSet
// on by default), and the scheduler on what each round frees and creates. A replaced group gives
// back the room of all its pods (the worker StatefulSet goes with its leader pod) before its new
// pods are created.
//
// Approximations: the groups running now are taken as a finished rollout of the prior state down
// to its partition (groups below it on an older revision when their pods say so:
// markOlderRevisions); the object's pods that waited for a node in the snapshot are tried first, then
// pods already waiting are retried before the pods a round creates (the scheduling
// queue orders by the time a pod was last queued, but the order of a freed room's claimants is a
// race); a bound pod is Ready at once (KWOK) and no group fails after it is placed.
func previewRollout(s *state, w Workload) Result {
	ro := w.Rollout
	cur := ro.Current
	sim := &rolloutSim{s: s, w: w, ro: ro, view: controllerView{
		replicas: w.Replicas, maxSurge: ro.MaxSurge, maxUnavailable: ro.MaxUnavailable, partition: ro.Partition,
		stsReplicas: cur.Replicas, stsPartition: ro.CurrentPartition, annotatedReplicas: cur.Replicas, updated: ro.NewRevision,
	}}
	owned := s.owned[w.key()]
	for g := range owned {
		sim.view.stsReplicas = max(sim.view.stsReplicas, g+1)
	}
	sim.groups = make([]*simGroup, sim.view.stsReplicas)
	waiting := s.ownedWaiting[w.key()]
	for g := range sim.groups {
		grp := &simGroup{index: g, updated: !ro.NewRevision, want: cur.Size, bound: owned[g]}
		for _, p := range grp.bound {
			if p.labels[lwsv1.WorkerIndexLabelKey] == "0" {
				grp.leader = p
			}
		}
		sim.groups[g] = grp
	}
	sim.rolling = ro.NewRevision
	if !ro.NewRevision {
		sim.markOlderRevisions(waiting)
	}
	for g, grp := range sim.groups {
		sim.keepWaiting(grp, waiting[g])
	}
	limit := 4*(len(sim.groups)+w.Replicas+ro.MaxSurge) + 8
	for round := 0; round < limit; round++ {
		partition, replicas := rollingUpdateParameters(sim.view, sim.states())
		sim.view.updated = false
		changed := sim.apply(partition, replicas)
		placed := sim.scheduleWaiting()
		if !changed && !placed {
			break
		}
	}
	return sim.result()
}

// markOlderRevisions marks the groups whose pods run another revision than the highest group's
// as not updated: without a new revision the groups from the partition up are on the current one
// (the leader StatefulSet updates them from the highest ordinal down: stateful_set_control.go,
// kubernetes v1.37.2), so groups below a partition the change lowers are replaced. Each pod
// carries its revision in the leaderworkerset.sigs.k8s.io/template-revision-hash label (lws
// v0.9.0), bound or still waiting for a node. When every group runs one revision, they are taken
// as current: a rollout held back by a partition above every group cannot be told from pods alone.
func (sim *rolloutSim) markOlderRevisions(waiting map[int][]*corev1.Pod) {
	revisions := make([]string, len(sim.groups))
	current := ""
	for g := len(sim.groups) - 1; g >= 0; g-- {
		for _, p := range sim.groups[g].bound {
			revisions[g] = cmp.Or(revisions[g], p.labels[lwsv1.RevisionKey])
		}
		for _, p := range waiting[g] {
			revisions[g] = cmp.Or(revisions[g], p.Labels[lwsv1.RevisionKey])
		}
		current = cmp.Or(current, revisions[g])
	}
	for g, grp := range sim.groups {
		if current != "" && revisions[g] != "" {
			grp.updated = revisions[g] == current
			sim.rolling = sim.rolling || !grp.updated && g >= sim.ro.Partition && g < sim.w.Replicas
		}
	}
}

// keepWaiting gives a running group the pods of it that wait for a node now, and the workers its
// controller creates once the leader is there (with exclusive placement the worker StatefulSet
// waits for the leader to be scheduled). They wait ahead of every pod the rollout creates, as they
// entered the scheduling queue first. A group with no pod at all is left as it is: its leader is
// unavailable, so the rollout replaces it first.
func (sim *rolloutSim) keepWaiting(grp *simGroup, pods []*corev1.Pod) {
	if len(grp.bound) == 0 && len(pods) == 0 {
		return
	}
	have := map[string]bool{}
	for _, p := range grp.bound {
		have[p.labels[lwsv1.WorkerIndexLabelKey]] = true
	}
	for _, p := range pods {
		have[p.Labels[lwsv1.WorkerIndexLabelKey]] = true
	}
	cur := sim.ro.Current
	cur.Name, cur.Namespace = sim.w.Name, sim.w.Namespace
	for i := 0; i < cur.Size; i++ {
		if !have[strconv.Itoa(i)] {
			pods = append(pods, groupPod(cur, grp.index, i))
		}
	}
	if len(pods) == 0 {
		return
	}
	sort.SliceStable(pods, func(i, j int) bool {
		a, _ := strconv.Atoi(pods[i].Labels[lwsv1.WorkerIndexLabelKey])
		b, _ := strconv.Atoi(pods[j].Labels[lwsv1.WorkerIndexLabelKey])
		return a < b
	})
	grp.waiting, grp.carried = pods, true
	sim.queue = append(sim.queue, grp)
}

func (sim *rolloutSim) states() []replicaState {
	states := make([]replicaState, sim.view.stsReplicas)
	for i := range states {
		if g := sim.groupAt(i); g != nil {
			states[i] = replicaState{ready: g.ready(), updated: g.updated}
		}
	}
	return states
}

func (sim *rolloutSim) groupAt(i int) *simGroup {
	if i < len(sim.groups) {
		return sim.groups[i]
	}
	return nil
}

// apply carries out one round's partition and replicas: the StatefulSet deletes the groups at or
// above replicas, creates the missing ones (at the new revision from the partition up) and
// replaces old groups from the partition up, highest index first, within its maxUnavailable.
func (sim *rolloutSim) apply(partition, replicas int) bool {
	changed := partition != sim.view.stsPartition || replicas != sim.view.stsReplicas
	sim.view.stsPartition, sim.view.stsReplicas, sim.view.annotatedReplicas = partition, replicas, sim.w.Replicas
	for g := replicas; g < len(sim.groups); g++ {
		if sim.groups[g] != nil {
			sim.remove(g)
			changed = true
		}
	}
	for len(sim.groups) < replicas {
		sim.groups = append(sim.groups, nil)
	}
	for g := 0; g < replicas; g++ {
		if sim.groups[g] == nil {
			sim.create(g, g >= partition)
			changed = true
		}
	}
	// updateStatefulSetAfterInvariantEstablished, Parallel: unavailable leaders count against
	// the budget; old ones from the partition up are replaced first, then available old ones.
	maxUnavailable := max(1, sim.ro.MaxUnavailable+sim.ro.MaxSurge)
	unavailable, needing := 0, 0
	for g := 0; g < replicas; g++ {
		if !sim.groups[g].leaderAvailable() {
			unavailable++
			if !sim.groups[g].updated {
				needing++
			}
		}
	}
	if unavailable >= maxUnavailable && needing == 0 {
		return changed
	}
	for g := replicas - 1; g >= partition; g-- {
		if grp := sim.groups[g]; !grp.updated && !grp.leaderAvailable() {
			sim.remove(g)
			sim.create(g, true)
			changed = true
		}
	}
	budget := maxUnavailable - unavailable
	for g := replicas - 1; g >= partition && budget > 0; g-- {
		if grp := sim.groups[g]; !grp.updated && grp.leaderAvailable() {
			sim.remove(g)
			sim.create(g, true)
			budget--
			changed = true
		}
	}
	return changed
}

// remove deletes group g: its bound pods give their room back.
func (sim *rolloutSim) remove(g int) {
	grp := sim.groups[g]
	for _, p := range grp.bound {
		sim.s.unbind(p)
	}
	grp.bound, grp.waiting, grp.leader = nil, nil, nil
	sim.groups[g] = nil
}

// create makes group g's pods, from the planned templates when updated, else the current ones.
func (sim *rolloutSim) create(g int, updated bool) {
	tw := sim.w
	if !updated {
		tw = sim.ro.Current
		tw.Name, tw.Namespace = sim.w.Name, sim.w.Namespace
	}
	grp := &simGroup{index: g, updated: updated, want: tw.Size, created: true}
	for i := 0; i < tw.Size; i++ {
		grp.waiting = append(grp.waiting, groupPod(tw, g, i))
	}
	sim.groups[g] = grp
	sim.queue = append(sim.queue, grp)
}

// scheduleWaiting tries every waiting pod once, the leaders first in the order their groups were
// created, then each group's workers (previewOn's order). It reports whether any pod was bound.
func (sim *rolloutSim) scheduleWaiting() bool {
	placed := false
	var queue []*simGroup
	for _, grp := range sim.queue {
		if sim.groupAt(grp.index) == grp && len(grp.waiting) > 0 {
			queue = append(queue, grp)
			grp.reason = ""
		}
	}
	exclusiveKey := sim.w.Annotations[lwsv1.ExclusiveKeyAnnotationKey]
	try := func(grp *simGroup, pod *corev1.Pod) bool {
		p, reason := sim.s.schedule(pod)
		if p == nil {
			if grp.reason == "" {
				grp.reason = reason
			}
			return false
		}
		grp.bound = append(grp.bound, p)
		placed = true
		return true
	}
	tryLeader := func(grp *simGroup) {
		if grp.leader == nil && len(grp.waiting) > 0 && grp.waiting[0].Labels[lwsv1.WorkerIndexLabelKey] == "0" {
			if try(grp, grp.waiting[0]) {
				grp.leader = grp.bound[len(grp.bound)-1]
				grp.waiting = grp.waiting[1:]
			}
		}
	}
	tryWorkers := func(grp *simGroup) {
		if exclusiveKey != "" && grp.leader == nil {
			return // the worker StatefulSet waits for the leader to be scheduled
		}
		var still []*corev1.Pod
		for _, pod := range grp.waiting {
			if pod.Labels[lwsv1.WorkerIndexLabelKey] == "0" {
				still = append(still, pod)
				continue
			}
			if exclusiveKey != "" {
				pod = pod.DeepCopy()
				if pod.Spec.NodeSelector == nil {
					pod.Spec.NodeSelector = map[string]string{}
				}
				pod.Spec.NodeSelector[exclusiveKey] = grp.leader.node.node.Labels[exclusiveKey]
			}
			if !try(grp, pod) {
				still = append(still, pod)
			}
		}
		grp.waiting = still
	}
	// The pods that waited before the update come first, each group's leader then its workers:
	// they are ahead in the scheduling queue of every pod the rollout creates.
	for _, grp := range queue {
		if grp.carried {
			tryLeader(grp)
			tryWorkers(grp)
		}
	}
	for _, grp := range queue {
		tryLeader(grp)
	}
	for _, grp := range queue {
		tryWorkers(grp)
	}
	sim.queue = queue
	return placed
}

// result counts the groups below replicas whose every pod is bound once the rollout settles, and
// for an update that cannot finish, the group it waits for.
func (sim *rolloutSim) result() Result {
	r := Result{Groups: sim.w.Replicas, FirstUnplaceable: -1, StallGroup: -1}
	complete := sim.view.stsReplicas == sim.w.Replicas
	for g, grp := range sim.groups {
		if grp.ready() {
			if g < sim.w.Replicas {
				r.Placeable++
				if grp.updated {
					r.Updated++
				} else if g >= sim.ro.Partition {
					complete = false
				}
			}
			continue
		}
		if g < sim.w.Replicas {
			complete = false
		}
		reason := ""
		if grp != nil {
			reason = grp.reason
		}
		r.Unplaceable = append(r.Unplaceable, GroupFailure{Group: g, Reason: reason})
	}
	if !sim.rolling {
		sim.partialRange(&r)
	}
	if sim.rolling && !complete {
		r.Stalled = true
		if n := len(r.Unplaceable); n > 0 {
			r.StallGroup, r.Reason = r.Unplaceable[n-1].Group, r.Unplaceable[n-1].Reason
		} else {
			r.StallGroup = sim.view.stsPartition
		}
		r.FirstUnplaceable = r.StallGroup
		return r
	}
	for _, f := range r.Unplaceable {
		if f.Group < sim.w.Replicas {
			r.FirstUnplaceable, r.Reason = f.Group, f.Reason
			break
		}
	}
	return r
}

// partialRange gives a scale-up the range of whole groups among the groups it creates (see
// partial.go): the controller creates their pods at once and the scheduler binds them in no fixed
// order. It is worked out where those groups' pods are interchangeable (one template for leaders
// and workers or two alike, nothing tied to a group, no exclusive placement) and no pod of the
// object waited for a node before the change; otherwise the result stays the played order's.
func (sim *rolloutSim) partialRange(r *Result) {
	w := sim.w
	if w.Size < 2 || w.ExclusiveKey() != "" || groupKeyed(w) {
		return
	}
	leaderReq, workerReq := sim.s.requests(groupPod(w, 0, 0)), sim.s.requests(groupPod(w, 0, 1))
	if !schedulingAlike(w, leaderReq, workerReq) {
		return
	}
	created, whole, bound := 0, 0, 0
	for g, grp := range sim.groups {
		if grp == nil || g >= w.Replicas {
			continue
		}
		if grp.carried {
			return
		}
		r.BoundPods += len(grp.bound)
		if !grp.created {
			continue
		}
		if !grp.updated {
			return // created below the partition on the current template: keep the played order's
		}
		created++
		bound += len(grp.bound)
		if grp.ready() {
			whole++
		}
	}
	if created == 0 || whole == created {
		return
	}
	least := max(0, bound-created*(w.Size-1))
	most := min(created, bound/w.Size)
	r.Placeable, r.MostPlaceable = r.Placeable-whole+least, r.Placeable-whole+most
	r.Updated += least - whole // the created groups run the planned template: the fewest whole
	r.PartialPods = bound - w.Size*least
	r.PartialGPUs = int64(r.PartialPods) * sim.s.gpus(leaderReq)
	r.Timing = most > least
}
