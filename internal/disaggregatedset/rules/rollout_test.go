package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	releasedds "sigs.k8s.io/lws/api/disaggregatedset/v1"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"
	releasedutils "sigs.k8s.io/lws/pkg/utils/disaggregatedset"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// TestRevisionRule: what changes the v0.9.0 revision (ComputeRevision) and so rolls every role.
func TestRevisionRule(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*disaggv1.DisaggregatedSet)
		rolls bool
		field string
	}{
		{"nothing", func(*disaggv1.DisaggregatedSet) {}, false, ""},
		{"one role's image", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.12.0"
		}, true, "spec.roles[1].spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].image"},
		{"size", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.LeaderWorkerTemplate.Size = ptr.To[int32](4)
		}, true,
			"spec.roles[0].spec.leaderWorkerTemplate.size"},
		{"template label", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.LeaderWorkerTemplate.WorkerTemplate.Labels = map[string]string{"a": "b"}
		}, true, "spec.roles[0].spec.leaderWorkerTemplate.workerTemplate.metadata.labels[a]"},
		{"role name", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Roles[0].Name = "prefill2" }, true, "spec.roles[0].name"},
		{"replicas", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Roles[0].Spec.Replicas = ptr.To[int32](6) }, false, ""},
		{"rollout strategy", func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{MaxSurge: intstr.FromInt32(2)}
		}, false, ""},
		{"role metadata", func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Roles[0].Labels = map[string]string{"a": "b"} }, false, ""},
		{"object label", func(ds *disaggv1.DisaggregatedSet) { ds.Labels = map[string]string{"a": "b"} }, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			newObj := dsfixture.Pair()
			c.edit(newObj)
			r := PreviewRollout(newObj, dsfixture.Pair())
			if rolls := len(r.Changed) > 0; rolls != c.rolls {
				t.Fatalf("rolls = %v, want %v (%v)", rolls, c.rolls, r.Changed)
			}
			if c.field != "" && r.Changed[0].String() != c.field {
				t.Errorf("changed = %v, want %s first", r.Changed, c.field)
			}
		})
	}
}

func TestRolloutMessageAndGuard(t *testing.T) {
	newObj := dsfixture.Pair()
	newObj.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.12.0"
	newObj.Spec.Roles[1].Spec.RolloutStrategy.RollingUpdateConfiguration = &releasedlws.RollingUpdateConfiguration{
		MaxUnavailable: intstr.FromInt32(2), MaxSurge: intstr.FromInt32(0)}
	from, to := ComputeRevision(dsfixture.Pair().Spec.Roles), ComputeRevision(newObj.Spec.Roles)
	want := "Rolling update of EVERY role: default/llama moves from revision " + from + " to " + to + ", so ALL 2 roles (prefill, decode) are recreated, " +
		"including roles whose template did not change: the controller creates a new LeaderWorkerSet for each role and scales " +
		"the old ones down in step, until all 6 groups (prefill 2, decode 4) are replaced; in 2 steps, one step count shared by every role " +
		"(the most any role needs: its groups over its max_surge, or max_unavailable without surge), new groups: prefill 1 at steps 1 and 2; " +
		"decode 2 at steps 1 and 2; " +
		"changed: spec.roles[1].spec.leader_worker_template.worker_template.spec.containers[0].image"
	if got := PreviewRollout(newObj, dsfixture.Pair()).Message(); got != want {
		t.Errorf("got\n  %s\nwant\n  %s", got, want)
	}
	deny := map[string]tftypes.Value{lwsrules.AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, false)}
	if w, errs := planUpdate(newObj, dsfixture.Pair(), nil, nil); len(w) != 1 || len(errs) != 0 || w[0].Detail != want {
		t.Errorf("allowed: %v, %v", w, errs)
	}
	w, errs := planUpdate(newObj, dsfixture.Pair(), deny, nil)
	if len(w) != 0 || len(errs) != 1 || errs[0].Field != "spec.roles[1].spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].image" ||
		!strings.Contains(errs[0].Detail, "recreates every group of EVERY role") {
		t.Errorf("guarded: %v, %v", w, errs)
	}
	if w, errs := planUpdate(newObj, dsfixture.Pair(), deny, []*field.Path{field.NewPath("spec", "roles")}); len(w)+len(errs) != 0 {
		t.Errorf("unknown roles: %v, %v", w, errs)
	}
	scaled := dsfixture.Pair()
	scaled.Spec.Roles[0].Spec.Replicas = ptr.To[int32](3)
	if w, errs := planUpdate(scaled, dsfixture.Pair(), deny, nil); len(w)+len(errs) != 0 {
		t.Errorf("scale: %v, %v", w, errs)
	}
}

