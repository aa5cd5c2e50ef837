package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/utils/ptr"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
	disaggutils "sigs.k8s.io/lws/pkg/utils/disaggregatedset"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// revisionLength is the length of the revision: the first 8 hex digits of the hash
// (revisionLength, pkg/utils/disaggregatedset/utils.go).
const revisionLength = 8

// ComputeRevision is the revision the DisaggregatedSet controller labels every role's
// LeaderWorkerSets with (disaggregatedset.x-k8s.io/revision) and names them after: a port of
// ComputeRevision (pkg/utils/disaggregatedset/utils.go), which is the same in v0.9.0 and in
// v0.10.0 (2161f38): the SHA-256 of the JSON list of {"name": role name, "template": role
// leaderWorkerTemplate} in the roles' order, its first 8 hex digits. Reconcile
// (pkg/controllers/disaggregatedset/disaggregatedset_controller.go, both versions) hashes the
// spec as the API server stores it: what was applied and the CRD's structural defaults (size,
// restartPolicy, a port's protocol, a gRPC probe's service, ...); there is no mutating webhook
// for the kind in either version. So the roles are hashed with those defaults filled in
// (storedTemplate): the plan has them, but the configuration that ValidateConfig checks (the
// role LeaderWorkerSets' names, which carry the revision) does not, and without them a
// template with a port hashes to another revision than the controller's. Nothing else of the spec is
// hashed: not replicas, scaling, slices, placementPolicy (v0.10.0 injects its affinity into the
// LeaderWorkerSets it creates, after hashing), rolloutStrategy, startupPolicy, networkConfig or
// the role's metadata. The LeaderWorkerTemplate type is the same in both versions, and so its
// JSON (built with k8s.io/api v0.36.2 and v0.36.3, whose JSON fields and tags agree; the
// fields k8s.io/api v0.37 adds are left out, storedTemplate).
func ComputeRevision(roles []disaggv1.DisaggregatedRoleSpec) string {
	type roleTemplate struct {
		Name     string                     `json:"name"`
		Template lwsv1.LeaderWorkerTemplate `json:"template"`
	}
	templates := make([]roleTemplate, len(roles))
	for i := range roles {
		templates[i] = roleTemplate{Name: roles[i].Name, Template: storedTemplate(roles[i].Spec.LeaderWorkerTemplate)}
	}
	data, err := json.Marshal(templates)
	if err != nil {
		return "" // as the controller: no revision
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:revisionLength]
}

// storedTemplate is a copy of lwt as the controller decodes and hashes it: without the fields
// its k8s.io/api v0.36 types lack (lwsrules.DropNewerCoreFields: this provider's are v0.37's,
// and a field only they have would change the revision at plan and never in the controller),
// and with the DisaggregatedSet CRD's structural defaults that the
// server writes into a role's leaderWorkerTemplate when they are unset
// (config/crd/bases/disaggregatedset.x-k8s.io_disaggregatedsets.yaml, v0.9.0 and v0.10.0): size,
// restartPolicy, subGroupPolicy.subGroupPolicyType, and inside the pod templates the defaults of
// lwsrules.TemplateDefaults. A stored or planned template has them already: unchanged.
func storedTemplate(lwt lwsv1.LeaderWorkerTemplate) lwsv1.LeaderWorkerTemplate {
	out := *lwt.DeepCopy()
	lwsrules.DropNewerCoreFields(&out)
	if out.Size == nil {
		out.Size = ptr.To[int32](1)
	}
	if out.RestartPolicy == "" {
		out.RestartPolicy = lwsv1.RecreateGroupOnPodRestart
	}
	if sg := out.SubGroupPolicy; sg != nil && sg.Type == nil {
		sg.Type = ptr.To(lwsv1.SubGroupPolicyTypeLeaderWorker)
	}
	if out.LeaderTemplate != nil {
		setTypeDefaults(reflect.ValueOf(&out.LeaderTemplate.Spec).Elem())
	}
	setTypeDefaults(reflect.ValueOf(&out.WorkerTemplate.Spec).Elem())
	return out
}

