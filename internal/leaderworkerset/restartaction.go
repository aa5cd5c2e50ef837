package leaderworkerset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/action/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	ktypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	upstreamlws "sigs.k8s.io/lws/api/leaderworkerset/v1"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kube"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/lwswait"
)

// restartManagerSuffix makes the restart action's field manager from the provider's: the
// resource never owns the stamp, so it never sends or removes it.
const restartManagerSuffix = "-restart"

// The labels the LWS controller puts on every pod of a group: its group's index, and its index
// in the group (0 is the leader).
const (
	labelGroupIndex  = upstreamlws.GroupIndexLabelKey
	labelWorkerIndex = upstreamlws.WorkerIndexLabelKey
)

// defaultRestartTimeout matches the resource's default create and update timeouts.
const defaultRestartTimeout = 20 * time.Minute

var (
	_ action.Action              = (*restartAction)(nil)
	_ action.ActionWithConfigure = (*restartAction)(nil)
)

// NewRestartAction is the kubeinfer_leaderworkerset_restart action: a rolling restart of every
// group, or the recreation of the groups given by index, waiting until they are Ready.
func NewRestartAction() action.Action { return &restartAction{} }

type restartAction struct{ data *kube.ProviderData }

type restartModel struct {
	Metadata restartMetadata `tfsdk:"metadata"`
	Groups   types.List      `tfsdk:"groups"`
	Timeouts timeouts.Value  `tfsdk:"timeouts"`
}

type restartMetadata struct {
	Name      types.String `tfsdk:"name"`
	Namespace types.String `tfsdk:"namespace"`
}

func (a *restartAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_leaderworkerset_restart"
}

func (a *restartAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Restarts the groups of a LeaderWorkerSet and waits until they are Ready again " +
			"(Terraform 1.14 and later; OpenTofu has no actions). Without `groups`, a rolling restart as " +
			"`kubectl rollout restart` does for a Deployment: the action sets the `" + rules.RestartedAtAnnotation + "` " +
			"annotation of the leader and worker templates to the current time with its own field manager (the " +
			"provider's `field_manager` followed by `" + restartManagerSuffix + "`), and the LeaderWorkerSet controller rolls " +
			"every group from the partition up by the rollout strategy (`max_unavailable`, `max_surge`), as for any template " +
			"change. The `kubeinfer_leaderworkerset` resource neither reports that annotation as drift nor removes it. " +
			"With `groups`, only those groups are recreated, together, as the controller recreates a failed group: their " +
			"leader pods are deleted (foreground propagation), which deletes the workers, and the controller creates the " +
			"group again from the current revision. The action reports progress and fails with the server's message or, " +
			"at the timeout, naming the groups that are not Ready.",
		Attributes: map[string]schema.Attribute{
			"metadata": schema.SingleNestedAttribute{
				Required:            true,
				MarkdownDescription: "The LeaderWorkerSet to restart.",
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the LeaderWorkerSet."},
					"namespace": schema.StringAttribute{Optional: true,
						MarkdownDescription: "Namespace of the LeaderWorkerSet. Defaults to `default`."},
				},
			},
			"groups": schema.ListAttribute{
				ElementType: types.Int64Type,
				Optional:    true,
				MarkdownDescription: "Indices of the groups to recreate (0 to `replicas - 1`), for example a group " +
					"whose model server hangs. The listed groups are recreated at once, whatever the rollout strategy. " +
					"Not available with `group_identity = \"Hash\"`, whose groups have no index. Leave unset to restart " +
					"every group by the rollout strategy.",
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1),
					listvalidator.UniqueValues(),
					listvalidator.ValueInt64sAre(int64validator.AtLeast(0)),
				},
			},
			"timeouts": timeouts.Attributes(ctx),
		},
	}
}

