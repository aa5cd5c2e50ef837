package placement

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

type topologyPair struct{ key, value string }

// preFilterState is what the PreFilter plugins compute once per pod and scheduling cycle.
type preFilterState struct {
	nodeAffinity nodeaffinity.RequiredNodeAffinity
	spread       []spreadConstraint
	// interpodaffinity/filtering.go preFilterState (v1.37.2).
	affinityTerms            []affinityTerm
	antiAffinityTerms        []affinityTerm
	affinityCounts           map[topologyPair]int
	antiAffinityCounts       map[topologyPair]int
	existingAntiAffinity     map[topologyPair]int
	existingAntiAffinityKeys []string
	podMatchesOwnAffinity    bool
}

type affinityTerm struct {
	namespaces  sets.Set[string]
	selector    labels.Selector
	topologyKey string
}

type spreadConstraint struct {
	maxSkew     int32
	topologyKey string
	minDomains  int32
	selfMatch   int
	counts      map[string]int
	minMatch    int
}

func (s *state) preFilter(pod *corev1.Pod) *preFilterState {
	pf := &preFilterState{nodeAffinity: requiredNodeAffinity(pod)}
	s.preFilterSpread(pod, pf)
	s.preFilterInterPodAffinity(pod, pf)
	return pf
}

// preFilterSpread ports podtopologyspread/filtering.go calPreFilterState (v1.37.2): only
// DoNotSchedule constraints; nodes are counted when they carry every constraint's key and pass the
// node inclusion policies (nodeAffinityPolicy Honor by default, nodeTaintsPolicy Ignore by default).
func (s *state) preFilterSpread(pod *corev1.Pod, pf *preFilterState) {
	var constraints []corev1.TopologySpreadConstraint
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == corev1.DoNotSchedule {
			constraints = append(constraints, c)
		}
	}
	if len(constraints) == 0 {
		return
	}
	selectors := make([]labels.Selector, len(constraints))
	for i, c := range constraints {
		selectors[i] = spreadSelector(c, pod)
		sc := spreadConstraint{maxSkew: c.MaxSkew, topologyKey: c.TopologyKey, minDomains: 1, counts: map[string]int{}}
		if c.MinDomains != nil {
			sc.minDomains = *c.MinDomains
		}
		if selectors[i].Matches(labels.Set(pod.Labels)) {
			sc.selfMatch = 1
		}
		pf.spread = append(pf.spread, sc)
	}
	for _, n := range s.nodes {
		if !hasAllKeys(n.node, constraints) {
			continue
		}
		for i, c := range constraints {
			if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
				if ok, _ := pf.nodeAffinity.Match(n.node); !ok {
					continue
				}
			}
			if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor && hasUntoleratedTaint(pod, n.node) {
				continue
			}
			value := n.node.Labels[c.TopologyKey]
			count := 0
			for _, p := range n.pods {
				if p.namespace == pod.Namespace && selectors[i].Matches(p.labels) {
					count++
				}
			}
			pf.spread[i].counts[value] += count
		}
	}
	for i := range pf.spread {
		sc := &pf.spread[i]
		first := true
		for _, count := range sc.counts {
			if first || count < sc.minMatch {
				sc.minMatch, first = count, false
			}
		}
		// podtopologyspread/filtering.go Filter: fewer eligible domains than minDomains make the
		// global minimum 0.
		if int32(len(sc.counts)) < sc.minDomains {
			sc.minMatch = 0
		}
	}
}

// spreadSelector is the constraint's selector with its matchLabelKeys merged in, as the API server
// and podtopologyspread/common.go do (v1.37.2).
func spreadSelector(c corev1.TopologySpreadConstraint, pod *corev1.Pod) labels.Selector {
	selector, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
	if err != nil || c.LabelSelector == nil {
		return labels.Nothing()
	}
	for _, key := range c.MatchLabelKeys {
		if value, ok := pod.Labels[key]; ok {
			if r, err := labels.NewRequirement(key, selection.In, []string{value}); err == nil {
				selector = selector.Add(*r)
			}
		}
	}
	return selector
}

