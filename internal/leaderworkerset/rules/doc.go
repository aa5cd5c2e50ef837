// Package rules is the offline half of the LeaderWorkerSet kind, checked at plan time without a
// cluster: the schema and its field descriptions (rules.go, fielddocs.go), the webhook's and the
// CRD's defaults (defaults.go), the webhook's rules (validation.go) and, through package
// podtemplate, the API server's rules for the StatefulSets and pods the controller creates from
// the templates (templates.go), which groups a change recreates (rollout.go), what the rollout
// status means (rolloutstatus.go), the workload the placement preview places (placement.go), the
// footprint (footprint.go) and the fields no released CRD declares (compat.go).
//
// It imports no client and no engine: the provider (package leaderworkerset), the TFLint plugin
// and the DisaggregatedSet kind, which checks each of its roles with these rules as the
// LeaderWorkerSet its controller creates from the role, share it.
package rules
