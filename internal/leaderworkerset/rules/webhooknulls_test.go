package rules

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// TestValidateAllWebhookNullsAndListMaps: ValidateAll reports what the released webhook and CRD
// refuse in the templates (checked against the server by TestAccLeaderWorkerSet_templateParity):
// a claim's dataSource or dataSourceRef without apiGroup and a projected volume without sources
// (the webhook writes null), and a list-map key given twice (the CRD's list types), in the leader
// and worker templates and in the volume claim templates.
func TestValidateAllWebhookNullsAndListMaps(t *testing.T) {
	claim := func(apiGroup *string) corev1.PersistentVolumeClaimSpec {
		return corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			DataSource:  &corev1.TypedLocalObjectReference{APIGroup: apiGroup, Kind: "PersistentVolumeClaim", Name: "src"},
		}
	}
	lwt := "spec.leaderWorkerTemplate."
	cases := []validateCase{
		{name: "claim template: dataSource without apiGroup", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{Spec: claim(nil)}}
			o.Spec.LeaderWorkerTemplate.VolumeClaimTemplates[0].Name = "data"
		}, want: []wantErr{invalid(lwt + "volumeClaimTemplates[0].spec.dataSource.apiGroup")}},
		{name: "claim template: dataSource with the core group", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{Spec: claim(ptr.To(""))}}
			o.Spec.LeaderWorkerTemplate.VolumeClaimTemplates[0].Name = "data"
		}},
		{name: "ephemeral volume: dataSourceRef without apiGroup; projected volume without sources", mutate: func(o *lwsv1.LeaderWorkerSet) {
			spec := claim(ptr.To(""))
			spec.DataSourceRef = &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "src"}
			o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Volumes = []corev1.Volume{
				{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
					VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: spec}}}},
				{Name: "projected", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}},
			}
		}, want: []wantErr{
			invalid(lwt + "workerTemplate.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.dataSourceRef.apiGroup"),
			invalid(lwt + "workerTemplate.spec.volumes[1].projected.sources"),
		}},
		{name: "env named twice in the leader template", mutate: func(o *lwsv1.LeaderWorkerSet) {
			o.Spec.LeaderWorkerTemplate.LeaderTemplate.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}}
		}, want: []wantErr{duplicate(lwt + "leaderTemplate.spec.containers[0].env[1]")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := baseLWS()
			tc.mutate(obj)
			assertErrors(t, ValidateAll(obj), tc.want...)
		})
	}
}
