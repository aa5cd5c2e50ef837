package rules

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	releasedlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// Limits and messages of the DisaggregatedSet CRD of sigs.k8s.io/lws v0.9.0
// (api/disaggregatedset/v1/disaggregatedset_types.go markers, as generated into
// config/crd/bases/disaggregatedset.x-k8s.io_disaggregatedsets.yaml).
const (
	minRoles          = 2  // DisaggregatedSetSpec.Roles: +kubebuilder:validation:MinItems=2
	maxRoles          = 10 // +kubebuilder:validation:MaxItems=10
	maxRoleNameLength = 63 // DisaggregatedRoleSpec.Name: +kubebuilder:validation:MaxLength=63
	roleNamePattern   = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// The v0.10.0 rule (DisaggregatedSetSpec +kubebuilder:validation:XValidation) covers the roles
	// that are not External; for a set without External roles it is the v0.9.0 rule, whose message
	// said "all roles" instead.
	replicasRuleDetail = "replicas must be zero for all non-External roles or non-zero for all non-External roles"

	// v0.10.0: DisaggregatedSetSpec.Slices +kubebuilder:validation:Minimum=1, Maximum=100.
	minSlices = 1
	maxSlices = 100
	// v0.10.0 webhook: the role scaler's name "<set>-<role>" within the 253 characters of a name.
	maxScalerNameLength = 253
)

// Enums of the v0.10.0 CRD: PlacementPolicy.Type (+kubebuilder:validation:Enum=None;ExclusiveSlice;
// ExclusiveTopology) and RoleScalingMode (+kubebuilder:validation:Enum=Static;External).
var (
	placementTypes = []string{string(disaggv1.PlacementNone), string(disaggv1.PlacementExclusiveSlice), string(disaggv1.PlacementExclusiveTopology)}
	scalingModes   = []string{string(disaggv1.RoleScalingStatic), string(disaggv1.RoleScalingExternal)}
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
	return unique(errs)
}

