// Package leaderworkerset is the kube.Kind of the LeaderWorkerSet (leaderworkerset.x-k8s.io/v1,
// sigs.k8s.io/lws v0.9.0 and the newer fields of internal/apis/leaderworkerset/v1): the
// kubeinfer_leaderworkerset resource and data source, and the kubeinfer_leaderworkerset_restart
// action.
//
// Offline, at plan time: the schema and its field descriptions (resource.go, fielddocs.go), the
// webhook's and the CRD's defaults (defaults.go), the webhook's rules (validation.go) and, through
// package podtemplate, the API server's rules for the StatefulSets and pods the controller creates
// from the templates (templates.go), which groups a change recreates (rollout.go), the footprint
// (footprint.go) and the fields no released CRD declares (compat.go). Against the cluster: the
// rollout and cleanup waits (wait.go) and the restart action (restartaction.go).
//
// The DisaggregatedSet kind checks each of its roles with these rules, as the LeaderWorkerSet its
// controller creates from the role.
package leaderworkerset
