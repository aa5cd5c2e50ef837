#!/usr/bin/env bash
# demo.sh (make demo): apply examples/inference-cluster/ to a throwaway local
# Kubernetes API server, show what was created, and destroy it again.
#
#   1. build the provider binary;
#   2. make sure the test cluster's components are built
#      (tools/testcluster/ensure.sh: etcd, kube-apiserver,
#      kube-controller-manager, kube-scheduler, KWOK and the released
#      LeaderWorkerSet v0.9.0 controller; 10 to 20 minutes the first time on
#      2 cores, cached afterwards);
#   3. start kubeinfer-testcluster in the background (the "released" profile:
#      the released LWS CRD, controller and webhooks, a scheduler, 8 simulated
#      GPU nodes in two zones) and wait for it;
#   4. write a copy of the committed CLI configuration dev.tfrc whose
#      dev_overrides point at the binary of step 1, so nothing is downloaded
#      and `terraform init` is not needed (Terraform prints a warning about
#      dev_overrides: expected);
#   5. terraform apply in a temporary copy of examples/inference-cluster/,
#      with the provider configured only by KUBE_CONFIG_PATH: the LWS
#      controller creates the groups, the scheduler places their pods on the
#      GPU nodes, and the apply returns once every group is Ready;
#   6. show the pods per group, node and zone, and the created objects;
#      terraform plan again (must be empty);
#   7. terraform destroy (waits until the controller removed every pod) and
#      stop the cluster.
#
# Environment:
#   DEMO_KEEP=1          keep the cluster and the Terraform folder afterwards
#                        (skips destroy) and print how to use and stop them
#   TERRAFORM            Terraform CLI to run (default: terraform on PATH)
#   KUBECTL              kubectl to run (default: kubectl on PATH; optional)
#   KUBEINFER_CACHE_DIR  cache root for built tools (default ~/.cache/kubeinfer)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$root"

TERRAFORM=${TERRAFORM:-terraform}
KUBECTL=${KUBECTL:-kubectl}
DEMO_KEEP=${DEMO_KEEP:-0}
example=$root/examples/inference-cluster

# Objects created by the example carry this label; kubectl lists them by it.
selector=app.kubernetes.io/part-of=inference-platform

say() { printf '\n==> %s\n' "$*"; }
die() {
	printf 'demo: %s\n' "$*" >&2
	exit 1
}
phase_start=$SECONDS
phase() {
	local now=$SECONDS
	printf '    (%s took %d s)\n' "$1" $((now - phase_start))
	phase_start=$now
}

command -v "$TERRAFORM" >/dev/null 2>&1 ||
	die "the Terraform CLI ($TERRAFORM) is not on PATH: install Terraform >= 1.8 (https://developer.hashicorp.com/terraform/install) or set TERRAFORM=/path/to/terraform"
command -v go >/dev/null 2>&1 || die "the go command is not on PATH (Go 1.26 is needed)"
have_kubectl=1
command -v "$KUBECTL" >/dev/null 2>&1 || have_kubectl=0
# The CLI configuration for the provider built from source (README.md, "Building from
# source"): the folder of its dev_overrides is the placeholder @PROVIDER_DIR@.
[[ -f $root/dev.tfrc ]] || die "$root/dev.tfrc is missing"
tfrc=$(<"$root/dev.tfrc")
[[ $tfrc == *@PROVIDER_DIR@* ]] || die "dev.tfrc holds no @PROVIDER_DIR@ placeholder"

work=$(mktemp -d "${TMPDIR:-/tmp}/kubeinfer-demo.XXXXXX")
cluster_pid=
applied=0
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [[ $DEMO_KEEP == 1 && $rc == 0 ]]; then
		return 0
	fi
	if [[ $applied == 1 && $rc != 0 && -n $cluster_pid ]] && kill -0 "$cluster_pid" 2>/dev/null; then
		echo "demo: failed; destroying what was applied" >&2
		(cd "$work/tf" && "$TERRAFORM" destroy -auto-approve -input=false -no-color >/dev/null 2>&1) || true
	fi
	if [[ -n $cluster_pid ]] && kill -0 "$cluster_pid" 2>/dev/null; then
		kill -TERM "$cluster_pid" 2>/dev/null || true
		wait "$cluster_pid" 2>/dev/null || true
	fi
	rm -rf -- "$work"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

