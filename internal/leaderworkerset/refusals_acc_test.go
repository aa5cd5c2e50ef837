package leaderworkerset_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
)

// refusal is a LeaderWorkerSet whose pods the API server refuses, on the released controller.
type refusal struct {
	name      string
	namespace string            // "" is default; another is created with nsLabels
	nsLabels  map[string]string // the namespace's labels
	setup     func(t *testing.T, ns string)
	opts      []lwsfixture.Option
	timeout   time.Duration
	want      string // the apply's error, a regular expression
	permanent bool   // the wait must end at once; otherwise it waits out its timeout
}

// inNamespace puts the LeaderWorkerSet in ns.
func inNamespace(ns string) lwsfixture.Option {
	return func(o *lwsv1.LeaderWorkerSet) { o.Namespace = ns }
}

// podSpecs changes the pod spec of both templates.
func podSpecs(edit func(*corev1.PodSpec)) lwsfixture.Option {
	return func(o *lwsv1.LeaderWorkerSet) {
		edit(&o.Spec.LeaderWorkerTemplate.WorkerTemplate.Spec)
		if lt := o.Spec.LeaderWorkerTemplate.LeaderTemplate; lt != nil {
			edit(&lt.Spec)
		}
	}
}

// run applies the refusal's LeaderWorkerSet and checks how its wait ends: a permanent refusal
// within seconds of the first FailedCreate, quoting it (the time is measured and logged), any
// other after its timeout, quoting it too. The failed create leaves the object tainted: the next
// plan replaces it.
func (r refusal) run(t *testing.T) {
	c := acctest.Cluster(t)
	cs := c.Clientset()
	ctx := context.Background()
	ns := r.namespace
	if ns == "" {
		ns = "default"
	} else {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: r.nsLabels}},
			metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
		// Until the service account controller creates it, pods are refused for the missing
		// "default" account: a refusal that clears by itself, not the one under test.
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{}); err == nil {
				break
			} else if time.Now().After(deadline) {
				t.Fatalf("namespace %s has no default service account: %v", ns, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if r.setup != nil {
		r.setup(t, ns)
	}
	opts := append([]lwsfixture.Option{inNamespace(ns)}, r.opts...)
	timeouts := "timeouts = { create = \"" + r.timeout.String() + "\", update = \"" + r.timeout.String() + "\" }"
	cfg := acctest.ProviderConfig(t) + vllm(lwsfixture.VLLM(r.name, 1, 2, append(opts, lwsfixture.SmallGPU)...), timeouts)
	var started time.Time
	tc := resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { started = time.Now() },
				Config:      cfg,
				ExpectError: regexp.MustCompile(r.want),
			},
			{ // the create failed: Terraform recorded the object as tainted and plans to replace it
				PreConfig: func() {
					took := time.Since(started)
					events, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "type=Warning"})
					if err != nil {
						t.Fatal(err)
					}
					var first time.Time
					for _, ev := range events.Items {
						if !strings.HasPrefix(ev.InvolvedObject.Name, r.name) {
							continue
						}
						at := ev.FirstTimestamp.Time
						if at.IsZero() {
							at = ev.EventTime.Time
						}
						if ev.Reason == "FailedCreate" && (first.IsZero() || at.Before(first)) {
							first = at
						}
						t.Logf("event on %s %s: %s %s (%d)", ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Reason, ev.Message, ev.Count)
					}
					end := started.Add(took)
					t.Logf("the apply failed after %s (timeout %s); the first FailedCreate came %s after the apply began, the apply "+
						"ended %s after it (event times are whole seconds)", took.Round(100*time.Millisecond), r.timeout,
						first.Sub(started).Round(time.Second), end.Sub(first).Round(100*time.Millisecond))
					switch {
					case first.IsZero():
						t.Error("no FailedCreate event")
					case r.permanent && end.Sub(first) > 15*time.Second:
						t.Errorf("the apply ended %s after the first FailedCreate: the wait did not stop on it", end.Sub(first))
					case !r.permanent && took < r.timeout:
						t.Errorf("the apply ended after %s, before its timeout of %s: the refusal can clear, the wait must go on", took, r.timeout)
					}
				},
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	}
	if ns == "default" {
		tc.CheckDestroy = controllerCleanedUp(t, r.name)
	}
	resource.Test(t, tc)
}

// TestAccLeaderWorkerSet_waitRefusals: on the released controller, the refusals of the API
// server that do not clear by themselves end the wait within seconds of the first FailedCreate
// with an error that quotes it (a PriorityClass or a ServiceAccount that does not exist, the
// namespace's Pod Security level); an exceeded quota can clear, so the wait goes on until its
// timeout and its error quotes the quota's refusal.
func TestAccLeaderWorkerSet_waitRefusals(t *testing.T) {
	acctest.FirstCLIOnly(t, "the controllers' refusals and the wait's reading of them")
	const failedCreate = `(?s)Warning\s+FailedCreate\s+on\s+StatefulSet\s+`
	for _, r := range []refusal{
		{
			name:    "acc-refusal-priorityclass",
			opts:    []lwsfixture.Option{podSpecs(func(s *corev1.PodSpec) { s.PriorityClassName = "does-not-exist" })},
			want:    failedCreate + `acc-refusal-priorityclass.*no\s+PriorityClass\s+with\s+name\s+does-not-exist\s+was\s+found.*create\s+the\s+PriorityClass`,
			timeout: 5 * time.Minute, permanent: true,
		},
		{
			name:    "acc-refusal-serviceaccount",
			opts:    []lwsfixture.Option{podSpecs(func(s *corev1.PodSpec) { s.ServiceAccountName = "does-not-exist" })},
			want:    failedCreate + `acc-refusal-serviceaccount.*error\s+looking\s+up\s+service\s+account.*does-not-exist.*not\s+found`,
			timeout: 5 * time.Minute, permanent: true,
		},
		{
			name: "acc-refusal-podsecurity", namespace: "acc-refusal-podsecurity",
			nsLabels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"},
			opts: []lwsfixture.Option{podSpecs(func(s *corev1.PodSpec) {
				for i := range s.Containers {
					s.Containers[i].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
				}
			})},
			want:    failedCreate + `acc-refusal-podsecurity.*violates\s+PodSecurity\s+"restricted:latest".*privileged`,
			timeout: 5 * time.Minute, permanent: true,
		},
		{
			name: "acc-refusal-quota", namespace: "acc-refusal-quota",
			// One pod for a group of two: the leader is created, its worker refused.
			setup: func(t *testing.T, ns string) {
				quotas := acctest.Cluster(t).Clientset().CoreV1().ResourceQuotas(ns)
				one := corev1.ResourceList{corev1.ResourcePods: apiresource.MustParse("1")}
				q, err := quotas.Create(context.Background(), &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "pods"},
					Spec: corev1.ResourceQuotaSpec{Hard: one}}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				// The test cluster runs no resource quota controller: the status it would write,
				// without which the quota admission plugin refuses every pod ("status unknown").
				q.Status = corev1.ResourceQuotaStatus{Hard: one, Used: corev1.ResourceList{corev1.ResourcePods: apiresource.MustParse("0")}}
				if _, err := quotas.UpdateStatus(context.Background(), q, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			want: `(?s)timed\s+out\s+waiting\s+for\s+the\s+rollout.*Warning\s+events\s+on\s+the\s+objects\s+the\s+wait\s+follows.*` +
				`Warning\s+FailedCreate\s+on\s+StatefulSet\s+acc-refusal-quota-0.*exceeded\s+quota:\s+pods`,
			timeout: time.Minute,
		},
	} {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			r.run(t)
		})
	}
}
