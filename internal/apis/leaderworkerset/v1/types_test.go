package v1

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// fullLeaderWorkerSet sets every field of the API (and the status).
func fullLeaderWorkerSet() *LeaderWorkerSet {
	podTemplate := func(role string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{
				Labels:      map[string]string{"role": role},
				Annotations: map[string]string{"example.com/note": role},
			},
			Spec: corev1.PodSpec{
				PriorityClassName: "high",
				Containers: []corev1.Container{{
					Name:  role,
					Image: "vllm/vllm-openai:v0.9.0",
					Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
					Resources: corev1.ResourceRequirements{
						Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")},
					},
					VolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}},
				}},
				ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu-" + role)}},
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
					MaxSkew:           1,
					TopologyKey:       "topology.kubernetes.io/zone",
					WhenUnsatisfiable: corev1.DoNotSchedule,
				}},
			},
		}
	}
	leader := podTemplate("leader")
	subGroupType := SubGroupPolicyTypeLeaderExcluded
	subdomain := SubdomainUniquePerReplica
	return &LeaderWorkerSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "LeaderWorkerSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "vllm", Namespace: "inference", Labels: map[string]string{"app": "vllm"}},
		Spec: LeaderWorkerSetSpec{
			Replicas: ptr.To[int32](3),
			LeaderWorkerTemplate: LeaderWorkerTemplate{
				LeaderTemplate:   &leader,
				WorkerTemplate:   podTemplate("worker"),
				Size:             ptr.To[int32](5),
				RestartPolicy:    RecreateGroupAfterStart,
				MaxGroupRestarts: ptr.To[int32](0),
				SubGroupPolicy:   &SubGroupPolicy{Type: &subGroupType, SubGroupSize: ptr.To[int32](2)},
				VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
					ObjectMeta: metav1.ObjectMeta{Name: "cache"},
					Spec: corev1.PersistentVolumeClaimSpec{
						AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						Resources: corev1.VolumeResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
						},
					},
				}},
				PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
					WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
					WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
				},
			},
			RolloutStrategy: RolloutStrategy{
				Type: RollingUpdateStrategyType,
				RollingUpdateConfiguration: &RollingUpdateConfiguration{
					Partition:      ptr.To[int32](1),
					MaxUnavailable: intstr.FromString("10%"),
					MaxSurge:       intstr.FromInt32(2),
				},
			},
			StartupPolicy: LeaderReadyStartupPolicy,
			NetworkConfig: &NetworkConfig{SubdomainPolicy: &subdomain},
			Scheduling: &LeaderWorkerSetSchedulingConfiguration{
				SchedulingPolicy: &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{
					Gang: &schedulingv1alpha3.WorkloadCompositePodGroupGangSchedulingPolicy{MinGroupCount: ptr.To[int32](3)},
				},
				SchedulingConstraints: &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints{
					Topology: []schedulingv1alpha3.TopologyConstraint{{Key: "topology.kubernetes.io/zone"}},
				},
				DisruptionMode: &schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode{
					All: &schedulingv1alpha3.WorkloadCompositePodGroupAllDisruptionMode{},
				},
				Replica: &LeaderWorkerSetReplicaScheduling{
					SchedulingPolicy: &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy{
						Basic: &schedulingv1alpha3.WorkloadCompositePodGroupBasicSchedulingPolicy{},
					},
					SchedulingConstraints: &schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints{
						Topology: []schedulingv1alpha3.TopologyConstraint{{Key: "example.com/rack"}},
					},
					DisruptionMode: &schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode{
						Single: &schedulingv1alpha3.WorkloadCompositePodGroupSingleDisruptionMode{},
					},
					Leader: &LeaderWorkerSetLeaderScheduling{
						SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
							Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{MinCount: ptr.To[int32](1)},
						},
						SchedulingConstraints: &schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints{
							Topology: []schedulingv1alpha3.TopologyConstraint{{Key: "kubernetes.io/hostname"}},
						},
						DisruptionMode: &schedulingv1alpha3.WorkloadPodGroupDisruptionMode{
							All: &schedulingv1alpha3.WorkloadPodGroupAllDisruptionMode{},
						},
						ResourceClaims: []schedulingv1alpha3.WorkloadPodGroupResourceClaim{{
							Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu-leader"),
						}},
					},
					Worker: &LeaderWorkerSetWorkerScheduling{
						SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
							Basic: &schedulingv1alpha3.WorkloadPodGroupBasicSchedulingPolicy{},
						},
						SchedulingConstraints: &schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints{
							Topology: []schedulingv1alpha3.TopologyConstraint{{Key: "example.com/block"}},
						},
						DisruptionMode: &schedulingv1alpha3.WorkloadPodGroupDisruptionMode{
							Single: &schedulingv1alpha3.WorkloadPodGroupSingleDisruptionMode{},
						},
						ResourceClaims: []schedulingv1alpha3.WorkloadPodGroupResourceClaim{{
							Name: "fabric", ResourceClaimName: ptr.To("shared-fabric"),
						}},
					},
				},
			},
			GroupIdentity:          GroupIdentityHash,
			GroupReplacementPolicy: GroupReplacementImmediate,
		},
		Status: LeaderWorkerSetStatus{
			Conditions: []metav1.Condition{{
				Type:               string(LeaderWorkerSetAvailable),
				Status:             metav1.ConditionTrue,
				Reason:             "AllGroupsReady",
				Message:            "All replicas are ready",
				LastTransitionTime: metav1.Unix(1700000000, 0),
				ObservedGeneration: 4,
			}},
			ReadyReplicas:      2,
			UpdatedReplicas:    1,
			Replicas:           3,
			HPAPodSelector:     "leaderworkerset.sigs.k8s.io/name=vllm,leaderworkerset.sigs.k8s.io/worker-index=0",
			ObservedGeneration: 4,
		},
	}
}