// externalRunning makes a role External, with the running groups the state records.
func externalRunning(ds *disaggv1.DisaggregatedSet, i int, running int32) {
	ds.Spec.Roles[i].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingExternal}
	ds.Spec.Roles[i].Spec.Replicas = ptr.To(running)
}

// TestRolloutCountsRunningAndSlices: the preview counts an External role's running groups and
// says so, and counts the groups of every slice.
func TestRolloutCountsRunningAndSlices(t *testing.T) {
	oldObj, newObj := dsfixture.Pair(), dsfixture.Pair()
	externalRunning(oldObj, 1, 4)
	externalRunning(newObj, 1, 4)
	newObj.Spec.Roles[0].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.12.0"
	msg := PreviewRollout(newObj, oldObj).Message()
	if want := "until all 6 groups (prefill 2, decode 4 running) are replaced (External roles: the groups running now"; !strings.Contains(msg, want) {
		t.Errorf("External: %s\nwant %s", msg, want)
	}

	oldObj, newObj = dsfixture.Pair(), dsfixture.Pair()
	oldObj.Spec.Slices, newObj.Spec.Slices = ptr.To[int32](2), ptr.To[int32](2)
	newObj.Spec.Roles[0].Spec.Replicas, newObj.Spec.Roles[1].Spec.Replicas = ptr.To[int32](1), ptr.To[int32](1)
	newObj.Spec.Roles[1].Spec.LeaderWorkerTemplate.Size = ptr.To[int32](4)
	msg = PreviewRollout(newObj, oldObj).Message()
	if want := "until 2 slices of 2 groups (4) are replaced, per slice prefill 1, decode 1;"; !strings.Contains(msg, want) {
		t.Errorf("slices: %s\nwant %s", msg, want)
	}
}

// TestExternalToStatic: a role leaving External plans the change from the groups that run (the
// state's record) to replicas. A scale-down is scaling, not a restart: allow_group_restarts =
// false lets it through, with the same warning (the guard's one rule on removed groups, as for a
// lower replicas or fewer slices).
func TestExternalToStatic(t *testing.T) {
	deny := map[string]tftypes.Value{lwsrules.AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, false)}
	cases := []struct {
		name     string
		replicas int32
		extras   map[string]tftypes.Value
		warning  string
	}{
		{"scale-down", 2, nil, "4 running groups -> 2: 2 groups of 16 GPUs removed"},
		{"scale-down under the guard", 2, deny, "4 running groups -> 2: 2 groups of 16 GPUs removed"},
		{"scale-up under the guard", 6, deny, "4 running groups -> 6: 2 groups of 16 GPUs added"},
		{"one group less", 3, nil, "4 running groups -> 3: 1 group of 16 GPUs removed"},
		{"same count", 4, deny, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oldObj, newObj := dsfixture.Pair(), dsfixture.Pair()
			externalRunning(oldObj, 1, 4)
			newObj.Spec.Roles[1].Scaling = &disaggv1.RoleScaling{Mode: disaggv1.RoleScalingStatic}
			newObj.Spec.Roles[1].Spec.Replicas = ptr.To(c.replicas)
			w, errs := planUpdate(newObj, oldObj, c.extras, nil)
			if len(errs) != 0 {
				t.Fatalf("errors %v: removing groups is not refused", errs)
			}
			if c.warning == "" {
				if len(w) != 0 {
					t.Errorf("got %v; want nothing", w)
				}
				return
			}
			if len(w) != 1 || !strings.Contains(w[0].Detail, c.warning) || !strings.Contains(w[0].Detail, `"llama-decode"`) {
				t.Fatalf("got %v; want a warning with %q", w, c.warning)
			}
			if removes := c.replicas < 4; strings.Contains(w[0].Detail, "allow_group_restarts does not hold a scale-down back") != removes {
				t.Errorf("the guard's rule said or not said wrongly: %s", w[0].Detail)
			}
		})
	}
	// Static -> External and External -> External plan nothing of the kind.
	oldObj, newObj := dsfixture.Pair(), dsfixture.Pair()
	externalRunning(newObj, 1, 4)
	if w, errs := planUpdate(newObj, oldObj, deny, nil); len(w)+len(errs) != 0 {
		t.Errorf("Static -> External: %v, %v", w, errs)
	}
}

