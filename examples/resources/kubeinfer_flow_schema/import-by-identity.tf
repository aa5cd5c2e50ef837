# Terraform 1.12 and later. A FlowSchema is cluster-scoped: its identity is its name.
import {
  to = kubeinfer_flow_schema.lws_controller
  identity = {
    name = "lws-controller"
  }
}
