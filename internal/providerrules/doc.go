// Package providerrules is the offline half of the provider as a whole, as package kindrules is
// of one kind: the provider block's schema (Schema), the registry of the kinds' offline rules
// (Kinds, ReadOnlyKinds) and a framework provider made of them alone (New, NewServer) that
// answers the provider's schemas without a cluster and without a client. It imports the kinds'
// rules packages (internal/<kind>/rules), never their wiring, package kube or client-go: the
// TFLint plugin (internal/tflintrules) is built on it, and package provider builds its provider
// block and checks its list of kinds against it.
package providerrules