func (a *restartAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	data, diags := kube.ProviderDataFrom(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	a.data = data
}

func (a *restartAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m restartModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := m.Timeouts.Invoke(ctx, defaultRestartTimeout)
	resp.Diagnostics.Append(diags...)
	var groups []int64
	if !m.Groups.IsNull() {
		resp.Diagnostics.Append(m.Groups.ElementsAs(ctx, &groups, false)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if a.data == nil || a.data.Client == nil {
		resp.Diagnostics.AddError("Provider not configured", "The kubeinfer provider has no client; configure the provider block.")
		return
	}
	dyn, err := a.data.Client.Dynamic()
	if err != nil {
		resp.Diagnostics.AddError("Cannot reach the Kubernetes cluster", err.Error())
		return
	}
	namespace := m.Metadata.Namespace.ValueString()
	if namespace == "" {
		namespace = "default"
	}
	manager := kube.DefaultFieldManager
	if a.data.FieldManager != "" {
		manager = a.data.FieldManager
	}
	var progressMu sync.Mutex
	r := &restart{
		dyn:     dyn,
		ri:      dyn.Resource(Kind.GVR()).Namespace(namespace),
		ns:      namespace,
		name:    m.Metadata.Name.ValueString(),
		manager: manager + restartManagerSuffix,
		progress: func(msg string) {
			// The wait's events come from another goroutine (kube.FailOnWarningEvents).
			progressMu.Lock()
			defer progressMu.Unlock()
			resp.SendProgress(action.InvokeProgressEvent{Message: msg})
		},
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The Warning events on the set, its StatefulSets and its pods are quoted in the progress,
	// and a refusal that does not clear by itself ends the wait (kube.FailOnWarningEvents); a
	// permission the wait lacks is a warning.
	r.start = time.Now()
	ctx, notes := kube.WithWaitReport(ctx, func(msg string) { r.progress(r.elapsed() + msg) })
	var read []metav1.Object
	if live, _, gerr := r.get(ctx); gerr == nil {
		read = append(read, live)
	}
	since := time.Now().Add(-time.Second).Truncate(time.Second)
	var summary string
	err = kube.FailOnWarningEvents(ctx, dyn, namespace, since, kube.NewFollowedObjects(lwswait.EventConcerns(r.name), read...), func(ctx context.Context) error {
		var werr error
		if groups == nil {
			summary, werr = r.rolling(ctx)
		} else {
			summary, werr = r.groups(ctx, groups)
		}
		return werr
	})
	for _, note := range notes() {
		resp.Diagnostics.AddWarning("The provider lacks a permission the action's wait uses", "The restart of "+r.ns+"/"+r.name+": "+note)
	}
	if err != nil {
		var bad *badGroupsError
		if errors.As(err, &bad) {
			resp.Diagnostics.AddAttributeError(path.Root("groups"), "Cannot restart these groups", bad.Error())
			return
		}
		resp.Diagnostics.AddError("Cannot restart LeaderWorkerSet "+r.ns+"/"+r.name, err.Error())
		return
	}
	r.progress(summary)
}

// restart is one invocation of the action.
type restart struct {
	dyn      dynamic.Interface
	ri       dynamic.ResourceInterface
	ns, name string
	manager  string
	progress func(string)
	start    time.Time
}

// badGroupsError is a groups value the LeaderWorkerSet cannot honour.
type badGroupsError struct{ msg string }

func (e *badGroupsError) Error() string { return e.msg }

// get reads the LeaderWorkerSet, retrying transient errors.
func (r *restart) get(ctx context.Context) (*unstructured.Unstructured, *lwsv1.LeaderWorkerSet, error) {
	var u *unstructured.Unstructured
	err := kube.RetryTransient(ctx, func(ctx context.Context) error {
		var gerr error
		u, gerr = r.ri.Get(ctx, r.name, metav1.GetOptions{})
		return gerr
	})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, fmt.Errorf("LeaderWorkerSet %s/%s not found: %s", r.ns, r.name, kube.APIErrorDetail(err))
		}
		return nil, nil, fmt.Errorf("cannot read LeaderWorkerSet %s/%s: %s", r.ns, r.name, kube.APIErrorDetail(err))
	}
	var obj lwsv1.LeaderWorkerSet
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &obj); err != nil {
		return nil, nil, fmt.Errorf("cannot read LeaderWorkerSet %s/%s: %w", r.ns, r.name, err)
	}
	return u, &obj, nil
}

// groupPodsByUID are the pods of the LeaderWorkerSet by group index, then by UID.
type groupPodsByUID map[string]map[ktypes.UID]podState

// podState is what the action needs of one pod.
type podState struct {
	name  string
	ready bool // Ready and not terminating
}

// pods lists the pods of the LeaderWorkerSet, retrying transient errors.
func (r *restart) pods(ctx context.Context) (groupPodsByUID, error) {
	var list *unstructured.UnstructuredList
	err := kube.RetryTransient(ctx, func(ctx context.Context) error {
		var lerr error
		list, lerr = r.dyn.Resource(lwswait.PodsGVR).Namespace(r.ns).List(ctx, metav1.ListOptions{LabelSelector: lwswait.PodsSelector(r.name)})
		return lerr
	})
	if err != nil {
		return nil, fmt.Errorf("cannot list the pods of LeaderWorkerSet %s/%s: %s", r.ns, r.name, kube.APIErrorDetail(err))
	}
	out := groupPodsByUID{}
	for i := range list.Items {
		p := &list.Items[i]
		g := p.GetLabels()[labelGroupIndex]
		if out[g] == nil {
			out[g] = map[ktypes.UID]podState{}
		}
		out[g][p.GetUID()] = podState{name: p.GetName(), ready: lwswait.PodReady(p) && p.GetDeletionTimestamp() == nil}
	}
	return out, nil
}

// rolling stamps the templates with rules.RestartedAtAnnotation and waits for the controller's
// rolling update, as the resource's wait does (lwswait.Rollout).
func (r *restart) rolling(ctx context.Context) (string, error) {
	r.start = time.Now()
	live, obj, err := r.get(ctx)
	if err != nil {
		return "", err
	}
	before, err := r.pods(ctx)
	if err != nil {
		return "", err
	}
	stamp := time.Now().UTC().Format(time.RFC3339)
	stamped := obj.DeepCopy()
	lwt := map[string]any{"workerTemplate": stampTemplate(stamp)}
	setAnnotation(&stamped.Spec.LeaderWorkerTemplate.WorkerTemplate.ObjectMeta, stamp)
	// Without a leader template the leader uses the worker template: one stamp rolls both.
	// Sending a leader template of only metadata would give the leaders no containers.
	if lt := stamped.Spec.LeaderWorkerTemplate.LeaderTemplate; lt != nil {
		lwt["leaderTemplate"] = stampTemplate(stamp)
		setAnnotation(&lt.ObjectMeta, stamp)
	}
	preview := rules.PreviewRollout(stamped, obj)
	first, last, ok := preview.Recreated()
	if !ok {
		// Stamping would make a revision that recreates nothing (no group, or every group below
		// the partition): fail before changing the object.
		return "", fmt.Errorf("no group of %s/%s would be recreated (replicas = %d, partition = %d): nothing to restart. "+
			"Lower the partition, or list the groups to recreate in groups", r.ns, r.name, preview.Replicas, preview.Partition)
	}
	body, err := json.Marshal(map[string]any{
		"apiVersion": live.GetAPIVersion(),
		"kind":       live.GetKind(),
		"metadata":   map[string]any{"name": r.name, "namespace": r.ns},
		"spec":       map[string]any{"leaderWorkerTemplate": lwt},
	})
	if err != nil {
		return "", err
	}
	// Force: the stamp is this manager's, even if kubectl or an earlier tool set it before.
	applied, err := r.ri.Patch(ctx, r.name, ktypes.ApplyPatchType, body, metav1.PatchOptions{FieldManager: r.manager, Force: ptr.To(true)})
	if err != nil {
		return "", fmt.Errorf("cannot set %s on the templates: %s", rules.RestartedAtAnnotation, kube.APIErrorDetail(err))
	}
	r.progress(fmt.Sprintf("%s = %s set by field manager %q. %s", rules.RestartedAtAnnotation, stamp, r.manager, preview.Message(rules.Kind.Node())))
	done, err := lwswait.WatchProgress(ctx, r.ri, applied, func(s string) { r.progress(r.elapsed() + s) })
	if err == nil {
		done, err = lwswait.ConfirmPodsReady(ctx, r.dyn, r.ri, done)
	}
	if err != nil {
		return "", r.unfinished(ctx, err, done)
	}
	after, err := r.pods(ctx)
	if err != nil {
		return "", err
	}
	replaced, total := replacedPods(before, after, first, last)
	return fmt.Sprintf("%sRestarted %s/%s: %s recreated and Ready, %d of %d pods replaced.", r.elapsed(), r.ns, r.name,
		rules.GroupRange(first, last), replaced, total), nil
}

func stampTemplate(stamp string) map[string]any {
	return map[string]any{"metadata": map[string]any{"annotations": map[string]any{rules.RestartedAtAnnotation: stamp}}}
}

func setAnnotation(m *metav1.ObjectMeta, stamp string) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[rules.RestartedAtAnnotation] = stamp
}

