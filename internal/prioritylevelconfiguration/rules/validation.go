package rules

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	flowcontrolv1beta3 "k8s.io/api/flowcontrol/v1beta3"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

const (
	// MaxQueues is the largest legal spec.limited.limitResponse.queuing.queues.
	// Source: k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go priorityLevelConfigurationQueuingMaxQueues.
	MaxQueues int32 = 10 * 1000 * 1000

	// MaxHashBits is the shuffle-sharding entropy budget.
	// Source: k8s.io/apiserver@v0.37.2 pkg/util/shufflesharding/shufflesharding.go MaxHashBits.
	MaxHashBits = 60

	// PreserveZeroConcurrencySharesAnnotation may not be present on any object
	// (it is a v1beta3 round-trip marker).
	// Source: k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidatePriorityLevelConfiguration.
	PreserveZeroConcurrencySharesAnnotation = flowcontrolv1beta3.PriorityLevelPreserveZeroConcurrencySharesKey
)

// Values listed in NotSupported errors, sorted as sets.String.List() sorts them.
var (
	supportedTypes              = []string{string(flowcontrolv1.PriorityLevelEnablementExempt), string(flowcontrolv1.PriorityLevelEnablementLimited)}
	supportedLimitResponseTypes = []string{string(flowcontrolv1.LimitResponseTypeQueue), string(flowcontrolv1.LimitResponseTypeReject)}
)

// RequiredEntropyBits is the number of hash bits shuffle sharding consumes
// for the given deck (queues) and hand size. Exact float64 port of
// k8s.io/apiserver@v0.37.2 pkg/util/shufflesharding/shufflesharding.go RequiredEntropyBits.
func RequiredEntropyBits(deckSize, handSize int) int {
	return int(math.Ceil(math.Log2(float64(deckSize)) * float64(handSize)))
}

// MaxHandSize returns the largest handSize that the API server accepts for
// the given number of queues (handSize <= queues and
// RequiredEntropyBits(queues, handSize) <= 60), or 0 when queues <= 0.
// Examples: 1->1, 8->8, 16->15, 32->12, 64->10, 128->8, 1024->6,
// 10,000,000->2. A handSize of 16 or more is never legal.
func MaxHandSize(queues int32) int32 {
	if queues <= 0 {
		return 0
	}
	h := queues
	if h > MaxHashBits {
		h = MaxHashBits
	}
	for ; h >= 1; h-- {
		if RequiredEntropyBits(int(queues), int(h)) <= MaxHashBits {
			return h
		}
	}
	return 0
}

// ValidatePriorityLevelConfiguration reports what kube-apiserver v1.37 rejects when the (already defaulted,
// see SetObjectDefaults_PriorityLevelConfiguration) object is created or updated. Paths use the JSON names
// rooted at metadata/spec. Provider-only rules are in ValidateExplicitZeros and ValidateProviderRules. status
// is not validated.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidatePriorityLevelConfiguration,
// merged with the enforced (beta) declarative rules of pkg/apis/flowcontrol/v1/zz_generated.validations.go
// (validateSpecDeclarative).
func ValidatePriorityLevelConfiguration(obj *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	if obj == nil {
		return nil
	}
	name := kindrules.EffectiveName(&obj.ObjectMeta)
	allErrs := kindrules.ValidateClusterScopedObjectMeta(&obj.ObjectMeta)

	if _, ok := obj.Annotations[PreserveZeroConcurrencySharesAnnotation]; ok {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("metadata").Child("annotations"),
			fmt.Sprintf("annotation '%s' is forbidden", PreserveZeroConcurrencySharesAnnotation)))
	}

	specPath := field.NewPath("spec")
	allErrs = append(allErrs, ValidatePriorityLevelConfigurationSpec(&obj.Spec, name, specPath)...)
	allErrs = append(allErrs, ValidateIfMandatoryPriorityLevelConfigurationObject(name, &obj.Spec, specPath)...)
	// status is reset by the server on create and kept on update, so it is not validated here.
	return mergeMissing(allErrs, validateSpecDeclarative(&obj.Spec, specPath))
}

