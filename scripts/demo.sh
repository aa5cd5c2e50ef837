#!/usr/bin/env bash
# demo.sh (make demo): apply examples/inference-cluster/ to a throwaway local
# Kubernetes API server, show what was created, and destroy it again.
#
#   1. build the provider binary;
#   2. make sure etcd + kube-apiserver are built (tools/testcluster/ensure.sh;
#      about 6 minutes the first time on 2 cores, cached afterwards);
#   3. start kubeinfer-testcluster in the background (etcd + kube-apiserver
#      with the LeaderWorkerSet CRD installed) and wait for it;
#   4. write a Terraform CLI configuration whose dev_overrides point at the
#      binary of step 1, so nothing is downloaded and `terraform init` is not
#      needed (Terraform prints a warning about dev_overrides: expected);
#   5. terraform apply in a temporary copy of examples/inference-cluster/,
#      with the provider configured only by KUBE_CONFIG_PATH;
#   6. kubectl get the created objects; terraform plan again (must be empty);
#   7. terraform destroy and stop the cluster.
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

say "Making sure etcd and kube-apiserver are built (the first run builds them: several minutes)"
KUBEINFER_TEST_ASSETS=$(tools/testcluster/ensure.sh)
export KUBEINFER_TEST_ASSETS
echo "    $KUBEINFER_TEST_ASSETS"
phase "cluster binaries"

say "Starting a local Kubernetes API server"
kubeconfig=$work/kubeconfig
ready=$work/cluster.ready
# setsid: the cluster survives `make` exiting when DEMO_KEEP=1, and Ctrl-C in
# the terminal reaches only this script, whose trap stops the cluster.
setsid "$work/kubeinfer-testcluster" -kubeconfig "$kubeconfig" -ready-file "$ready" \
	-crds "$root/internal/acctest/testdata/crds" >"$work/cluster.log" 2>&1 </dev/null &
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

# dev_overrides: use the binary just built; `terraform init` must not be run.
cat >"$work/terraformrc" <<EOF
provider_installation {
  dev_overrides {
    "registry.terraform.io/kubeinfer/kubeinfer" = "$work/providers"
  }
  direct {}
}
EOF
export TF_CLI_CONFIG_FILE=$work/terraformrc
export KUBE_CONFIG_PATH=$kubeconfig
# The demo API server runs no controllers: no LeaderWorkerSet group ever becomes ready.
export TF_VAR_wait_for_rollout=false

mkdir -p "$work/tf"
cp -R "$example/." "$work/tf/"
rm -rf "$work/tf/.terraform" "$work/tf/.terraform.lock.hcl" "$work/tf"/*.tfstate*
cd "$work/tf"

say "terraform apply (examples/inference-cluster)"
applied=1
"$TERRAFORM" apply -auto-approve -input=false
phase "terraform apply"

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
		say "kubectl get $list -l $selector -o yaml"
		"$KUBECTL" --kubeconfig "$kubeconfig" get "$list" -A -l "$selector" -o yaml
		say "kubectl get $list (all objects, including the ones the API server creates itself)"
		"$KUBECTL" --kubeconfig "$kubeconfig" get "$list" -A
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

say "terraform destroy"
"$TERRAFORM" destroy -auto-approve -input=false
applied=0
phase "terraform destroy"

say "Stopping the cluster"
kill -TERM "$cluster_pid"
wait "$cluster_pid" || true
cluster_pid=
phase "stopping the cluster"

printf '\n==> demo finished in %d s\n' $((SECONDS - total_start))
