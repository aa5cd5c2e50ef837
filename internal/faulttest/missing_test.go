package faulttest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/acctest"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

const lwsCRD = "leaderworkersets.leaderworkerset.x-k8s.io"

// notServed is what the provider says when the cluster does not serve the
// kind's API (see kube.notServedDetail).
const notServed = "The cluster does not serve leaderworkersets.leaderworkerset.x-k8s.io"

// mustFailWith runs terraform and fails the test unless it exits non-zero
// with want in its output.
func (w *workdir) mustFailWith(ctx context.Context, want string, args ...string) result {
	w.t.Helper()
	r := w.run(ctx, args...)
	w.checkNoPanic(r)
	if r.code == 0 || !strings.Contains(r.out, want) {
		w.t.Fatalf("want a failure saying %q:\n%s", want, r)
	}
	return r
}

// TestAccFault_missingAPI points the provider at a cluster without the
// LeaderWorkerSet CRD (the wrong cluster selected), deletes the CRD between
// plan and apply, and deletes an object between plan and apply. Refresh,
// apply and destroy fail with an error naming the API instead of taking the
// objects for deleted: nothing is dropped from state, and once the right
// cluster (or the CRD) is back the next run converges.
func TestAccFault_missingAPI(t *testing.T) {
	released := acctest.Cluster(t)

	t.Run("wrong cluster", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		// A second cluster, without any CRD: what a wrong kubeconfig context
		// points at.
		other, err := acctest.Start(acctest.Options{Profile: acctest.NewerFields, CRDDirectoryPaths: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = other.Stop() })

		const n = 3
		f := fleet{prefix: "wrong-cluster", n: n, provider: providerAt(released.KubeconfigPath())}
		w := newWorkdir(t, f.config())
		t.Cleanup(func() { cleanup(t, w, released, f.prefix) })
		w.mustSucceed(ctx, applyArgs...)

		f.provider = providerAt(other.KubeconfigPath())
		w.write(f.config())
		w.mustFailWith(ctx, notServed, "plan", "-input=false", "-no-color", "-lock=false")
		w.mustFailWith(ctx, notServed, destroyArgs...)
		if got := len(w.stateIDs(ctx)); got != n {
			t.Fatalf("after refresh and destroy against the wrong cluster the state holds %d objects, want %d", got, n)
		}

		f.provider = providerAt(released.KubeconfigPath())
		w.write(f.config())
		w.planEmpty(ctx)
		agree(ctx, t, w, released.Dynamic(), f.prefix, n)
	})

	t.Run("CRD deleted between plan and apply", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		// Its own cluster: deleting the CRD deletes every LeaderWorkerSet.
		c := acctest.ClusterWith(t, acctest.NewerFields)
		const n = 3
		f := fleet{prefix: "crd-gone", n: n, provider: providerAt(c.KubeconfigPath())}
		w := newWorkdir(t, f.config())
		t.Cleanup(func() { cleanup(t, w, c, f.prefix) })
		w.mustSucceed(ctx, applyArgs...)

		f.image = "vllm/vllm-openai:v0.11.1"
		w.write(f.config())
		w.mustSucceed(ctx, "plan", "-input=false", "-no-color", "-out=tfplan")

		crds := c.Dynamic().Resource(crdGVR)
		if err := crds.Delete(ctx, lwsCRD, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		for {
			_, err := crds.Get(ctx, lwsCRD, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("the CRD is still there: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}

		w.mustFailWith(ctx, notServed, "apply", "-input=false", "-no-color", "tfplan")
		w.mustFailWith(ctx, notServed, "plan", "-input=false", "-no-color", "-lock=false")
		w.mustFailWith(ctx, notServed, destroyArgs...)
		if got := len(w.stateIDs(ctx)); got != n {
			t.Fatalf("with the CRD gone the state holds %d objects, want %d: a missing API was taken for deleted objects", got, n)
		}

		root, err := acctest.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := envtest.InstallCRDs(c.RESTConfig(), envtest.CRDInstallOptions{
			Paths: []string{filepath.Join(root, "internal", "acctest", "testdata", "crds")},
		}); err != nil {
			t.Fatal(err)
		}
		// The objects went with their CRD: now the served API says so, and
		// the plan creates them again.
		if got, want := planCounts(ctx, t, w), "3 to add, 0 to change, 0 to destroy"; got != want {
			t.Fatalf("with the CRD back the plan is %q, want %q", got, want)
		}
		w.mustSucceed(ctx, applyArgs...)
		w.planEmpty(ctx)
		agree(ctx, t, w, c.Dynamic(), f.prefix, n)
		w.mustSucceed(ctx, destroyArgs...)
		agree(ctx, t, w, c.Dynamic(), f.prefix, 0)
	})

	t.Run("object deleted between plan and apply", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		const n = 2
		f := fleet{prefix: "object-gone", n: n, provider: providerAt(released.KubeconfigPath())}
		w := newWorkdir(t, f.config())
		t.Cleanup(func() { cleanup(t, w, released, f.prefix) })
		w.mustSucceed(ctx, applyArgs...)

		f.image = "vllm/vllm-openai:v0.11.1"
		w.write(f.config())
		w.mustSucceed(ctx, "plan", "-input=false", "-no-color", "-out=tfplan")
		lws := released.Dynamic().Resource(lwsGVR).Namespace(namespace)
		if err := lws.Delete(ctx, f.prefix+"-0", deleteOpts()); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := lws.Get(ctx, f.prefix+"-0", metav1.GetOptions{}); apierrors.IsNotFound(err) {
				break
			}
			if ctx.Err() != nil {
				t.Fatal("the object is still there")
			}
			time.Sleep(100 * time.Millisecond)
		}
		// The approved plan updates both in place (keeping their uids). The
		// one that is gone cannot be updated: re-creating it would be another
		// object, so that apply fails on it alone, applies the other, and the
		// next run creates it.
		res := w.run(ctx, "apply", "-input=false", "-no-color", "tfplan")
		w.checkNoPanic(res)
		if res.code == 0 || !strings.Contains(res.out, "was deleted after the plan was made") ||
			strings.Contains(res.out, "inconsistent result") {
			t.Fatalf("the apply of an update to an object deleted after the plan must fail on it, saying so:\n%s", res)
		}
		if got, want := planCounts(ctx, t, w), "1 to add, 0 to change, 0 to destroy"; got != want {
			t.Fatalf("after the failed update the plan is %q, want %q", got, want)
		}
		w.mustSucceed(ctx, applyArgs...)
		w.planEmpty(ctx)
		agree(ctx, t, w, released.Dynamic(), f.prefix, n)
		u, err := lws.Get(ctx, f.prefix+"-0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(mustJSON(t, u.Object)), "v0.11.1") {
			t.Errorf("the re-created object does not have the planned image")
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