total_start=$SECONDS

say "Building the provider"
mkdir -p "$work/providers"
go build -o "$work/providers/terraform-provider-kubeinfer" .
go build -o "$work/kubeinfer-testcluster" ./internal/acctest/cmd/kubeinfer-testcluster
phase "building the provider"

say "Making sure the test cluster's components are built (the first run builds them: 10 to 20 minutes on 2 cores)"
KUBEINFER_TEST_ASSETS=$(tools/testcluster/ensure.sh)
export KUBEINFER_TEST_ASSETS
echo "    $KUBEINFER_TEST_ASSETS"
phase "cluster binaries"

say "Starting a local cluster (released LeaderWorkerSet v0.9.0, scheduler, simulated GPU nodes)"
kubeconfig=$work/kubeconfig
ready=$work/cluster.ready
# setsid: the cluster survives `make` exiting when DEMO_KEEP=1, and Ctrl-C in
# the terminal reaches only this script, whose trap stops the cluster.
setsid "$work/kubeinfer-testcluster" -kubeconfig "$kubeconfig" -ready-file "$ready" \
	>"$work/cluster.log" 2>&1 </dev/null &
cluster_pid=$!
for ((i = 0; i < 240; i++)); do
	[[ -f $ready ]] && break
	kill -0 "$cluster_pid" 2>/dev/null || {
		cat "$work/cluster.log" >&2
		die "the test cluster exited during startup"
	}
	sleep 0.5
done
[[ -f $ready ]] || {
	cat "$work/cluster.log" >&2
	die "the test cluster was not ready after 120 s"
}
echo "    kubeconfig: $kubeconfig (pid $cluster_pid)"
phase "starting the cluster"

# dev_overrides: use the binary just built; `terraform init` must not be run. The CLI
# configuration is the committed dev.tfrc (read at the start) with its placeholder replaced
# by the absolute folder of that binary. The replacement is quoted: with bash 5.2's
# patsub_replacement an unquoted & in it would stand for the placeholder.
printf '%s\n' "${tfrc//@PROVIDER_DIR@/"$work/providers"}" >"$work/terraformrc"
export TF_CLI_CONFIG_FILE=$work/terraformrc
export KUBE_CONFIG_PATH=$kubeconfig

