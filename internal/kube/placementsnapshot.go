package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kubeclient"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/placement"
)

// Values of the provider's placement_preview setting (package placement's modes).
const (
	PlacementOff   = placement.ModeOff
	PlacementWarn  = placement.ModeWarn
	PlacementError = placement.ModeError
)

// placementSnapshotTimeout bounds the two lists, so that an unreachable cluster skips the preview
// instead of holding the plan.
const placementSnapshotTimeout = 30 * time.Second

// placementSnapshot is the cluster as the placement preview reads it: loaded at most once per
// provider process, that is once per Terraform command, and shared by every resource it plans
// (Terraform plans them in parallel).
type placementSnapshot struct {
	once     sync.Once
	snapshot placement.Snapshot
	err      error
}

// PlacementSnapshot returns the nodes and the pods bound to them, listing each once per
// provider process on first use. An error means the preview is skipped; its message says why.
func (d *ProviderData) PlacementSnapshot(ctx context.Context) (placement.Snapshot, error) {
	d.placement.once.Do(func() {
		// Not cancelled with the first plan request that asks: every resource of the command
		// waits for this one load.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), placementSnapshotTimeout)
		defer cancel()
		d.placement.snapshot, d.placement.err = loadPlacementSnapshot(ctx, d.Client)
	})
	return d.placement.snapshot, d.placement.err
}

// loadPlacementSnapshot lists the nodes and the pods that are not terminated, as the scheduler's
// pod informer selects them (status.phase!=Succeeded,status.phase!=Failed in
// pkg/scheduler/scheduler.go newPodInformer, kubernetes v1.37.2): the assigned ones take room on
// their nodes; of those waiting for a node, the preview keeps the updated objects' own, which the
// scheduler tries ahead of the pods a rollout creates. One request each, without paging, so that a
// plan costs two requests whatever its size; in protobuf, the encoding the API server answers
// fastest and the client decodes fastest.
func loadPlacementSnapshot(ctx context.Context, client *kubeclient.Client) (placement.Snapshot, error) {
	if client == nil {
		return placement.Snapshot{}, errors.New("the provider is not configured")
	}
	cfg, err := client.RESTConfig()
	if err != nil {
		return placement.Snapshot{}, err
	}
	rc, err := coreRESTClient(cfg)
	if err != nil {
		return placement.Snapshot{}, err
	}
	var nodes corev1.NodeList
	if err := rc.Get().Resource("nodes").VersionedParams(&metav1.ListOptions{}, metav1.ParameterCodec).
		Do(ctx).Into(&nodes); err != nil {
		return placement.Snapshot{}, listError("nodes", err)
	}
	selector := fields.AndSelectors(
		fields.OneTermNotEqualSelector("status.phase", string(corev1.PodSucceeded)),
		fields.OneTermNotEqualSelector("status.phase", string(corev1.PodFailed)),
	).String()
	var pods corev1.PodList
	if err := rc.Get().Resource("pods").VersionedParams(&metav1.ListOptions{FieldSelector: selector}, metav1.ParameterCodec).
		Do(ctx).Into(&pods); err != nil {
		return placement.Snapshot{}, listError("pods", err)
	}
	return placement.Snapshot{Nodes: nodes.Items, Pods: pods.Items}, nil
}

// listError says why a list failed, in the words the plan shows.
func listError(resource string, err error) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("%s: %w", MissingPermission("", resource, "list", ""), err)
	}
	return fmt.Errorf("listing %s: %w", resource, err)
}

// coreRESTClient is a client of the core API group that decodes into the corev1 types, built on a
// scheme of that group alone (the full client-go clientset registers every group at start-up).
func coreRESTClient(cfg *rest.Config) (*rest.RESTClient, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	cfg.GroupVersion = &corev1.SchemeGroupVersion
	cfg.APIPath = "/api"
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return rest.RESTClientFor(cfg)
}
