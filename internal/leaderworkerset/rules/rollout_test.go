package rules

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

func rolloutBase() *lwsv1.LeaderWorkerSet {
	lws := &lwsv1.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{Name: "llama-405b", Namespace: "default", Labels: map[string]string{"app": "llama"}},
		Spec: lwsv1.LeaderWorkerSetSpec{
			Replicas: ptr.To[int32](4),
			LeaderWorkerTemplate: lwsv1.LeaderWorkerTemplate{
				Size: ptr.To[int32](2),
				WorkerTemplate: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"role": "worker"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name: "vllm", Image: "vllm/vllm-openai:v0.9.0",
						Env:       []corev1.EnvVar{{Name: "A", Value: "1"}},
						Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"), "cpu": resource.MustParse("1")}},
					}}},
				},
			},
		},
	}
	SetDefaults(lws)
	return lws
}

// TestRevisionRule: each field either makes a new revision (groups recreated) or not, as
// getPatch of sigs.k8s.io/lws v0.9.0 decides.
func TestRevisionRule(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*lwsv1.LeaderWorkerSet)
		rolls bool
		field string
	}{
		{"nothing", func(*lwsv1.LeaderWorkerSet) {}, false, ""},
		{"image", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.10.0"
		}, true, "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].image"},
		{"env value", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Env[0].Value = "2"
		}, true, "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].env[0].value"},
		{"env added", func(l *lwsv1.LeaderWorkerSet) {
			c := &l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0]
			c.Env = append(c.Env, corev1.EnvVar{Name: "B", Value: "1"})
		}, true, "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].env"},
		{"resources", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Resources.Limits["cpu"] = resource.MustParse("2")
		}, true, "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].resources.limits[cpu]"},
		{"same quantity spelled otherwise", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Resources.Limits["cpu"] = resource.MustParse("1000m")
		}, false, ""},
		{"template label", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.WorkerTemplate.Labels["team"] = "a"
		}, true, "spec.leaderWorkerTemplate.workerTemplate.metadata.labels[team]"},
		{"template annotation", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.WorkerTemplate.Annotations = map[string]string{"x": "y"}
		}, true, "spec.leaderWorkerTemplate.workerTemplate.metadata.annotations[x]"},
		{"leader template added", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.LeaderTemplate = l.Spec.LeaderWorkerTemplate.WorkerTemplate.DeepCopy()
		}, true, "spec.leaderWorkerTemplate.leaderTemplate"},
		{"size", func(l *lwsv1.LeaderWorkerSet) { l.Spec.LeaderWorkerTemplate.Size = ptr.To[int32](4) }, true, "spec.leaderWorkerTemplate.size"},
		{"restart policy", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.LeaderWorkerTemplate.RestartPolicy = lwsv1.NoneRestartPolicy
		}, true, "spec.leaderWorkerTemplate.restartPolicy"},
		{"network config", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.NetworkConfig = &lwsv1.NetworkConfig{SubdomainPolicy: ptr.To(lwsv1.SubdomainUniquePerReplica)}
		}, true, "spec.networkConfig.subdomainPolicy"},
		{"network config Shared written", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.NetworkConfig = &lwsv1.NetworkConfig{SubdomainPolicy: ptr.To(lwsv1.SubdomainShared)}
		}, false, ""},
		{"replicas", func(l *lwsv1.LeaderWorkerSet) { l.Spec.Replicas = ptr.To[int32](6) }, false, ""},
		{"startup policy", func(l *lwsv1.LeaderWorkerSet) { l.Spec.StartupPolicy = lwsv1.LeaderReadyStartupPolicy }, false, ""},
		{"rollout strategy", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.MaxSurge = intstr.FromInt32(2)
		}, false, ""},
		{"partition", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](2)
		}, false, ""},
		{"object label", func(l *lwsv1.LeaderWorkerSet) { l.Labels["team"] = "a" }, false, ""},
		{"object annotation", func(l *lwsv1.LeaderWorkerSet) { l.Annotations = map[string]string{"x": "y"} }, false, ""},
		// Copied into the pod templates by the controller (CopiedAnnotations): no new revision,
		// but the groups are recreated.
		{"exclusive topology", func(l *lwsv1.LeaderWorkerSet) {
			l.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: "topology.kubernetes.io/zone"}
		}, true, "metadata.annotations[leaderworkerset.sigs.k8s.io/exclusive-topology]"},
		{"exclusive topology empty", func(l *lwsv1.LeaderWorkerSet) {
			l.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: ""}
		}, false, ""},
		{"subgroup exclusive topology without subgroup policy", func(l *lwsv1.LeaderWorkerSet) {
			l.Annotations = map[string]string{lwsv1.SubGroupExclusiveKeyAnnotationKey: "topology.kubernetes.io/zone"}
		}, false, ""},
		{"recover annotation", func(l *lwsv1.LeaderWorkerSet) {
			l.Annotations = map[string]string{lwsv1.RecoverAnnotationKey: "true"}
		}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oldObj := rolloutBase()
			newObj := rolloutBase()
			c.edit(newObj)
			r := PreviewRollout(newObj, oldObj)
			_, _, rolls := r.Recreated()
			if rolls != c.rolls {
				t.Fatalf("rolls = %v, want %v (changed %v)", rolls, c.rolls, r.Changed)
			}
			if c.field != "" && (len(r.Changed) == 0 || r.Changed[0].String() != c.field) {
				t.Errorf("changed = %v, want %s first", r.Changed, c.field)
			}
		})
	}
}