// replacedPods counts the pods of groups first..last before that are gone after.
func replacedPods(before, after groupPodsByUID, first, last int32) (replaced, total int) {
	for g := first; g <= last; g++ {
		key := strconv.Itoa(int(g))
		for uid := range before[key] {
			total++
			if _, still := after[key][uid]; !still {
				replaced++
			}
		}
	}
	return replaced, total
}

// restartAdvice closes the action's wait error: an action changes no state and has no next
// plan, and the controller goes on with a restart it has begun.
const restartAdvice = "The restart was requested and the LeaderWorkerSet controller carries it on after the action " +
	"ends; the action changes no state. Raise the action's timeouts.invoke to wait longer."

func (r *restart) elapsed() string {
	return fmt.Sprintf("[%s] ", time.Since(r.start).Round(time.Second))
}

// unfinished turns a wait's error into the action's: interrupted or timed out, with the
// groups that are not ready.
func (r *restart) unfinished(ctx context.Context, err error, last *unstructured.Unstructured) error {
	var timeout *kube.RolloutUnfinished
	if !errors.As(err, &timeout) {
		return err
	}
	timeout.Advice = restartAdvice
	if errors.Is(ctx.Err(), context.Canceled) {
		timeout.Interrupted = true
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if last != nil {
		timeout.Detail = lwswait.NotReadyGroups(sctx, r.dyn, last)
	}
	return err
}

// groups recreates the given groups as the controller recreates a failed group
// (handleRestartPolicy in pkg/controllers/pod_controller.go, sigs.k8s.io/lws v0.9.0): it
// deletes the group's leader pod with foreground propagation, the worker StatefulSet the leader
// pod owns goes with it, and the leader StatefulSet and the pod controller create the group
// again. It waits until none of the groups' old pods is left and all their new pods are Ready.
func (r *restart) groups(ctx context.Context, groups []int64) (string, error) {
	r.start = time.Now()
	_, obj, err := r.get(ctx)
	if err != nil {
		return "", err
	}
	if obj.Spec.GroupIdentity == lwsv1.GroupIdentityHash {
		return "", &badGroupsError{fmt.Sprintf("LeaderWorkerSet %s/%s has group_identity = \"Hash\": its groups have no index. "+
			"Leave groups unset to restart every group by the rollout strategy.", r.ns, r.name)}
	}
	replicas := rules.ReplicasOf(obj)
	sort.Slice(groups, func(i, j int) bool { return groups[i] < groups[j] })
	for _, g := range groups {
		if g >= int64(replicas) {
			return "", &badGroupsError{fmt.Sprintf("LeaderWorkerSet %s/%s has %d groups (0-%d); there is no group %d.", r.ns, r.name, replicas, replicas-1, g)}
		}
	}
	size := int32(1)
	if obj.Spec.LeaderWorkerTemplate.Size != nil {
		size = *obj.Spec.LeaderWorkerTemplate.Size
	}
	before, err := r.pods(ctx)
	if err != nil {
		return "", err
	}
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = strconv.FormatInt(g, 10)
	}
	for _, g := range names {
		if err := r.deleteLeader(ctx, g); err != nil {
			return "", err
		}
	}
	r.progress(fmt.Sprintf("Deleted the %s of %s %s of %s/%s (foreground propagation): the controller recreates %s.",
		plural(len(names), "leader pod", "leader pods"), plural(len(names), "group", "groups"), strings.Join(names, ", "), r.ns, r.name,
		plural(len(names), "it", "them")))
	var lastState string
	err = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		now, lerr := r.pods(ctx)
		if lerr != nil {
			if ctx.Err() == nil && kube.Transient(lerr) {
				return false, nil
			}
			return false, lerr
		}
		states, done := groupStates(names, before, now, size)
		if states != lastState {
			lastState = states
			if !done {
				r.progress(r.elapsed() + states)
			}
		}
		return done, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			reason := lastState
			if reason == "" {
				reason = "no pod has been read"
			}
			werr := &kube.RolloutUnfinished{What: "the restarted groups", Reason: reason, Interrupted: errors.Is(ctx.Err(), context.Canceled), Advice: restartAdvice}
			return "", werr
		}
		return "", err
	}
	after, err := r.pods(ctx)
	if err != nil {
		return "", err
	}
	replaced, total := 0, 0
	for _, g := range groups {
		n, t := replacedPods(before, after, int32(g), int32(g))
		replaced, total = replaced+n, total+t
	}
	return fmt.Sprintf("%sRestarted %s %s of %s/%s: recreated and Ready, %d of %d pods replaced.", r.elapsed(),
		plural(len(names), "group", "groups"), strings.Join(names, ", "), r.ns, r.name, replaced, total), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// deleteLeader deletes the leader pod of group g, on the condition that it is still the pod
