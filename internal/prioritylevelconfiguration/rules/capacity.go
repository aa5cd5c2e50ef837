package rules

import (
	"errors"
	"fmt"
	"math"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
)

// LevelInput is what the APF config controller reads from one (defaulted)
// priority level. For Exempt levels NominalConcurrencyShares and
// LendablePercent come from spec.exempt and BorrowingLimitPercent is ignored.
type LevelInput struct {
	Name                     string
	Exempt                   bool
	NominalConcurrencyShares int32
	LendablePercent          int32
	BorrowingLimitPercent    *int32
}

// LevelCapacity is the outcome for one level.
type LevelCapacity struct {
	Name       string
	NominalCL  int64
	LendableCL int64
	// BorrowingCL is nil when unlimited (borrowingLimitPercent unset, or an
	// Exempt level). The server then uses ServerCL as the cap internally.
	BorrowingCL *int64
}

// LevelInputFrom builds the LevelInput of a priority level, applying the
// server defaults to a copy first.
func LevelInputFrom(obj *flowcontrolv1.PriorityLevelConfiguration) LevelInput {
	o := obj.DeepCopy()
	SetObjectDefaults_PriorityLevelConfiguration(o)
	in := LevelInput{Name: o.Name}
	switch {
	case o.Spec.Limited != nil:
		in.NominalConcurrencyShares = *o.Spec.Limited.NominalConcurrencyShares
		in.LendablePercent = *o.Spec.Limited.LendablePercent
		if b := o.Spec.Limited.BorrowingLimitPercent; b != nil {
			v := *b
			in.BorrowingLimitPercent = &v
		}
	case o.Spec.Exempt != nil:
		in.Exempt = true
		in.NominalConcurrencyShares = *o.Spec.Exempt.NominalConcurrencyShares
		in.LendablePercent = *o.Spec.Exempt.LendablePercent
	default:
		in.Exempt = o.Spec.Type == flowcontrolv1.PriorityLevelEnablementExempt
	}
	return in
}

// ComputeCapacity divides the server concurrency limit (ServerCL, i.e.
// --max-requests-inflight + --max-mutating-requests-inflight, 600 by default)
// among the given levels exactly as the APF config controller does:
//
//	sum_ncs     = sum over ALL levels, Exempt ones included, of NCS
//	NominalCL   = ceil(ServerCL * NCS / sum_ncs)          (float64, math.Ceil)
//	LendableCL  = round(NominalCL * lendablePercent / 100) (math.Round, half away from zero)
//	BorrowingCL = round(NominalCL * borrowingLimitPercent / 100), nil if unset
//
// Port of k8s.io/apiserver@v0.37.2 pkg/util/flowcontrol/apf_controller.go
// finishQueueSetReconfigsLocked / plSpecCommons.
//
// With the 8 bootstrap levels and ServerCL 600 (sum_ncs 245):
// exempt 0/0, catch-all 13/0, system 74/24, node-high 98/25,
// leader-election 25/0, workload-high 98/49, workload-low 245/221,
// global-default 49/25 (NominalCL/LendableCL); none limits borrowing.
// Because of ceil the NominalCLs may sum to slightly more than ServerCL (602 here).
func ComputeCapacity(serverCL int64, levels []LevelInput) ([]LevelCapacity, error) {
	if serverCL <= 0 {
		return nil, fmt.Errorf("server concurrency limit must be positive, got %d", serverCL)
	}
	var shareSum float64
	seen := make(map[string]bool, len(levels))
	for _, l := range levels {
		if seen[l.Name] {
			return nil, fmt.Errorf("duplicate priority level %q", l.Name)
		}
		seen[l.Name] = true
		if l.NominalConcurrencyShares < 0 {
			return nil, fmt.Errorf("priority level %q: nominalConcurrencyShares must be non-negative, got %d", l.Name, l.NominalConcurrencyShares)
		}
		if l.LendablePercent < 0 || l.LendablePercent > 100 {
			return nil, fmt.Errorf("priority level %q: lendablePercent must be between 0 and 100, got %d", l.Name, l.LendablePercent)
		}
		if !l.Exempt && l.BorrowingLimitPercent != nil && *l.BorrowingLimitPercent < 0 {
			return nil, fmt.Errorf("priority level %q: borrowingLimitPercent must be non-negative, got %d", l.Name, *l.BorrowingLimitPercent)
		}
		shareSum += float64(l.NominalConcurrencyShares)
	}
	if len(levels) == 0 {
		return nil, nil
	}
	if shareSum == 0 {
		return nil, errors.New("the sum of nominalConcurrencyShares over all priority levels is 0, so no level gets any concurrency")
	}
	out := make([]LevelCapacity, 0, len(levels))
	for _, l := range levels {
		nominal := int64(math.Ceil(float64(serverCL) * float64(l.NominalConcurrencyShares) / shareSum))
		c := LevelCapacity{
			Name:       l.Name,
			NominalCL:  nominal,
			LendableCL: int64(math.Round(float64(nominal) * float64(l.LendablePercent) / 100)),
		}
		if !l.Exempt && l.BorrowingLimitPercent != nil {
			b := int64(math.Round(float64(nominal) * float64(*l.BorrowingLimitPercent) / 100))
			c.BorrowingCL = &b
		}
		out = append(out, c)
	}
	return out, nil
}