// unique drops repeated errors: the v0.10.0 webhook's maxSurge/maxUnavailable rule is also a rule
// of each role's LeaderWorkerSet, reported at the same field with the same message.
func unique(errs field.ErrorList) field.ErrorList {
	seen := map[string]bool{}
	out := errs[:0]
	for _, e := range errs {
		if k := e.Error(); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
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
	// +kubebuilder:validation:XValidation:rule="self.roles.filter(r, !has(r.scaling) ||
	// r.scaling.mode != 'External').all(r, !has(r.spec.replicas) || r.spec.replicas == 0) || ..."
	// (v0.10.0; v0.9.0 had the same rule over every role). After the CRD default (replicas 1)
	// every role has replicas.
	allZero, allPositive := true, true
	for _, role := range roles {
		if External(&role) {
			continue
		}
		r := ReplicasOf(&role)
		allZero = allZero && r == 0
		allPositive = allPositive && r > 0
	}
	if !allZero && !allPositive {
		errs = append(errs, field.Invalid(specPath, field.OmitValueType{}, replicasRuleDetail))
	}
	return append(errs, validateSchemaV010(ds)...)
}

// validateSchemaV010 ports the schema rules of the fields v0.10.0 adds
// (api/disaggregatedset/v1/disaggregatedset_types.go at v0.10.0, generated into
// config/crd/bases/disaggregatedset.x-k8s.io_disaggregatedsets.yaml) with the errors
// k8s.io/apiextensions-apiserver@v0.37.2 pkg/apiserver/validation/validation.go
// kubeOpenAPIResultToFieldErrors reports: the kube-openapi minimum and maximum messages as
// Invalid, an enum as NotSupported.
func validateSchemaV010(ds *disaggv1.DisaggregatedSet) field.ErrorList {
	var errs field.ErrorList
	if s := ds.Spec.Slices; s != nil {
		p := specPath.Child("slices")
		switch {
		case *s < minSlices:
			errs = append(errs, field.Invalid(p, int64(*s), fmt.Sprintf("%s in body should be greater than or equal to %d", p, minSlices)))
		case *s > maxSlices:
			errs = append(errs, field.Invalid(p, int64(*s), fmt.Sprintf("%s in body should be less than or equal to %d", p, maxSlices)))
		}
	}
	if pp := ds.Spec.PlacementPolicy; pp != nil && !slices.Contains(placementTypes, string(pp.Type)) {
		errs = append(errs, field.NotSupported(specPath.Child("placementPolicy", "type"), string(pp.Type), placementTypes))
	}
	for i, role := range ds.Spec.Roles {
		if sc := role.Scaling; sc != nil && !slices.Contains(scalingModes, string(sc.Mode)) {
			errs = append(errs, field.NotSupported(rolesPath.Index(i).Child("scaling", "mode"), string(sc.Mode), scalingModes))
		}
	}
	return errs
}

// validRoleName reports whether the CRD accepts name as a role name.
func validRoleName(name string) bool {
	return name != "" && len(name) <= maxRoleNameLength && roleNameRegexp.MatchString(name)
}

func ReplicasOf(role *disaggv1.DisaggregatedRoleSpec) int32 {
	if role.Spec.Replicas == nil {
		return 1
	}
	return *role.Spec.Replicas
}

// validateRoles applies the DisaggregatedSet validating webhook, the same on create and update
// (ValidateCreate and ValidateUpdate both run validate and validatePlacement). Of
// validateRoleRolloutStrategy's type check nothing is kept: a rolloutStrategy.type other than
// RollingUpdate is never reached, because the CRD's enum on the embedded LeaderWorkerSet spec rejects such a
// type first (admission webhooks run after schema validation), and that enum is reported through the role's
// LeaderWorkerSet rules at the same field.
//
// Port of sigs.k8s.io/lws@v0.10.0 pkg/webhooks/disaggregatedset/disaggregatedset_webhook.go
// DisaggregatedSetWebhook.validate (partition: validateRoleRolloutStrategy, v0.9.0 too; maxSurge and
// maxUnavailable both 0: validateRoleMaxSurgeUnavailable, and the External rules, both new in v0.10.0)
// and DisaggregatedSetWebhook.validatePlacement (v0.10.0).
func validateRoles(ds *disaggv1.DisaggregatedSet) field.ErrorList {
	var errs field.ErrorList
	hasExternal := false
	for i, role := range ds.Spec.Roles {
		rolePath := rolesPath.Index(i)
		if ru := role.Spec.RolloutStrategy.RollingUpdateConfiguration; ru != nil {
			rucPath := rolePath.Child("spec", "rolloutStrategy", "rollingUpdateConfiguration")
			if ru.Partition != nil && *ru.Partition != 0 {
				errs = append(errs, field.Forbidden(rucPath.Child("partition"),
					"partition is not supported by DisaggregatedSet; rolling updates are managed across roles by the DisaggregatedSet controller"))
			}
			errs = append(errs, validateRoleMaxSurgeUnavailable(ru, role.Spec.Replicas, rucPath)...)
		}
		if !External(&role) {
			continue
		}
		hasExternal = true
		if name := ScalerName(ds.Name, role.Name); len(name) > maxScalerNameLength {
			errs = append(errs, field.Invalid(rolePath.Child("name"), role.Name,
				fmt.Sprintf("would produce scaler name %q exceeding %d characters", name, maxScalerNameLength)))
		}
	}
	if hasExternal && ds.Spec.Slices != nil && *ds.Spec.Slices > 1 {
		errs = append(errs, field.Forbidden(specPath.Child("slices"),
			"spec.slices > 1 is not supported while any role has scaling.mode: External (alpha restriction)"))
	}
	return append(errs, validatePlacement(ds)...)
}

// validateRoleMaxSurgeUnavailable refuses maxSurge and maxUnavailable that both come to 0 for a
// role with replicas: the LeaderWorkerSet webhook's rule, which the v0.10.0 DisaggregatedSet webhook
// applies to the set itself (the role's LeaderWorkerSet rules report the same error at the same
// field, once). Invalid values are left to those rules (the set's webhook reports the same ones
// and skips the pair check then).
//
// Port of sigs.k8s.io/lws@v0.10.0 pkg/webhooks/disaggregatedset/disaggregatedset_webhook.go
// validateRoleMaxSurgeUnavailable.
func validateRoleMaxSurgeUnavailable(ru *releasedlws.RollingUpdateConfiguration, replicas *int32, rucPath *field.Path) field.ErrorList {
	if replicas == nil || *replicas == 0 {
		return nil
	}
	for _, v := range []intstr.IntOrString{ru.MaxUnavailable, ru.MaxSurge} {
		if !validIntOrPercent(v) {
			return nil
		}
	}
	unavailable, err1 := intstr.GetScaledValueFromIntOrPercent(&ru.MaxUnavailable, int(*replicas), false)
	surge, err2 := intstr.GetScaledValueFromIntOrPercent(&ru.MaxSurge, int(*replicas), true)
	if err1 != nil || err2 != nil || unavailable != 0 || surge != 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(rucPath.Child("maxUnavailable"), ru.MaxUnavailable.String(), "must not be 0 when `maxSurge` is 0")}
}

