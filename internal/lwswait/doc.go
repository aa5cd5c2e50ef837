// Package lwswait follows LeaderWorkerSets on a cluster until the controller has rolled them
// out and their groups' pods are Ready, and names the groups that are not: the wait of the
// kubeinfer_leaderworkerset resource and of its restart action, and of each role of the
// kubeinfer_disaggregatedset resource, whose roles are LeaderWorkerSets. What the status means is
// the kind's offline rules (package leaderworkerset/rules); the watch loop is the engine's
// (kube.Follow).
package lwswait
