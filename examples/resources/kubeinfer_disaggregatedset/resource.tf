# A vLLM prefill/decode pair: 2 prefill groups and 2 decode groups, each a single
# pod with 8 GPUs. The KV cache moves from prefill to decode over NIXL; a change to
# either template rolls both roles out together.
resource "kubeinfer_disaggregatedset" "llama" {
  metadata = {
    name      = "llama-70b"
    namespace = "inference"
  }

  spec = {
    roles = [
      for role in ["prefill", "decode"] : {
        name = role
        spec = {
          replicas = 2
          leader_worker_template = {
            worker_template = {
              metadata = { labels = { "llm-d.ai/role" = role, "llm-d.ai/inferenceServing" = "true" } }
              spec = {
                containers = [{
                  name  = "vllm"
                  image = "vllm/vllm-openai:v0.11.0"
                  command = ["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "8",
                  "--kv-transfer-config", jsonencode({ kv_connector = "NixlConnector", kv_role = "kv_both" })]
                  ports = [{ name = "http", container_port = 8000 }]
                  resources = {
                    limits   = { "nvidia.com/gpu" = "8" }
                    requests = { "nvidia.com/gpu" = "8", cpu = "32", memory = "256Gi" }
                  }
                }]
              }
            }
          }
        }
      }
    ]
  }
}
