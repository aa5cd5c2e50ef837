// Package tflintrules holds the rules of the TFLint plugin tflint-ruleset-kubeinfer
// (cmd/tflint-ruleset-kubeinfer): rules over the raw HCL of a Terraform module that check what
// Terraform itself lets through to the provider, with the provider's own schema and validation.
//
//   - kubeinfer_unknown_attribute: a key of a nested attribute's object that the schema does not
//     have (Terraform drops such keys silently, hashicorp/terraform#33570), with a did-you-mean;
//   - kubeinfer_plan_time_validation: the provider's ValidateResourceConfig on resource blocks
//     whose values are all known to TFLint, each error at the expression its path names.
//
// The schema comes from an in-process server of the offline provider (package providerrules),
// built once per process, and the validation from the kinds' offline rules (package kindrules):
// the same functions the provider builds its schema and runs its validation with, so nothing of
// the provider's schema is copied here, and the plugin links no Kubernetes client.
package tflintrules