// ValidatePriorityLevelConfigurationSpec validates spec.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidatePriorityLevelConfigurationSpec.
func ValidatePriorityLevelConfigurationSpec(spec *flowcontrolv1.PriorityLevelConfigurationSpec, name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if (name == flowcontrolv1.PriorityLevelConfigurationNameExempt) != (spec.Type == flowcontrolv1.PriorityLevelEnablementExempt) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), spec.Type, "must be 'Exempt' if and only if `name` is 'exempt'"))
	}
	switch spec.Type {
	case flowcontrolv1.PriorityLevelEnablementExempt:
		if spec.Limited != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("limited"), "must be nil if the type is not Limited"))
		}
		if spec.Exempt != nil {
			allErrs = append(allErrs, ValidateExemptPriorityLevelConfiguration(spec.Exempt, fldPath.Child("exempt"))...)
		}
	case flowcontrolv1.PriorityLevelEnablementLimited:
		if spec.Exempt != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("exempt"), "must be nil if the type is Limited"))
		}
		if spec.Limited == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("limited"), "must not be empty when type is Limited"))
		} else {
			allErrs = append(allErrs, ValidateLimitedPriorityLevelConfiguration(spec.Limited, fldPath.Child("limited"))...)
		}
	default:
		if len(spec.Type) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("type"), ""))
		} else {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), spec.Type, supportedTypes))
		}
	}
	return allErrs
}

// ValidateLimitedPriorityLevelConfiguration validates spec.limited.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateLimitedPriorityLevelConfiguration.
func ValidateLimitedPriorityLevelConfiguration(l *flowcontrolv1.LimitedPriorityLevelConfiguration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	// The internal type holds an int32; a nil v1 pointer converts to 0.
	if l.NominalConcurrencyShares != nil && *l.NominalConcurrencyShares < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("nominalConcurrencyShares"), *l.NominalConcurrencyShares, "must be a non-negative integer"))
	}
	allErrs = append(allErrs, ValidateLimitResponse(l.LimitResponse, fldPath.Child("limitResponse"))...)
	if l.LendablePercent != nil && (*l.LendablePercent < 0 || *l.LendablePercent > 100) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("lendablePercent"), *l.LendablePercent, "must be between 0 and 100, inclusive"))
	}
	if l.BorrowingLimitPercent != nil && *l.BorrowingLimitPercent < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("borrowingLimitPercent"), *l.BorrowingLimitPercent, "if specified, must be a non-negative integer"))
	}
	return allErrs
}

// ValidateExemptPriorityLevelConfiguration validates spec.exempt.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateExemptPriorityLevelConfiguration.
func ValidateExemptPriorityLevelConfiguration(e *flowcontrolv1.ExemptPriorityLevelConfiguration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if e.NominalConcurrencyShares != nil && *e.NominalConcurrencyShares < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("nominalConcurrencyShares"), *e.NominalConcurrencyShares, "must be a non-negative integer"))
	}
	if e.LendablePercent != nil && (*e.LendablePercent < 0 || *e.LendablePercent > 100) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("lendablePercent"), *e.LendablePercent, "must be between 0 and 100, inclusive"))
	}
	return allErrs
}

// ValidateLimitResponse validates spec.limited.limitResponse. The "type is not Limited"/"type is Limited"
// wording is the server's (known quirk).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateLimitResponse.
func ValidateLimitResponse(lr flowcontrolv1.LimitResponse, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch lr.Type {
	case flowcontrolv1.LimitResponseTypeReject:
		if lr.Queuing != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited"))
		}
	case flowcontrolv1.LimitResponseTypeQueue:
		if lr.Queuing == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited"))
		} else {
			allErrs = append(allErrs, ValidatePriorityLevelQueuingConfiguration(lr.Queuing, fldPath.Child("queuing"))...)
		}
	default:
		if len(lr.Type) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("type"), ""))
		} else {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), lr.Type, supportedLimitResponseTypes))
		}
	}
	return allErrs
}

