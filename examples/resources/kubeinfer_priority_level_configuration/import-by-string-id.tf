# A PriorityLevelConfiguration is cluster-scoped: the ID is its name.
import {
  to = kubeinfer_priority_level_configuration.workload_low
  id = "workload-low"
}
