package rules

import (
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The controllers compare revisions of what they decode. The LeaderWorkerSet and
// DisaggregatedSet controllers of sigs.k8s.io/lws v0.9.0 and v0.10.0 are built with k8s.io/api
// v0.36 (v0.36.2 and v0.36.3 in their go.mod, whose JSON fields agree), and their released CRDs
// (config/crd/bases) are generated from those types; this provider's pod templates are
// k8s.io/api v0.37.2's. A field that only v0.37 has is either refused by a released CRD
// (server-side apply: "field not declared in schema") or, under a CRD generated from newer
// types, stored and then dropped by the controller when it decodes the object: in both cases it
// never reaches the controllers' revisions (getPatch, pkg/utils/revision/revision_utils.go;
// ComputeRevision, pkg/utils/disaggregatedset/utils.go) nor the StatefulSets they create. The
// plan keeps such a field (it is stored, and read back, under a CRD that declares it); only the
// revisions it predicts leave it out.

// NewerCoreFields are the fields of the core API types of a LeaderWorkerSet template that
// k8s.io/api v0.37.2 declares and v0.36 does not, by the type that declares them (JSON names):
// all of them alpha fields of Kubernetes 1.37. TestNewerCoreFieldsAreWhatTheReleasedCRDsLack
// checks the table against the released CRDs: every field of the template types they do not
// declare is here, and nothing they declare.
var NewerCoreFields = map[reflect.Type][]string{
	reflect.TypeFor[corev1.PodSpec]():                       {"evictionResponders"},
	reflect.TypeFor[corev1.VolumeMount]():                   {"bindMountOptions"},
	reflect.TypeFor[corev1.HTTPGetAction]():                 {"protocol"},
	reflect.TypeFor[corev1.GRPCAction]():                    {"mode"},
	reflect.TypeFor[corev1.EmptyDirVolumeSource]():          {"mode"},
	reflect.TypeFor[corev1.SecretVolumeSource]():            {"defaultUser"},
	reflect.TypeFor[corev1.ConfigMapVolumeSource]():         {"defaultUser"},
	reflect.TypeFor[corev1.DownwardAPIVolumeSource]():       {"defaultUser"},
	reflect.TypeFor[corev1.ProjectedVolumeSource]():         {"defaultUser"},
	reflect.TypeFor[corev1.KeyToPath]():                     {"user"},
	reflect.TypeFor[corev1.DownwardAPIVolumeFile]():         {"user"},
	reflect.TypeFor[corev1.ServiceAccountTokenProjection](): {"user"},
	reflect.TypeFor[corev1.ClusterTrustBundleProjection]():  {"user"},
	reflect.TypeFor[corev1.PodCertificateProjection]():      {"user"},
	reflect.TypeFor[corev1.PersistentVolumeClaimStatus]():   {"healthStatus"},
}

// DropNewerCoreFields clears, in the value ptr points to (a LeaderWorkerTemplate of either
// LeaderWorkerSet type, or anything that holds pod templates), every field of NewerCoreFields:
// what is left is what the controllers decode and hash.
func DropNewerCoreFields(ptr any) {
	dropNewer(reflect.ValueOf(ptr))
}

func dropNewer(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			dropNewer(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			dropNewer(v.Index(i))
		}
	case reflect.Struct:
		newer := NewerCoreFields[v.Type()]
		for i := range v.NumField() {
			f := v.Type().Field(i)
			fv := v.Field(i)
			if !f.IsExported() || !fv.CanSet() {
				continue
			}
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && slices.Contains(newer, name) {
				fv.SetZero()
				continue
			}
			dropNewer(fv)
		}
	}
}
