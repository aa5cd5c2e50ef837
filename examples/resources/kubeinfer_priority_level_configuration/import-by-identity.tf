# Terraform 1.12 and later. A PriorityLevelConfiguration is cluster-scoped: its
# identity is its name.
import {
  to = kubeinfer_priority_level_configuration.workload_low
  identity = {
    name = "workload-low"
  }
}