// TestSlicesChange: a change of slices says which slices go or come, with their groups and GPUs.
func TestSlicesChange(t *testing.T) {
	deny := map[string]tftypes.Value{lwsrules.AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, false)}
	oldObj, newObj := dsfixture.Pair(), dsfixture.Pair()
	oldObj.Spec.Slices, newObj.Spec.Slices = ptr.To[int32](4), ptr.To[int32](2)
	want := "slices 4 -> 2: slices 2-3 are removed (their LeaderWorkerSets and pods are deleted): 12 groups (6 per slice: prefill 2, decode 4), 192 GPUs. " +
		"The groups removed stop serving; allow_group_restarts does not hold a scale-down back, as it restarts no group"
	for _, extras := range []map[string]tftypes.Value{nil, deny} {
		w, errs := planUpdate(newObj, oldObj, extras, nil)
		if len(w) != 1 || w[0].Detail != want || len(errs) != 0 {
			t.Errorf("guard %v: got %v, %v\nwant %s", extras, w, errs, want)
		}
	}
	oldObj.Spec.Slices, newObj.Spec.Slices = ptr.To[int32](2), ptr.To[int32](3)
	w, errs := planUpdate(newObj, oldObj, deny, nil)
	want = "slices 2 -> 3: slice 2 is added: 6 groups (6 per slice: prefill 2, decode 4), 96 GPUs"
	if len(w) != 1 || w[0].Detail != want || len(errs) != 0 {
		t.Errorf("got %v, %v\nwant %s", w, errs, want)
	}
}

// TestLegacySlice0: raising slices from 1 without a new revision recreates slice 0 at once when
// its LeaderWorkerSets are v0.9.0's (recreateLegacySlice0, disaggregatedset_controller.go, lws
// 2161f38). The plan cannot know whether they are: it warns, and the guard refuses; with a new
// revision the rolling update migrates slice 0 instead, and from 2 slices up slice 0 is
// slice-aware already.
func TestLegacySlice0(t *testing.T) {
	deny := map[string]tftypes.Value{lwsrules.AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, false)}
	oldObj, newObj := dsfixture.Pair(), dsfixture.Pair()
	newObj.Spec.Slices = ptr.To[int32](2)
	w, errs := planUpdate(newObj, oldObj, nil, nil)
	if len(errs) != 0 || len(w) != 2 || w[0].Detail != "slices 1 -> 2: slice 1 is added: 6 groups (6 per slice: prefill 2, decode 4), 96 GPUs" {
		t.Fatalf("allowed: %v, %v", w, errs)
	}
	legacy := w[1]
	for _, want := range []string{"if the LeaderWorkerSets of default/llama were created by the LeaderWorkerSet v0.9.0 controller (named llama-<revision>-<role>, " +
		"without the label disaggregatedset.x-k8s.io/slice", "recreateLegacySlice0): all 6 groups of slice 0 (prefill 2, decode 4) restart at once",
		"kubectl get leaderworkersets -n default -l disaggregatedset.x-k8s.io/name=llama -L disaggregatedset.x-k8s.io/slice"} {
		if !strings.Contains(legacy.Detail, want) || legacy.Path.String() != "spec.slices" {
			t.Errorf("legacy warning lacks %q: %s: %s", want, legacy.Path, legacy.Detail)
		}
	}
	w, errs = planUpdate(newObj, oldObj, deny, nil)
	if len(w) != 1 || len(errs) != 1 || errs[0].Field != "spec.slices" || !strings.Contains(errs[0].Detail, "allow_group_restarts = false, and raising slices from 1") ||
		!strings.Contains(errs[0].Detail, "Set allow_group_restarts = true for this apply") {
		t.Errorf("guarded: %v, %v", w, errs)
	}
	// With a template change, the rollout migrates slice 0 (and is the guard's concern).
	newObj.Spec.Roles[0].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "x"
	w, _ = planUpdate(newObj, oldObj, nil, nil)
	for _, x := range w {
		if strings.Contains(x.Summary, "may restart") {
			t.Errorf("legacy warning with a new revision: %v", x)
		}
	}
}

// asStored is ds as the API server stores it: the CRD's defaults (SetDefaults, and the pod
// templates' structural defaults that the plan fills through the schema), independent of
// ComputeRevision's own defaulting.
func asStored(ds *disaggv1.DisaggregatedSet) *disaggv1.DisaggregatedSet {
	out := ds.DeepCopy()
	SetDefaults(out, k8sschema.NullValue(node()))
	stored := &disaggv1.DisaggregatedSet{}
	k8sschema.Decode(node(), k8sschema.ApplyNodeDefaults(node(), k8sschema.Encode(node(), out)), stored, nil)
	return stored
}

// releasedRevision is the released module's ComputeRevision of ds as the server stores it, which
// the controller hashes.
func releasedRevision(ds *disaggv1.DisaggregatedSet) string {
	stored := asStored(ds)
	released := make([]releasedds.DisaggregatedRoleSpec, len(stored.Spec.Roles))
	for i, r := range stored.Spec.Roles {
		released[i] = releasedds.DisaggregatedRoleSpec{Name: r.Name, LeaderWorkerSetTemplateSpec: r.LeaderWorkerSetTemplateSpec}
	}
	return releasedutils.ComputeRevision(released)
}

