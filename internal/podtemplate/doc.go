// Package podtemplate validates a LeaderWorkerSet pod template offline, at
// `terraform plan`, the way kube-apiserver v1.37.2 validates the template of
// the apps/v1 StatefulSet the LWS controller creates from it.
//
// The rules are ported (not imported) from k8s.io/kubernetes@v1.37.2
// pkg/apis/core/validation/validation.go and pkg/apis/apps/validation; each
// ported function cites its source function in a comment. Inputs are not
// defaulted: ValidatePodTemplateSpec deep-copies the template and first applies
// the server's defaulting (defaults.go) and feature-gate field dropping, so
// omitting a defaulted field is never an error. Feature gates are evaluated at
// their v1.37 defaults for a create (no old object).
//
// DIVERGENCES (deliberate; everything else aims at verdict parity with a
// dry-run StatefulSet create on kube-apiserver v1.37.2):
//
//  1. topologySpreadConstraints[i].matchLabelKeys[k]: any key that is also in
//     labelSelector (matchLabels or matchExpressions keys) is rejected
//     (Invalid at matchLabelKeys[k]). The server's template check only catches
//     a key that appears twice in the selector (reported at
//     topologySpreadConstraints[i][k]); the overlap otherwise fails at Pod
//     creation, after the Pod strategy merges `key In [value]` into the selector.
//     When the server does catch it, it reports topologySpreadConstraints[i][k];
//     the provider always reports matchLabelKeys[k].
//  2. containers[*].image / initContainers[*].image with leading or trailing
//     whitespace is rejected (Invalid). Template validation allows it, but
//     every Pod created from the template fails validateContainerOnlyForPod.
//  3. ValidateVolumeClaimTemplates checks metadata.name (Required / DNS-1123
//     subdomain, Invalid). The server does not validate VCT names there; the
//     effective rule (DNS-1123 label, via the synthetic template volume) is
//     applied by ValidatePodTemplateSpec through Options.VolumeClaimTemplateNames,
//     so verdicts only differ in where an empty/invalid name is reported.
//  4. Synthetic volumes for VolumeClaimTemplateNames are placed first, in the
//     given order; the server iterates a map, so its spec.volumes[i] indices for
//     these volumes are not stable. Verdicts are identical.
//  5. Privileged containers / hostProcess pods are accepted unless
//     Options.DisallowPrivileged is set (kube-apiserver --allow-privileged=false).
//     kubeadm, kind and managed clusters run with privileged allowed.
//  6. Error lists are deterministic (resource names sorted); the server's order
//     follows map iteration. Only order differs.
//  7. Duplicated server errors are reported once: the StatefulSet path runs the
//     label/annotation checks twice, and also validates ephemeral containers in
//     detail after Forbidding them; here only the Forbidden is reported.
//
// Parity is tested against a real server: corpus_test.go generates a
// deterministic corpus (over 3,000 templates: realistic vLLM/SGLang/Triton
// bases plus just-valid/just-invalid mutations of every rule), and
// TestAccParityWithAPIServer (parity_acc_test.go, TF_ACC=1) dry-run creates
// an apps/v1 StatefulSet for each one and fails on any verdict disagreement
// other than divergences 1 and 2. TestParityCorpusProvider replays the
// server-verified verdicts offline.
//
// Not covered (accepted here, possibly rejected by the server or later):
// the StatefulSet selector-vs-template-labels match (owned by the LWS
// controller), pod-creation-time limits-to-requests defaulting effects,
// pod (anti-)affinity matchLabelKeys overlaps that only fail after the Pod
// strategy merges keys into the selector, runtime naming limits
// (<lws>-<index> label lengths), admission webhooks/quotas/LimitRanges, and
// fields of feature gates that are off by default in v1.37 (they are dropped,
// as the server drops them: container stopSignal, httpGet.protocol, grpc.mode,
// emptyDir.mode, bindMountOptions, volume user/defaultUser, schedulingGroup,
// evictionResponders).
package podtemplate