// validIntOrPercent: a non-negative integer or a percentage of at most 100% (the webhook's
// ValidatePositiveIntOrPercent and IsNotMoreThan100Percent, pkg/webhooks of v0.10.0).
func validIntOrPercent(v intstr.IntOrString) bool {
	switch v.Type {
	case intstr.Int:
		return v.IntVal >= 0
	case intstr.String:
		if len(utilvalidation.IsValidPercent(v.StrVal)) > 0 {
			return false
		}
		pct, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
		return err == nil && pct <= 100
	}
	return false
}

// validatePlacement: a placement policy other than None needs a topology key, and no role may
// carry a LeaderWorkerSet exclusive-topology annotation (group or subgroup level) on its metadata
// or on its leader or worker pod template.
//
// Port of sigs.k8s.io/lws@v0.10.0 pkg/webhooks/disaggregatedset/disaggregatedset_webhook.go
// DisaggregatedSetWebhook.validatePlacement and roleExclusiveTopologyAnnotation.
func validatePlacement(ds *disaggv1.DisaggregatedSet) field.ErrorList {
	pp := ds.Spec.PlacementPolicy
	if pp == nil || pp.Type == disaggv1.PlacementNone || pp.Type == "" {
		return nil
	}
	var errs field.ErrorList
	ppPath := specPath.Child("placementPolicy")
	if pp.Topology == "" {
		errs = append(errs, field.Required(ppPath.Child("topology"), "topology is required when type is not None"))
	}
	for i, role := range ds.Spec.Roles {
		if key, ok := roleExclusiveTopologyAnnotation(&role); ok {
			errs = append(errs, field.Forbidden(rolesPath.Index(i),
				fmt.Sprintf("the %q annotation must not be combined with a non-None spec.placementPolicy.type (%s)", key, pp.Type)))
		}
	}
	return errs
}

// roleExclusiveTopologyAnnotation is the first exclusive-topology annotation key (group, then
// subgroup level) a role carries on its metadata or either pod template.
func roleExclusiveTopologyAnnotation(role *disaggv1.DisaggregatedRoleSpec) (string, bool) {
	lwt := role.Spec.LeaderWorkerTemplate
	for _, key := range []string{lwsv1.ExclusiveKeyAnnotationKey, lwsv1.SubGroupExclusiveKeyAnnotationKey} {
		if _, ok := role.Annotations[key]; ok {
			return key, true
		}
		if lwt.LeaderTemplate != nil {
			if _, ok := lwt.LeaderTemplate.Annotations[key]; ok {
				return key, true
			}
		}
		if _, ok := lwt.WorkerTemplate.Annotations[key]; ok {
			return key, true
		}
	}
	return "", false
}