// listed (a leader the controller has just recreated is left alone).
func (r *restart) deleteLeader(ctx context.Context, g string) error {
	pods := r.dyn.Resource(lwswait.PodsGVR).Namespace(r.ns)
	var list *unstructured.UnstructuredList
	selector := lwswait.PodsSelector(r.name) + "," + labelGroupIndex + "=" + g + "," + labelWorkerIndex + "=0"
	err := kube.RetryTransient(ctx, func(ctx context.Context) error {
		var lerr error
		list, lerr = pods.List(ctx, metav1.ListOptions{LabelSelector: selector})
		return lerr
	})
	if err != nil {
		return fmt.Errorf("cannot list the leader pod of group %s: %s", g, kube.APIErrorDetail(err))
	}
	for i := range list.Items {
		p := &list.Items[i]
		if p.GetDeletionTimestamp() != nil {
			continue // already being recreated
		}
		uid := p.GetUID()
		err := kube.RetryTransient(ctx, func(ctx context.Context) error {
			return pods.Delete(ctx, p.GetName(), metav1.DeleteOptions{
				PropagationPolicy: ptr.To(metav1.DeletePropagationForeground),
				Preconditions:     &metav1.Preconditions{UID: &uid},
			})
		})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("cannot delete the leader pod %s of group %s: %s", p.GetName(), g, kube.APIErrorDetail(err))
		}
	}
	return nil
}

// groupStates describes the restarted groups: a group is done when none of its old pods is left
// and size new pods are Ready.
func groupStates(groups []string, before, now groupPodsByUID, size int32) (string, bool) {
	var parts []string
	done := true
	for _, g := range groups {
		old, freshReady := 0, 0
		for uid, p := range now[g] {
			if _, isOld := before[g][uid]; isOld {
				old++
			} else if p.ready {
				freshReady++
			}
		}
		if old > 0 || freshReady < int(size) {
			done = false
		}
		part := fmt.Sprintf("group %s: %d/%d new pods Ready", g, freshReady, size)
		if old > 0 {
			part += fmt.Sprintf(", %d old pods left", old)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; "), done
}
