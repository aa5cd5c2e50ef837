# A DisaggregatedSet is imported as namespace/name.
terraform import kubeinfer_disaggregatedset.llama inference/llama-70b
