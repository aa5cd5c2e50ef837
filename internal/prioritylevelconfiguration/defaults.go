// Package prioritylevelconfiguration holds the offline (plan-time) rules for
// flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration objects: the
// server-side defaults, a port of kube-apiserver v1.37 validation, the
// bootstrap (mandatory/suggested) objects and the APF capacity formulas.
package prioritylevelconfiguration

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

// SetDefaults applies the defaults the API server applies when it decodes a
// v1 PriorityLevelConfiguration (before validation). It is idempotent.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/flowcontrol/v1/zz_generated.defaults.go
// SetObjectDefaults_PriorityLevelConfiguration.
func SetDefaults(obj *flowcontrolv1.PriorityLevelConfiguration) {
	if obj == nil {
		return
	}
	if l := obj.Spec.Limited; l != nil {
		setDefaultsLimited(l)
		if q := l.LimitResponse.Queuing; q != nil {
			setDefaultsQueuing(q)
		}
	}
	if e := obj.Spec.Exempt; e != nil {
		setDefaultsExempt(e)
	}
}

// Port of pkg/apis/flowcontrol/v1/defaults.go SetDefaults_LimitedPriorityLevelConfiguration.
func setDefaultsLimited(l *flowcontrolv1.LimitedPriorityLevelConfiguration) {
	// Only nil is defaulted: an explicit 0 is kept (a "jail" level).
	if l.NominalConcurrencyShares == nil {
		l.NominalConcurrencyShares = ptr.To[int32](DefaultNominalConcurrencyShares)
	}
	if l.LendablePercent == nil {
		l.LendablePercent = ptr.To[int32](DefaultLendablePercent)
	}
	// BorrowingLimitPercent is intentionally not defaulted (nil = unlimited).
}

// Port of pkg/apis/flowcontrol/v1/defaults.go SetDefaults_QueuingConfiguration.
func setDefaultsQueuing(q *flowcontrolv1.QueuingConfiguration) {
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

// Port of pkg/apis/flowcontrol/v1/defaults.go SetDefaults_ExemptPriorityLevelConfiguration.
func setDefaultsExempt(e *flowcontrolv1.ExemptPriorityLevelConfiguration) {
	if e.NominalConcurrencyShares == nil {
		e.NominalConcurrencyShares = ptr.To[int32](DefaultExemptNominalShares)
	}
	if e.LendablePercent == nil {
		e.LendablePercent = ptr.To[int32](DefaultExemptLendablePercent)
	}
}