func hasAllKeys(node *corev1.Node, constraints []corev1.TopologySpreadConstraint) bool {
	for _, c := range constraints {
		if _, ok := node.Labels[c.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

func hasUntoleratedTaint(pod *corev1.Pod, node *corev1.Node) bool {
	for _, taint := range node.Spec.Taints {
		if (taint.Effect == corev1.TaintEffectNoSchedule || taint.Effect == corev1.TaintEffectNoExecute) && !tolerates(pod.Spec.Tolerations, taint) {
			return true
		}
	}
	return false
}

// spreadFilter ports podtopologyspread/filtering.go Filter (v1.37.2).
func (pf *preFilterState) spreadFilter(n *simNode) string {
	for _, sc := range pf.spread {
		if _, ok := n.node.Labels[sc.topologyKey]; !ok {
			return reasonSpreadMissingLabel
		}
	}
	for _, sc := range pf.spread {
		value := n.node.Labels[sc.topologyKey]
		if sc.counts[value]+sc.selfMatch-sc.minMatch > int(sc.maxSkew) {
			return reasonSpreadNotMatch
		}
	}
	return ""
}

func newAffinityTerms(pod *corev1.Pod, terms []corev1.PodAffinityTerm) []affinityTerm {
	out := make([]affinityTerm, 0, len(terms))
	for _, t := range terms {
		selector, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if err != nil {
			selector = labels.Nothing()
		}
		namespaces := sets.New(t.Namespaces...)
		if len(t.Namespaces) == 0 {
			namespaces.Insert(pod.Namespace)
		}
		out = append(out, affinityTerm{namespaces: namespaces, selector: selector, topologyKey: t.TopologyKey})
	}
	return out
}

func (t affinityTerm) matches(namespace string, podLabels labels.Set) bool {
	return t.namespaces.Has(namespace) && t.selector.Matches(podLabels)
}

// preFilterInterPodAffinity ports interpodaffinity/filtering.go PreFilter (v1.37.2): counts per
// topology domain of pods matching the incoming pod's required terms, and of existing pods whose
// required anti-affinity the incoming pod matches.
func (s *state) preFilterInterPodAffinity(pod *corev1.Pod, pf *preFilterState) {
	podLabels := labels.Set(pod.Labels)
	if len(s.withAntiAff) > 0 {
		pf.existingAntiAffinity = map[topologyPair]int{}
		for _, existing := range s.withAntiAff {
			for _, t := range existing.antiAffinity {
				if value, ok := existing.node.node.Labels[t.topologyKey]; ok && t.matches(pod.Namespace, podLabels) {
					pf.existingAntiAffinity[topologyPair{t.topologyKey, value}]++
					if !slices.Contains(pf.existingAntiAffinityKeys, t.topologyKey) {
						pf.existingAntiAffinityKeys = append(pf.existingAntiAffinityKeys, t.topologyKey)
					}
				}
			}
		}
	}
	affinity := pod.Spec.Affinity
	if affinity == nil {
		return
	}
	if affinity.PodAffinity != nil {
		pf.affinityTerms = newAffinityTerms(pod, affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if affinity.PodAntiAffinity != nil {
		pf.antiAffinityTerms = newAffinityTerms(pod, affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if len(pf.affinityTerms) == 0 && len(pf.antiAffinityTerms) == 0 {
		return
	}
	pf.affinityCounts, pf.antiAffinityCounts = map[topologyPair]int{}, map[topologyPair]int{}
	for _, existing := range s.allPods {
		nodeLabels := existing.node.node.Labels
		for _, t := range pf.affinityTerms {
			if value, ok := nodeLabels[t.topologyKey]; ok && t.matches(existing.namespace, existing.labels) {
				pf.affinityCounts[topologyPair{t.topologyKey, value}]++
			}
		}
		for _, t := range pf.antiAffinityTerms {
			if value, ok := nodeLabels[t.topologyKey]; ok && t.matches(existing.namespace, existing.labels) {
				pf.antiAffinityCounts[topologyPair{t.topologyKey, value}]++
			}
		}
	}
	pf.podMatchesOwnAffinity = true
	for _, t := range pf.affinityTerms {
		if !t.matches(pod.Namespace, podLabels) {
			pf.podMatchesOwnAffinity = false
		}
	}
}

// interPodAffinityFilter ports interpodaffinity/filtering.go Filter with satisfyPodAffinity,
// satisfyPodAntiAffinity and satisfyExistingPodsAntiAffinity (v1.37.2).
func (pf *preFilterState) interPodAffinityFilter(n *simNode) string {
	nodeLabels := n.node.Labels
	podsExist := true
	for _, t := range pf.affinityTerms {
		value, ok := nodeLabels[t.topologyKey]
		if !ok {
			return reasonAffinityNotMatch
		}
		if pf.affinityCounts[topologyPair{t.topologyKey, value}] <= 0 {
			podsExist = false
		}
	}
	// The first pod of a series with affinity to itself may go anywhere.
	if !podsExist && (len(pf.affinityCounts) != 0 || !pf.podMatchesOwnAffinity) {
		return reasonAffinityNotMatch
	}
	for _, t := range pf.antiAffinityTerms {
		if value, ok := nodeLabels[t.topologyKey]; ok && pf.antiAffinityCounts[topologyPair{t.topologyKey, value}] > 0 {
			return reasonAntiAffinityNotMatch
		}
	}
	for _, key := range pf.existingAntiAffinityKeys {
		if value, ok := nodeLabels[key]; ok && pf.existingAntiAffinity[topologyPair{key, value}] > 0 {
			return reasonExistingAntiAffinity
		}
	}
	return ""
}
