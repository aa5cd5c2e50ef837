package podtemplate

import (
	"fmt"
	"reflect"
)

// FieldDocs are the provider's own descriptions of the fields of the core/v1 types a pod
// template and a volume claim template are made of, keyed by Go type and JSON field name
// (k8sschema.Options.FieldDocs). They are written for the Terraform reader: attribute names in
// snake_case, defaults the server applies, allowed values. Kept short: the LeaderWorkerSet page
// lists every field twice (leader and worker template) within the registry's 500 KB limit.
var FieldDocs = MergeFieldDocs(containerDocs, podDocs, placementDocs, volumeDocs, legacyVolumeDocs)

// MergeFieldDocs combines per-type description tables; a field described twice is a
// programming error.
func MergeFieldDocs(tables ...map[reflect.Type]map[string]string) map[reflect.Type]map[string]string {
	out := map[reflect.Type]map[string]string{}
	for _, table := range tables {
		for t, fields := range table {
			if out[t] == nil {
				out[t] = map[string]string{}
			}
			for f, d := range fields {
				if _, dup := out[t][f]; dup {
					panic(fmt.Sprintf("podtemplate: %s.%s described twice", t, f))
				}
				out[t][f] = d
			}
		}
	}
	return out
}
