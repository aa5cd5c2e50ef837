// Package prioritylevelconfiguration serves the PriorityLevelConfiguration kind
// (flowcontrol.apiserver.k8s.io/v1): the kubeinfer_priority_level_configuration resource and
// data source, from its offline rules (package rules) and the generic engine (package kube), and
// the apf_capacity provider-defined function.
package prioritylevelconfiguration

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/prioritylevelconfiguration/rules"
)

// Kind is the PriorityLevelConfiguration kind served by the generic resource: its rules, and no
// hooks (the object needs no wait).
var Kind = kube.FromRules(rules.Kind, kube.Hooks{})

// NewResource is the kubeinfer_priority_level_configuration resource.
func NewResource() resource.Resource { return kube.NewResource(Kind)() }

// NewDataSource is the kubeinfer_priority_level_configuration data source.
func NewDataSource() datasource.DataSource { return kube.NewDataSource(Kind)() }
