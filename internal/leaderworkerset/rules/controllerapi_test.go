package rules

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"
	"sigs.k8s.io/yaml"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// releasedCRDSchema reads the openAPIV3Schema at path (property names, "items" for list
// elements) of a CRD of the released module (sigs.k8s.io/lws, the version in go.mod; its
// config/crd/bases, generated from its types built with k8s.io/api v0.36.2).
func releasedCRDSchema(t *testing.T, file string, path ...string) map[string]any {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/lws").Output()
	if err != nil {
		t.Fatalf("go list -m sigs.k8s.io/lws: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "bases", file))
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	s := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	for _, p := range path {
		if p == "items" {
			s, _ = s["items"].(map[string]any)
		} else {
			props, _ := s["properties"].(map[string]any)
			s, _ = props[p].(map[string]any)
		}
		if s == nil {
			t.Fatalf("%s: no schema at %v", file, path)
		}
	}
	return s
}

// schemaWalk compares a Go type with the CRD schema of its JSON form: the fields the schema
// does not declare (the CRD prunes them) are reported as "Type.field".
type schemaWalk struct {
	undeclared, declaredNewer map[string]bool
	seenNewer                 map[string]bool
}

var (
	leafTypes = map[reflect.Type]bool{reflect.TypeFor[resource.Quantity](): true, reflect.TypeFor[intstr.IntOrString](): true,
		reflect.TypeFor[metav1.Time](): true, reflect.TypeFor[runtime.RawExtension](): true}
	objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()
)

func (w *schemaWalk) walk(t reflect.Type, s map[string]any, depth int) {
	if depth > 40 || s == nil || leafTypes[t] {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		w.walk(t.Elem(), s, depth+1)
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			items, _ := s["items"].(map[string]any)
			w.walk(t.Elem(), items, depth+1)
		}
	case reflect.Map:
		values, _ := s["additionalProperties"].(map[string]any)
		w.walk(t.Elem(), values, depth+1)
	case reflect.Struct:
		props, ok := s["properties"].(map[string]any)
		if !ok {
			return // x-kubernetes-preserve-unknown-fields or an opaque value
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
				w.walk(f.Type, s, depth+1)
				continue
			}
			key := t.Name() + "." + name
			_, declared := props[name]
			if slices.Contains(NewerCoreFields[t], name) {
				w.seenNewer[key] = true
				if declared {
					w.declaredNewer[key] = true
				}
				continue
			}
			if !declared {
				// Embedded object metadata: the CRD keeps what the provider's schema has
				// (k8sschema.EmbeddedMetadataFields) and prunes the rest, which no plan carries.
				if t == objectMetaType && !slices.Contains(k8sschema.EmbeddedMetadataFields, name) {
					continue
				}
				w.undeclared[key] = true
				continue
			}
			child, _ := props[name].(map[string]any)
			w.walk(f.Type, child, depth+1)
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestNewerCoreFieldsAreWhatTheReleasedCRDsLack: the fields of a template's core types that
// the released CRDs do not declare (LeaderWorkerSet spec.leaderWorkerTemplate, DisaggregatedSet
// spec.roles[].spec.leaderWorkerTemplate) are exactly NewerCoreFields: a k8s.io/api upgrade that
// adds a template field fails here until the table has it, and a table entry the CRD declares
// (an upgrade of the released module) fails too.
func TestNewerCoreFieldsAreWhatTheReleasedCRDsLack(t *testing.T) {
	crds := map[string][]string{
		"leaderworkerset.x-k8s.io_leaderworkersets.yaml":   {"spec", "leaderWorkerTemplate"},
		"disaggregatedset.x-k8s.io_disaggregatedsets.yaml": {"spec", "roles", "items", "spec", "leaderWorkerTemplate"},
	}
	for file, path := range crds {
		w := &schemaWalk{undeclared: map[string]bool{}, declaredNewer: map[string]bool{}, seenNewer: map[string]bool{}}
		w.walk(reflect.TypeFor[releasedlws.LeaderWorkerTemplate](), releasedCRDSchema(t, file, path...), 0)
		if len(w.undeclared) > 0 {
			t.Errorf("%s: fields of the template types the CRD does not declare, missing from NewerCoreFields: %s", file, strings.Join(keys(w.undeclared), ", "))
		}
		if len(w.declaredNewer) > 0 {
			t.Errorf("%s: NewerCoreFields lists fields the CRD declares: %s", file, strings.Join(keys(w.declaredNewer), ", "))
		}
		var stale []string
		for typ, names := range NewerCoreFields {
			for _, n := range names {
				if !w.seenNewer[typ.Name()+"."+n] {
					stale = append(stale, typ.Name()+"."+n)
				}
			}
		}
		if len(stale) > 0 {
			t.Errorf("%s: NewerCoreFields lists fields no template type has: %s", file, strings.Join(stale, ", "))
		}
		if len(w.seenNewer) == 0 {
			t.Errorf("%s: the walk met no field of the table", file)
		}
	}
}

// withCoreFields gives the fixture's worker a probe of each kind, a volume and its mount, and an
// eviction responder; with newer, a field of each kind of NewerCoreFields in them.
func withCoreFields(lws *lwsv1.LeaderWorkerSet, newer bool) {
	spec := &lws.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec
	c := &spec.Containers[0]
	httpGet := &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(8000), Scheme: corev1.URISchemeHTTP}
	grpc := &corev1.GRPCAction{Port: 9000, Service: ptr.To("")}
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
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: emptyDir}},
		corev1.Volume{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: secret}})
	c.VolumeMounts = append(c.VolumeMounts, mount)
}

