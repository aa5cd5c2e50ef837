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

# Canonical quantities: 1000 GPUs are "1k" in the footprint.
test_quantity_suffix_counted if {
	policy.deny["namespace inference: 1000 GPUs at the rollout peak, over its budget of 64"] with input as {"resource_changes": [lws("1k", "registry.example.com/vllm:v1", [])]}
		with data.kubeinfer.settings as settings
}

test_missing_footprint_denied if {
	rc := json.remove(lws("8", "registry.example.com/vllm:v1", []), ["change/after/footprint"])
	policy.deny["kubeinfer_leaderworkerset.vllm: no readable footprint.peak_requests[\"nvidia.com/gpu\"] in the plan; the budget cannot be checked"] with input as {"resource_changes": [rc]}
		with data.kubeinfer.settings as settings
}

test_key_names if {
	denied := {name |
		some name in ["SSH_KEY", "api-key", "OPENAI_APIKEY", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "MONKEY", "KEYCLOAK_URL", "MODEL_NAME"]
		some msg in policy.deny with input as {"resource_changes": [lws("8", "registry.example.com/vllm:v1", [{"name": name, "value": "x"}])]}
			with data.kubeinfer.settings as settings
		contains(msg, sprintf("env %s holds a literal value", [name]))
	}
	denied == {"SSH_KEY", "api-key", "OPENAI_APIKEY", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY"}
}

# A DisaggregatedSet: the images of every role, init containers and leader
# templates included; its total footprint counts towards the namespace.
test_disaggregatedset if {
	ds := {
		"address": "kubeinfer_disaggregatedset.pd",
		"type": "kubeinfer_disaggregatedset",
		"change": {
			"actions": ["create"],
			"after": {
				"metadata": {"name": "pd", "namespace": "inference"},
				"footprint": {"peak_requests": {"nvidia.com/gpu": "32"}, "roles": {"prefill": {"peak_requests": {"nvidia.com/gpu": "16"}}}},
				"spec": {"roles": [
					{"name": "prefill", "spec": {"leader_worker_template": {"worker_template": {"spec": {
						"init_containers": [{"name": "fetch", "image": "docker.io/x/fetch"}],
						"containers": [{"name": "vllm", "image": "registry.example.com/vllm:v1"}],
					}}}}},
					{"name": "decode", "spec": {"leader_worker_template": {
						"leader_template": {"spec": {"containers": [{"name": "router", "image": "ghcr.io/x/router"}]}},
						"worker_template": {"spec": {"containers": [{"name": "vllm", "image": "registry.example.com/vllm:v1"}]}},
					}}},
				]},
			},
			"after_unknown": {"footprint": false},
		},
	}
	denials := policy.deny with input as {"resource_changes": [ds, lws("40", "registry.example.com/vllm:v1", [])]}
		with data.kubeinfer.settings as settings
	denials == {
		"namespace inference: 72 GPUs at the rollout peak, over its budget of 64",
		"kubeinfer_disaggregatedset.pd: image docker.io/x/fetch is not from an allowed registry (registry.example.com/)",
		"kubeinfer_disaggregatedset.pd: image ghcr.io/x/router is not from an allowed registry (registry.example.com/)",
	}
}
