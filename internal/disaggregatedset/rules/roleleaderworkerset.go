package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"
	disaggutils "sigs.k8s.io/lws/pkg/utils/disaggregatedset"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// Each role as the LeaderWorkerSet the controller creates from it (name, labels, spec), and
// that LeaderWorkerSet checked by the LeaderWorkerSet rules.

// RoleLeaderWorkerSet returns the LeaderWorkerSet the DisaggregatedSet controller of
// sigs.k8s.io/lws v0.9.0 creates for role i, in the provider's LeaderWorkerSet type, as
// LeaderWorkerSetManager.Create builds it (pkg/controllers/disaggregatedset/lws_manager.go):
// named disaggutils.GenerateName(<set>, <role>, <revision of all role templates>), the role's
// metadata labels merged with disaggutils.GenerateLabels (the generated ones win) on the object
// and on both pod templates, the role's annotations, and the role's spec with its replicas.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/controllers/disaggregatedset/lws_manager.go
// LeaderWorkerSetManager.Create (the object it builds).
//
// A set that uses a v0.10.0 field (slices, placementPolicy, a role's scaling) runs under the
// v0.10.0 controller, which names the object of each slice <set>-<slice>-<revision>-<role> and
// labels it with the slice (pkg/utils/disaggregatedset/utils.go GenerateName, GenerateLabels at
// v0.10.0): the object returned is then the highest slice's, the longest name.
func RoleLeaderWorkerSet(ds *disaggv1.DisaggregatedSet, i int) (*lwsv1.LeaderWorkerSet, error) {
	return roleLeaderWorkerSetAs(ds, i, UsesNewerAPI(ds))
}

// roleLeaderWorkerSetAs is RoleLeaderWorkerSet named as v0.10.0 does (newer) or as v0.9.0 does.
func roleLeaderWorkerSetAs(ds *disaggv1.DisaggregatedSet, i int, newer bool) (*lwsv1.LeaderWorkerSet, error) {
	role := ds.Spec.Roles[i]
	revision := ComputeRevision(ds.Spec.Roles)
	name, labels := roleObjectName(ds, role.Name, revision, newer)
	spec := *role.Spec.DeepCopy()
	spec.Replicas = ptr.To(ReplicasOf(&role))
	lwt := &spec.LeaderWorkerTemplate
	lwt.WorkerTemplate.Labels = mergeLabels(lwt.WorkerTemplate.Labels, labels)
	if lwt.LeaderTemplate != nil {
		lwt.LeaderTemplate.Labels = mergeLabels(lwt.LeaderTemplate.Labels, labels)
	}
	released := releasedlws.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Namespace:   ds.Namespace,
			Labels:      mergeLabels(role.Labels, labels),
			Annotations: maps.Clone(role.Annotations),
		},
		Spec: spec,
	}
	// The provider's LeaderWorkerSet type is a superset of the released one.
	data, err := json.Marshal(released)
	if err != nil {
		return nil, err
	}
	out := &lwsv1.LeaderWorkerSet{}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, err
	}
	return out, nil
}

// roleObjectName is the name and generated labels of a role's LeaderWorkerSet: v0.9.0's, or
// v0.10.0's for the highest slice (newer; usesNewerAPI says which the set needs). The
// leaderworkerset rules on that name then bound what the controllers derive from it: the leader
// StatefulSet (the same name), the worker StatefulSets (<lws>-<group>, only for groups of more
// than 1 pod), the pods, and the controller-revision-hash labels (<StatefulSet>-<hash>, the hash
// 8 to 10 characters), the longest of all. The controller's headless Service per
// LeaderWorkerSet (<lws>-prv, buildService in pkg/controllers/disaggregatedset/service_manager.go,
// lws 2161f38) is shorter than that label, so it never decides.
func roleObjectName(ds *disaggv1.DisaggregatedSet, role, revision string, newer bool) (string, map[string]string) {
	if !newer {
		return disaggutils.GenerateName(ds.Name, role, revision), disaggutils.GenerateLabels(ds.Name, role, revision)
	}
	slice := int(ptr.Deref(ds.Spec.Slices, 1)) - 1
	return fmt.Sprintf("%s-%d-%s-%s", ds.Name, slice, revision, role), map[string]string{
		"app":                     fmt.Sprintf("%s-%d-%s", ds.Name, slice, role),
		disaggv1.RoleLabelKey:     role,
		disaggv1.SliceLabelKey:    strconv.Itoa(slice),
		disaggv1.SetNameLabelKey:  ds.Name,
		disaggv1.RevisionLabelKey: revision,
	}
}

// nameForm is how the error on a too long derived name spells the controller's naming.
func nameForm(ds *disaggv1.DisaggregatedSet, newer bool) string {
	if newer {
		return fmt.Sprintf("<name>-<slice>-<revision>-<role>, slice %d the highest", ptr.Deref(ds.Spec.Slices, 1)-1)
	}
	return "<name>-<revision>-<role>"
}

