# Policies on `terraform show -json` of a plan with kubeinfer_leaderworkerset and
# kubeinfer_disaggregatedset resources. data.kubeinfer.settings holds the settings
# (examples/policy/data.json): GPU budgets by namespace ("*" for the others) and
# the allowed image registries (prefixes).
package kubeinfer.policy

import rego.v1

workload_types := {"kubeinfer_leaderworkerset", "kubeinfer_disaggregatedset"}

# The workloads the plan creates or updates.
workloads contains rc if {
	some rc in input.resource_changes
	rc.type in workload_types
	some action in rc.change.actions
	action in {"create", "update"}
}

namespace_of(rc) := ns if {
	ns := rc.change.after.metadata.namespace
	is_string(ns)
} else := "default"

# GPUs at the peak of a rolling update (surge groups included), from the
# provider's footprint: known at plan, no pod-template arithmetic here. The
# values are canonical Kubernetes quantities, so 1000 GPUs read "1k"
# (k8s.io/apimachinery/pkg/api/resource, Quantity.String): units.parse reads
# the suffixes, to_number would not.
peak_gpu_quantity(rc) := object.get(rc.change.after.footprint.peak_requests, "nvidia.com/gpu", "0")

peak_gpus(rc) := units.parse(peak_gpu_quantity(rc))

gpus_by_namespace[ns] := total if {
	some ns in {namespace_of(rc) | some rc in workloads}
	total := sum([peak_gpus(rc) | some rc in workloads; namespace_of(rc) == ns])
}

budget_of(ns) := data.kubeinfer.settings.gpu_budget[ns]

budget_of(ns) := data.kubeinfer.settings.gpu_budget["*"] if not data.kubeinfer.settings.gpu_budget[ns]

deny contains msg if {
	some ns, total in gpus_by_namespace
	total > budget_of(ns)
	msg := sprintf("namespace %s: %v GPUs at the rollout peak, over its budget of %v", [ns, total, budget_of(ns)])
}

deny contains msg if {
	some rc in workloads
	rc.change.after_unknown.footprint == true
	msg := sprintf("%s: the GPU footprint is not known at plan (a value of spec is computed); the budget cannot be checked", [rc.address])
}

# Fail closed: a workload whose GPU count cannot be read (no footprint in the
# plan, from a provider version without it, or a value units.parse refuses)
# would otherwise count as zero.
deny contains msg if {
	some rc in workloads
	not rc.change.after_unknown.footprint == true
	not peak_gpus(rc)
	msg := sprintf("%s: no readable footprint.peak_requests[\"nvidia.com/gpu\"] in the plan; the budget cannot be checked", [rc.address])
}

# Every string attribute named image under spec: containers and init containers
# of every template, of every role.
images(rc) := {img |
	walk(rc.change.after.spec, [path, img])
	path[count(path) - 1] == "image"
	is_string(img)
}

allowed_image(img) if {
	some prefix in data.kubeinfer.settings.allowed_registries
	startswith(img, prefix)
}

deny contains msg if {
	some rc in workloads
	some img in images(rc)
	not allowed_image(img)
	msg := sprintf("%s: image %s is not from an allowed registry (%s)", [rc.address, img, concat(", ", data.kubeinfer.settings.allowed_registries)])
}

# Names that look like secrets: TOKEN, SECRET, PASSWORD, CREDENTIALS anywhere,
# KEY as a word of the name (API_KEY, SSH_KEY, APIKEY; not MONKEY or KEYCLOAK_URL).
secret_like := `(?i)(token|secret|passw(or)?d|credentials?|(^|[_.-])key($|[_.-])|api_?key|private_?key)`

deny contains msg if {
	some rc in workloads
	walk(rc.change.after.spec, [path, env])
	path[count(path) - 1] == "env"
	some e in env
	is_string(e.value)
	regex.match(secret_like, e.name)
	msg := sprintf("%s: env %s holds a literal value; take it from a Secret (value_from.secret_key_ref)", [rc.address, e.name])
}
