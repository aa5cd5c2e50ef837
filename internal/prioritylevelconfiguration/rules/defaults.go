// Package rules is the offline half of the PriorityLevelConfiguration kind
// (flowcontrol.apiserver.k8s.io/v1): the schema, the server-side defaults, a port of
// kube-apiserver v1.37 validation, the bootstrap (mandatory/suggested) objects, and the APF
// capacity formulas behind the apf_capacity function. It imports no client and no engine: the
// provider (package prioritylevelconfiguration) and the TFLint plugin share it.
package rules

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/utils/ptr"
)

// Server defaults for PriorityLevelConfiguration.
// Source: k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/v1/defaults.go (constants block).
const (
	DefaultHandSize                 int32 = 8
	DefaultQueues                   int32 = 64
	DefaultQueueLengthLimit         int32 = 50
	DefaultNominalConcurrencyShares int32 = 30
	DefaultLendablePercent          int32 = 0
	DefaultExemptNominalShares      int32 = 0
	DefaultExemptLendablePercent    int32 = 0
)

// SetObjectDefaults_PriorityLevelConfiguration applies the defaults the API server applies when it decodes a
// v1 PriorityLevelConfiguration (before validation). It is idempotent.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/v1/zz_generated.defaults.go SetObjectDefaults_PriorityLevelConfiguration.
func SetObjectDefaults_PriorityLevelConfiguration(obj *flowcontrolv1.PriorityLevelConfiguration) {
	if obj == nil {
		return
	}
	if l := obj.Spec.Limited; l != nil {
		SetDefaults_LimitedPriorityLevelConfiguration(l)
		if q := l.LimitResponse.Queuing; q != nil {
			SetDefaults_QueuingConfiguration(q)
		}
	}
	if e := obj.Spec.Exempt; e != nil {
		SetDefaults_ExemptPriorityLevelConfiguration(e)
	}
}

// SetDefaults_LimitedPriorityLevelConfiguration defaults spec.limited.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/v1/defaults.go SetDefaults_LimitedPriorityLevelConfiguration.
func SetDefaults_LimitedPriorityLevelConfiguration(l *flowcontrolv1.LimitedPriorityLevelConfiguration) {
	// Only nil is defaulted: an explicit 0 is kept (a "jail" level).
	if l.NominalConcurrencyShares == nil {
		l.NominalConcurrencyShares = ptr.To[int32](DefaultNominalConcurrencyShares)
	}
	if l.LendablePercent == nil {
		l.LendablePercent = ptr.To[int32](DefaultLendablePercent)
	}
	// BorrowingLimitPercent is intentionally not defaulted (nil = unlimited).
}

// SetDefaults_QueuingConfiguration defaults spec.limited.limitResponse.queuing.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/v1/defaults.go SetDefaults_QueuingConfiguration.
func SetDefaults_QueuingConfiguration(q *flowcontrolv1.QueuingConfiguration) {
	if q.HandSize == 0 {
		q.HandSize = DefaultHandSize
	}
	if q.Queues == 0 {
		q.Queues = DefaultQueues
	}
	if q.QueueLengthLimit == 0 {
		q.QueueLengthLimit = DefaultQueueLengthLimit
	}
}

// SetDefaults_ExemptPriorityLevelConfiguration defaults spec.exempt.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/v1/defaults.go SetDefaults_ExemptPriorityLevelConfiguration.
func SetDefaults_ExemptPriorityLevelConfiguration(e *flowcontrolv1.ExemptPriorityLevelConfiguration) {
	if e.NominalConcurrencyShares == nil {
		e.NominalConcurrencyShares = ptr.To[int32](DefaultExemptNominalShares)
	}
	if e.LendablePercent == nil {
		e.LendablePercent = ptr.To[int32](DefaultExemptLendablePercent)
	}
}
