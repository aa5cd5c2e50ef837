package rules

import (
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	disaggv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/disaggregatedset/v1"
)

// ValidateCRD is the part of Validate that the API server applies without the DisaggregatedSet
// webhook: object metadata and the CRD's schema and CEL rules.
func ValidateCRD(ds *disaggv1.DisaggregatedSet) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&ds.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(errs, validateSchema(ds)...)
}
