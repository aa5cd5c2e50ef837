# Terraform 1.12 and later: the object by namespace and name. The namespace
# defaults to "default" when left out.
import {
  to = kubeinfer_disaggregatedset.llama
  identity = {
    namespace = "inference"
    name      = "llama-70b"
  }
}
