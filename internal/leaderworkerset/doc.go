// Package leaderworkerset serves the LeaderWorkerSet kind (leaderworkerset.x-k8s.io/v1,
// sigs.k8s.io/lws v0.9.0 and the newer fields of internal/apis/leaderworkerset/v1): the
// kubeinfer_leaderworkerset resource and data source, from its offline rules (package rules) and
// the generic engine (package kube), and the kubeinfer_leaderworkerset_restart action.
//
// Its own part talks to the cluster: the hooks that leave spec.replicas to an autoscaler
// (resource.go), the rollout and cleanup waits (wait.go, through package lwswait, which the
// DisaggregatedSet kind shares) and the restart action
// (restartaction.go).
package leaderworkerset