func TestRolloutMessage(t *testing.T) {
	image := func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.10.0"
	}
	const changed = "; changed: spec.leader_worker_template.worker_template.spec.containers[0].image"
	cases := []struct {
		name string
		edit func(*lwsv1.LeaderWorkerSet)
		want string
	}{
		{"image", image, "Rolling update: groups 0-3 of default/llama-405b will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0)" + changed},
		{"partition and surge", func(l *lwsv1.LeaderWorkerSet) {
			image(l)
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](1)
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.MaxSurge = intstr.FromInt32(2)
		}, "Rolling update: groups 1-3 of default/llama-405b will be recreated, 3 at a time, highest index first (max_unavailable = 1, max_surge = 2); " +
			"group 0 keeps the old revision (partition = 1); 2 surge group(s) (4-5) are added during the rollout and removed at its end" + changed},
		{"percentages", func(l *lwsv1.LeaderWorkerSet) {
			image(l)
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.MaxUnavailable = intstr.FromString("50%")
		}, "Rolling update: groups 0-3 of default/llama-405b will be recreated, 2 at a time, highest index first (max_unavailable = 50%, max_surge = 0)" + changed},
		{"scale up", func(l *lwsv1.LeaderWorkerSet) { image(l); l.Spec.Replicas = ptr.To[int32](6) },
			"Rolling update: groups 0-3 of default/llama-405b will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0); " +
				"replicas 4 -> 6 in the same apply: groups 4-5 are created at the new revision" + changed},
		{"scale down", func(l *lwsv1.LeaderWorkerSet) { image(l); l.Spec.Replicas = ptr.To[int32](1) },
			"Rolling update: group 0 of default/llama-405b will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0); " +
				"replicas 4 -> 1 in the same apply: groups 1-3 are deleted" + changed},
		{"partition above replicas", func(l *lwsv1.LeaderWorkerSet) {
			image(l)
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](4)
		}, "New revision of default/llama-405b: no running group is recreated; groups 0-3 keep the old revision (partition = 4)" + changed},
		{"scale only", func(l *lwsv1.LeaderWorkerSet) { l.Spec.Replicas = ptr.To[int32](6) }, ""},
		{"partition lowered, prior rollout finished", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](0)
		}, ""},
		{"partition lowered after a partitioned rollout", func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](1)
			l.Status.UpdatedReplicas = 1 // marks the prior below (oldWith)
		}, "Rolling update: groups 1-2 of default/llama-405b will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0); " +
			"no new revision, but partition 3 -> 1 releases groups an earlier partitioned rollout left at the previous revision; group 0 keeps the old revision (partition = 1); " +
			"changed: spec.rollout_strategy.rolling_update_configuration.partition"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			newObj := rolloutBase()
			c.edit(newObj)
			oldObj := rolloutBase()
			oldObj.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](3)
			oldObj.Status.UpdatedReplicas = 4
			if newObj.Status.UpdatedReplicas == 1 {
				oldObj.Status.UpdatedReplicas = 1
			}
			if got := PreviewRollout(newObj, oldObj).Message(node()); got != c.want {
				t.Errorf("got\n  %s\nwant\n  %s", got, c.want)
			}
		})
	}
}

