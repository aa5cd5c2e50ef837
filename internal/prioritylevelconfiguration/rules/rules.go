package rules

import (
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
)

const description = "A PriorityLevelConfiguration (`flowcontrol.apiserver.k8s.io/v1`, cluster-scoped): one priority " +
	"level of API Priority and Fairness, the API server's protection against request floods. A level does nothing " +
	"until a FlowSchema (`kubeinfer_flow_schema`) routes requests to it.\n\n" +
	"Every rule kube-apiserver v1.37 applies is checked at plan time, offline: type `Exempt` only for the level named " +
	"`exempt`, ranges, `Queue` needs `queuing` and `Reject` forbids it, `hand_size <= queues`, the shuffle-sharding " +
	"limit `ceil(log2(queues) * hand_size) <= 60`, and the fixed specs of `exempt` and `catch-all`. " +
	"Server defaults (nominal concurrency shares 30, lendable percent 0, queues 64, hand size 8, queue length limit 50) " +
	"are planned by the provider, so they show in the plan.\n\n" +
	"The levels `exempt`, `catch-all`, `system`, `node-high`, `leader-election`, `workload-high`, `workload-low` and " +
	"`global-default` are created by the API server itself: import them instead of creating them. The server keeps " +
	"rewriting the suggested ones while their `apf.kubernetes.io/autoupdate-spec` annotation is `\"true\"`; set it to " +
	"`\"false\"` to manage one with Terraform. A level of your own must not carry that annotation set to `\"true\"`: the " +
	"server deletes such levels."

// Kind is the offline half of the PriorityLevelConfiguration kind: schema, defaults, validation.
var Kind = &kindrules.Kind{
	TypeName:    "priority_level_configuration",
	GVK:         flowcontrolv1.SchemeGroupVersion.WithKind("PriorityLevelConfiguration"),
	Resource:    "prioritylevelconfigurations",
	Namespaced:  false,
	NewObject:   func() runtime.Object { return &flowcontrolv1.PriorityLevelConfiguration{} },
	Description: description,
	BuildNode:   node,
	Defaults: func(obj runtime.Object, _ tftypes.Value) {
		SetObjectDefaults_PriorityLevelConfiguration(kindrules.As[*flowcontrolv1.PriorityLevelConfiguration](obj))
	},
	Validate: func(obj runtime.Object) field.ErrorList {
		return ValidatePriorityLevelConfiguration(kindrules.As[*flowcontrolv1.PriorityLevelConfiguration](obj))
	},
	CheckConfig: checkConfig,
}

// node is the object's schema tree, built once per process.
var node = sync.OnceValue(buildNode)

func buildNode() *k8sschema.Node {
	queuing := "spec.limited.limitResponse.queuing."
	opts := k8sschema.Options{
		Modes: map[string]k8sschema.Mode{
			"spec":                                  k8sschema.Required,
			"spec.type":                             k8sschema.Required,
			"spec.limited.nominalConcurrencyShares": k8sschema.OptionalComputed,
			"spec.limited.lendablePercent":          k8sschema.OptionalComputed,
			"spec.limited.limitResponse":            k8sschema.Required,
			"spec.limited.limitResponse.type":       k8sschema.Required,
			queuing + "queues":                      k8sschema.OptionalComputed,
			queuing + "handSize":                    k8sschema.OptionalComputed,
			queuing + "queueLengthLimit":            k8sschema.OptionalComputed,
			"spec.exempt.nominalConcurrencyShares":  k8sschema.OptionalComputed,
			"spec.exempt.lendablePercent":           k8sschema.OptionalComputed,
			"status":                                k8sschema.Computed,
		},
		FieldDocs: fieldDocs,
		Notes: map[string]string{
			"spec.type":                             "One of `Limited` or `Exempt`; `Exempt` only for the level named `exempt`, which must be `Exempt`.",
			"spec.limited.nominalConcurrencyShares": "At least 0 (0 makes a \"jail\" level). Defaults to 30.",
			"spec.limited.lendablePercent":          "Between 0 and 100. Defaults to 0.",
			"spec.limited.borrowingLimitPercent":    "At least 0, may exceed 100. Unset means unlimited borrowing.",
			"spec.limited.limitResponse.type":       "One of `Queue` (needs `queuing`) or `Reject` (forbids it).",
			queuing + "queues":                      "1 to 10,000,000. Defaults to 64; an explicit 0 is rejected at plan because the server would silently replace it.",
			queuing + "handSize":                    "At least 1, at most `queues`, and `ceil(log2(queues) * hand_size)` at most 60 (e.g. at most 10 for 64 queues). Defaults to 8; an explicit 0 is rejected at plan.",
			queuing + "queueLengthLimit":            "At least 1. Defaults to 50; an explicit 0 is rejected at plan.",
			"spec.exempt.nominalConcurrencyShares":  "At least 0. Defaults to 0.",
			"spec.exempt.lendablePercent":           "Between 0 and 100. Defaults to 0.",
		},
		Descriptions: map[string]string{
			"status": "Current state reported by the API server.",
		},
	}
	return k8sschema.Build(reflect.TypeOf(flowcontrolv1.PriorityLevelConfiguration{}), k8sschema.WithClusterScopedMetadata(opts, k8sschema.MetadataDocs{
		Metadata:    "Standard object metadata. The level is cluster-scoped: there is no namespace.",
		Name:        "Name of the level, a DNS subdomain. Changing it replaces the level. The names of the bootstrap levels are reserved (see the resource description).",
		Labels:      "Labels of the level. Labels added by others are not reported as drift.",
		Annotations: "Annotations of the level. Annotations added by others are not reported as drift. `apf.kubernetes.io/autoupdate-spec = \"true\"` makes the server delete a level of your own.",
	}))
}

func checkConfig(obj runtime.Object, config tftypes.Value) (field.ErrorList, []kindrules.Warning) {
	plc := kindrules.As[*flowcontrolv1.PriorityLevelConfiguration](obj)
	explicit := func(name string) bool {
		v, ok := k8sschema.ValueAt(node(), config, "spec.limited.limitResponse.queuing."+name)
		return ok && !v.IsNull()
	}
	errs := ValidateExplicitZerosFor(plc, ExplicitQueuingFields{
		Queues: explicit("queues"), HandSize: explicit("handSize"), QueueLengthLimit: explicit("queueLengthLimit"),
	})
	errs = append(errs, ValidateProviderRules(plc)...)
	var warnings []kindrules.Warning
	for _, w := range PlanWarnings(plc) {
		warnings = append(warnings, kindrules.Warning{Path: w.Path, Summary: w.Summary, Detail: w.Detail})
	}
	return errs, warnings
}
