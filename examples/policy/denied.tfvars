# Three things the policies refuse: 4 groups (64 GPUs, 80 at the rollout peak,
# over the namespace's budget of 64), an image from outside the allowed
# registries, and a token written into the configuration.
replicas = 4
image    = "docker.io/someone/vllm:latest"
extra_env = [
  { name = "WANDB_API_KEY", value = "0123456789abcdef" },
]
