// Package rules is the offline half of the DisaggregatedSet kind (disaggregatedset.x-k8s.io/v1,
// released with sigs.k8s.io/lws v0.9.0 and v0.10.0) and of its DisaggregatedSetRoleScaler:
// the schema, the CRD's defaults, the CRD's and webhook's rules, the revision the controller
// computes, the rollout and scale-change previews and the footprint. Every role is validated by
// the LeaderWorkerSet rules (internal/leaderworkerset/rules) on the LeaderWorkerSet the
// controller would create from it. It imports no client and no engine: the provider (package
// disaggregatedset) and the TFLint plugin share it.
package rules
