# A FlowSchema is cluster-scoped: the ID is its name.
import {
  to = kubeinfer_flow_schema.lws_controller
  id = "lws-controller"
}
