# An LLM inference setup on Kubernetes, managed with the kubeinfer provider.
# `make demo` applies this folder to a throwaway local API server.
#
# What it contains:
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
# A FlowSchema matches requests (by who sends them and what they touch) and
# sends them to a priority level. Without one, the level above gets no traffic.
resource "kubeinfer_flow_schema" "inference_controllers" {
  metadata = {
    name = "inference-controllers"
    labels = {
      "app.kubernetes.io/part-of" = "inference-platform"
    }
  }

  spec = {
    priority_level_configuration = {
      # Referencing the resource (not a string) also orders the apply.
      name = kubeinfer_priority_level_configuration.inference_controllers.metadata.name
    }

    # Lower numbers are matched first; the built-in schemas use 100-10000.
    # Below the built-in "workload-leader-election" and "kube-controller-manager"
    # schemas (200+), above everything a user workload falls into.
    matching_precedence = 500

    # Fair queuing between clients: each service account gets its own flow.
    distinguisher_method = {
      type = "ByUser"
    }

    rules = [{
      # Who: the LeaderWorkerSet controller and the autoscalers that resize
      # inference replicas.
      subjects = [
        {
          kind            = "ServiceAccount"
          service_account = { namespace = "lws-system", name = "lws-controller-manager" }
        },
        {
          kind            = "ServiceAccount"
          service_account = { namespace = "kube-system", name = "horizontal-pod-autoscaler" }
        },
        {
          kind            = "ServiceAccount"
          service_account = { namespace = "keda", name = "keda-operator" }
        },
      ]
      # What: everything they do on the API (all verbs, groups and resources).
      resource_rules = [{
        verbs         = ["*"]
        api_groups    = ["*"]
        resources     = ["*"]
        cluster_scope = true
        namespaces    = ["*"]
      }]
    }]
  }
}

# ---------------------------------------------------------------------------
# 3. LeaderWorkerSet: the multi-host model server
# ---------------------------------------------------------------------------
# One replica ("group") is one copy of the model, spread over `size` pods: a
# leader that serves the OpenAI-compatible API and workers that join its Ray
# cluster. Here: Llama 3.1 405B with tensor parallelism 8 (GPUs per node) and
# pipeline parallelism 2 (nodes per group), two groups.
#
# The cluster needs the LeaderWorkerSet CRD, controller and webhooks
# (https://lws.sigs.k8s.io/docs/installation/; any release up to v0.9.0 works:
# this configuration sets no field newer than the released API). `make demo`
# runs the released LWS v0.9.0, a scheduler and simulated GPU nodes.

variable "namespace" {
  description = "Namespace of the model server."
  type        = string
  default     = "default"
}

variable "wait_for_rollout" {
  description = "Wait until every group is ready (all pods scheduled and Ready) before the apply returns."
  type        = bool
  default     = true
}

variable "allow_group_restarts" {
  description = "Let a plan recreate running groups (an image, env or template change). Off by default: such a plan fails naming the changed fields; roll it out deliberately with -var allow_group_restarts=true."
  type        = bool
  default     = false
}

locals {
  model = "meta-llama/Meta-Llama-3.1-405B-Instruct"
  image = "vllm/vllm-openai:v0.11.0"

  # The Hugging Face token comes from a Secret named "hf-token" (key "token")
  # that you create separately, e.g.
  #   kubectl create secret generic hf-token --from-literal=token=hf_...
  # Never put the token in the configuration: the plan warns if an env var that
  # looks like a secret (HF_TOKEN, *_TOKEN, *_KEY, *PASSWORD*) holds a literal.
  hf_token_env = {
    name = "HF_TOKEN"
    value_from = {
      secret_key_ref = { name = "hf-token", key = "token" }
    }
  }

  # vLLM needs a large /dev/shm for NCCL: a memory-backed emptyDir.
  shm_volume = { name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }
  shm_mount  = { name = "dshm", mount_path = "/dev/shm" }

  # 8 GPUs per pod. Extended resources such as GPUs must have requests equal
  # to limits; the plan fails otherwise.
  resources = {
    limits   = { "nvidia.com/gpu" = "8", memory = "1124Gi", "ephemeral-storage" = "800Gi" }
    requests = { "nvidia.com/gpu" = "8", cpu = "125", memory = "1124Gi", "ephemeral-storage" = "800Gi" }
  }
}

