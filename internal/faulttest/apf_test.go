package faulttest

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

const tinyLevel = "faults-tiny"

// TestAccFault_tinyPriorityLevel routes the provider's user (not in
// system:masters, which API Priority and Fairness exempts) to a priority level
// of 1 nominal concurrency share (3 seats of the server's 600), first rejecting
// what does not fit, then queueing it in one short queue. Apply (parallelism
// 30), plan and destroy of 30 LeaderWorkerSets each succeed in one run: the
// provider retries the 429 answers.
func TestAccFault_tinyPriorityLevel(t *testing.T) {
	// As many objects as Terraform's parallelism here: 30 requests at once against 3 seats.
	const fleetSize = 30
	c := acctest.Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	kubeconfig, err := c.UserKubeconfig(ctx, "kubeinfer-ci")
	if err != nil {
		t.Fatal(err)
	}
	fc := c.Clientset().FlowcontrolV1()
	everything := flowcontrolv1.PolicyRulesWithSubjects{
		Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "kubeinfer-ci"}}},
		ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
			Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"},
		}},
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
	}
	if _, err := fc.FlowSchemas().Create(ctx, &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: tinyLevel},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: tinyLevel},
			MatchingPrecedence:         100,
			DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules:                      []flowcontrolv1.PolicyRulesWithSubjects{everything},
		},
	}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = fc.FlowSchemas().Delete(context.Background(), tinyLevel, metav1.DeleteOptions{})
		_ = fc.PriorityLevelConfigurations().Delete(context.Background(), tinyLevel, metav1.DeleteOptions{})
	})

	limits := map[string]flowcontrolv1.LimitResponse{
		"Reject": {Type: flowcontrolv1.LimitResponseTypeReject},
		"Queue": {Type: flowcontrolv1.LimitResponseTypeQueue, Queuing: &flowcontrolv1.QueuingConfiguration{
			Queues: 1, HandSize: 1, QueueLengthLimit: 4,
		}},
	}
	for _, name := range []string{"Reject", "Queue"} {
		t.Run(name, func(t *testing.T) {
			setLevel(ctx, t, c, flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](1),
				LendablePercent:          ptr.To[int32](0),
				LimitResponse:            limits[name],
			})
			seats := waitSeats(ctx, t, c)
			before := flowMetrics(ctx, t, c)

			f := fleet{prefix: "apf-" + strings.ToLower(name), n: fleetSize, provider: providerAt(kubeconfig), noGroups: true}
			w := newWorkdir(t, f.config())
			t.Cleanup(func() { cleanup(t, w, c, f.prefix) })
			args := func(base []string) []string { return append(append([]string{}, base...), "-parallelism=30") }

			apply := w.mustSucceed(ctx, args(applyArgs)...)
			start := time.Now()
			w.planEmpty(ctx)
			plan := time.Since(start)
			agree(ctx, t, w, c.Dynamic(), f.prefix, fleetSize)
			destroy := w.mustSucceed(ctx, args(destroyArgs)...)
			agree(ctx, t, w, c.Dynamic(), f.prefix, 0)

			after := flowMetrics(ctx, t, c)
			dispatched := after.dispatched - before.dispatched
			rejected := after.rejected - before.rejected
			t.Logf("%s, %d seats: %d LeaderWorkerSets applied in %s, planned in %s, destroyed in %s; %d requests dispatched at %s, %d rejected (429) and retried",
				name, seats, fleetSize, apply.took.Round(time.Millisecond), plan.Round(time.Millisecond), destroy.took.Round(time.Millisecond), dispatched, tinyLevel, rejected)
			if dispatched < 100 {
				t.Errorf("only %d requests went through %s: the provider's user is not routed there", dispatched, tinyLevel)
			}
		})
	}
}

func setLevel(ctx context.Context, t *testing.T, c *acctest.TestCluster, limited flowcontrolv1.LimitedPriorityLevelConfiguration) {
	t.Helper()
	fc := c.Clientset().FlowcontrolV1().PriorityLevelConfigurations()
	want := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: tinyLevel},
		Spec:       flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited, Limited: &limited},
	}
	cur, err := fc.Get(ctx, tinyLevel, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = fc.Create(ctx, want, metav1.CreateOptions{})
	} else if err == nil {
		want.ResourceVersion = cur.ResourceVersion
		_, err = fc.Update(ctx, want, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// waitSeats waits until the API server has configured the priority level and
// returns its seats (apiserver_flowcontrol_nominal_limit_seats).
func waitSeats(ctx context.Context, t *testing.T, c *acctest.TestCluster) int {
	t.Helper()
	for {
		if m := flowMetrics(ctx, t, c); m.seats > 0 {
			// The configuration controller applies changes of the level in the
			// same pass that publishes the seats.
			return m.seats
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the API server never configured priority level %s", tinyLevel)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

type levelMetrics struct {
	seats                int
	dispatched, rejected int
}

// flowMetrics reads the API server's metrics for the tiny priority level.
func flowMetrics(ctx context.Context, t *testing.T, c *acctest.TestCluster) levelMetrics {
	t.Helper()
	body, err := c.Clientset().Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatalf("reading /metrics: %v", err)
	}
	var m levelMetrics
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	label := fmt.Sprintf(`priority_level=%q`, tinyLevel)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || !strings.Contains(line, label) {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(line, "apiserver_flowcontrol_nominal_limit_seats{"):
			m.seats = int(v)
		case strings.HasPrefix(line, "apiserver_flowcontrol_dispatched_requests_total{"):
			m.dispatched += int(v)
		case strings.HasPrefix(line, "apiserver_flowcontrol_rejected_requests_total{"):
			m.rejected += int(v)
		}
	}
	return m
}
