package rules

import (
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The 8 bootstrap levels with ServerCL 600 (the default 400+200 inflight).
// sum_ncs = 0+5+30+40+10+40+100+20 = 245 (the exempt level counts, with NCS 0).
//
//	level            NCS  lend%  NominalCL = ceil(600*NCS/245)  LendableCL = round(NominalCL*lend%/100)
//	exempt             0    0     0                              0
//	catch-all          5    0    13  (12.24 -> 13)               0
//	system            30   33    74  (73.47 -> 74)              24  (24.42)
//	node-high         40   25    98  (97.96 -> 98)              25  (24.5, half away from zero)
//	leader-election   10    0    25  (24.49 -> 25)               0
//	workload-high     40   50    98                             49
//	workload-low     100   90   245  (244.90 -> 245)           221  (220.5)
//	global-default    20   50    49  (48.98 -> 49)              25  (24.5)
//
// Sum of NominalCL = 602 (ceil overshoots ServerCL). No level sets
// borrowingLimitPercent, so every BorrowingCL is nil (unlimited).
func TestComputeCapacityBootstrap(t *testing.T) {
	var levels []LevelInput
	for _, n := range append(append([]string{}, MandatoryLevels...), SuggestedLevels...) {
		s, _ := BootstrapSpec(n)
		levels = append(levels, LevelInputFrom(&flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: n}, Spec: s}))
	}
	got, err := ComputeCapacity(600, levels)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int64{
		"exempt": {0, 0}, "catch-all": {13, 0}, "system": {74, 24}, "node-high": {98, 25},
		"leader-election": {25, 0}, "workload-high": {98, 49}, "workload-low": {245, 221}, "global-default": {49, 25},
	}
	var sum int64
	for _, c := range got {
		if w := want[c.Name]; [2]int64{c.NominalCL, c.LendableCL} != w {
			t.Errorf("%s: got %d/%d want %d/%d", c.Name, c.NominalCL, c.LendableCL, w[0], w[1])
		}
		if c.BorrowingCL != nil {
			t.Errorf("%s: BorrowingCL should be unlimited", c.Name)
		}
		sum += c.NominalCL
	}
	if len(got) != 8 || sum != 602 {
		t.Errorf("len %d sum %d", len(got), sum)
	}
}

func TestComputeCapacity(t *testing.T) {
	// The exempt level's NCS is part of sum_ncs (v1 semantics).
	got, err := ComputeCapacity(100, []LevelInput{
		{Name: "exempt", Exempt: true, NominalConcurrencyShares: 50, LendablePercent: 10, BorrowingLimitPercent: p32(5)},
		{Name: "a", NominalConcurrencyShares: 30, LendablePercent: 50, BorrowingLimitPercent: p32(150)},
		{Name: "b", NominalConcurrencyShares: 20, BorrowingLimitPercent: p32(0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].NominalCL != 50 || got[0].LendableCL != 5 || got[0].BorrowingCL != nil {
		t.Errorf("exempt: %+v", got[0])
	}
	if got[1].NominalCL != 30 || got[1].LendableCL != 15 || got[1].BorrowingCL == nil || *got[1].BorrowingCL != 45 {
		t.Errorf("a: %+v", got[1])
	}
	if got[2].NominalCL != 20 || got[2].LendableCL != 0 || got[2].BorrowingCL == nil || *got[2].BorrowingCL != 0 {
		t.Errorf("b: %+v", got[2])
	}

	// A jail level (NCS 0) gets 0.
	got, err = ComputeCapacity(600, []LevelInput{{Name: "jail"}, {Name: "x", NominalConcurrencyShares: 1}})
	if err != nil || got[0].NominalCL != 0 || got[1].NominalCL != 600 {
		t.Errorf("jail: %+v %v", got, err)
	}

	bad := []struct {
		name   string
		cl     int64
		levels []LevelInput
	}{
		{"serverCL 0", 0, []LevelInput{{Name: "a", NominalConcurrencyShares: 1}}},
		{"sum 0", 600, []LevelInput{{Name: "a"}, {Name: "b"}}},
		{"negative NCS", 600, []LevelInput{{Name: "a", NominalConcurrencyShares: -1}}},
		{"lendable 101", 600, []LevelInput{{Name: "a", NominalConcurrencyShares: 1, LendablePercent: 101}}},
		{"borrowing -1", 600, []LevelInput{{Name: "a", NominalConcurrencyShares: 1, BorrowingLimitPercent: p32(-1)}}},
		{"duplicate", 600, []LevelInput{{Name: "a", NominalConcurrencyShares: 1}, {Name: "a", NominalConcurrencyShares: 1}}},
	}
	for _, tc := range bad {
		if _, err := ComputeCapacity(tc.cl, tc.levels); err == nil {
			t.Errorf("%s: want error", tc.name)
		}
	}
	if got, err := ComputeCapacity(600, nil); err != nil || len(got) != 0 {
		t.Errorf("empty: %v %v", got, err)
	}
}

func TestLevelInputFrom(t *testing.T) {
	o := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "x"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited", Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
			BorrowingLimitPercent: p32(20), LimitResponse: flowcontrolv1.LimitResponse{Type: "Reject"},
		}},
	}
	in := LevelInputFrom(o)
	if in.Name != "x" || in.Exempt || in.NominalConcurrencyShares != 30 || in.LendablePercent != 0 || *in.BorrowingLimitPercent != 20 {
		t.Errorf("%+v", in)
	}
	if o.Spec.Limited.NominalConcurrencyShares != nil {
		t.Error("LevelInputFrom mutated its argument")
	}
	in = LevelInputFrom(&flowcontrolv1.PriorityLevelConfiguration{Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Exempt"}})
	if !in.Exempt || in.NominalConcurrencyShares != 0 {
		t.Errorf("%+v", in)
	}
}
