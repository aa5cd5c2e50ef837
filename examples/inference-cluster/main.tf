# An LLM inference setup on Kubernetes, managed with the kubeinfer provider.
# `make demo` applies this folder to a throwaway local API server.
#
# What it will contain when complete:
#   1. a PriorityLevelConfiguration: a protected lane in the API server for the
#      controllers that keep the inference fleet alive (below);
#   2. a FlowSchema that routes those controllers' requests to that lane;
#   3. a LeaderWorkerSet: model replicas, each a group of pods (one leader, N
#      workers) that serve one model too large for a single node.
#
# Everything is checked offline during `terraform plan`, with the same rules
# the API server applies: a plan never contacts the cluster for new objects.

terraform {
  required_providers {
    kubeinfer = {
      source = "kubeinfer/kubeinfer"
    }
  }
}

# The connection comes from the environment only, so the same folder works on
# any cluster: KUBE_CONFIG_PATH=/path/to/kubeconfig (what `make demo` sets), or
# KUBE_HOST + KUBE_TOKEN, and so on (see the provider documentation).
provider "kubeinfer" {}

# ---------------------------------------------------------------------------
# 1. API Priority and Fairness: a priority level for the inference controllers
# ---------------------------------------------------------------------------
# Kubernetes' API server shares its request capacity between "priority levels".
# When something floods the API (a misbehaving operator, thousands of pods
# starting at once), low levels queue or get HTTP 429 while higher levels keep
# their share. Autoscalers and the LeaderWorkerSet controller must keep working
# exactly then, so they get a level of their own.
resource "kubeinfer_priority_level_configuration" "inference_controllers" {
  metadata = {
    name = "inference-controllers"
    labels = {
      "app.kubernetes.io/part-of" = "inference-platform"
    }
  }

  spec = {
    # "Limited": requests are limited and queued ("Exempt" is reserved for the
    # built-in level named "exempt").
    type = "Limited"

    limited = {
      # Relative weight of this level's share of the server's concurrency
      # limit. The built-in workload-high level has 40, workload-low 100.
      nominal_concurrency_shares = 30

      # Keep all of our seats (lend none to other levels), but borrow up to
      # 50% more from idle levels during bursts.
      lendable_percent        = 0
      borrowing_limit_percent = 50

      # When all seats are busy, queue requests instead of rejecting them.
      # hand_size must not exceed queues; the plan fails if it does.
      limit_response = {
        type = "Queue"
        queuing = {
          queues             = 16
          hand_size          = 4
          queue_length_limit = 50
        }
      }
    }
  }
}

# ---------------------------------------------------------------------------
# 2. FlowSchema: route the inference controllers' requests to the level above
# ---------------------------------------------------------------------------
# TODO(flowschema): add a kubeinfer_flow_schema here that matches the service
# accounts of the inference controllers (e.g. the lws-system namespace) and
# points spec.priority_level_configuration.name at
# kubeinfer_priority_level_configuration.inference_controllers.metadata.name.
# Without it the level above receives no traffic.

# ---------------------------------------------------------------------------
# 3. LeaderWorkerSet: the multi-host model server
# ---------------------------------------------------------------------------
# TODO(leaderworkerset): add a kubeinfer_leaderworkerset here (for example a
# vLLM deployment with replicas = 2 and leader_worker_template.size = 2).
# The cluster needs the LeaderWorkerSet CRD (the demo cluster installs it).
#
# Give every object of this example the label
#   "app.kubernetes.io/part-of" = "inference-platform"
# `make demo` (scripts/demo.sh) lists the created objects by that label, for
# each kind whose resource type appears in this folder.

output "priority_level" {
  description = "Name of the priority level created for the inference controllers."
  value       = kubeinfer_priority_level_configuration.inference_controllers.metadata.name
}