// setTypeDefaults fills, in the addressable value v and everything it holds, every unset field
// (the zero value: nil, "") of a struct type that lwsrules.TemplateDefaults names with the
// CRD's default.
func setTypeDefaults(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			setTypeDefaults(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			setTypeDefaults(v.Index(i))
		}
	case reflect.Struct:
		defaults := lwsrules.TemplateDefaults[v.Type()]
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if d, ok := defaults[name]; ok && fv.IsZero() {
				setDefault(fv, d)
				continue
			}
			setTypeDefaults(fv)
		}
	}
}

// setDefault sets field fv (a value or a pointer to one, of a type d converts to) to d.
func setDefault(fv reflect.Value, d any) {
	t := fv.Type()
	if t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		p.Elem().Set(reflect.ValueOf(d).Convert(t.Elem()))
		fv.Set(p)
		return
	}
	fv.Set(reflect.ValueOf(d).Convert(t))
}

// revisionObjects are the names of the LeaderWorkerSets the controllers create for the current
// revision of a set, with what decides the names of their worker StatefulSets.
type revisionObjects map[string]roleGroups

// roleGroups is what the worker StatefulSets of one role LeaderWorkerSet are named after.
type roleGroups struct {
	workers bool  // size > 1: each group has a worker StatefulSet
	groups  int64 // the groups the set asks for; -1 for an External role (the scaler's count)
}

// currentRevisionObjects names the LeaderWorkerSets of ds's current revision exactly as the
// controllers do: v0.9.0's <set>-<revision>-<role> (GenerateName, which v0.10.0 keeps as
// GenerateLegacyName for the slice 0 it adopts), and v0.10.0's <set>-<slice>-<revision>-<role>
// (GenerateName, pkg/utils/disaggregatedset/utils.go at 2161f38) for the slices 0..slices-1 only:
// those beyond are being deleted.
func currentRevisionObjects(ds *disaggv1.DisaggregatedSet) revisionObjects {
	revision := ComputeRevision(ds.Spec.Roles)
	slices := max(int(ptr.Deref(ds.Spec.Slices, 1)), 1)
	out := revisionObjects{}
	for i := range ds.Spec.Roles {
		role := &ds.Spec.Roles[i]
		g := roleGroups{workers: ptr.Deref(role.Spec.LeaderWorkerTemplate.Size, 1) > 1, groups: -1}
		if !External(role) {
			g.groups = int64(ReplicasOf(role))
		}
		out[disaggutils.GenerateName(ds.Name, role.Name, revision)] = g
		for slice := range slices {
			out[fmt.Sprintf("%s-%d-%s-%s", ds.Name, slice, revision, role.Name)] = g
		}
	}
	return out
}

// concerns says whether kind/name is one of the objects: a LeaderWorkerSet, its leader
// StatefulSet (the LeaderWorkerSet's name: leaderworkerset_controller.go) or the worker
// StatefulSet of one of its groups (the leader pod's name, <LeaderWorkerSet>-<group index>:
// pod_controller.go), a group the set asks for.
func (o revisionObjects) concerns(kind, name string) bool {
	switch kind {
	case "LeaderWorkerSet":
		_, ok := o[name]
		return ok
	case "StatefulSet":
		if _, ok := o[name]; ok {
			return true
		}
		i := strings.LastIndex(name, "-")
		if i < 0 {
			return false
		}
		g, ok := o[name[:i]]
		index, err := strconv.ParseInt(name[i+1:], 10, 64)
		return ok && g.workers && err == nil && index >= 0 && strconv.FormatInt(index, 10) == name[i+1:] &&
			(g.groups < 0 || index < g.groups)
	}
	return false
}

// RevisionObjectConcerns says whether kind/name is one of the objects of ds's current revision
// (its role LeaderWorkerSets and their StatefulSets), named exactly as the controllers name them.
func RevisionObjectConcerns(ds *disaggv1.DisaggregatedSet) func(kind, name string) bool {
	return currentRevisionObjects(ds).concerns
}
