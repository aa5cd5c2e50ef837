package docstest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	dsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// The guide "Changing a running inference fleet" lists what restarts what in two tables, one per
// kind, a row per class of change. TestRestartTables derives each row's verdicts from the offline
// rules (the kind's PreviewRollout and PlanUpdate on a representative change of the class) and
// requires the tables of the template and of the generated page to say the same, so that the guide
// cannot drift from the rules. The LeaderWorkerSet rows are lwsrules.RestartClasses, the classes
// the restart differential reports its agreements with the controller by.

const restartsGuide = "changing-a-running-inference-fleet"

// The verdicts a release column may hold.
const (
	vRecreated          = "running groups recreated"
	vRecreatedNoRev     = "running groups recreated (no new revision)"
	vHeldBack           = "held-back groups recreated"
	vScaling            = "groups added or removed"
	vNone               = "none"
	vEveryRole          = "every group of every role recreated"
	vWaits              = "none, waits for the next template change"
	vSlice0             = "slice 0 recreated at once if v0.9.0 created it"
	vNotInRelease       = "not in this release"
	guardRefuses        = "refuses"
	guardPasses         = "passes"
	lwsTableHeader      = "LeaderWorkerSet change"
	dsTableHeader       = "DisaggregatedSet change"
	restartTableColumns = 5
)

// restartRow is a row's checked cells: the verdicts on v0.9.0 and v0.10.0 and the guard's.
type restartRow struct{ v090, v0100, guard string }

// lwsRepresentatives is a representative change of each class of lwsrules.RestartClasses, on
// lwsRestartBase; prepare, when set, changes the prior object first.
var lwsRepresentatives = map[string]struct {
	change  func(l *lwsv1.LeaderWorkerSet)
	prepare func(l *lwsv1.LeaderWorkerSet)
}{
	"Object labels and annotations": {change: func(l *lwsv1.LeaderWorkerSet) {
		l.Labels = map[string]string{"example.com/team": "x"}
		l.Annotations = map[string]string{"example.com/team": "x"}
	}},
	"`exclusive-topology` annotation": {change: func(l *lwsv1.LeaderWorkerSet) {
		l.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: "kubernetes.io/hostname"}
	}},
	"`subgroup-exclusive-topology` annotation, with a subgroup policy": {change: func(l *lwsv1.LeaderWorkerSet) {
		l.Annotations = map[string]string{lwsv1.SubGroupExclusiveKeyAnnotationKey: "kubernetes.io/hostname"}
	}},
	"`replicas`": {change: func(l *lwsv1.LeaderWorkerSet) { l.Spec.Replicas = ptr.To[int32](3) }},
	"`rollout_strategy` (`max_unavailable`, `max_surge`, `partition`)": {change: func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.RolloutStrategy.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{
			MaxUnavailable: intstr.FromInt32(2), MaxSurge: intstr.FromInt32(1), Partition: ptr.To[int32](1)}
	}},
	"Lower `partition` while groups an earlier partitioned rollout held back run the previous revision": {
		prepare: func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{
				MaxUnavailable: intstr.FromInt32(1), Partition: ptr.To[int32](1)}
			l.Status.UpdatedReplicas = 1
		},
		change: func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy.RollingUpdateConfiguration = &lwsv1.RollingUpdateConfiguration{
				MaxUnavailable: intstr.FromInt32(1), Partition: ptr.To[int32](0)}
		}},
	"`startup_policy`": {change: func(l *lwsv1.LeaderWorkerSet) { l.Spec.StartupPolicy = lwsv1.LeaderReadyStartupPolicy }},
	"`network_config`": {change: func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.NetworkConfig = &lwsv1.NetworkConfig{SubdomainPolicy: ptr.To(lwsv1.SubdomainUniquePerReplica)}
	}},
	"`subgroup_policy`": {change: func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.SubGroupPolicy.Type = ptr.To(lwsv1.SubGroupPolicyTypeLeaderExcluded)
	}},
	"`restart_policy`": {change: func(l *lwsv1.LeaderWorkerSet) { l.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.NoneRestartPolicy }},
	"`size`":           {change: func(l *lwsv1.LeaderWorkerSet) { l.Spec.LeaderWorkerTemplate.Size = ptr.To[int32](3) }},
	"Leader and worker pod template fields (`spec`)": {change: func(l *lwsv1.LeaderWorkerSet) {
		lwsfixture.Worker(l).Image = "vllm/vllm-openai:v0.11.1"
	}},
	"Leader and worker template metadata (labels, annotations)": {change: func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.WorkerTemplate.Annotations = map[string]string{"example.com/tier": "gold"}
	}},
	"`volume_claim_templates` and their retention policy": {change: func(l *lwsv1.LeaderWorkerSet) {
		pvc := corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}}}
		pvc.Name = "cache"
		l.Spec.LeaderWorkerTemplate.VolumeClaimTemplates = append(l.Spec.LeaderWorkerTemplate.VolumeClaimTemplates, pvc)
	}},
}