resource "kubeinfer_leaderworkerset" "vllm" {
  metadata = {
    name      = "llama-405b"
    namespace = var.namespace
    labels = {
      "app.kubernetes.io/part-of" = "inference-platform"
      "app.kubernetes.io/name"    = "vllm"
    }
  }

  spec = {
    replicas = 2

    # Replace one group at a time during a rollout, with no extra group.
    rollout_strategy = {
      type = "RollingUpdate"
      rolling_update_configuration = {
        max_unavailable = "1"
        max_surge       = "0"
      }
    }

    leader_worker_template = {
      size = 2 # pods per group: 1 leader + 1 worker

      # If any pod of a group fails, recreate the whole group (a model split
      # over nodes cannot continue with a missing piece).
      restart_policy = "RecreateGroupOnPodRestart"

      leader_template = {
        metadata = { labels = { "app.kubernetes.io/name" = "vllm", role = "leader" } }
        spec = {
          containers = [{
            name  = "vllm-leader"
            image = local.image
            command = ["sh", "-c", join(" ", [
              "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE);",
              "python3 -m vllm.entrypoints.openai.api_server --port 8080 --model ${local.model}",
              "--tensor-parallel-size 8 --pipeline_parallel_size 2",
            ])]
            env           = [local.hf_token_env]
            ports         = [{ name = "http", container_port = 8080 }]
            resources     = local.resources
            volume_mounts = [local.shm_mount]
            # Ready once the API answers; a group counts as ready when its
            # leader and workers are.
            readiness_probe = {
              tcp_socket            = { port = "8080" }
              initial_delay_seconds = 15
              period_seconds        = 10
            }
          }]
          volumes = [local.shm_volume]

          # Spread the groups' leaders over zones, so one zone outage leaves
          # the other group serving. DoNotSchedule: a leader waits rather than
          # join a zone that already has more leaders than the others.
          topology_spread_constraints = [{
            max_skew           = 1
            topology_key       = "topology.kubernetes.io/zone"
            when_unsatisfiable = "DoNotSchedule"
            label_selector     = { match_labels = { "app.kubernetes.io/name" = "vllm", role = "leader" } }
          }]
        }
      }

      worker_template = {
        metadata = { labels = { "app.kubernetes.io/name" = "vllm", role = "worker" } }
        spec = {
          containers = [{
            name  = "vllm-worker"
            image = local.image
            command = ["sh", "-c",
              "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)",
            ]
            env           = [local.hf_token_env]
            resources     = local.resources
            volume_mounts = [local.shm_mount]
          }]
          volumes = [local.shm_volume]
        }
      }
    }
  }

  wait_for_rollout = var.wait_for_rollout

  # Every plan of a change says which groups it recreates (a warning, also with
  # -refresh=false and no credentials). A group of a 405B model takes many
  # minutes to come back, so this workspace refuses such plans unless asked:
  # scaling (replicas) and metadata changes still pass.
  allow_group_restarts = var.allow_group_restarts

  timeouts = {
    create = "30m" # pulling a vLLM image and loading 405B weights takes a while
    update = "30m"
  }
}

output "priority_level" {
  description = "Name of the priority level created for the inference controllers."
  value       = kubeinfer_priority_level_configuration.inference_controllers.metadata.name
}

output "flow_schema" {
  description = "Name of the FlowSchema routing the inference controllers."
  value       = kubeinfer_flow_schema.inference_controllers.metadata.name
}

output "leaderworkerset" {
  description = "namespace/name of the model server."
  value       = kubeinfer_leaderworkerset.vllm.id
}

output "gpus" {
  description = "GPUs the model server requests at its replicas and at the peak of a rolling update (surge groups included): known at plan, for a budget check in review."
  value = {
    at_replicas = kubeinfer_leaderworkerset.vllm.footprint.requests["nvidia.com/gpu"]
    at_peak     = kubeinfer_leaderworkerset.vllm.footprint.peak_requests["nvidia.com/gpu"]
  }
}