// ValidatePriorityLevelQueuingConfiguration validates spec.limited.limitResponse.queuing. The handSize
// messages are the server's, with the largest legal handSize appended.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidatePriorityLevelQueuingConfiguration.
func ValidatePriorityLevelQueuingConfiguration(q *flowcontrolv1.QueuingConfiguration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if q.QueueLengthLimit <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
	}

	if q.Queues <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("queues"), q.Queues, "must be positive"))
	} else if q.Queues > MaxQueues {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("queues"), q.Queues, fmt.Sprintf("must not be greater than %d", MaxQueues)))
	}

	if q.HandSize <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("handSize"), q.HandSize, "must be positive"))
	} else if q.HandSize > q.Queues {
		msg := fmt.Sprintf("should not be greater than queues (%d)", q.Queues)
		if mh := MaxHandSize(q.Queues); mh > 0 && mh < q.Queues {
			msg += fmt.Sprintf("; the largest legal handSize for queues %d is %d", q.Queues, mh)
		}
		allErrs = append(allErrs, field.Invalid(fldPath.Child("handSize"), q.HandSize, msg))
	} else if entropy := RequiredEntropyBits(int(q.Queues), int(q.HandSize)); entropy > MaxHashBits {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("handSize"), q.HandSize,
			fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d; the largest legal handSize for queues %d is %d",
				q.Queues, q.HandSize, MaxHashBits, q.Queues, MaxHandSize(q.Queues))))
	}
	return allErrs
}

// ValidateIfMandatoryPriorityLevelConfigurationObject requires the built-in spec for a mandatory level.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/validation/validation.go ValidateIfMandatoryPriorityLevelConfigurationObject.
func ValidateIfMandatoryPriorityLevelConfigurationObject(name string, spec *flowcontrolv1.PriorityLevelConfigurationSpec, fldPath *field.Path) field.ErrorList {
	if !isMandatory(name) {
		return nil
	}
	want := bootstrapSpecs[name]
	if name == flowcontrolv1.PriorityLevelConfigurationNameExempt {
		// Only spec.exempt may differ from the fixed value.
		have := spec.DeepCopy()
		have.Exempt = want.Exempt
		if !apiequality.Semantic.DeepEqual(&want, have) {
			return field.ErrorList{field.Invalid(fldPath, *spec, fmt.Sprintf("spec of '%s' except the 'spec.exempt' field must equal the fixed value", name))}
		}
		return nil
	}
	if !apiequality.Semantic.DeepEqual(*spec, want) {
		return field.ErrorList{field.Invalid(fldPath, *spec, fmt.Sprintf("spec of '%s' must equal the fixed value", name))}
	}
	return nil
}

// validateSpecDeclarative reproduces the enforced (+k8s:beta) declarative rules of
// Validate_PriorityLevelConfigurationSpec and Validate_LimitResponse; it keeps its own name
// because it merges the two. They run regardless of spec.type, so they add
// errors the handwritten code skips (e.g. spec.limited set while type is "").
// The server reports them with an empty detail; a short detail is given here.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/v1/zz_generated.validations.go Validate_PriorityLevelConfigurationSpec
// and Validate_LimitResponse.
func validateSpecDeclarative(spec *flowcontrolv1.PriorityLevelConfigurationSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Exempt != nil && spec.Type != flowcontrolv1.PriorityLevelEnablementExempt {
		errs = append(errs, field.Forbidden(fldPath.Child("exempt"), "may only be set when type is Exempt"))
	}
	if spec.Limited != nil && spec.Type != flowcontrolv1.PriorityLevelEnablementLimited {
		errs = append(errs, field.Forbidden(fldPath.Child("limited"), "may only be set when type is Limited"))
	}
	if spec.Limited == nil && spec.Type == flowcontrolv1.PriorityLevelEnablementLimited {
		errs = append(errs, field.Required(fldPath.Child("limited"), ""))
	}
	if spec.Type == "" {
		errs = append(errs, field.Required(fldPath.Child("type"), ""))
	}
	if spec.Limited != nil {
		lr := spec.Limited.LimitResponse
		lrPath := fldPath.Child("limited", "limitResponse")
		if lr.Queuing != nil && lr.Type != flowcontrolv1.LimitResponseTypeQueue {
			errs = append(errs, field.Forbidden(lrPath.Child("queuing"), "may only be set when limitResponse.type is Queue"))
		}
		if lr.Queuing == nil && lr.Type == flowcontrolv1.LimitResponseTypeQueue {
			errs = append(errs, field.Required(lrPath.Child("queuing"), ""))
		}
		if lr.Type == "" {
			errs = append(errs, field.Required(lrPath.Child("type"), ""))
		}
	}
	return errs
}

