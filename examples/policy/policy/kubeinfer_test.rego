package kubeinfer.policy_test

import rego.v1

import data.kubeinfer.policy

settings := {"gpu_budget": {"inference": 64, "*": 16}, "allowed_registries": ["registry.example.com/"]}

lws(replicas_gpus, image, env) := {
	"address": "kubeinfer_leaderworkerset.vllm",
	"type": "kubeinfer_leaderworkerset",
	"change": {
		"actions": ["create"],
		"after": {
			"metadata": {"name": "llama", "namespace": "inference"},
			"footprint": {"peak_requests": {"nvidia.com/gpu": replicas_gpus}},
			"spec": {"leader_worker_template": {"worker_template": {"spec": {"containers": [{"name": "vllm", "image": image, "env": env}]}}}},
		},
		"after_unknown": {"footprint": false},
	},
}

test_within_budget_passes if {
	count(policy.deny) == 0 with input as {"resource_changes": [lws("48", "registry.example.com/vllm:v1", [])]}
		with data.kubeinfer.settings as settings
}

test_over_budget_denied if {
	policy.deny["namespace inference: 80 GPUs at the rollout peak, over its budget of 64"] with input as {"resource_changes": [lws("80", "registry.example.com/vllm:v1", [])]}
		with data.kubeinfer.settings as settings
}

test_other_registry_denied if {
	some msg in policy.deny with input as {"resource_changes": [lws("8", "docker.io/x/vllm", [])]}
		with data.kubeinfer.settings as settings
	contains(msg, "image docker.io/x/vllm is not from an allowed registry")
}

test_secret_literal_denied if {
	some msg in policy.deny with input as {"resource_changes": [lws("8", "registry.example.com/vllm:v1", [{"name": "HF_TOKEN", "value": "hf_x", "value_from": null}])]}
		with data.kubeinfer.settings as settings
	contains(msg, "env HF_TOKEN holds a literal value")
}

test_secret_reference_passes if {
	count(policy.deny) == 0 with input as {"resource_changes": [lws("8", "registry.example.com/vllm:v1", [{"name": "HF_TOKEN", "value": null, "value_from": {"secret_key_ref": {"name": "hf", "key": "t"}}}])]}
		with data.kubeinfer.settings as settings
}
