package leaderworkerset_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// TestAccLeaderWorkerSet_waitFailsOnFailedCreate: a name of 52 characters with groups of 2 pods
// is one the plan only warns about (it fits only with a revision hash of 8 characters), and with
// this template the controller's worker StatefulSet cannot be created. The wait ends on the
// controller's FailedCreate event with an error that quotes it, long before its timeout.
func TestAccLeaderWorkerSet_waitFailsOnFailedCreate(t *testing.T) {
	runsBesideOthers(t)
	acctest.SkipAfterFirstCLI(t) // the controller's behaviour, not the CLI's
	name := "acc-failed-create-" + strings.Repeat("n", 52-len("acc-failed-create-"))
	c := acctest.Cluster(t)
	lwsClient(t)
	pc := acctest.ProviderConfig(t)
	const timeout = 5 * time.Minute
	cfg := pc + vllm(lwsfixture.VLLM(name, 1, 2, lwsfixture.SmallGPU), `timeouts = { create = "5m", update = "5m" }`)
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { started = time.Now() },
				Config:      cfg,
				ExpectError: regexp.MustCompile(`Warning\s+FailedCreate\s+on\s+(LeaderWorkerSet|StatefulSet)\s+` + name + `[\s\S]*is\s+invalid:`),
			},
			{ // the apply failed: Terraform recorded the object as tainted and plans to replace it
				PreConfig: func() {
					took := time.Since(started)
					t.Logf("the apply failed after %s (timeout %s)", took.Round(100*time.Millisecond), timeout)
					if took > timeout/5 {
						t.Errorf("the apply took %s: the wait did not stop on the event", took)
					}
					events, err := c.Clientset().CoreV1().Events("default").List(context.Background(), metav1.ListOptions{FieldSelector: "type=Warning"})
					if err != nil {
						t.Fatal(err)
					}
					for _, ev := range events.Items {
						if strings.HasPrefix(ev.InvolvedObject.Name, name) {
							t.Logf("event on %s %s: %s %s (%d)", ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Reason, ev.Message, ev.Count)
						}
					}
				},
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// staleEventsLabel is a node label no node of the test cluster has until
// TestAccLeaderWorkerSet_waitIgnoresStaleObjectEvents sets it: the groups wait for it.
const staleEventsLabel = "kubeinfer.test/stale-events"

// TestAccLeaderWorkerSet_waitIgnoresStaleObjectEvents: a LeaderWorkerSet deleted and created
// again under the same name (a replacement, or another tool's object before this one) leaves
// events whose involved object has the old UID, and such events can still arrive while the new
// object is waited on. While the apply waits (the groups wait for a node label the test then
// sets), FailedCreate Warnings "is invalid:" on a LeaderWorkerSet and a StatefulSet of that name
// with other UIDs are posted, as the controllers of the former object would have written them:
// the wait ignores them and ends when the groups are Ready. The same Warning with the live
// object's UID, during the next apply's wait, stops that wait with the event's words.
func TestAccLeaderWorkerSet_waitIgnoresStaleObjectEvents(t *testing.T) {
	acctest.SkipAfterFirstCLI(t) // the wait's reading of the cluster's events, not the CLI's
	const name = "acc-stale-events"
	c := acctest.Cluster(t)
	lwses := lwsClient(t)
	cs := c.Clientset()
	// Cancelled when the test ends: the goroutines that post events stop.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	onLabel := func(value string) lwsfixture.Option {
		return func(o *lwsv1.LeaderWorkerSet) {
			sel := map[string]string{staleEventsLabel: value}
			o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec.NodeSelector = sel
			if lt := o.Spec.LeaderWorkerTemplate.LeaderTemplate; lt != nil {
				lt.Spec.NodeSelector = sel
			}
		}
	}
	pc := acctest.ProviderConfig(t)
	timeouts := `timeouts = { create = "3m", update = "3m" }`
	first := pc + vllm(lwsfixture.VLLM(name, 1, 1, lwsfixture.SmallGPU, onLabel("a")), timeouts)
	second := pc + vllm(lwsfixture.VLLM(name, 1, 1, lwsfixture.SmallGPU, onLabel("b")), timeouts)

	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gpuNode := ""
	for _, n := range nodes.Items {
		if q, ok := n.Status.Allocatable["nvidia.com/gpu"]; ok && q.Value() >= 2 && !n.Spec.Unschedulable {
			gpuNode = n.Name
			break
		}
	}
	if gpuNode == "" {
		t.Fatal("the test cluster has no GPU node")
	}
	setLabel := func(value string) {
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%s}}}`, staleEventsLabel, value)
		if _, err := cs.CoreV1().Nodes().Patch(ctx, gpuNode, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Errorf("labelling node %s: %v", gpuNode, err)
		}
	}
	t.Cleanup(func() { setLabel("null") })

	// postWarning writes a FailedCreate Warning on kind/name with the given UID, timed now. It runs
	// in goroutines that may outlive a step, so it reports to posted, never to t.
	var posted atomic.Int32
	var postErr atomic.Value
	postWarning := func(kind string, uid types.UID, message string) {
		now := metav1.Now()
		ev := &corev1.Event{
			ObjectMeta: metav1.ObjectMeta{GenerateName: name + ".", Namespace: "default"},
			InvolvedObject: corev1.ObjectReference{
				Kind: kind, Namespace: "default", Name: name, UID: uid,
				APIVersion: map[string]string{"LeaderWorkerSet": "leaderworkerset.x-k8s.io/v1", "StatefulSet": "apps/v1"}[kind],
			},
			Reason: "FailedCreate", Message: message, Type: corev1.EventTypeWarning,
			FirstTimestamp: now, LastTimestamp: now, Count: 1,
			Source: corev1.EventSource{Component: "kubeinfer-acctest"},
		}
		if _, err := cs.CoreV1().Events("default").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			postErr.Store(err)
			return
		}
		posted.Add(1)
	}
	// whenCreated waits (in the background) until the LeaderWorkerSet exists with a UID other than
	// before, then calls then with its UID.
	whenCreated := func(before types.UID, then func(uid types.UID)) {
		go func() {
			deadline := time.Now().Add(2 * time.Minute)
			for time.Now().Before(deadline) {
				u, err := lwses.Get(ctx, name, metav1.GetOptions{})
				if err == nil && u.GetUID() != "" && u.GetUID() != before {
					then(u.GetUID())
					return
				}
				time.Sleep(200 * time.Millisecond)
			}
			postErr.Store(fmt.Errorf("%s was not created within 2 minutes", name))
		}()
	}
	var applied time.Time
	var liveUID types.UID
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             controllerCleanedUp(t, name),
		Steps: []resource.TestStep{
			{ // stale events during the wait are ignored; the wait ends when the groups are Ready
				PreConfig: func() {
					applied = time.Now()
					whenCreated("", func(uid types.UID) {
						liveUID = uid
						// Posted three times, 2 s apart from a second after the create, so
						// that they are newer than the wait's start: an older event would be
						// set aside for its age, not for its UID.
						for i := 0; i < 3; i++ {
							time.Sleep(time.Second)
							postWarning("LeaderWorkerSet", "5ca1ab1e-0000-4000-8000-000000000001",
								`Failed to create leader statefulset: StatefulSet.apps "`+name+`" is invalid: spec.template: stale`)
							postWarning("StatefulSet", "5ca1ab1e-0000-4000-8000-000000000002",
								`create Pod `+name+`-0 in StatefulSet `+name+` failed error: Pod "`+name+`-0" is invalid: stale`)
							time.Sleep(time.Second)
						}
						setLabel(`"a"`)
					})
				},
				Config: first,
				Check: func(*terraform.State) error {
					took := time.Since(applied)
					t.Logf("the apply waited %s through %d stale Warning events", took.Round(100*time.Millisecond), posted.Load())
					if err, _ := postErr.Load().(error); err != nil {
						return err
					}
					if posted.Load() != 6 {
						return fmt.Errorf("%d of the 6 stale events were posted before the wait ended", posted.Load())
					}
					if took < 6*time.Second {
						return fmt.Errorf("the apply took %s: it did not wait while the events were posted", took)
					}
					return nil
				},
			},
			{ // the same Warning with the live object's UID stops the next wait
				PreConfig: func() {
					before, err := lwses.Get(ctx, name, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					// Once the apply has changed the spec (a new generation) the wait begins: the
					// event is posted from a second after that, every 2 s, for a minute at most.
					go func() {
						deadline := time.Now().Add(2 * time.Minute)
						for time.Now().Before(deadline) && ctx.Err() == nil {
							u, err := lwses.Get(ctx, name, metav1.GetOptions{})
							if err == nil && u.GetGeneration() > before.GetGeneration() {
								for i := 0; i < 30 && ctx.Err() == nil; i++ {
									time.Sleep(time.Second)
									postWarning("LeaderWorkerSet", liveUID,
										`Failed to create leader statefulset: StatefulSet.apps "`+name+`" is invalid: spec.template: this object's`)
									time.Sleep(time.Second)
								}
								return
							}
							time.Sleep(200 * time.Millisecond)
						}
					}()
				},
				Config:      second,
				ExpectError: regexp.MustCompile(`Warning\s+FailedCreate\s+on\s+LeaderWorkerSet\s+` + name + `[\s\S]*this\s+object's`),
			},
		},
	})
}