// mergeMissing appends the declarative errors whose (type, field) the
// handwritten list does not already report. The server replaces covered
// handwritten errors by the matching declarative ones
// (k8s.io/apimachinery@v0.37.2 pkg/api/validate/errors.go FilterCoveredHandwrittenErrors),
// so the (type, field) set is the union. The ported handwritten errors carry no
// CoveredByDeclarative marks, so the union is taken with the matcher alone.
func mergeMissing(hw, dv field.ErrorList) field.ErrorList {
	sameTypeAndField := field.ErrorMatcher{}.ByType().ByField()
	for _, d := range dv {
		if !slices.ContainsFunc(hw, func(h *field.Error) bool { return sameTypeAndField.Matches(h, d) }) {
			hw = append(hw, d)
		}
	}
	return hw
}

// ExplicitQueuingFields says which queuing attributes the user wrote
// explicitly (non-null in the configuration).
type ExplicitQueuingFields struct {
	Queues, HandSize, QueueLengthLimit bool
}

// ValidateExplicitZeros is a provider-only rule (not a server rule): the API
// server silently replaces queues/handSize/queueLengthLimit 0 by 64/8/50,
// which would show up as a permanent diff. Call it BEFORE SetObjectDefaults_PriorityLevelConfiguration on an
// object built so that a 0 in those fields means "explicitly written as 0"
// (e.g. omitted attributes already carry a plan-time default). Use
// ValidateExplicitZerosFor when presence is tracked separately.
func ValidateExplicitZeros(obj *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	return ValidateExplicitZerosFor(obj, ExplicitQueuingFields{Queues: true, HandSize: true, QueueLengthLimit: true})
}

// ValidateExplicitZerosFor is ValidateExplicitZeros restricted to the
// attributes marked as explicitly set.
func ValidateExplicitZerosFor(obj *flowcontrolv1.PriorityLevelConfiguration, set ExplicitQueuingFields) field.ErrorList {
	if obj == nil || obj.Spec.Limited == nil || obj.Spec.Limited.LimitResponse.Queuing == nil {
		return nil
	}
	q := obj.Spec.Limited.LimitResponse.Queuing
	p := field.NewPath("spec", "limited", "limitResponse", "queuing")
	var errs field.ErrorList
	check := func(isSet bool, v int32, name string, def int32) {
		if isSet && v == 0 {
			errs = append(errs, field.Invalid(p.Child(name), v,
				fmt.Sprintf("an explicit 0 is not kept: the API server silently replaces 0 with its default (%d); omit the field or set a positive value", def)))
		}
	}
	check(set.Queues, q.Queues, "queues", DefaultQueues)
	check(set.HandSize, q.HandSize, "handSize", DefaultHandSize)
	check(set.QueueLengthLimit, q.QueueLengthLimit, "queueLengthLimit", DefaultQueueLengthLimit)
	return errs
}

// ValidateProviderRules holds provider-only errors, which the API server
// does not report at admission but which make the configuration unusable:
//   - metadata.namespace set: the type is cluster-scoped and the server
//     silently drops the namespace (rest.EnsureObjectNamespaceMatchesRequestNamespace),
//     so the configuration would never converge.
//   - a non-bootstrap level annotated apf.kubernetes.io/autoupdate-spec with a
//     value that parses as true: the APF bootstrap ensurer deletes it
//     (pkg/registry/flowcontrol/ensurer/strategy.go RemoveUnwantedObjects).
func ValidateProviderRules(obj *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	if obj == nil {
		return nil
	}
	var errs field.ErrorList
	if obj.Namespace != "" {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "namespace"),
			"not allowed on this type: PriorityLevelConfiguration is cluster-scoped and the API server silently drops metadata.namespace; remove it"))
	}
	if v, ok := obj.Annotations[AutoUpdateAnnotation]; ok && !IsBootstrap(obj.Name) {
		if b, err := strconv.ParseBool(v); err == nil && b {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "annotations").Key(AutoUpdateAnnotation),
				fmt.Sprintf("the API server deletes non-bootstrap priority levels carrying %s=%q (the APF bootstrap ensurer runs every minute); remove the annotation or set it to \"false\"", AutoUpdateAnnotation, v)))
		}
	}
	return errs
}