// lwsRestartBase is the running set: 2 groups of 2 pods with a subgroup policy, as in the
// restart differential.
func lwsRestartBase() *lwsv1.LeaderWorkerSet {
	l := lwsfixture.VLLM("llama", 2, 2)
	l.Namespace = "default"
	l.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](1)}
	return l
}

// defaultedLWS is the object the plan computes for l: the kind's defaults, as planned.
func defaultedLWS(l *lwsv1.LeaderWorkerSet) *lwsv1.LeaderWorkerSet {
	status := l.Status
	node := lwsrules.Kind.Node()
	config := k8sschema.Encode(node, l)
	defaulted := l.DeepCopy()
	lwsrules.Kind.Defaults(defaulted, config)
	planned := &lwsv1.LeaderWorkerSet{}
	k8sschema.Decode(node, k8sschema.PlanDefaults(node, config, config, defaulted), planned, nil)
	planned.Status = status
	return planned
}

var deny = map[string]tftypes.Value{lwsrules.AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, false)}

// lwsVerdict is what the rules say of the update of prior to next. The controller's rules that
// PreviewRollout ports are the same in v0.9.0 and v0.10.0 (getPatch, pkg/utils/revision/
// revision_utils.go; the copied annotations: CopiedAnnotations), so both columns get one verdict.
func lwsVerdict(t *testing.T, next, prior *lwsv1.LeaderWorkerSet) restartRow {
	t.Helper()
	r := lwsrules.PreviewRollout(next, prior)
	_, ok := func() (int32, bool) { f, _, ok := r.Recreated(); return f, ok }()
	v := vNone
	switch {
	case ok && r.PartitionOnly:
		v = vHeldBack
	case ok && !r.NewRevision():
		v = vRecreatedNoRev
	case ok:
		v = vRecreated
	case r.Replicas != r.OldReplicas:
		v = vScaling
	}
	guard := guardPasses
	if _, errs := lwsrules.Kind.PlanUpdate(next, prior, deny, nil); len(errs) > 0 {
		guard = guardRefuses
	}
	return restartRow{v, v, guard}
}

// dsClass is a row of the DisaggregatedSet table: a representative change of dsfixture.Pair (2
// prefill and 4 decode groups), and prepare for the prior object.
type dsClass struct {
	name    string
	prepare func(ds *disaggv1.DisaggregatedSet)
	change  func(ds *disaggv1.DisaggregatedSet)
}

var dsClasses = []dsClass{
	{name: "Object labels and annotations", change: func(ds *disaggv1.DisaggregatedSet) {
		ds.Labels = map[string]string{"example.com/team": "x"}
		ds.Annotations = map[string]string{"example.com/team": "x"}
	}},
	{name: "A role's `leader_worker_template` (size, restart and subgroup policy, pod templates and their metadata) or `name`, a role added or removed",
		change: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.11.1"
		}},
	{name: "A role's `metadata` (labels, annotations)", change: func(ds *disaggv1.DisaggregatedSet) {
		ds.Spec.Roles[0].Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: "kubernetes.io/hostname"}
	}},
	{name: "A role's `startup_policy`", change: func(ds *disaggv1.DisaggregatedSet) {
		ds.Spec.Roles[0].Spec.StartupPolicy = releasedlws.LeaderReadyStartupPolicy
	}},
	{name: "A role's `network_config`", change: func(ds *disaggv1.DisaggregatedSet) {
		ds.Spec.Roles[0].Spec.NetworkConfig = &releasedlws.NetworkConfig{SubdomainPolicy: ptr.To(releasedlws.SubdomainUniquePerReplica)}
	}},
	{name: "A role's `rollout_strategy`", change: func(ds *disaggv1.DisaggregatedSet) {
		ds.Spec.Roles[0].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxSurge: intstr.FromInt32(2)}
	}},
	{name: "`placement_policy`", change: func(ds *disaggv1.DisaggregatedSet) {
		ds.Spec.PlacementPolicy = &disaggv1.PlacementPolicy{Type: disaggv1.PlacementExclusiveSlice, Topology: "rack"}
	}},
	{name: "A role's `replicas`", change: func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](6) }},
	{name: "`slices` raised from 1", change: func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Slices = ptr.To[int32](2) }},
	{name: "`slices` otherwise (lowered, or raised from 2 or more)",
		prepare: func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Slices = ptr.To[int32](3) },
		change:  func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Slices = ptr.To[int32](2) }},
	{name: "A role from `Static` to `External` scaling", change: func(ds *disaggv1.DisaggregatedSet) { dsfixture.External(ds, 1) }},
	{name: "A role from `External` back to `Static`, with other `replicas` than the groups that run",
		prepare: func(ds *disaggv1.DisaggregatedSet) { dsfixture.External(ds, 1) },
		change: func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Scaling = nil
			ds.Spec.Roles[1].Spec.Replicas = ptr.To[int32](2)
		}},
}

