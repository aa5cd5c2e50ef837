# The ID is namespace/name (or name alone for the "default" namespace).
import {
  to = kubeinfer_leaderworkerset.vllm
  id = "inference/vllm"
}