func TestGroupRestartGuard(t *testing.T) {
	deny := map[string]tftypes.Value{AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, false)}
	image := rolloutBase()
	image.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.10.0"
	warnings, errs := planUpdate(image, rolloutBase(), deny, nil)
	if len(warnings) != 0 || len(errs) != 1 {
		t.Fatalf("image change with the guard: %v, %v", warnings, errs)
	}
	if errs[0].Type != field.ErrorTypeForbidden || errs[0].Field != "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].image" ||
		!strings.Contains(errs[0].Detail, "recreates groups 0-3 of default/llama-405b (changed: spec.leader_worker_template.worker_template.spec.containers[0].image)") {
		t.Errorf("guard error: %v", errs[0])
	}
	if warnings, errs = planUpdate(image, rolloutBase(), nil, nil); len(warnings) != 1 || len(errs) != 0 {
		t.Errorf("image change without the guard: %v, %v", warnings, errs)
	}
	// An unknown template value: no verdict.
	if warnings, errs = planUpdate(image, rolloutBase(), deny, []*field.Path{field.NewPath("spec", "leaderWorkerTemplate", "workerTemplate")}); len(warnings)+len(errs) != 0 {
		t.Errorf("unknown template: %v, %v", warnings, errs)
	}
	// Unknown status (computed on every update) does not matter.
	if _, errs = planUpdate(image, rolloutBase(), deny, []*field.Path{field.NewPath("status")}); len(errs) != 1 {
		t.Errorf("unknown status: %v", errs)
	}
	for name, edit := range map[string]func(*lwsv1.LeaderWorkerSet){
		"scale": func(l *lwsv1.LeaderWorkerSet) { l.Spec.Replicas = ptr.To[int32](8) },
		"label": func(l *lwsv1.LeaderWorkerSet) { l.Labels["team"] = "b" },
		"strategy": func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.MaxSurge = intstr.FromInt32(1)
		},
		"partition": func(l *lwsv1.LeaderWorkerSet) {
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](4)
		},
	} {
		obj := rolloutBase()
		edit(obj)
		if warnings, errs := planUpdate(obj, rolloutBase(), deny, nil); len(warnings)+len(errs) != 0 {
			t.Errorf("%s: %v, %v", name, warnings, errs)
		}
	}
}