// usesNewerFields says whether ds sets a field the v0.9.0 API lacks (dsrules.NewerFields).
func usesNewerFields(ds *disaggv1.DisaggregatedSet) bool {
	if ds.Spec.Slices != nil || ds.Spec.PlacementPolicy != nil {
		return true
	}
	for i := range ds.Spec.Roles {
		if ds.Spec.Roles[i].Scaling != nil {
			return true
		}
	}
	return false
}

// dsVerdict is what the rules say of the update of prior to next: the revision (the same hash on
// v0.9.0 and v0.10.0), the warnings of PlanUpdate, and a change of groups. On v0.9.0 a change that
// uses a field of v0.10.0 is not possible.
func dsVerdict(t *testing.T, next, prior *disaggv1.DisaggregatedSet) restartRow {
	t.Helper()
	warnings, errs := dsrules.Kind.PlanUpdate(next, prior, nil, nil)
	if len(errs) > 0 {
		t.Fatalf("unguarded plan fails: %v", errs)
	}
	var parts []string
	if r := dsrules.PreviewRollout(next, prior); len(r.Changed) > 0 {
		parts = append(parts, vEveryRole)
	}
	scaled := dsrules.SlicesOf(next) != dsrules.SlicesOf(prior)
	for i := range next.Spec.Roles {
		if i < len(prior.Spec.Roles) && !dsrules.External(&next.Spec.Roles[i]) &&
			ptr.Deref(next.Spec.Roles[i].Spec.Replicas, 1) != ptr.Deref(prior.Spec.Roles[i].Spec.Replicas, 1) {
			scaled = true
		}
	}
	for _, w := range warnings {
		switch {
		case strings.HasSuffix(w.Summary, "waits for the next rollout"):
			parts = append(parts, vWaits)
		case strings.HasSuffix(w.Summary, "leaves External scaling"):
			scaled = true
		case strings.HasSuffix(w.Summary, "may restart"):
			parts = append(parts, vSlice0)
		}
	}
	if scaled {
		parts = append([]string{vScaling}, parts...)
	}
	v := vNone
	if len(parts) > 0 {
		v = strings.Join(parts, "; ")
	}
	guard := guardPasses
	if _, errs := dsrules.Kind.PlanUpdate(next, prior, deny, nil); len(errs) > 0 {
		guard = guardRefuses
	}
	row := restartRow{v, v, guard}
	if usesNewerFields(next) || usesNewerFields(prior) {
		row.v090 = vNotInRelease
	}
	return row
}

// restartTable finds the table whose header's first cell is header and returns its rows by first
// cell, in order, with the cells of the columns checked (3 to 5).
func restartTable(lines []string, header string) (names []string, rows map[string]restartRow, err error) {
	rows = map[string]restartRow{}
	in := false
	for i, line := range lines {
		line = strings.TrimSpace(line)
		cells := tableCells(line)
		switch {
		case !in && len(cells) > 0 && cells[0] == header:
			if len(cells) != restartTableColumns {
				return nil, nil, fmt.Errorf("line %d: the table of %s has %d columns, want %d", i+1, header, len(cells), restartTableColumns)
			}
			in = true
		case in && strings.HasPrefix(line, "|---") || in && strings.HasPrefix(line, "| ---"):
		case in && len(cells) > 0:
			if len(cells) != restartTableColumns {
				return nil, nil, fmt.Errorf("line %d: a row of %d cells, want %d", i+1, len(cells), restartTableColumns)
			}
			names = append(names, cells[0])
			rows[cells[0]] = restartRow{cells[2], cells[3], cells[4]}
		case in:
			return names, rows, nil
		}
	}
	if !in {
		return nil, nil, fmt.Errorf("no table whose first column is %q", header)
	}
	return names, rows, nil
}

