package disaggregatedset

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	disaggv1 "sigs.k8s.io/lws/api/disaggregatedset/v1"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"
	disaggutils "sigs.k8s.io/lws/pkg/utils/disaggregatedset"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset"
)

// Limits and messages of the DisaggregatedSet CRD of sigs.k8s.io/lws v0.9.0
// (api/disaggregatedset/v1/disaggregatedset_types.go markers, as generated into
// config/crd/bases/disaggregatedset.x-k8s.io_disaggregatedsets.yaml).
const (
	minRoles           = 2  // DisaggregatedSetSpec.Roles: +kubebuilder:validation:MinItems=2
	maxRoles           = 10 // +kubebuilder:validation:MaxItems=10
	maxRoleNameLength  = 63 // DisaggregatedRoleSpec.Name: +kubebuilder:validation:MaxLength=63
	roleNamePattern    = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	replicasRuleDetail = "replicas must be zero for all roles or non-zero for all roles"
)

var (
	roleNameRegexp = regexp.MustCompile(roleNamePattern)
	metadataPath   = field.NewPath("metadata")
	specPath       = field.NewPath("spec")
	rolesPath      = specPath.Child("roles")
)

// Validate returns the errors the API server would report for a defaulted DisaggregatedSet on
// create: object metadata, the CRD's schema rules, the DisaggregatedSet webhook, and for each
// role every rule that rejects the LeaderWorkerSet the controller creates from it (or its
// StatefulSets and pods), through the leaderworkerset package's own rules.
func Validate(ds *disaggv1.DisaggregatedSet) field.ErrorList {
	// Custom resources get the generic object metadata rules with a DNS-subdomain name
	// (k8s.io/apiextensions-apiserver@v0.37.2 pkg/registry/customresource/validator.go,
	// customResourceValidator.Validate -> validateObjectMetaDeclaratively, which runs
	// ValidateObjectMetaDeclaratively with NameIsDNSSubdomain).
	errs := apivalidation.ValidateObjectMeta(&ds.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	errs = append(errs, validateSchema(ds)...)
	errs = append(errs, validateRoles(ds)...)
	for i := range ds.Spec.Roles {
		errs = append(errs, validateRoleLeaderWorkerSet(ds, i)...)
	}
	return errs
}

// validateSchema ports the CRD's structural and CEL rules with the errors
// k8s.io/apiextensions-apiserver@v0.37.2 reports for them: the kube-openapi messages wrapped by
// pkg/apiserver/validation/validation.go kubeOpenAPIResultToFieldErrors, list-map keys by
// pkg/apiserver/schema/listtype/validation.go validateListMap, and the x-kubernetes-validations
// rule of DisaggregatedSetSpec by pkg/apiserver/schema/cel/validation.go (an object's value
// is omitted).
func validateSchema(ds *disaggv1.DisaggregatedSet) field.ErrorList {
	var errs field.ErrorList
	roles := ds.Spec.Roles
	switch {
	case len(roles) < minRoles:
		errs = append(errs, field.Invalid(rolesPath, int64(len(roles)),
			fmt.Sprintf("%s in body should have at least %d items", rolesPath, minRoles)))
	case len(roles) > maxRoles:
		errs = append(errs, field.TooMany(rolesPath, len(roles), maxRoles))
	}
	seen := map[string]int{}
	for i, role := range roles {
		namePath := rolesPath.Index(i).Child("name")
		switch {
		case role.Name == "":
			errs = append(errs, field.Invalid(namePath, "", fmt.Sprintf("%s in body should be at least 1 chars long", namePath)))
		case len(role.Name) > maxRoleNameLength:
			errs = append(errs, field.TooLong(namePath, "", maxRoleNameLength))
		}
		if role.Name != "" && !roleNameRegexp.MatchString(role.Name) {
			errs = append(errs, field.Invalid(namePath, role.Name,
				fmt.Sprintf("%s in body should match '%s'", namePath, roleNamePattern)))
		}
		// listType=map, listMapKey=name: the second occurrence of a key is reported, once.
		seen[role.Name]++
		if seen[role.Name] == 2 {
			errs = append(errs, field.Duplicate(rolesPath.Index(i), map[string]any{"name": role.Name}))
		}
	}
	// +kubebuilder:validation:XValidation:rule="self.roles.all(r, !has(r.spec.replicas) ||
	// r.spec.replicas == 0) || self.roles.all(r, has(r.spec.replicas) && r.spec.replicas > 0)".
	// After the CRD default (replicas 1) every role has replicas.
	allZero, allPositive := true, true
	for _, role := range roles {
		r := replicasOf(&role)
		allZero = allZero && r == 0
		allPositive = allPositive && r > 0
	}
	if !allZero && !allPositive {
		errs = append(errs, field.Invalid(specPath, field.OmitValueType{}, replicasRuleDetail))
	}
	return errs
}

// validRoleName reports whether the CRD accepts name as a role name.
func validRoleName(name string) bool {
	return name != "" && len(name) <= maxRoleNameLength && roleNameRegexp.MatchString(name)
}

func replicasOf(role *disaggv1.DisaggregatedRoleSpec) int32 {
	if role.Spec.Replicas == nil {
		return 1
	}
	return *role.Spec.Replicas
}

// validateRoles applies the DisaggregatedSet validating webhook, the same on create and update. Of
// validateRoleRolloutStrategy only the partition check is kept: a rolloutStrategy.type other than
// RollingUpdate is never reached, because the CRD's enum on the embedded LeaderWorkerSet spec rejects such a
// type first (admission webhooks run after schema validation), and that enum is reported through the role's
// LeaderWorkerSet rules at the same field.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/webhooks/disaggregatedset/disaggregatedset_webhook.go
// DisaggregatedSetWebhook.validateRoles, with DisaggregatedSetWebhook.validateRoleRolloutStrategy inline.
func validateRoles(ds *disaggv1.DisaggregatedSet) field.ErrorList {
	var errs field.ErrorList
	for i, role := range ds.Spec.Roles {
		ru := role.Spec.RolloutStrategy.RollingUpdateConfiguration
		if ru != nil && ru.Partition != nil && *ru.Partition != 0 {
			errs = append(errs, field.Forbidden(
				rolesPath.Index(i).Child("spec", "rolloutStrategy", "rollingUpdateConfiguration", "partition"),
				"partition is not supported by DisaggregatedSet; rolling updates are managed across roles by the DisaggregatedSet controller"))
		}
	}
	return errs
}

// RoleLeaderWorkerSet returns the LeaderWorkerSet the DisaggregatedSet controller of
// sigs.k8s.io/lws v0.9.0 creates for role i, in the provider's LeaderWorkerSet type, as
// LeaderWorkerSetManager.Create builds it (pkg/controllers/disaggregatedset/lws_manager.go):
// named disaggutils.GenerateName(<set>, <role>, <revision of all role templates>), the role's
// metadata labels merged with disaggutils.GenerateLabels (the generated ones win) on the object
// and on both pod templates, the role's annotations, and the role's spec with its replicas.
//
// Port of sigs.k8s.io/lws@v0.9.0 pkg/controllers/disaggregatedset/lws_manager.go
// LeaderWorkerSetManager.Create (the object it builds).
func RoleLeaderWorkerSet(ds *disaggv1.DisaggregatedSet, i int) (*lwsv1.LeaderWorkerSet, error) {
	role := ds.Spec.Roles[i]
	revision := disaggutils.ComputeRevision(ds.Spec.Roles)
	labels := disaggutils.GenerateLabels(ds.Name, role.Name, revision)
	spec := *role.Spec.DeepCopy()
	spec.Replicas = ptr.To(replicasOf(&role))
	lwt := &spec.LeaderWorkerTemplate
	lwt.WorkerTemplate.Labels = mergeLabels(lwt.WorkerTemplate.Labels, labels)
	if lwt.LeaderTemplate != nil {
		lwt.LeaderTemplate.Labels = mergeLabels(lwt.LeaderTemplate.Labels, labels)
	}
	released := releasedlws.LeaderWorkerSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:        disaggutils.GenerateName(ds.Name, role.Name, revision),
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
// leaderworkerset.ValidateAll) on the LeaderWorkerSet the controller creates for role i, and
// reports each error at the DisaggregatedSet field it comes from: the role's spec and metadata,
// or the set's metadata.name for the derived name. Errors on the generated labels are left
// out: each generated value is a part of the derived name, whose error says it all.
func validateRoleLeaderWorkerSet(ds *disaggv1.DisaggregatedSet, i int) field.ErrorList {
	lws, err := RoleLeaderWorkerSet(ds, i)
	if err != nil {
		return field.ErrorList{field.InternalError(rolesPath.Index(i), err)}
	}
	leaderworkerset.SetDefaults(lws)
	role := ds.Spec.Roles[i]
	rolePath := rolesPath.Index(i)
	generated := map[string]bool{}
	for k, v := range disaggutils.GenerateLabels(ds.Name, role.Name, lws.Labels[disaggv1.RevisionLabelKey]) {
		generated[k], generated[v] = true, true
	}
	var errs field.ErrorList
	for _, e := range leaderworkerset.ValidateAll(lws) {
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
			detail := e.Detail
			if m := nameLimit.FindStringSubmatch(detail); m != nil {
				limit, _ := strconv.Atoi(m[1])
				detail = strings.Replace(detail, m[0], fmt.Sprintf("use a DisaggregatedSet name of at most %d characters (or a shorter role name)",
					limit-(len(lws.Name)-len(ds.Name))), 1)
			}
			out.Detail = fmt.Sprintf("the LeaderWorkerSet %q that the controller creates for role %q (<name>-<revision>-<role>) is invalid: %s",
				lws.Name, role.Name, detail)
		case "metadata.namespace":
			continue // the set's own namespace, checked with its metadata
		default: // metadata.labels, metadata.annotations and spec... are the role's
			out.Field = rolePath.String() + "." + e.Field
		}
		errs = append(errs, &out)
	}
	return errs
}

// checkConfig rejects an explicit empty startupPolicy or rolloutStrategy.type: the CRD's
// defaults only fill absent fields, there is no mutating webhook, and the CRD's enums refuse
// "". SetDefaults would replace them before Validate sees them. It also passes on
// kubeinfer_leaderworkerset's warnings on each role's LeaderWorkerSet (literal secrets in env
// values), at the role's attributes.
func checkConfig(obj runtime.Object, config tftypes.Value) (field.ErrorList, []kube.Warning) {
	ds := kube.As[*disaggv1.DisaggregatedSet](obj)
	var errs field.ErrorList
	var warnings []kube.Warning
	for i := range ds.Spec.Roles {
		lws, err := RoleLeaderWorkerSet(ds, i)
		if err != nil {
			continue // reported by Validate
		}
		// A null configuration: only the rules on the object itself, not on how it was written.
		_, ws := leaderworkerset.Kind.CheckConfig(lws, k8sschema.NullValue(leaderworkerset.Kind.Node()))
		for _, w := range ws {
			w.Path = underRole(i, w.Path)
			warnings = append(warnings, w)
		}
	}
	for i, role := range ds.Spec.Roles {
		explicit := func(path string) bool {
			v, ok := k8sschema.ValueAt(node(), config, fmt.Sprintf("spec.roles[%d].spec.%s", i, path))
			return ok && !v.IsNull()
		}
		if role.Spec.StartupPolicy == "" && explicit("startupPolicy") {
			errs = append(errs, field.NotSupported(rolesPath.Index(i).Child("spec", "startupPolicy"), "",
				[]string{string(releasedlws.LeaderCreatedStartupPolicy), string(releasedlws.LeaderReadyStartupPolicy)}))
		}
		if role.Spec.RolloutStrategy.Type == "" && explicit("rolloutStrategy.type") {
			errs = append(errs, field.NotSupported(rolesPath.Index(i).Child("spec", "rolloutStrategy", "type"), "",
				[]string{string(releasedlws.RollingUpdateStrategyType)}))
		}
	}
	return errs, warnings
}

// indexSuffix is a list index at the end of a field path segment ("containers[0]").
var indexSuffix = regexp.MustCompile(`\[(\d+)\]`)

// underRole returns the path p of role i's LeaderWorkerSet as a path of the set:
// spec.roles[i].<p>. Segments are JSON names, with list indices only (no map keys).
func underRole(i int, p *field.Path) *field.Path {
	out := rolesPath.Index(i)
	for _, seg := range strings.Split(p.String(), ".") {
		name, _, _ := strings.Cut(seg, "[")
		out = out.Child(name)
		for _, m := range indexSuffix.FindAllStringSubmatch(seg, -1) {
			n, _ := strconv.Atoi(m[1])
			out = out.Index(n)
		}
	}
	return out
}
