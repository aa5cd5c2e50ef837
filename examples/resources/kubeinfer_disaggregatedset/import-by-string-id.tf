# The ID is namespace/name (or name alone for the "default" namespace).
import {
  to = kubeinfer_disaggregatedset.llama
  id = "inference/llama-70b"
}