// TestRolloutIgnoresNewerCoreFields: adding fields only k8s.io/api v0.37 has to a running
// LeaderWorkerSet's template makes no new revision for the released controller, which never
// decodes them (DropNewerCoreFields); a field it has still does.
func TestRolloutIgnoresNewerCoreFields(t *testing.T) {
	oldObj := lwsfixture.VLLM("newer-core", 2, 4)
	withCoreFields(oldObj, false)
	SetDefaults(oldObj)
	newObj := lwsfixture.VLLM("newer-core", 2, 4)
	withCoreFields(newObj, true)
	SetDefaults(newObj)
	if r := PreviewRollout(newObj, oldObj); len(r.Changed) > 0 {
		t.Errorf("fields the controller never decodes plan a new revision: %v", r.Changed)
	}
	newObj.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.Containers[0].Image = "vllm/vllm-openai:v0.99.0"
	if r := PreviewRollout(newObj, oldObj); len(r.Changed) != 1 {
		t.Errorf("an image change: want 1 changed field, got %v", r.Changed)
	}
	// The planned object keeps them: only the revision leaves them out.
	if newObj.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.EvictionResponders == nil {
		t.Error("PreviewRollout cleared a field of the planned object")
	}
}

// TestNewerCoreFieldsWarnAndExplain: each field of NewerCoreFields set in a template is warned
// about at its own attribute (the released controllers never pass it on), and the apply's error
// for a CRD that does not declare it says why; other fields are neither.
func TestNewerCoreFieldsWarnAndExplain(t *testing.T) {
	warned := func(newer bool) []string {
		obj := lwsfixture.VLLM("newer-core", 2, 4)
		withCoreFields(obj, newer)
		SetDefaults(obj)
		_, warnings := checkConfig(obj, k8sschema.NullValue(node()))
		var out []string
		for _, w := range warnings {
			if w.Detail == NewerCoreFieldDetail {
				out = append(out, w.Path.String())
			}
		}
		sort.Strings(out)
		return out
	}
	const worker = "spec.leaderWorkerTemplate.workerTemplate.spec."
	want := []string{
		worker + "containers[0].livenessProbe.grpc.mode",
		worker + "containers[0].readinessProbe.httpGet.protocol",
		worker + "containers[0].volumeMounts[1].bindMountOptions",
		worker + "evictionResponders",
		worker + "volumes[1].emptyDir.mode",
		worker + "volumes[2].secret.defaultUser",
		worker + "volumes[2].secret.items[0].user",
	}
	if got := warned(true); !slices.Equal(got, want) {
		t.Errorf("warnings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if got := warned(false); len(got) > 0 {
		t.Errorf("warnings without a newer field: %v", got)
	}
	for path, newer := range map[string]bool{
		"spec.leaderWorkerTemplate.workerTemplate.spec.containers.readinessProbe.httpGet.protocol":         true,
		"spec.leaderWorkerTemplate.leaderTemplate.spec.initContainers.lifecycle.preStop.httpGet.protocol":  true,
		"spec.leaderWorkerTemplate.workerTemplate.spec.volumes.projected.sources.serviceAccountToken.user": true,
		"spec.leaderWorkerTemplate.volumeClaimTemplates.status.healthStatus":                               true,
		"spec.leaderWorkerTemplate.workerTemplate.spec.containers.readinessProbe.httpGet.path":             false,
		"spec.leaderWorkerTemplate.workerTemplate.spec.volumes.emptyDir.sizeLimit":                         false,
		"spec.groupIdentity": false,
	} {
		if got := undeclaredField(path) == NewerCoreFieldDetail; got != newer {
			t.Errorf("undeclaredField(%s) explains a Kubernetes 1.37 field: %v, want %v", path, got, newer)
		}
	}
}
