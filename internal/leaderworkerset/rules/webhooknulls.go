package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// validateWebhookNulls reports the fields that the LeaderWorkerSet webhook turns into a null the
// CRD then refuses. The mutating webhook (sigs.k8s.io/lws@v0.9.0
// pkg/webhooks/leaderworkerset_webhook.go LeaderWorkerSetWebhook.Default, served by
// controller-runtime's defaulting webhook) decodes the object into Go types and answers with a
// patch to their JSON encoding. A Go field that is a pointer or a slice without omitempty comes
// back as null where the object left it out, and the CRD schema, which does not mark it
// nullable, refuses the null (k8s.io/apiextensions-apiserver@v0.37.2: "in body must be of type
// string"). Of the fields of a pod template and of a volume claim template (k8s.io/api core/v1),
// that is apiGroup of a claim's dataSource (TypedLocalObjectReference) and dataSourceRef
// (TypedObjectReference), and the sources of a projected volume.
//
// A DisaggregatedSet is not defaulted this way, but the LeaderWorkerSet its controller creates
// for each role is, so its rules report these errors on the role.
func validateWebhookNulls(lwt *lwsv1.LeaderWorkerTemplate) field.ErrorList {
	var errs field.ErrorList
	if lwt.LeaderTemplate != nil {
		errs = append(errs, templateWebhookNulls(&lwt.LeaderTemplate.Spec, lwtPath.Child("leaderTemplate", "spec"))...)
	}
	errs = append(errs, templateWebhookNulls(&lwt.WorkerTemplate.Spec, lwtPath.Child("workerTemplate", "spec"))...)
	for i := range lwt.VolumeClaimTemplates {
		errs = append(errs, claimWebhookNulls(&lwt.VolumeClaimTemplates[i].Spec, lwtPath.Child("volumeClaimTemplates").Index(i).Child("spec"))...)
	}
	return errs
}

func templateWebhookNulls(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, v := range spec.Volumes {
		vp := p.Child("volumes").Index(i)
		if v.Projected != nil && v.Projected.Sources == nil {
			errs = append(errs, nullRefused(vp.Child("projected", "sources"), "array",
				"set sources (an empty list if the volume projects nothing)"))
		}
		if v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil {
			errs = append(errs, claimWebhookNulls(&v.Ephemeral.VolumeClaimTemplate.Spec, vp.Child("ephemeral", "volumeClaimTemplate", "spec"))...)
		}
	}
	return errs
}

func claimWebhookNulls(spec *corev1.PersistentVolumeClaimSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	const advice = `set api_group ("" for the core API group, as for a PersistentVolumeClaim)`
	if spec.DataSource != nil && spec.DataSource.APIGroup == nil {
		errs = append(errs, nullRefused(p.Child("dataSource", "apiGroup"), "string", advice))
	}
	if spec.DataSourceRef != nil && spec.DataSourceRef.APIGroup == nil {
		errs = append(errs, nullRefused(p.Child("dataSourceRef", "apiGroup"), "string", advice))
	}
	return errs
}

// nullRefused is the server's error for a null where the CRD wants typ, with what to do about it.
func nullRefused(p *field.Path, typ, advice string) *field.Error {
	return field.Invalid(p, "null", fmt.Sprintf("%s in body must be of type %s: %q (the LeaderWorkerSet webhook writes the unset field as null, which the CRD refuses: %s)",
		p, typ, "null", advice))
}
