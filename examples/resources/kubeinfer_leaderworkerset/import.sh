# A LeaderWorkerSet is imported as namespace/name.
terraform import kubeinfer_leaderworkerset.vllm inference/vllm