// ourStructTypes returns the struct types of this package reachable from
// LeaderWorkerSet and LeaderWorkerSetList.
func ourStructTypes() []reflect.Type {
	pkg := reflect.TypeOf(LeaderWorkerSet{}).PkgPath()
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.PkgPath() != pkg || seen[t] {
			return
		}
		seen[t] = true
		out = append(out, t)
		for i := 0; i < t.NumField(); i++ {
			walk(t.Field(i).Type)
		}
	}
	walk(reflect.TypeOf(LeaderWorkerSet{}))
	walk(reflect.TypeOf(LeaderWorkerSetList{}))
	return out
}

// jsonName returns the json name of a field and whether it is inlined.
func jsonName(f reflect.StructField) (name string, inline bool) {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	return name, name == "" && strings.Contains(opts, "inline")
}

// assertAllFieldsSet fails for every field of one of our types that is left at
// its zero value, so the round-trip test really covers every field.
func assertAllFieldsSet(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	pkg := reflect.TypeOf(LeaderWorkerSet{}).PkgPath()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			assertAllFieldsSet(t, v.Elem(), path)
		}
	case reflect.Struct:
		if v.Type().PkgPath() != pkg {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			name, inline := jsonName(f)
			if inline {
				continue
			}
			fv := v.Field(i)
			if fv.IsZero() {
				t.Errorf("%s.%s is not set in the fixture", path, name)
				continue
			}
			assertAllFieldsSet(t, fv, path+"."+name)
		}
	}
}

func TestLeaderWorkerSetJSONRoundTrip(t *testing.T) {
	in := fullLeaderWorkerSet()
	assertAllFieldsSet(t, reflect.ValueOf(in), "")

	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := &LeaderWorkerSet{}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(in, out) {
		t.Fatalf("round trip changed the object:\nin:  %#v\nout: %#v", in, out)
	}
	again, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(data) {
		t.Fatalf("second encoding differs:\n%s\n%s", data, again)
	}

	// Spot-check the upstream JSON spelling of the fields that differ from
	// their Go names.
	for _, want := range []string{
		`"subGroupPolicyType":"LeaderExcluded"`,
		`"hpaPodSelector":`,
		`"maxUnavailable":"10%"`,
		`"maxSurge":2`,
		`"groupReplacementPolicy":"Immediate"`,
		`"replica":{`,
		`"minGroupCount":3`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("encoding lacks %s", want)
		}
	}
}

func TestDeepCopy(t *testing.T) {
	in := fullLeaderWorkerSet()
	out := in.DeepCopy()
	if !equality.Semantic.DeepEqual(in, out) {
		t.Fatal("DeepCopy differs from the original")
	}
	out.Spec.Scheduling.Replica.Leader.ResourceClaims[0].Name = "changed"
	if in.Spec.Scheduling.Replica.Leader.ResourceClaims[0].Name == "changed" {
		t.Fatal("DeepCopy shares memory with the original")
	}
}

func TestAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"LeaderWorkerSet", "LeaderWorkerSetList"} {
		if !s.Recognizes(GroupVersion.WithKind(kind)) {
			t.Errorf("scheme does not recognize %s", kind)
		}
	}
	if got := Resource("leaderworkersets").String(); got != "leaderworkersets.leaderworkerset.x-k8s.io" {
		t.Errorf("Resource() = %q", got)
	}
}

type swaggerDocer interface{ SwaggerDoc() map[string]string }

func TestSwaggerDocCoversEveryField(t *testing.T) {
	types := ourStructTypes()
	if len(types) < 13 {
		t.Fatalf("found only %d types", len(types))
	}
	for _, typ := range types {
		d, ok := reflect.Zero(typ).Interface().(swaggerDocer)
		if !ok {
			t.Errorf("%s has no SwaggerDoc method", typ.Name())
			continue
		}
		doc := d.SwaggerDoc()
		if strings.TrimSpace(doc[""]) == "" {
			t.Errorf("%s has no type description", typ.Name())
		}
		fields := map[string]bool{"": true}
		for i := 0; i < typ.NumField(); i++ {
			name, inline := jsonName(typ.Field(i))
			if inline || name == "-" {
				continue
			}
			fields[name] = true
			if strings.TrimSpace(doc[name]) == "" {
				t.Errorf("%s.%s has no description", typ.Name(), name)
			} else if name != "metadata" && !strings.HasPrefix(doc[name], name+" ") {
				t.Errorf("%s.%s description does not start with the field name: %q", typ.Name(), name, doc[name])
			}
		}
		for key := range doc {
			if !fields[key] {
				t.Errorf("%s documents unknown field %q", typ.Name(), key)
			}
		}
	}
}
