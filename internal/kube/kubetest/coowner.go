package kubetest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

// CoOwner is a way another tool sets labels and annotations on an object the provider manages,
// each leaving a different entry in metadata.managedFields.
type CoOwner struct {
	Name    string // for test names
	Manager string // the field manager the API server records
	// Operation is "Update" or "Apply", as the managed-fields entry says.
	Operation string
}

// CoOwners are the writers a user meets: `kubectl apply` client-side (an Update that also
// records kubectl's last-applied annotation), another server-side apply manager (Helm 4,
// `kubectl apply --server-side`), and a plain update (`kubectl label`, `kubectl annotate`).
var CoOwners = []CoOwner{
	{Name: "client-side-apply", Manager: "kubectl-client-side-apply", Operation: "Update"},
	{Name: "apply-manager", Manager: "helm", Operation: "Apply"},
	{Name: "plain-update", Manager: "kubectl-label", Operation: "Update"},
}

// String is how the provider's messages name the co-owner.
func (o CoOwner) String() string { return fmt.Sprintf("%q (%s)", o.Manager, o.Operation) }

// Set writes labels and annotations on the object name of kind apiVersion/kind as the co-owner
// would.
func (o CoOwner) Set(t *testing.T, c dynamic.ResourceInterface, apiVersion, kind, name string, labels, annotations map[string]string) {
	t.Helper()
	meta := map[string]any{"name": name}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	var err error
	switch o.Operation {
	case "Apply":
		body, _ := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta})
		_, err = c.Patch(context.Background(), name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: o.Manager, Force: ptr.To(true)})
	default:
		if o.Manager == "kubectl-client-side-apply" {
			// kubectl apply records what it applied in its last-applied annotation.
			record, _ := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta})
			all := maps.Clone(annotations)
			if all == nil {
				all = map[string]string{}
			}
			all["kubectl.kubernetes.io/last-applied-configuration"] = string(record)
			meta = maps.Clone(meta)
			meta["annotations"] = all
		}
		body, _ := json.Marshal(map[string]any{"metadata": meta})
		_, err = c.Patch(context.Background(), name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: o.Manager})
	}
	if err != nil {
		t.Fatalf("%s sets labels and annotations on %s: %v", o.Name, name, err)
	}
}

// MetadataKeys checks the live object's labels and annotations: the keys of want present with
// their values, the keys of gone absent. It logs both maps, as the record of what the apply did.
func MetadataKeys(t *testing.T, c dynamic.ResourceInterface, name, when string, want map[string]string, gone ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := c.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		labels, annotations := u.GetLabels(), u.GetAnnotations()
		t.Logf("%s %s: labels %v, annotations %v", name, when, labels, withoutLastApplied(annotations))
		var problems []string
		for k, v := range want {
			got, ok := labels[k]
			if !ok {
				got, ok = annotations[k]
			}
			if !ok || got != v {
				problems = append(problems, fmt.Sprintf("%s = %q (present %v), want %q", k, got, ok, v))
			}
		}
		for _, k := range gone {
			if v, ok := labels[k]; ok {
				problems = append(problems, fmt.Sprintf("label %s = %q is still there", k, v))
			}
			if v, ok := annotations[k]; ok {
				problems = append(problems, fmt.Sprintf("annotation %s = %q is still there", k, v))
			}
		}
		if len(problems) > 0 {
			return fmt.Errorf("%s %s: %s", name, when, strings.Join(problems, "; "))
		}
		return nil
	}
}

// withoutLastApplied leaves kubectl's long record out of a log line.
func withoutLastApplied(annotations map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		if k == "kubectl.kubernetes.io/last-applied-configuration" {
			out = append(out, k+"=<kubectl's record>")
			continue
		}
		out = append(out, k+"="+annotations[k])
	}
	return out
}

// PlanWarning checks that one plan warning recorded since the last check contains every part,
// and logs it.
func PlanWarning(t *testing.T, w *Warnings, parts ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := w.TakePlan()
		for _, g := range got {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(g, p)
			}
			if all {
				t.Logf("plan warning: %s", g)
				return nil
			}
		}
		return fmt.Errorf("no plan warning contains %q; got:\n%s\nrefresh warnings:\n%s", parts, String(got), String(w.Distinct()))
	}
}

// Wrapped matches an error message that contains parts in this order, however the CLI wrapped
// its lines.
func Wrapped(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.Join(strings.Fields(regexp.QuoteMeta(p)), `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}

// CoOwnedRemoval are the steps of a co-owned key test of the resource at addr, object name
// (apiVersion and kind as the API serves it): the configuration declared applies the label tier
// = "gpu" and the annotation example.com/owner = "team-a"; owner then sets the same two keys;
// the configuration dropped, which declares neither, removes both from the object, the plan
// warning naming owner; the next plan is empty. kept are keys dropped still declares.
func CoOwnedRemoval(t *testing.T, w *Warnings, c dynamic.ResourceInterface, owner CoOwner, apiVersion, kind, name, addr, declared, dropped string, kept map[string]string) []resource.TestStep {
	return []resource.TestStep{
		{Config: declared},
		{
			PreConfig: func() {
				w.TakePlan()
				tier, team := "gpu", "team-a"
				if owner.Operation != "Apply" {
					tier, team = "h100", "team-b"
				}
				owner.Set(t, c, apiVersion, kind, name, map[string]string{"tier": tier}, map[string]string{"example.com/owner": team})
				if err := MetadataKeys(t, c, name, "before the apply", map[string]string{"tier": tier, "example.com/owner": team})(nil); err != nil {
					t.Fatal(err)
				}
			},
			Config: dropped,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
			}},
			Check: resource.ComposeTestCheckFunc(
				PlanWarning(t, w, "Attributes owned by other field managers will be removed",
					`label tier is also set by `+owner.String()+`; it will be removed`,
					`annotation example.com/owner is also set by `+owner.String()+`; it will be removed`),
				MetadataKeys(t, c, name, "after the apply", kept, "tier", "example.com/owner"),
			),
		},
		// terraform-plugin-testing plans again after each apply and fails the step unless that
		// plan is empty: the next plan.
	}
}
