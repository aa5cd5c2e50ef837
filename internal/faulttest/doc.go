// Package faulttest is the fault suite: acceptance tests that run the
// Terraform CLI against the provider binary while the test cluster misbehaves
// (kube-apiserver killed and restarted, a tiny API Priority and Fairness
// priority level, a proxy that resets and delays connections, SIGINT, the
// object or its CRD gone between plan and apply, the wrong cluster) and check
// that the next run converges: state and cluster agree, nothing is tainted,
// orphaned or duplicated, and nothing panics. It also checks that TF_LOG=trace
// output and state files never hold the cluster credentials.
//
// The tests live in this package's _test files; `make test-faults` runs them
// (and `make test` runs that target). Each case has its own time bound; all
// traffic stays on loopback.
package faulttest