// TestComputeRevisionAsReleased: the port gives the revision of the released v0.9.0 module's
// ComputeRevision (whose code v0.10.0 keeps) of the object as stored, for templates of every
// kind of change.
func TestComputeRevisionAsReleased(t *testing.T) {
	edits := map[string]func(*disaggv1.DisaggregatedSet){
		"as is": func(*disaggv1.DisaggregatedSet) {},
		"image": func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "x"
		},
		"size": func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.LeaderWorkerTemplate.Size = ptr.To[int32](4)
		},
		"role":     func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Roles[0].Name = "p" },
		"slices":   func(ds *disaggv1.DisaggregatedSet) { ds.Spec.Slices = ptr.To[int32](3) },
		"external": func(ds *disaggv1.DisaggregatedSet) { externalRunning(ds, 1, 7) },
		"annotation": func(ds *disaggv1.DisaggregatedSet) {
			ds.Spec.Roles[0].Spec.LeaderWorkerTemplate.WorkerTemplate.Annotations = map[string]string{"a": "b"}
		},
	}
	seen := map[string]string{}
	for name, edit := range edits {
		ds := dsfixture.Pair()
		edit(ds)
		got, want := ComputeRevision(ds.Spec.Roles), releasedRevision(ds)
		if got != want || len(got) != 8 {
			t.Errorf("%s: %q, released %q", name, got, want)
		}
		seen[name] = got
	}
	for _, same := range []string{"slices", "external"} {
		if seen[same] != seen["as is"] {
			t.Errorf("%s changes the revision", same)
		}
	}
}

// TestComputeRevisionOfConfiguration: a configuration as written, without the defaults the server
// fills in (a port's protocol, a gRPC probe's service, a file key's optional, a volume's fsType, the
// template's size and restart policy), which is what ValidateConfig names the role
// LeaderWorkerSets from, hashes to the controller's revision of the stored object; and the stored
// object to the same.
func TestComputeRevisionOfConfiguration(t *testing.T) {
	ds := dsfixture.Pair()
	for i := range ds.Spec.Roles {
		lwt := &ds.Spec.Roles[i].Spec.LeaderWorkerTemplate
		lwt.Size = nil
		lwt.LeaderTemplate = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "leader", Image: "x", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8000}}}},
		}}
		c := &lwt.WorkerTemplate.Spec.Containers[0]
		c.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8000}, {ContainerPort: 5557, Protocol: corev1.ProtocolUDP}}
		c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000}}}
		c.Env = []corev1.EnvVar{{Name: "F", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "v", Path: "p", Key: "k"}}}}
		lwt.WorkerTemplate.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{
			AzureDisk: &corev1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "u"},
		}}}
	}
	want := releasedRevision(ds)
	stored := asStored(ds)
	if p := stored.Spec.Roles[0].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Ports[0].Protocol; p != corev1.ProtocolTCP {
		t.Fatalf("the stored object's port protocol is %q: asStored does not default", p)
	}
	if got := ComputeRevision(ds.Spec.Roles); got != want {
		t.Errorf("the configuration hashes to %s, the controller's revision is %s", got, want)
	}
	if got := ComputeRevision(stored.Spec.Roles); got != want {
		t.Errorf("the stored object hashes to %s, the controller's revision is %s", got, want)
	}
	if ds.Spec.Roles[0].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Ports[0].Protocol != "" {
		t.Error("ComputeRevision changed its argument")
	}
}

// TestValidateConfigNamesTheControllersRevision: the role LeaderWorkerSet that ValidateConfig's
// name error quotes, from a configuration with a port that leaves its protocol to the CRD's
// default, carries the revision the controller computes from the stored object.
func TestValidateConfigNamesTheControllersRevision(t *testing.T) {
	ds := dsfixture.Pair()
	ds.Name = strings.Repeat("n", 60) // too long for the role LeaderWorkerSets' names
	ds.Spec.Slices = ptr.To[int32](2)
	ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8000}}
	config := k8sschema.Encode(node(), ds)
	if port, _ := k8sschema.ValueAt(node(), config, "spec.roles[1].spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].ports[0].protocol"); !port.IsNull() {
		t.Fatalf("the configuration writes the protocol: %v", port)
	}
	want := fmt.Sprintf("%s-1-%s-decode", ds.Name, releasedRevision(ds))
	var details []string
	for _, d := range kindrules.ValidateConfig(Kind, config) {
		details = append(details, d.Detail())
		if strings.Contains(d.Detail(), `"`+want+`"`) {
			return
		}
	}
	t.Errorf("no diagnostic names the LeaderWorkerSet %s:\n%s", want, strings.Join(details, "\n"))
}