// TestCopiedAnnotationRollout: a change of an annotation the controller copies into the pod
// templates recreates the groups from the partition up without a new revision, warned and
// refused by the guard on the annotation's path.
func TestCopiedAnnotationRollout(t *testing.T) {
	const key = `metadata.annotations["leaderworkerset.sigs.k8s.io/exclusive-topology"]`
	const copied = "; " + key + " is copied by the controller into the pod templates of the leader StatefulSet and the worker StatefulSets"
	const noRevision = ", without a new revision: the StatefulSet controller replaces the leader pods, and with them their groups, " +
		"max_unavailable + max_surge at a time, without surge groups"
	const stall = "; each recreated group needs a topology.kubernetes.io/zone domain that holds no pod of another group, the groups not " +
		"recreated yet included: where none is free, its pods stay Pending and the rollout stops"
	zone := func(l *lwsv1.LeaderWorkerSet) {
		l.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: "topology.kubernetes.io/zone"}
	}
	subgroup := func(l *lwsv1.LeaderWorkerSet) {
		l.Spec.LeaderWorkerTemplate.SubGroupPolicy = &lwsv1.SubGroupPolicy{SubGroupSize: ptr.To[int32](1), Type: ptr.To(lwsv1.SubGroupPolicyTypeLeaderWorker)}
	}
	cases := []struct {
		name      string
		old, edit func(*lwsv1.LeaderWorkerSet)
		want      string
	}{
		{"added", nil, zone, "Rolling update: groups 0-3 of default/llama-405b will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0)" +
			copied + noRevision + stall + "; changed: " + key},
		{"removed", zone, func(l *lwsv1.LeaderWorkerSet) { l.Annotations = nil },
			"Rolling update: groups 0-3 of default/llama-405b will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0)" +
				copied + noRevision + "; changed: " + key},
		{"value changed, surge and partition", zone, func(l *lwsv1.LeaderWorkerSet) {
			l.Annotations = map[string]string{lwsv1.ExclusiveKeyAnnotationKey: "example.com/rack"}
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.MaxSurge = intstr.FromInt32(1)
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](1)
		}, "Rolling update: groups 1-3 of default/llama-405b will be recreated, 2 at a time, highest index first (max_unavailable = 1, max_surge = 1)" +
			copied + noRevision + strings.ReplaceAll(stall, "topology.kubernetes.io/zone", "example.com/rack") + "; group 0 keeps their pods (partition = 1); changed: " + key},
		{"scale up", nil, func(l *lwsv1.LeaderWorkerSet) { zone(l); l.Spec.Replicas = ptr.To[int32](5) },
			"Rolling update: groups 0-3 of default/llama-405b will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0)" +
				copied + noRevision + stall + "; replicas 4 -> 5 in the same apply: group 4 is created from the new pod template; changed: " + key},
		{"with an image change", nil, func(l *lwsv1.LeaderWorkerSet) {
			zone(l)
			l.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.10.0"
		}, "Rolling update: groups 0-3 of default/llama-405b will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0)" +
			copied + stall + "; changed: spec.leader_worker_template.worker_template.spec.containers[0].image, " + key},
		{"partition above the groups", nil, func(l *lwsv1.LeaderWorkerSet) {
			zone(l)
			l.Spec.RolloutStrategy.RollingUpdateConfiguration.Partition = ptr.To[int32](4)
		}, "New pod template of default/llama-405b: no running group is recreated" + copied + "; groups 0-3 keep their pods (partition = 4); changed: " + key},
		{"subgroup exclusive topology with a subgroup policy", subgroup, func(l *lwsv1.LeaderWorkerSet) {
			subgroup(l)
			l.Annotations = map[string]string{lwsv1.SubGroupExclusiveKeyAnnotationKey: "topology.kubernetes.io/zone"}
		}, "Rolling update: groups 0-3 of default/llama-405b will be recreated, 1 at a time, highest index first (max_unavailable = 1, max_surge = 0); " +
			`metadata.annotations["leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"] is copied by the controller into the pod templates of the leader StatefulSet and the worker StatefulSets` +
			noRevision + `; changed: metadata.annotations["leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"]`},
		{"same value", zone, zone, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oldObj, newObj := rolloutBase(), rolloutBase()
			if c.old != nil {
				c.old(oldObj)
				c.old(newObj)
			}
			c.edit(newObj)
			r := PreviewRollout(newObj, oldObj)
			if got := r.Message(node()); got != c.want {
				t.Errorf("got\n  %s\nwant\n  %s", got, c.want)
			}
		})
	}

	// The guard refuses on the annotation's path, and names why.
	deny := map[string]tftypes.Value{AttrAllowGroupRestarts: tftypes.NewValue(tftypes.Bool, false)}
	newObj := rolloutBase()
	zone(newObj)
	warnings, errs := planUpdate(newObj, rolloutBase(), deny, nil)
	if len(warnings) != 0 || len(errs) != 1 {
		t.Fatalf("with the guard: %v, %v", warnings, errs)
	}
	want := "allow_group_restarts = false, and this change changes the pod templates the controller copies " + key +
		" into, which recreates groups 0-3 of default/llama-405b (changed: " + key + ")"
	if errs[0].Type != field.ErrorTypeForbidden || errs[0].Field != "metadata.annotations[leaderworkerset.sigs.k8s.io/exclusive-topology]" ||
		!strings.Contains(errs[0].Detail, want) {
		t.Errorf("guard error: %v\nwant detail %s", errs[0], want)
	}
	if warnings, errs = planUpdate(newObj, rolloutBase(), nil, nil); len(warnings) != 1 || len(errs) != 0 {
		t.Errorf("without the guard: %v, %v", warnings, errs)
	}
	// An unknown annotation value: no verdict; another unknown annotation does not matter.
	if warnings, errs = planUpdate(newObj, rolloutBase(), deny, []*field.Path{field.NewPath("metadata", "annotations").Key(lwsv1.ExclusiveKeyAnnotationKey)}); len(warnings)+len(errs) != 0 {
		t.Errorf("unknown annotation: %v, %v", warnings, errs)
	}
	if _, errs = planUpdate(newObj, rolloutBase(), deny, []*field.Path{field.NewPath("metadata", "annotations").Key("example.com/x")}); len(errs) != 1 {
		t.Errorf("another unknown annotation: %v", errs)
	}
}