// tableCells splits a Markdown table row into its trimmed cells (nil for a line that is no row).
func tableCells(line string) []string {
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// checkRestartTable compares a page's table with the verdicts want, in order.
func checkRestartTable(lines []string, header string, order []string, want map[string]restartRow) []string {
	names, rows, err := restartTable(lines, header)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	if fmt.Sprint(names) != fmt.Sprint(order) {
		out = append(out, fmt.Sprintf("the rows of the table of %s are\n  %s\nwant the classes of the rules, in order:\n  %s",
			header, strings.Join(names, "\n  "), strings.Join(order, "\n  ")))
	}
	for _, name := range order {
		got, ok := rows[name]
		if ok && got != want[name] {
			out = append(out, fmt.Sprintf("row %q: v0.9.0 %q, v0.10.0 %q, guard %q; the rules say %q, %q, %q",
				name, got.v090, got.v0100, got.guard, want[name].v090, want[name].v0100, want[name].guard))
		}
	}
	return out
}

// restartVerdicts derives the verdicts of both tables from the rules.
func restartVerdicts(t *testing.T) (lwsOrder []string, lws map[string]restartRow, dsOrder []string, ds map[string]restartRow) {
	t.Helper()
	lws, ds = map[string]restartRow{}, map[string]restartRow{}
	for _, class := range lwsrules.RestartClasses {
		rep, ok := lwsRepresentatives[class.Name]
		if !ok {
			t.Fatalf("no representative change of the class %q", class.Name)
		}
		prior := lwsRestartBase()
		if rep.prepare != nil {
			rep.prepare(prior)
		}
		next := prior.DeepCopy()
		next.Status = lwsv1.LeaderWorkerSetStatus{}
		rep.change(next)
		if errs := lwsrules.Kind.Validate(defaultedLWS(next)); len(errs) > 0 {
			t.Fatalf("the representative change of %q is not valid: %v", class.Name, errs)
		}
		lwsOrder = append(lwsOrder, class.Name)
		lws[class.Name] = lwsVerdict(t, defaultedLWS(next), defaultedLWS(prior))
	}
	if len(lwsRepresentatives) != len(lwsrules.RestartClasses) {
		t.Fatalf("%d representative changes for %d classes", len(lwsRepresentatives), len(lwsrules.RestartClasses))
	}
	for _, c := range dsClasses {
		prior := dsfixture.Pair()
		if c.prepare != nil {
			c.prepare(prior)
		}
		next := prior.DeepCopy()
		c.change(next)
		dsOrder = append(dsOrder, c.name)
		ds[c.name] = dsVerdict(t, next, prior)
	}
	return lwsOrder, lws, dsOrder, ds
}

// TestRestartTables checks the guide's tables of what restarts what, in the template and in the
// page generated from it, against the rules.
func TestRestartTables(t *testing.T) {
	root := repoRoot(t)
	lwsOrder, lws, dsOrder, ds := restartVerdicts(t)
	for _, rel := range []string{"templates/guides/" + restartsGuide + ".md.tmpl", "docs/guides/" + restartsGuide + ".md"} {
		lines := loadPage(t, root, rel).lines
		for _, problem := range append(checkRestartTable(lines, lwsTableHeader, lwsOrder, lws),
			checkRestartTable(lines, dsTableHeader, dsOrder, ds)...) {
			t.Errorf("%s: %s", rel, problem)
		}
	}
	for _, name := range lwsOrder {
		t.Logf("LeaderWorkerSet: %s: %+v", name, lws[name])
	}
	for _, name := range dsOrder {
		t.Logf("DisaggregatedSet: %s: %+v", name, ds[name])
	}
}

// TestRestartTableCatchesDrift: a table whose verdict, row or order differs from the rules fails.
func TestRestartTableCatchesDrift(t *testing.T) {
	order := []string{"a", "b"}
	want := map[string]restartRow{"a": {vNone, vNone, guardPasses}, "b": {vRecreated, vRecreated, guardRefuses}}
	page := func(rows ...string) []string {
		return append([]string{"| " + lwsTableHeader + " | What the controller does | v0.9.0 | v0.10.0 | guard |", "|---|---|---|---|---|"}, rows...)
	}
	good := page("| a | x | none | none | passes |", "| b | x | running groups recreated | running groups recreated | refuses |")
	if p := checkRestartTable(good, lwsTableHeader, order, want); len(p) > 0 {
		t.Fatalf("the table that agrees: %v", p)
	}
	for name, lines := range map[string][]string{
		"verdict": page("| a | x | none | none | passes |", "| b | x | none | running groups recreated | refuses |"),
		"guard":   page("| a | x | none | none | refuses |", "| b | x | running groups recreated | running groups recreated | refuses |"),
		"missing": page("| a | x | none | none | passes |"),
		"order":   page("| b | x | running groups recreated | running groups recreated | refuses |", "| a | x | none | none | passes |"),
		"columns": page("| a | none | none | passes |", "| b | x | running groups recreated | running groups recreated | refuses |"),
		"absent":  {"no table"},
	} {
		if p := checkRestartTable(lines, lwsTableHeader, order, want); len(p) == 0 {
			t.Errorf("%s: a drifted table passes", name)
		}
	}
}
