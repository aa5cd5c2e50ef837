# A PriorityLevelConfiguration is cluster-scoped: the import ID is its name.
terraform import kubeinfer_priority_level_configuration.workload_low workload-low