// checkConfig rejects an explicit empty startupPolicy or rolloutStrategy.type: the CRD's
// defaults only fill absent fields, there is no mutating webhook, and the CRD's enums refuse
// "". SetDefaults would replace them before Validate sees them. It also passes on
// kubeinfer_leaderworkerset's warnings on each role's LeaderWorkerSet (literal secrets in env
// values), at the role's attributes.
func checkConfig(obj runtime.Object, config tftypes.Value) (field.ErrorList, []kindrules.Warning) {
	ds := kindrules.As[*disaggv1.DisaggregatedSet](obj)
	var errs field.ErrorList
	var warnings []kindrules.Warning
	for i := range ds.Spec.Roles {
		lws, err := RoleLeaderWorkerSet(ds, i)
		if err != nil {
			continue // reported by Validate
		}
		// A null configuration: only the rules on the object itself, not on how it was written.
		_, ws := lwsrules.Kind.CheckConfig(lws, k8sschema.NullValue(lwsrules.Kind.Node()))
		for _, w := range ws {
			if w.Path.String() == "metadata.name" {
				continue // the derived name: roleNameWarnings says it of the set's name
			}
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
		if role.Scaling != nil && role.Scaling.Mode == "" && written(config, fmt.Sprintf("spec.roles[%d].scaling.mode", i)) {
			errs = append(errs, field.NotSupported(rolesPath.Index(i).Child("scaling", "mode"), "", scalingModes))
		}
	}
	if pp := ds.Spec.PlacementPolicy; pp != nil && pp.Type == "" && written(config, "spec.placementPolicy.type") {
		errs = append(errs, field.NotSupported(specPath.Child("placementPolicy", "type"), "", placementTypes))
	}
	newer := UsesNewerAPI(ds)
	for i := range ds.Spec.Roles {
		if hasNameError(validateRoleLeaderWorkerSetAs(ds, i, newer)) {
			continue // an error already
		}
		for _, detail := range roleNameWarnings(ds, i, newer) {
			warnings = append(warnings, kindrules.Warning{Path: field.NewPath("metadata", "name"),
				Summary: "Name may be too long for the controller's objects", Detail: detail})
		}
	}
	warnings = append(warnings, newerNameWarnings(ds)...)
	return errs, warnings
}

// newerNameWarnings warns about a set that uses no v0.10.0 field, whose names fit v0.9.0's form
// but not v0.10.0's: the v0.10.0 controller names slice 0's objects <set>-0-<revision>-<role>,
// two characters longer, and would fail to create them. Which controller runs is not known
// offline, so this is a warning, and the error stays the released controller's.
func newerNameWarnings(ds *disaggv1.DisaggregatedSet) []kindrules.Warning {
	if UsesNewerAPI(ds) || ds.Name == "" {
		return nil
	}
	var warnings []kindrules.Warning
	for i := range ds.Spec.Roles {
		if hasNameError(validateRoleLeaderWorkerSetAs(ds, i, false)) {
			continue // an error already
		}
		var details []string
		for _, e := range validateRoleLeaderWorkerSetAs(ds, i, true) {
			if e.Field == "metadata.name" {
				details = append(details, "would fail to create them: "+e.Detail)
				break
			}
		}
		if len(details) == 0 && len(roleNameWarnings(ds, i, false)) == 0 {
			for _, d := range roleNameWarnings(ds, i, true) {
				details = append(details, "may fail to create them: "+d)
			}
		}
		for _, d := range details {
			warnings = append(warnings, kindrules.Warning{Path: field.NewPath("metadata", "name"),
				Summary: "Name too long for the LeaderWorkerSet v0.10.0 controller",
				Detail:  "The LeaderWorkerSet v0.9.0 controller accepts this name, but v0.10.0's names each slice's objects <name>-<slice>-<revision>-<role> and " + d})
		}
	}
	return warnings
}

func hasNameError(errs field.ErrorList) bool {
	for _, e := range errs {
		if e.Field == "metadata.name" {
			return true
		}
	}
	return false
}

// checkWritten forbids replicas written on an External role, known or not. The v0.10.0 webhook
// warns about replicas above 1 there (validate); the provider does not send them at all
// (applyBody), and the state records the groups that run: no written value could be both
// planned and kept (Terraform requires a configured value in the plan and the state), as
// manage_replicas = false on a LeaderWorkerSet.
func checkWritten(config tftypes.Value) field.ErrorList {
	roles, ok := k8sschema.ValueAt(node(), config, "spec.roles")
	if !ok || !roles.IsKnown() || roles.IsNull() {
		return nil
	}
	var list []tftypes.Value
	if roles.As(&list) != nil {
		return nil
	}
	knownString := func(path string) string {
		v, ok := k8sschema.ValueAt(node(), config, path)
		var s string
		if ok && v.IsKnown() && !v.IsNull() {
			_ = v.As(&s)
		}
		return s
	}
	var errs field.ErrorList
	for i := range list {
		if knownString(fmt.Sprintf("spec.roles[%d].scaling.mode", i)) != string(disaggv1.RoleScalingExternal) ||
			!written(config, fmt.Sprintf("spec.roles[%d].spec.replicas", i)) {
			continue
		}
		var replicas *int64
		if v, ok := k8sschema.ValueAt(node(), config, fmt.Sprintf("spec.roles[%d].spec.replicas", i)); ok && v.IsKnown() {
			var f big.Float
			if v.As(&f) == nil {
				n, _ := f.Int64()
				replicas = &n
			}
		}
		errs = append(errs, field.Forbidden(rolesPath.Index(i).Child("spec", "replicas"),
			externalReplicasError(knownString("metadata.name"), knownString(fmt.Sprintf("spec.roles[%d].name", i)), replicas)))
	}
	return errs
}

// written reports whether the configuration sets the attribute at a JSON path.
func written(config tftypes.Value, path string) bool {
	v, ok := k8sschema.ValueAt(node(), config, path)
	return ok && !v.IsNull()
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