// UsesNewerAPI reports whether the set uses a field that only v0.10.0 and later serve (slices
// above their default 1, a placement policy, a role's scaling): only such a controller can run
// it, and it names its objects by slice. A set without them may run under either release; its
// names are checked in v0.9.0's form, the released one, which v0.10.0's exceeds by the slice
// segment ("-0").
func UsesNewerAPI(ds *disaggv1.DisaggregatedSet) bool {
	if ptr.Deref(ds.Spec.Slices, 1) > 1 || ds.Spec.PlacementPolicy != nil {
		return true
	}
	for i := range ds.Spec.Roles {
		if ds.Spec.Roles[i].Scaling != nil {
			return true
		}
	}
	return false
}

// mergeLabels merges the generated labels over the user's.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/controllers/disaggregatedset/lws_manager.go mergeLabels.
func mergeLabels(user, generated map[string]string) map[string]string {
	out := make(map[string]string, len(user)+len(generated))
	maps.Copy(out, user)
	maps.Copy(out, generated)
	return out
}

// nameLimit is the suggestion of leaderworkerset's runtime-name rule, which counts in
// characters of the LeaderWorkerSet's name.
var nameLimit = regexp.MustCompile(`use a name of at most (\d+) characters`)

// validateRoleLeaderWorkerSet runs the LeaderWorkerSet rules (the LWS webhook's defaults, then
// lwsrules.ValidateAllScaledOnly: the controller only creates and scales a role's LeaderWorkerSet,
// so it never has the surge groups of the LeaderWorkerSet controller's rolling updates) on the
// LeaderWorkerSet the controller creates for role i, and
// reports each error at the DisaggregatedSet field it comes from: the role's spec and metadata,
// or the set's metadata.name for the derived name. Errors on the generated labels are left
// out: each generated value is a part of the derived name, whose error says it all.
func validateRoleLeaderWorkerSet(ds *disaggv1.DisaggregatedSet, i int) field.ErrorList {
	return validateRoleLeaderWorkerSetAs(ds, i, UsesNewerAPI(ds))
}

// validateRoleLeaderWorkerSetAs is validateRoleLeaderWorkerSet with the objects named as v0.10.0
// does (newer) or as v0.9.0 does.
func validateRoleLeaderWorkerSetAs(ds *disaggv1.DisaggregatedSet, i int, newer bool) field.ErrorList {
	lws, err := roleLeaderWorkerSetAs(ds, i, newer)
	if err != nil {
		return field.ErrorList{field.InternalError(rolesPath.Index(i), err)}
	}
	lwsrules.SetDefaults(lws)
	role := ds.Spec.Roles[i]
	rolePath := rolesPath.Index(i)
	generated := map[string]bool{}
	_, generatedLabels := roleObjectName(ds, role.Name, lws.Labels[disaggv1.RevisionLabelKey], newer)
	for k, v := range generatedLabels {
		generated[k], generated[v] = true, true
	}
	var errs field.ErrorList
	for _, e := range lwsrules.ValidateAllScaledOnly(lws) {
		if strings.HasSuffix(e.Field, ".labels") || strings.Contains(e.Field, ".labels[") {
			if s, ok := e.BadValue.(string); ok && generated[s] {
				continue
			}
		}
		out := *e
		switch e.Field {
		case "metadata.name":
			if ds.Name == "" || !validRoleName(role.Name) {
				continue // reported as the set's own missing name, or on the role's name
			}
			out.Field = "metadata.name"
			out.BadValue = ds.Name
			out.Detail = roleNameDetail(ds, lws, role.Name, newer, "is invalid: "+e.Detail)
		case "metadata.namespace":
			continue // the set's own namespace, checked with its metadata
		default: // metadata.labels, metadata.annotations and spec... are the role's
			out.Field = rolePath.String() + "." + e.Field
		}
		errs = append(errs, &out)
	}
	return errs
}

// roleNameDetail says a leaderworkerset name rule's detail of the LeaderWorkerSet lws that the
// controller creates for role, with its suggested name length turned into the set's.
func roleNameDetail(ds *disaggv1.DisaggregatedSet, lws *lwsv1.LeaderWorkerSet, role string, newer bool, detail string) string {
	if m := nameLimit.FindStringSubmatch(detail); m != nil {
		limit, _ := strconv.Atoi(m[1])
		detail = strings.Replace(detail, m[0], fmt.Sprintf("use a DisaggregatedSet name of at most %d characters (or a shorter role name)",
			limit-(len(lws.Name)-len(ds.Name))), 1)
	}
	return fmt.Sprintf("the LeaderWorkerSet %q that the controller creates for role %q (%s) %s", lws.Name, role, nameForm(ds, newer), detail)
}

// roleNameWarnings are the warnings of leaderworkerset's runtime-name rule on the
// LeaderWorkerSet the controller creates for role i (named as v0.10.0 does when newer): a
// name that fits only with a short revision hash.
func roleNameWarnings(ds *disaggv1.DisaggregatedSet, i int, newer bool) []string {
	if ds.Name == "" || !validRoleName(ds.Spec.Roles[i].Name) {
		return nil
	}
	lws, err := roleLeaderWorkerSetAs(ds, i, newer)
	if err != nil {
		return nil
	}
	lwsrules.SetDefaults(lws)
	var out []string
	for _, w := range lwsrules.ScaledOnlyRuntimeNameWarnings(lws) {
		out = append(out, roleNameDetail(ds, lws, ds.Spec.Roles[i].Name, newer, "may not come up: "+w.Detail))
	}
	return out
}
