package rules

import (
	"fmt"
	"strconv"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// AutoUpdateAnnotation is the annotation the APF bootstrap ensurer uses to
// decide whether it may overwrite (or delete) a configuration object.
const AutoUpdateAnnotation = flowcontrolv1.AutoUpdateAnnotationKey // "apf.kubernetes.io/autoupdate-spec"

// MandatoryLevels are the levels the API server always (re)creates and
// whose spec it forces back to the built-in value.
// Source: k8s.io/apiserver@v0.37.2 pkg/apis/flowcontrol/bootstrap/default.go MandatoryPriorityLevelConfigurations.
var MandatoryLevels = []string{
	flowcontrolv1.PriorityLevelConfigurationNameExempt,
	flowcontrolv1.PriorityLevelConfigurationNameCatchAll,
}

// SuggestedLevels are created by the API server and overwritten while the
// autoupdate-spec annotation allows it.
// Source: k8s.io/apiserver@v0.37.2 pkg/apis/flowcontrol/bootstrap/default.go SuggestedPriorityLevelConfigurations.
var SuggestedLevels = []string{
	"system",
	"node-high",
	"leader-election",
	"workload-high",
	"workload-low",
	"global-default",
}

// Port of k8s.io/apiserver@v0.37.2 pkg/apis/flowcontrol/bootstrap/default.go
// (Mandatory*/Suggested* PriorityLevelConfiguration values). These are already
// in defaulted form.
var bootstrapSpecs = map[string]flowcontrolv1.PriorityLevelConfigurationSpec{
	"exempt": {
		Type: flowcontrolv1.PriorityLevelEnablementExempt,
		Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{
			NominalConcurrencyShares: ptr.To[int32](0),
			LendablePercent:          ptr.To[int32](0),
		},
	},
	"catch-all": {
		Type: flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
			NominalConcurrencyShares: ptr.To[int32](5),
			LendablePercent:          ptr.To[int32](0),
			LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
		},
	},
	"system":          queued(30, 33, 64, 6),
	"node-high":       queued(40, 25, 64, 6),
	"leader-election": queued(10, 0, 16, 4),
	"workload-high":   queued(40, 50, 128, 6),
	"workload-low":    queued(100, 90, 128, 6),
	"global-default":  queued(20, 50, 128, 6),
}

func queued(ncs, lendable, queues, handSize int32) flowcontrolv1.PriorityLevelConfigurationSpec {
	return flowcontrolv1.PriorityLevelConfigurationSpec{
		Type: flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
			NominalConcurrencyShares: ptr.To[int32](ncs),
			LendablePercent:          ptr.To[int32](lendable),
			LimitResponse: flowcontrolv1.LimitResponse{
				Type: flowcontrolv1.LimitResponseTypeQueue,
				Queuing: &flowcontrolv1.QueuingConfiguration{
					Queues:           queues,
					HandSize:         handSize,
					QueueLengthLimit: 50,
				},
			},
		},
	}
}

// BootstrapSpec returns a copy of the built-in spec of a mandatory or
// suggested level, and whether name is one.
func BootstrapSpec(name string) (flowcontrolv1.PriorityLevelConfigurationSpec, bool) {
	s, ok := bootstrapSpecs[name]
	if !ok {
		return flowcontrolv1.PriorityLevelConfigurationSpec{}, false
	}
	return *s.DeepCopy(), true
}

func isMandatory(name string) bool {
	return name == flowcontrolv1.PriorityLevelConfigurationNameExempt || name == flowcontrolv1.PriorityLevelConfigurationNameCatchAll
}

// IsMandatory reports whether name is a mandatory bootstrap level.
func IsMandatory(name string) bool { return isMandatory(name) }

// IsSuggested reports whether name is a suggested bootstrap level.
func IsSuggested(name string) bool {
	for _, n := range SuggestedLevels {
		if n == name {
			return true
		}
	}
	return false
}

// IsBootstrap reports whether name is a mandatory or suggested level.
func IsBootstrap(name string) bool { return isMandatory(name) || IsSuggested(name) }

// Warning is a plan-time warning (not an error).
type Warning struct {
	Path    *field.Path
	Summary string
	Detail  string
}

// PlanWarnings explains how the API server's APF bootstrap ensurer
// (pkg/registry/flowcontrol/ensurer/strategy.go, rest/storage_flowcontrol.go)
// treats objects that use a bootstrap name. The error for a non-bootstrap
// level carrying autoupdate-spec=true is in ValidateProviderRules.
func PlanWarnings(obj *flowcontrolv1.PriorityLevelConfiguration) []Warning {
	if obj == nil {
		return nil
	}
	namePath := field.NewPath("metadata", "name")
	switch {
	case isMandatory(obj.Name):
		fixed := "its whole spec is fixed to the built-in value"
		if obj.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt {
			fixed = "only spec.exempt (nominalConcurrencyShares, lendablePercent) may change; the rest of the spec is fixed to the built-in value"
		}
		return []Warning{{
			Path:    namePath,
			Summary: fmt.Sprintf("%q is a mandatory bootstrap priority level", obj.Name),
			Detail: fmt.Sprintf("The API server creates %q at startup and recreates it if deleted, so it already exists: import it (an `import` block, or `terraform import` / `tofu import`) instead of creating it. %s; the server also forces the annotation %s to \"true\" and reverts any other spec change within about a minute.",
				obj.Name, capitalize(fixed), AutoUpdateAnnotation),
		}}
	case IsSuggested(obj.Name):
		v, ok := obj.Annotations[AutoUpdateAnnotation]
		if b, err := strconv.ParseBool(v); ok && err == nil && !b {
			return []Warning{{
				Path:    namePath,
				Summary: fmt.Sprintf("%q is a suggested bootstrap priority level", obj.Name),
				Detail:  fmt.Sprintf("The API server creates %q at startup (and recreates it if deleted), so it normally already exists: import it (an `import` block, or `terraform import` / `tofu import`) instead of creating it. With %s=\"false\" the server leaves its spec alone.", obj.Name, AutoUpdateAnnotation),
			}}
		}
		return []Warning{{
			Path:    field.NewPath("metadata", "annotations").Key(AutoUpdateAnnotation),
			Summary: fmt.Sprintf("the API server overwrites the spec of the suggested priority level %q", obj.Name),
			Detail: fmt.Sprintf("%q is a suggested bootstrap level: the API server creates it at startup, so it already exists and must be imported (an `import` block, or `terraform import` / `tofu import`). Unless the annotation %s is \"false\", the server's bootstrap ensurer overwrites its spec with the built-in value (always when the annotation parses as true; while metadata.generation is 1 when it is missing or not a boolean), so this configuration would drift. Set %s = \"false\" to keep your spec.",
				obj.Name, AutoUpdateAnnotation, AutoUpdateAnnotation),
		}}
	}
	return nil
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
