package rules

import (
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
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

// NewerCoreFieldsSet lists the fields of NewerCoreFields that are set in the value ptr points
// to, as paths below root.
func NewerCoreFieldsSet(ptr any, root *field.Path) []*field.Path {
	var out []*field.Path
	newerSet(reflect.ValueOf(ptr), root, &out)
	return out
}

func newerSet(v reflect.Value, p *field.Path, out *[]*field.Path) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			newerSet(v.Elem(), p, out)
		}
	case reflect.Slice:
		for i := range v.Len() {
			newerSet(v.Index(i), p.Index(i), out)
		}
	case reflect.Struct:
		newer := NewerCoreFields[v.Type()]
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case f.Anonymous && (name == "" || strings.Contains(opts, "inline")):
				newerSet(v.Field(i), p, out)
			case name == "" || name == "-":
			case slices.Contains(newer, name):
				if !v.Field(i).IsZero() {
					*out = append(*out, p.Child(name))
				}
			default:
				newerSet(v.Field(i), p.Child(name), out)
			}
		}
	}
}

// IsNewerCoreField says whether the JSON path (without list indexes) of a field of the Go type
// root is one of NewerCoreFields.
func IsNewerCoreField(root reflect.Type, path string) bool {
	t := root
	names := strings.Split(path, ".")
	for i, name := range names {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return false
		}
		declaring, f, ok := jsonField(t, name)
		if !ok {
			return false
		}
		if i == len(names)-1 {
			return slices.Contains(NewerCoreFields[declaring], name)
		}
		t = f.Type
	}
	return false
}

// jsonField finds the field of struct t (or of the structs it inlines) with JSON name name, and
// the struct type that declares it.
func jsonField(t reflect.Type, name string) (reflect.Type, reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		n, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && (n == "" || strings.Contains(opts, "inline")) {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if d, sf, ok := jsonField(ft, name); ok {
				return d, sf, true
			}
			continue
		}
		if n == name && f.IsExported() {
			return t, f, true
		}
	}
	return nil, reflect.StructField{}, false
}

// newerCoreFieldWarnings warns of each field of NewerCoreFields set in the template lwt (at
// path lwtPath): it never reaches the groups under the released controllers.
func newerCoreFieldWarnings(lwt any, at *field.Path) []kindrules.Warning {
	var out []kindrules.Warning
	for _, p := range NewerCoreFieldsSet(lwt, at) {
		out = append(out, kindrules.Warning{Path: p, Summary: "Field the released LeaderWorkerSet controllers never pass on",
			Detail: NewerCoreFieldDetail})
	}
	return out
}

// NewerCoreFieldDetail explains a field of NewerCoreFields, in a plan's warning and in the
// apply's error when the installed CRD does not declare it.
var NewerCoreFieldDetail = "This is a field of the Kubernetes 1.37 API (k8s.io/api v0.37, an alpha feature) that the types " +
	"of the released LeaderWorkerSet controllers and CRDs (" + ReleasedAPI + " and " + NewestRelease + ", built with k8s.io/api v0.36) " +
	"do not have: a released CRD refuses the apply (\"field not declared in schema\"), and under a CRD that declares it the " +
	"controllers drop it when they read the object, so it never reaches the StatefulSets and pods (and changing it " +
	"restarts no group). Remove it from the configuration."
