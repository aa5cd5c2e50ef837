package rules

import (
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

func TestSetDefaults(t *testing.T) {
	cases := []struct {
		name string
		in   flowcontrolv1.PriorityLevelConfigurationSpec
		want flowcontrolv1.PriorityLevelConfigurationSpec
	}{
		{
			name: "limited queue all omitted",
			in: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited", Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				LimitResponse: flowcontrolv1.LimitResponse{Type: "Queue", Queuing: &flowcontrolv1.QueuingConfiguration{}},
			}},
			want: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited", Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: p32(30), LendablePercent: p32(0),
				LimitResponse: flowcontrolv1.LimitResponse{Type: "Queue", Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 64, HandSize: 8, QueueLengthLimit: 50}},
			}},
		},
		{
			name: "explicit NCS 0 kept, borrowing stays nil, explicit queuing kept",
			in: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited", Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: p32(0), LendablePercent: p32(7),
				LimitResponse: flowcontrolv1.LimitResponse{Type: "Queue", Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 3, HandSize: 2, QueueLengthLimit: 1}},
			}},
			want: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited", Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: p32(0), LendablePercent: p32(7),
				LimitResponse: flowcontrolv1.LimitResponse{Type: "Queue", Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 3, HandSize: 2, QueueLengthLimit: 1}},
			}},
		},
		{
			name: "reject: no queuing created",
			in: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited", Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				LimitResponse: flowcontrolv1.LimitResponse{Type: "Reject"},
			}},
			want: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited", Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: p32(30), LendablePercent: p32(0),
				LimitResponse: flowcontrolv1.LimitResponse{Type: "Reject"},
			}},
		},
		{
			name: "exempt present",
			in:   flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Exempt", Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{}},
			want: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Exempt", Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: p32(0), LendablePercent: p32(0)}},
		},
		{
			name: "exempt absent: not created",
			in:   flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Exempt"},
			want: flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Exempt"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := &flowcontrolv1.PriorityLevelConfiguration{Spec: tc.in}
			SetObjectDefaults_PriorityLevelConfiguration(o)
			if !apiequality.Semantic.DeepEqual(o.Spec, tc.want) {
				t.Fatalf("got %+v\nwant %+v", o.Spec, tc.want)
			}
			again := o.DeepCopy()
			SetObjectDefaults_PriorityLevelConfiguration(again)
			if !apiequality.Semantic.DeepEqual(o, again) {
				t.Fatalf("SetObjectDefaults_PriorityLevelConfiguration is not idempotent")
			}
		})
	}
	SetObjectDefaults_PriorityLevelConfiguration(nil) // must not panic
}