mkdir -p "$work/tf"
cp -R "$example/." "$work/tf/"
rm -rf "$work/tf/.terraform" "$work/tf/.terraform.lock.hcl" "$work/tf"/*.tfstate*
cd "$work/tf"

say "terraform apply (examples/inference-cluster)"
applied=1
"$TERRAFORM" apply -auto-approve -input=false
phase "terraform apply"

if [[ $have_kubectl == 1 ]]; then
	say "Pods per group, node and zone (placed by kube-scheduler on the simulated GPU nodes)"
	k() { "$KUBECTL" --kubeconfig "$kubeconfig" "$@"; }
	declare -A zone_of=()
	while read -r node zone; do zone_of[$node]=$zone; done < <(k get nodes --no-headers \
		-o custom-columns='N:.metadata.name,Z:.metadata.labels.topology\.kubernetes\.io/zone')
	printf '    %-22s %-6s %-7s %-12s %-7s %s\n' POD GROUP WORKER NODE ZONE READY
	while read -r pod group worker node ready; do
		printf '    %-22s %-6s %-7s %-12s %-7s %s\n' "$pod" "$group" "$worker" "$node" "${zone_of[$node]:-?}" "$ready"
	done < <(k get pods -A --no-headers -l leaderworkerset.sigs.k8s.io/name \
		-o custom-columns='P:.metadata.name,G:.metadata.labels.leaderworkerset\.sigs\.k8s\.io/group-index,W:.metadata.labels.leaderworkerset\.sigs\.k8s\.io/worker-index,N:.spec.nodeName,R:.status.conditions[?(@.type=="Ready")].status' |
		sort -k2,2n -k3,3n)
	say "LeaderWorkerSets (status from the LWS controller)"
	k get leaderworkersets -A -o wide
	phase "pods per group and zone"
fi

# Kinds to show: those whose resource type the example uses.
kinds=()
grep -q 'resource "kubeinfer_priority_level_configuration"' ./*.tf && kinds+=(prioritylevelconfigurations.flowcontrol.apiserver.k8s.io)
grep -q 'resource "kubeinfer_flow_schema"' ./*.tf && kinds+=(flowschemas.flowcontrol.apiserver.k8s.io)
grep -q 'resource "kubeinfer_leaderworkerset"' ./*.tf && kinds+=(leaderworkersets.leaderworkerset.x-k8s.io)
if ((${#kinds[@]} > 0)); then
	list=$(
		IFS=,
		echo "${kinds[*]}"
	)
	if [[ $have_kubectl == 1 ]]; then
		say "kubectl get $list -l $selector (what the example created)"
		"$KUBECTL" --kubeconfig "$kubeconfig" get "$list" -A -l "$selector"
	else
		echo "demo: kubectl is not on PATH; skipping the listing" >&2
	fi
fi
phase "kubectl get"

say "terraform plan again: expecting no changes"
set +e
"$TERRAFORM" plan -input=false -detailed-exitcode -no-color >"$work/plan.txt" 2>&1
plan_rc=$?
set -e
case $plan_rc in
0) echo "    no changes: the state matches the cluster" ;;
2)
	cat "$work/plan.txt"
	die "the second plan is not empty (drift right after apply)"
	;;
*)
	cat "$work/plan.txt"
	die "terraform plan failed"
	;;
esac
phase "second plan"

if [[ $DEMO_KEEP == 1 ]]; then
	cat <<EOF

==> DEMO_KEEP=1: the cluster keeps running (pid $cluster_pid).

  # kubectl:
  export KUBECONFIG=$kubeconfig
  kubectl get prioritylevelconfigurations,flowschemas,leaderworkersets -A

  # Terraform (no terraform init: dev_overrides points at the provider built above):
  export TF_CLI_CONFIG_FILE=$work/terraformrc KUBE_CONFIG_PATH=$kubeconfig
  cd $work/tf
  terraform plan
  terraform apply
  terraform destroy

  # Stop the cluster and remove everything:
  kill $cluster_pid && rm -rf $work

(total: $((SECONDS - total_start)) s)
EOF
	exit 0
fi

say "terraform destroy (waits until the LWS controller's StatefulSets and pods are gone)"
# The destroy plan lists every attribute again: show the progress lines, and all of it on failure.
if ! "$TERRAFORM" destroy -auto-approve -input=false -no-color >"$work/destroy.txt" 2>&1; then
	cat "$work/destroy.txt"
	die "terraform destroy failed"
fi
grep -E '^(kubeinfer_[a-z_]+\.[a-z_]+: (Destroying|Destruction complete)|Destroy complete)' "$work/destroy.txt" | sed 's/^/    /'
if [[ $have_kubectl == 1 ]]; then
	left=$("$KUBECTL" --kubeconfig "$kubeconfig" get pods,statefulsets -A -l leaderworkerset.sigs.k8s.io/name --no-headers 2>/dev/null | wc -l)
	echo "    pods and StatefulSets of LeaderWorkerSets left: $left"
fi
applied=0
phase "terraform destroy"

say "Stopping the cluster"
kill -TERM "$cluster_pid"
wait "$cluster_pid" || true
cluster_pid=
phase "stopping the cluster"

printf '\n==> demo finished in %d s\n' $((SECONDS - total_start))
