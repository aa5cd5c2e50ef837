# Route the LeaderWorkerSet controller's requests to a priority level of its own.
resource "kubeinfer_priority_level_configuration" "inference" {
  metadata = { name = "inference-controllers" }
  spec = {
    type = "Limited"
    limited = {
      nominal_concurrency_shares = 30
      limit_response = {
        type    = "Queue"
        queuing = { queues = 16, hand_size = 4 }
      }
    }
  }
}

resource "kubeinfer_flow_schema" "lws_controller" {
  metadata = { name = "lws-controller" }
  spec = {
    priority_level_configuration = {
      name = kubeinfer_priority_level_configuration.inference.metadata.name
    }
    matching_precedence  = 500
    distinguisher_method = { type = "ByUser" }
    rules = [{
      subjects = [{
        kind            = "ServiceAccount"
        service_account = { namespace = "lws-system", name = "lws-controller-manager" }
      }]
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
