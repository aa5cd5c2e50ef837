// Package flowschema serves the FlowSchema kind (flowcontrol.apiserver.k8s.io/v1): the
// kubeinfer_flow_schema resource and data source, from its offline rules (package rules) and the
// generic engine (package kube). Its own part talks to the cluster: the apply's short wait for
// the Dangling condition.
package flowschema

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/flowschema/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
)

// Kind is the FlowSchema kind served by the generic resource: its rules, and the apply's wait
// for the Dangling condition.
var Kind = kube.FromRules(rules.Kind, kube.Hooks{AfterApply: awaitDanglingCondition})

// NewResource is the kubeinfer_flow_schema resource.
func NewResource() resource.Resource { return kube.NewResource(Kind)() }

// NewDataSource is the kubeinfer_flow_schema data source.
func NewDataSource() datasource.DataSource { return kube.NewDataSource(Kind)() }

// danglingWait bounds how long an apply waits for the API server's APF controller to report
// whether the referenced priority level exists.
const danglingWait = 10 * time.Second

// awaitDanglingCondition waits, briefly and without failing, until the API server's APF
// controller has set the "Dangling" condition for the priority level the schema now names.
// The controller writes it asynchronously right after every create or change of the level
// reference; waiting for it keeps the state (and a following import) equal to the server's
// object, and shows at once whether requests are routed to an existing level.
func awaitDanglingCondition(ctx context.Context, _ dynamic.Interface, ri dynamic.ResourceInterface, obj *unstructured.Unstructured, _ map[string]tftypes.Value) (*unstructured.Unstructured, error) {
	level, _, _ := unstructured.NestedString(obj.Object, "spec", "priorityLevelConfiguration", "name")
	want := fmt.Sprintf("named %q", level)
	ctx, cancel := context.WithTimeout(ctx, danglingWait)
	defer cancel()
	cur := obj
	for {
		if hasDanglingFor(cur, want) {
			return cur, nil
		}
		select {
		case <-ctx.Done():
			return cur, nil // best effort: the next refresh reads the condition
		case <-time.After(200 * time.Millisecond):
		}
		u, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return cur, nil
		}
		cur = u
	}
}

// hasDanglingFor reports whether u carries a Dangling condition whose message names the level.
func hasDanglingFor(u *unstructured.Unstructured, levelRef string) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != string(flowcontrolv1.FlowSchemaConditionDangling) {
			continue
		}
		msg, _ := m["message"].(string)
		return strings.Contains(msg, levelRef)
	}
	return false
}
