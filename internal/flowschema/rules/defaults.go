// Package rules is the offline half of the FlowSchema kind (flowcontrol.apiserver.k8s.io/v1),
// checked at plan time: the schema, the server-side defaults, a port of kube-apiserver v1.37
// validation and the bootstrap (mandatory/suggested) objects. It imports no client and no
// engine: the provider (package flowschema) and the TFLint plugin share it.
package rules

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
)

// DefaultMatchingPrecedence replaces a 0 spec.matchingPrecedence.
// Source: k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/v1/defaults.go FlowSchemaDefaultMatchingPrecedence.
const DefaultMatchingPrecedence int32 = 1000

// SetObjectDefaults_FlowSchema applies the defaults the API server applies when it decodes a v1 FlowSchema
// (before validation). It is idempotent.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/v1/zz_generated.defaults.go SetObjectDefaults_FlowSchema,
// with pkg/apis/flowcontrol/v1/defaults.go SetDefaults_FlowSchemaSpec inline.
func SetObjectDefaults_FlowSchema(obj *flowcontrolv1.FlowSchema) {
	if obj == nil {
		return
	}
	if obj.Spec.MatchingPrecedence == 0 {
		obj.Spec.MatchingPrecedence = DefaultMatchingPrecedence
	}
}
