# A priority level for the controllers of an inference platform (the
# LeaderWorkerSet controller, autoscalers, model routers): they keep a
# guaranteed share of the API server's concurrency even when other clients
# flood it. A FlowSchema (kubeinfer_flow_schema) routes requests to the level.
resource "kubeinfer_priority_level_configuration" "inference_controllers" {
  metadata = {
    name   = "inference-controllers"
    labels = { "app.kubernetes.io/part-of" = "inference-platform" }
  }
  spec = {
    type = "Limited"
    limited = {
      # Share of the server's concurrency limit, relative to the other levels
      # (the bootstrap workload-high level has 40).
      nominal_concurrency_shares = 30
      # Never lend seats to other levels, may borrow up to 50% more.
      lendable_percent        = 0
      borrowing_limit_percent = 50
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

# Take over a suggested bootstrap level: import it first (see import.sh) and
# set the autoupdate-spec annotation to "false", otherwise the API server
# rewrites its spec. The API server's own bootstrap field manager owns this
# level's fields; the apply takes over the ones written here
# (force_conflicts defaults to true).
resource "kubeinfer_priority_level_configuration" "workload_low" {
  metadata = {
    name        = "workload-low"
    annotations = { "apf.kubernetes.io/autoupdate-spec" = "false" }
  }
  spec = {
    type = "Limited"
    limited = {
      nominal_concurrency_shares = 60
      lendable_percent           = 90
      limit_response = {
        type = "Queue"
        queuing = {
          queues             = 128
          hand_size          = 6
          queue_length_limit = 50
        }
      }
    }
  }
}
