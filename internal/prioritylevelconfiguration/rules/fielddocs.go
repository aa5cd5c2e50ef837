package rules

import (
	"reflect"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
)

// fieldDocs are the provider's own descriptions of this kind's fields (k8sschema.Options.FieldDocs).
// The resource's Notes (ranges, defaults, plan-time checks) are appended to some of them.
var fieldDocs = map[reflect.Type]map[string]string{
	reflect.TypeOf(flowcontrolv1.PriorityLevelConfiguration{}): {
		"spec": "Desired configuration of the priority level: its `type` and, for a `Limited` level, the `limited` block.",
	},
	reflect.TypeOf(flowcontrolv1.PriorityLevelConfigurationSpec{}): {
		"type":    "Whether the level limits how many of its requests run at once (`Limited`: a share of the server's capacity, with queuing or rejection beyond it) or lets them all through without limit or queuing (`Exempt`).",
		"limited": "Settings of a `Limited` level: its concurrency shares, lending and borrowing of seats, and what happens to requests beyond its limit. Required when `type` is `Limited`, must be omitted when it is `Exempt`.",
		"exempt":  "Settings of an `Exempt` level, so only of the built-in level named `exempt`; must be omitted when `type` is `Limited`. When omitted on the `exempt` level, both of its attributes count as 0.",
	},
	reflect.TypeOf(flowcontrolv1.ExemptPriorityLevelConfiguration{}): {
		"nominalConcurrencyShares": "Weight of this level in the split of the server's concurrency limit (the sum of `--max-requests-inflight` and `--max-mutating-requests-inflight`): its nominal seat count is `ceil(server limit * shares / sum of all levels' shares)`. Exempt requests are never throttled by it, but a larger value shrinks the nominal limits of every other level, unless those seats are lent back through `lendable_percent`.",
		"lendablePercent":          "Percentage of this level's nominal seat count (rounded) that `Limited` levels may borrow when they need more seats than their own.",
	},
	reflect.TypeOf(flowcontrolv1.LimitedPriorityLevelConfiguration{}): {
		"nominalConcurrencyShares": "Weight of this level in the split of the server's concurrency limit (the sum of `--max-requests-inflight` and `--max-mutating-requests-inflight`): its nominal seat count is `ceil(server limit * shares / sum of all levels' shares)`, used by its own requests and by levels borrowing from it. Raising it takes seats away from every other level.",
		"lendablePercent":          "Percentage of this level's nominal seat count (rounded) that other levels may borrow when they need more seats than their own; the rest stays reserved for this level.",
		"borrowingLimitPercent":    "Cap on the seats this level may borrow from other levels at any one time, as a percentage of its own nominal seat count (rounded); e.g. `100` lets it at most double its nominal limit.",
		"limitResponse":            "What to do with a request that cannot start at once because all of the level's seats are busy: queue it or reject it (HTTP 429).",
	},
	reflect.TypeOf(flowcontrolv1.LimitResponse{}): {
		"type":    "How to handle requests that cannot start at once: wait in a queue until a seat frees up (rejected when the queue is full or the wait times out), or be rejected right away with HTTP 429.",
		"queuing": "Queue settings of the level (number and length of the queues, shuffle-sharding hand size); set exactly when `type` is `Queue`.",
	},
	reflect.TypeOf(flowcontrolv1.QueuingConfiguration{}): {
		"queues":           "Number of queues of this level, on each API server. Flows are spread over them by shuffle sharding; `1` disables it, which makes the `distinguisher_method` of the flow schemas routing here irrelevant.",
		"handSize":         "Shuffle-sharding hand size: each flow is hashed to this many of the `queues` and its requests join the shortest of them. Keep it well below `queues` so that a few heavy flows cannot fill most queues.",
		"queueLengthLimit": "Maximum number of requests waiting in one queue of this level; a request arriving at a full queue is rejected (HTTP 429).",
	},
	reflect.TypeOf(flowcontrolv1.PriorityLevelConfigurationStatus{}): {
		"conditions": "Conditions reported by the API server about this level.",
	},
	reflect.TypeOf(flowcontrolv1.PriorityLevelConfigurationCondition{}): {
		"type":               "Kind of condition; unique within the list.",
		"status":             "State of the condition: `True`, `False` or `Unknown`.",
		"lastTransitionTime": "When `status` last changed (RFC 3339 timestamp).",
		"reason":             "Machine-readable CamelCase reason for the last change of `status`.",
		"message":            "Human-readable details about the last change of `status`.",
	},
}
