package acctest_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

var plcGVR = schema.GroupVersionResource{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "prioritylevelconfigurations"}

func TestAccHarness_bootstrapPriorityLevels(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	want := []string{"catch-all", "exempt", "global-default", "leader-election", "node-high", "system", "workload-high", "workload-low"}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got []string
	for {
		list, err := c.Dynamic().Resource(plcGVR).List(ctx, metav1.ListOptions{})
		if err == nil {
			got = got[:0]
			for _, item := range list.Items {
				got = append(got, item.GetName())
			}
			if containsAll(got, want) {
				break
			}
		} else {
			t.Logf("listing PriorityLevelConfigurations: %v", err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("bootstrap priority levels missing after 30 s: have %v, want %v", got, want)
		case <-time.After(250 * time.Millisecond):
		}
	}

	// The typed client and the kubeconfig file reach the same server.
	typed, err := c.Clientset().FlowcontrolV1().PriorityLevelConfigurations().Get(ctx, "global-default", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("typed get of global-default: %v", err)
	}
	if typed.Spec.Type != flowcontrolv1.PriorityLevelEnablementLimited {
		t.Errorf("global-default type = %q, want Limited", typed.Spec.Type)
	}
	if _, err := os.Stat(c.KubeconfigPath()); err != nil {
		t.Fatalf("kubeconfig: %v", err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.KubeconfigPath())
	if err != nil {
		t.Fatalf("loading kubeconfig %s: %v", c.KubeconfigPath(), err)
	}
	if strings.TrimSuffix(cfg.Host, "/") != strings.TrimSuffix(c.RESTConfig().Host, "/") {
		t.Errorf("kubeconfig host %q != REST config host %q", cfg.Host, c.RESTConfig().Host)
	}
	if acctest.Cluster(t) != c {
		t.Error("Cluster returned a different cluster on the second call")
	}
}

func TestAccHarness_dryRunValidation(t *testing.T) {
	acctest.SkipAfterFirstCLI(t)
	c := acctest.Cluster(t)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "flowcontrol.apiserver.k8s.io/v1",
		"kind":       "PriorityLevelConfiguration",
		"metadata":   map[string]any{"name": "acctest-invalid-handsize"},
		"spec": map[string]any{
			"type": "Limited",
			"limited": map[string]any{
				"nominalConcurrencyShares": int64(10),
				"limitResponse": map[string]any{
					"type": "Queue",
					"queuing": map[string]any{
						"queues":           int64(4),
						"handSize":         int64(8),
						"queueLengthLimit": int64(50),
					},
				},
			},
		},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Dynamic().Resource(plcGVR).Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil {
		t.Fatal("dry-run create of a PriorityLevelConfiguration with queues 4 / handSize 8 succeeded, want 422")
	}
	if code := apierrors.ReasonForError(err); code != metav1.StatusReasonInvalid {
		t.Errorf("reason = %q, want %q (err: %v)", code, metav1.StatusReasonInvalid, err)
	}
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Code != http.StatusUnprocessableEntity {
		t.Fatalf("want a 422 Invalid error, got %T: %v", err, err)
	}
	if !strings.Contains(err.Error(), "handSize") {
		t.Errorf("error does not mention handSize: %v", err)
	}
	t.Logf("server said: %v", err)

	// Dry run: nothing was created.
	if _, err := c.Dynamic().Resource(plcGVR).Get(ctx, "acctest-invalid-handsize", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after dry run: want NotFound, got %v", err)
	}
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
