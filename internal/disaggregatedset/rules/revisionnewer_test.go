package rules

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/disaggregatedset/dsfixture"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// TestRevisionLeavesOutNewerCoreFields: the controllers of v0.9.0 and v0.10.0 decode a role's
// template with k8s.io/api v0.36 types, so a field only v0.37 has (here an httpGet probe's
// protocol, a gRPC probe's mode, an emptyDir's mode, a mount's bindMountOptions, a secret
// volume's users, evictionResponders; lwsrules.NewerCoreFields, checked against the released
// CRD) never changes the revision they compute: nor the one the plan predicts, which would
// otherwise say every group restarts. A field v0.36 has still changes it.
func TestRevisionLeavesOutNewerCoreFields(t *testing.T) {
	withProbes := func(newer bool) string {
		ds := dsfixture.Pair()
		spec := &ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec
		c := &spec.Containers[0]
		httpGet := &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8000)}
		grpc := &corev1.GRPCAction{Port: 9000}
		emptyDir := &corev1.EmptyDirVolumeSource{}
		mount := corev1.VolumeMount{Name: "scratch", MountPath: "/scratch"}
		secret := &corev1.SecretVolumeSource{SecretName: "tls", Items: []corev1.KeyToPath{{Key: "tls.crt", Path: "tls.crt"}}}
		if newer {
			httpGet.Protocol = ptr.To[corev1.HTTPProtocol]("H2C")
			grpc.Mode = ptr.To[corev1.GRPCProbeMode]("TLS")
			emptyDir.Mode = ptr.To[int32](0o700)
			mount.BindMountOptions = []string{"noexec"}
			secret.DefaultUser = ptr.To[int64](1000)
			secret.Items[0].User = ptr.To[int64](1000)
			spec.EvictionResponders = []corev1.EvictionResponder{{Name: "example.com/drain", Priority: ptr.To[int32](1)}}
		}
		c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: httpGet}}
		c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: grpc}}
		spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: emptyDir}},
			{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: secret}}}
		c.VolumeMounts = []corev1.VolumeMount{mount}
		rev := ComputeRevision(ds.Spec.Roles)
		if spec.EvictionResponders == nil && newer {
			t.Error("ComputeRevision cleared a field of the set")
		}
		return rev
	}
	plain, newer := withProbes(false), withProbes(true)
	if plain != newer {
		t.Errorf("fields the controller never decodes change the revision: %s -> %s", plain, newer)
	}
	if base := ComputeRevision(dsfixture.Pair().Spec.Roles); base == plain {
		t.Errorf("probes and volumes (fields the controller decodes) do not change the revision %s", base)
	}
}

// TestNewerCoreFieldsInRoles: a Kubernetes 1.37 field in a role's template is warned about at
// the role's attribute, as for a LeaderWorkerSet, and the apply's error for a CRD that does not
// declare it says why.
func TestNewerCoreFieldsInRoles(t *testing.T) {
	ds := dsfixture.Pair()
	spec := &ds.Spec.Roles[1].Spec.LeaderWorkerTemplate.WorkerTemplate.Spec
	spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: "/health", Port: intstr.FromInt32(8000), Protocol: ptr.To[corev1.HTTPProtocol]("H2C")}}}
	SetDefaults(ds, k8sschema.NullValue(node()))
	_, warnings := checkConfig(ds, k8sschema.NullValue(node()))
	var got []string
	for _, w := range warnings {
		if w.Detail == lwsrules.NewerCoreFieldDetail {
			got = append(got, w.Path.String())
		}
	}
	if want := "spec.roles[1].spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].readinessProbe.httpGet.protocol"; len(got) != 1 || got[0] != want {
		t.Errorf("warnings %v, want one at %s", got, want)
	}
	if undeclaredField("spec.roles.spec.leaderWorkerTemplate.workerTemplate.spec.containers.readinessProbe.httpGet.protocol") != lwsrules.NewerCoreFieldDetail {
		t.Error("the undeclared httpGet.protocol of a role is not explained")
	}
	if undeclaredField("spec.roles.spec.leaderWorkerTemplate.workerTemplate.spec.containers.image") != "" {
		t.Error("a role's image is explained as a newer field")
	}
}
