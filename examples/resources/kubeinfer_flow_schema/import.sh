# A FlowSchema is cluster-scoped: the import ID is its name.
terraform import kubeinfer_flow_schema.lws_controller lws-controller
