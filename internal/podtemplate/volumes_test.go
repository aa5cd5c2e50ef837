package podtemplate

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func vol(v corev1.Volume) func(t *corev1.PodTemplateSpec) {
	return func(t *corev1.PodTemplateSpec) { t.Spec.Volumes = append(t.Spec.Volumes, v) }
}

func mount(m corev1.VolumeMount) func(t *corev1.PodTemplateSpec) {
	return func(t *corev1.PodTemplateSpec) { ctr(t).VolumeMounts = append(ctr(t).VolumeMounts, m) }
}

func both(fs ...func(t *corev1.PodTemplateSpec)) func(t *corev1.PodTemplateSpec) {
	return func(t *corev1.PodTemplateSpec) {
		for _, f := range fs {
			f(t)
		}
	}
}

func TestVolumes(t *testing.T) {
	shm := corev1.Volume{Name: "shm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(q("8Gi"))}}}
	const v0 = "spec.volumes[0]"
	const m0 = "spec.containers[0].volumeMounts"
	runCases(t, []tc{
		{name: "emptyDir ok", mutate: vol(shm)},
		{name: "no source defaults to emptyDir", mutate: vol(corev1.Volume{Name: "scratch"})},
		{name: "emptyDir negative size", mutate: vol(corev1.Volume{Name: "a", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(q("-1"))}}}), want: "FieldValueForbidden " + v0 + ".emptyDir.sizeLimit"},
		{name: "volume name empty", mutate: vol(corev1.Volume{VolumeSource: shm.VolumeSource}), want: "FieldValueRequired " + v0 + ".name"},
		{name: "volume name invalid", mutate: vol(corev1.Volume{Name: "a.b", VolumeSource: shm.VolumeSource}), want: "FieldValueInvalid " + v0 + ".name"},
		{name: "volume duplicate", mutate: both(vol(shm), vol(shm)), want: "FieldValueDuplicate spec.volumes[1].name"},
		{name: "two sources", mutate: vol(corev1.Volume{Name: "a", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}, Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}), want: "FieldValueForbidden " + v0 + ".secret"},
		{name: "configMap ok", mutate: vol(corev1.Volume{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, Items: []corev1.KeyToPath{{Key: "a", Path: "dir/a.json", Mode: ptr.To[int32](0o644)}}}}})},
		{name: "configMap no name", mutate: vol(corev1.Volume{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}}), want: "FieldValueRequired " + v0 + ".configMap.name"},
		{name: "configMap item path with ..", mutate: vol(corev1.Volume{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, Items: []corev1.KeyToPath{{Key: "a", Path: "../a"}}}}}), want: "FieldValueInvalid " + v0 + ".configMap.items[0].path"},
		{name: "secret defaultMode too big", mutate: vol(corev1.Volume{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", DefaultMode: ptr.To[int32](0o1000)}}}), want: "FieldValueInvalid " + v0 + ".secret.defaultMode"},
		{name: "secret no name", mutate: vol(corev1.Volume{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}}), want: "FieldValueRequired " + v0 + ".secret.secretName"},
		{name: "pvc ok", mutate: vol(corev1.Volume{Name: "model", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "models"}}})},
		{name: "pvc no claimName", mutate: vol(corev1.Volume{Name: "model", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{}}}), want: "FieldValueRequired " + v0 + ".persistentVolumeClaim.claimName"},
		{name: "hostPath ok", mutate: vol(corev1.Volume{Name: "dev", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/dev/infiniband"}}})},
		{name: "hostPath bad type", mutate: vol(corev1.Volume{Name: "dev", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x", Type: ptr.To(corev1.HostPathType("Dir"))}}}), want: "FieldValueNotSupported " + v0 + ".hostPath.type"},
		{name: "hostPath empty", mutate: vol(corev1.Volume{Name: "dev", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{}}}), want: "FieldValueRequired " + v0 + ".hostPath.path"},
		{name: "nfs relative path", mutate: vol(corev1.Volume{Name: "n", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs", Path: "data"}}}), want: "FieldValueInvalid " + v0 + ".nfs.path"},
		{name: "csi ok", mutate: vol(corev1.Volume{Name: "c", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "secrets-store.csi.k8s.io"}}})},
		{name: "csi no driver", mutate: vol(corev1.Volume{Name: "c", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{}}}), want: "FieldValueRequired " + v0 + ".csi.driver"},
		{name: "image ok", mutate: vol(corev1.Volume{Name: "weights", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "ghcr.io/x/model:v1"}}})},
		{name: "image no reference", mutate: vol(corev1.Volume{Name: "weights", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{}}}), want: "FieldValueRequired " + v0 + ".image.reference"},
		{name: "downwardAPI ok", mutate: vol(corev1.Volume{Name: "d", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}})},
		{name: "downwardAPI no ref", mutate: vol(corev1.Volume{Name: "d", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{{Path: "x"}}}}}), want: "FieldValueRequired " + v0 + ".downwardAPI"},
		{name: "projected ok", mutate: vol(corev1.Volume{Name: "p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "ca"}}}}}}})},
		{name: "projected short token", mutate: vol(corev1.Volume{Name: "p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](60)}}}}}}), want: "FieldValueInvalid " + v0 + ".projected.sources[0].serviceAccountToken.expirationSeconds"},
		{name: "ephemeral ok", mutate: vol(corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": q("10Gi")}}}}}}})},
		{name: "ephemeral no storage", mutate: vol(corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}}}}), want: "FieldValueRequired " + v0 + ".ephemeral.volumeClaimTemplate.spec.resources[storage]"},
		{name: "ephemeral metadata name forbidden", mutate: vol(corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: "x"},
			Spec:       corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": q("1Gi")}}}}}}}), want: "FieldValueForbidden " + v0 + ".ephemeral.volumeClaimTemplate.metadata.name"},
		// mounts
		{name: "mount ok", mutate: both(vol(shm), mount(corev1.VolumeMount{Name: "shm", MountPath: "/dev/shm"}))},
		{name: "mount unknown volume", mutate: mount(corev1.VolumeMount{Name: "nope", MountPath: "/x"}), want: "FieldValueNotFound " + m0 + "[0].name"},
		{name: "mount of claim template", opts: Options{VolumeClaimTemplateNames: []string{"cache"}}, mutate: mount(corev1.VolumeMount{Name: "cache", MountPath: "/cache"})},
		{name: "claim template name not DNS label", opts: Options{VolumeClaimTemplateNames: []string{"Cache"}}, mutate: mount(corev1.VolumeMount{Name: "Cache", MountPath: "/cache"}), want: "FieldValueInvalid spec.volumes[0].name"},
		{name: "mountPath empty", mutate: both(vol(shm), mount(corev1.VolumeMount{Name: "shm"})), want: "FieldValueRequired " + m0 + "[0].mountPath"},
		{name: "mountPath duplicate", mutate: both(vol(shm), mount(corev1.VolumeMount{Name: "shm", MountPath: "/a"}), mount(corev1.VolumeMount{Name: "shm", MountPath: "/a"})), want: "FieldValueInvalid " + m0 + "[1].mountPath"},
		{name: "subPath and subPathExpr", mutate: both(vol(shm), mount(corev1.VolumeMount{Name: "shm", MountPath: "/a", SubPath: "x", SubPathExpr: "$(POD)"})), want: "FieldValueInvalid " + m0 + "[0].subPathExpr"},
		{name: "subPath absolute", mutate: both(vol(shm), mount(corev1.VolumeMount{Name: "shm", MountPath: "/a", SubPath: "/x"})), want: "FieldValueInvalid " + m0 + ".subPath"},
		{name: "subPath backsteps", mutate: both(vol(shm), mount(corev1.VolumeMount{Name: "shm", MountPath: "/a", SubPath: "a/../../b"})), want: "FieldValueInvalid " + m0 + ".subPath"},
		{name: "mountPropagation bogus", mutate: both(vol(shm), mount(corev1.VolumeMount{Name: "shm", MountPath: "/a", MountPropagation: ptr.To(corev1.MountPropagationMode("Shared"))})), want: "FieldValueNotSupported " + m0 + ".mountPropagation"},
		{name: "bidirectional unprivileged", mutate: both(vol(shm), mount(corev1.VolumeMount{Name: "shm", MountPath: "/a", MountPropagation: ptr.To(corev1.MountPropagationBidirectional)})), want: "FieldValueForbidden " + m0 + ".mountPropagation"},
		{name: "recursiveReadOnly needs readOnly", mutate: both(vol(shm), mount(corev1.VolumeMount{Name: "shm", MountPath: "/a", RecursiveReadOnly: ptr.To(corev1.RecursiveReadOnlyEnabled)})), want: "FieldValueForbidden " + m0 + ".recursiveReadOnly"},
		{name: "recursiveReadOnly ok", mutate: both(vol(shm), mount(corev1.VolumeMount{Name: "shm", MountPath: "/a", ReadOnly: true, RecursiveReadOnly: ptr.To(corev1.RecursiveReadOnlyIfPossible)}))},
		{name: "volumeDevice on pvc", opts: Options{VolumeClaimTemplateNames: []string{"blk"}}, mutate: func(t *corev1.PodTemplateSpec) {
			ctr(t).VolumeDevices = []corev1.VolumeDevice{{Name: "blk", DevicePath: "/dev/xvda"}}
		}},
		{name: "volumeDevice on emptyDir", mutate: both(vol(shm), func(t *corev1.PodTemplateSpec) {
			ctr(t).VolumeDevices = []corev1.VolumeDevice{{Name: "shm", DevicePath: "/dev/xvda"}}
		}), want: "FieldValueInvalid spec.containers[0].volumeDevices[0].name"},
	})
}

func TestValidateVolumeClaimTemplates(t *testing.T) {
	good := func() corev1.PersistentVolumeClaim {
		return corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "cache"}, Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": q("100Gi")}}}}
	}
	p := field.NewPath("spec", "leaderWorkerTemplate", "volumeClaimTemplates")
	cases := []struct {
		name string
		mut  func(*corev1.PersistentVolumeClaim)
		want string
	}{
		{"valid", nil, ""},
		{"no access modes", func(c *corev1.PersistentVolumeClaim) { c.Spec.AccessModes = nil }, "FieldValueRequired [0].spec.accessModes"},
		{"bad access mode", func(c *corev1.PersistentVolumeClaim) { c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{"RWO"} }, "FieldValueNotSupported [0].spec.accessModes"},
		{"RWOP mixed", func(c *corev1.PersistentVolumeClaim) {
			c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod, corev1.ReadWriteOnce}
		}, "FieldValueForbidden [0].spec.accessModes"},
		{"RWOP alone", func(c *corev1.PersistentVolumeClaim) {
			c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod}
		}, ""},
		{"no storage", func(c *corev1.PersistentVolumeClaim) { c.Spec.Resources.Requests = nil }, "FieldValueRequired [0].spec.resources[storage]"},
		{"zero storage", func(c *corev1.PersistentVolumeClaim) { c.Spec.Resources.Requests["storage"] = q("0") }, "FieldValueInvalid [0].spec.resources[storage]"},
		{"volumeMode Block", func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock) }, ""},
		{"volumeMode bogus", func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeMode("Raw")) }, "FieldValueNotSupported [0].spec.volumeMode"},
		{"storageClassName invalid", func(c *corev1.PersistentVolumeClaim) { c.Spec.StorageClassName = ptr.To("Fast_SSD") }, "FieldValueInvalid [0].spec.storageClassName"},
		{"name empty", func(c *corev1.PersistentVolumeClaim) { c.Name = "" }, "FieldValueRequired [0].metadata.name"},
		{"name invalid", func(c *corev1.PersistentVolumeClaim) { c.Name = "Cache" }, "FieldValueInvalid [0].metadata.name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := good()
			if c.mut != nil {
				c.mut(&v)
			}
			errs := ValidateVolumeClaimTemplates([]corev1.PersistentVolumeClaim{v}, p)
			if c.want == "" {
				if len(errs) > 0 {
					t.Fatalf("unexpected %v", errs)
				}
				return
			}
			for _, e := range errs {
				if string(e.Type)+" "+e.Field[len(p.String()):] == c.want {
					return
				}
			}
			t.Fatalf("want %q got %v", c.want, errs)
		})
	}
}

func TestValidatePersistentVolumeClaimRetentionPolicy(t *testing.T) {
	p := field.NewPath("spec", "leaderWorkerTemplate", "persistentVolumeClaimRetentionPolicy")
	if errs := ValidatePersistentVolumeClaimRetentionPolicy(&appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType}, p); len(errs) != 0 {
		t.Fatalf("unexpected %v", errs)
	}
	if errs := ValidatePersistentVolumeClaimRetentionPolicy(nil, p); len(errs) != 0 {
		t.Fatalf("unexpected %v", errs)
	}
	errs := ValidatePersistentVolumeClaimRetentionPolicy(&appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: "Keep", WhenScaled: "delete"}, p)
	if len(errs) != 2 || errs[0].Type != field.ErrorTypeNotSupported || errs[0].Field != p.Child("whenDeleted").String() || errs[1].Field != p.Child("whenScaled").String() {
		t.Fatalf("unexpected %v", errs)
	}
}
