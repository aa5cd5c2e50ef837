package kube

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Two Terraform or OpenTofu configurations (folders, workspaces, states) that declare the same
// object apply it with the same field manager, so server-side apply cannot tell them apart:
// each apply silently overwrites the other's. What tells them apart is the creation token
// (creation.go): the configuration that creates an object keeps the token in its private state
// and every one of its applies carries it on the object. A state that imports the object gets a
// token of its own. So:
//   - a create that finds the object carrying a token says another configuration made it;
//   - a refresh that finds another token on the object records it, and the plan warns that
//     another configuration applied the object last;
//   - an apply puts this state's token back, and the other configuration's next plan warns.

// Private-state keys.
const (
	// privateCreationToken is this state's token, which its applies carry on the object.
	privateCreationToken = "creation_token"
	// privateOtherConfiguration is the token of another configuration that the last refresh
	// found on the object.
	privateOtherConfiguration = "other_configuration"
)

// CreationToken is the creation token that private (the framework's encoding) records for the
// state: the one its applies carry; empty when none yet.
func CreationToken(private []byte) string { return privateString(private, privateCreationToken) }

// otherConfiguration is the token of another configuration that the last refresh found.
func otherConfiguration(private []byte) string {
	return privateString(private, privateOtherConfiguration)
}

func privateString(private []byte, key string) string {
	return tokenFrom(privateValue(private, key))
}

// markConfiguration records in private what the object u read by a refresh says of the
// configurations that apply it. importing: the refresh that completes an import, whose state
// gets a token of its own (the object's is another configuration's).
func markConfiguration(private []byte, u *unstructured.Unstructured, importing bool) []byte {
	found := u.GetAnnotations()[CreationTokenAnnotation]
	mine := CreationToken(private)
	return editPrivate(private, func(m map[string][]byte) {
		switch {
		case importing && mine == "":
			m[privateCreationToken] = tokenValue(newCreationToken())
		case mine == "" && found != "":
			// A state written before the token was kept: the object it created carries the
			// token of its create.
			m[privateCreationToken] = tokenValue(found)
			delete(m, privateOtherConfiguration)
			return
		}
		if found != "" && found != tokenFrom(m[privateCreationToken]) {
			m[privateOtherConfiguration] = tokenValue(found)
		} else {
			delete(m, privateOtherConfiguration)
		}
	})
}

// otherConfigurationWarning warns, on the plan of an object in state, that the last refresh
// found another configuration's token on it.
func (r *Resource) otherConfigurationWarning(private []byte, meta objMeta) diag.Diagnostics {
	if otherConfiguration(private) == "" {
		return nil
	}
	return diag.Diagnostics{diag.NewWarningDiagnostic(
		fmt.Sprintf("%s %q is also applied by another configuration", r.kind.GVK.Kind, r.describe(meta)),
		fmt.Sprintf("The object carries the annotation %s of another Terraform or OpenTofu configuration (another folder, "+
			"workspace or state): that configuration created it or applied it last, with the same field manager %q. While "+
			"both declare it, each apply overwrites the other's changes without a conflict, and a destroy in either deletes "+
			"it for both.\n\n"+
			"If that configuration no longer manages it (it ran `terraform state rm` / `tofu state rm`), the next apply "+
			"that changes the object here marks it as this configuration's; to mark it now, remove the annotation:\n"+
			"  kubectl annotate %s %s-\n"+
			"Otherwise remove the object from one of the two configurations.",
			CreationTokenAnnotation, r.fieldManager(), r.kubectlObject(meta), CreationTokenAnnotation))}
}

// existsDetail explains an "already exists" failure of a create: who manages the object u,
// and what adopting it here means.
func (r *Resource) existsDetail(u *unstructured.Unstructured, meta objMeta) string {
	var b strings.Builder
	b.WriteString("The object exists in the cluster but not in this state, so nothing was changed.\n")
	managers, ours := r.specManagers(u)
	otherConfig := u.GetAnnotations()[CreationTokenAnnotation] != ""
	switch {
	case otherConfig:
		fmt.Fprintf(&b, "It was created by another Terraform or OpenTofu configuration with this provider (it carries that "+
			"configuration's annotation %s), whose state manages it.\n", CreationTokenAnnotation)
	case ours:
		fmt.Fprintf(&b, "Its spec was applied with this provider's field manager %q: another Terraform or OpenTofu "+
			"configuration with this provider most likely manages it.\n", r.fieldManager())
		otherConfig = true
	}
	if len(managers) > 0 {
		fmt.Fprintf(&b, "Field managers of its spec: %s.\n", strings.Join(managers, ", "))
	}
	b.WriteString("\n")
	adopt := fmt.Sprintf("Adopting it here (an `import` block, or `terraform import` / `tofu import` %s.<name> %s)",
		"kubeinfer_"+r.kind.TypeName, r.importID(meta))
	if otherConfig {
		b.WriteString(adopt + " makes this configuration manage it too: while the other configuration still declares it, " +
			"each apply overwrites the other's changes and a destroy in either deletes it for both. Import it only after " +
			"the other configuration has let it go (`terraform state rm` / `tofu state rm` there), or give this object " +
			"another name.")
	} else {
		b.WriteString(adopt + " makes this configuration its manager: the first apply takes the fields it declares " +
			"from the managers above and removes the ones it leaves out. Or give this object another name.")
	}
	return b.String()
}

// specManagers names the entries of u's managed fields that own part of its spec (controllers
// writing status through the subresource aside); ours: the provider's own manager applied it.
func (r *Resource) specManagers(u *unstructured.Unstructured) (managers []string, ours bool) {
	spec := fieldpath.PathElement{FieldName: ptr.To("spec")}
	for _, e := range u.GetManagedFields() {
		if e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		var set fieldpath.Set
		if set.FromJSON(e.FieldsV1.GetRawReader()) != nil {
			continue
		}
		if _, ok := set.Children.Get(spec); !ok && !set.Members.Has(spec) {
			continue
		}
		managers = append(managers, fieldOwner{manager: e.Manager, operation: string(e.Operation)}.String())
		ours = ours || e.Manager == r.fieldManager() && e.Operation == metav1.ManagedFieldsOperationApply
	}
	sort.Strings(managers)
	return managers, ours
}

// kubectlObject spells the object for a kubectl command: resource.group name [-n namespace].
func (r *Resource) kubectlObject(meta objMeta) string {
	s := r.kind.GVR().Resource + "." + r.kind.GVK.Group + " " + meta.name
	if r.kind.Namespaced {
		s += " -n " + meta.namespace
	}
	return s
}
