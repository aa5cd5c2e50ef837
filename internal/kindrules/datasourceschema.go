package kindrules

import (
	"fmt"

	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// The schemas of the kind's data sources and list resource, which find objects in the cluster:
// the data source of one object by name, the data sources <type>s that list a namespace by
// label selector (the names of a managed kind's objects; whole objects of a kind a controller
// owns) and the list resource's config block (`terraform query`).

// Attribute names of the listing data sources and the list resource.
const (
	ListAttrNamespace         = "namespace"
	ListAttrLabelSelector     = "label_selector"
	ListAttrIncludeControlled = "include_controlled"

	NamesAttrItems    = "items"
	NamesAttrImportID = "import_id"
	NamesAttrIdentity = "identity"
	NamesAttrOwner    = "controller"

	PluralAttrItems = "items"
)

// DataSourceSchema is the schema of the data source that reads one object by name: every
// attribute but its name (and namespace) is computed.
func (k *Kind) DataSourceSchema() dschema.Schema {
	inputs := map[string]k8sschema.Mode{"metadata": k8sschema.Required, "metadata.name": k8sschema.Required}
	if k.Namespaced {
		inputs["metadata.namespace"] = k8sschema.OptionalComputed
	}
	attrs := k.Node().DataSourceAttributes(inputs)
	attrs[AttrID] = dschema.StringAttribute{Computed: true, MarkdownDescription: "Identifier of the object read."}
	return dschema.Schema{
		MarkdownDescription: fmt.Sprintf("Reads an existing %s by name. ", k.GVK.Kind) + firstParagraph(k.Description),
		Attributes:          attrs,
	}
}

// scopeAttributes are the attributes of a listing data source that say what is listed: the
// label selector, the namespace of a namespaced kind, and the id naming both.
func (k *Kind) scopeAttributes() map[string]dschema.Attribute {
	attrs := map[string]dschema.Attribute{
		ListAttrLabelSelector: dschema.StringAttribute{Optional: true,
			MarkdownDescription: "Only objects whose labels match this [label selector]" +
				"(https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors), " +
				"as `kubectl get -l` takes it."},
		AttrID: dschema.StringAttribute{Computed: true, MarkdownDescription: "What was listed: `?<label selector>` " +
			"(the kind is cluster-scoped)."},
	}
	if k.Namespaced {
		attrs[AttrID] = dschema.StringAttribute{Computed: true, MarkdownDescription: "What was listed: " +
			"`<namespace>?<label selector>`."}
		attrs[ListAttrNamespace] = dschema.StringAttribute{Optional: true,
			MarkdownDescription: "The namespace to list. Defaults to `default`."}
	}
	return attrs
}

// NamesDataSourceSchema is the schema of the data source <type>s of a managed kind: the names,
// import IDs and identities of its objects, for import blocks with for_each where
// `terraform query` is not available.
func (k *Kind) NamesDataSourceSchema() dschema.Schema {
	kind := k.GVK.Kind
	identity := map[string]dschema.Attribute{
		IdentityName: dschema.StringAttribute{Computed: true, MarkdownDescription: "`metadata.name`."},
	}
	item := map[string]dschema.Attribute{
		IdentityName: dschema.StringAttribute{Computed: true, MarkdownDescription: fmt.Sprintf("`metadata.name` of the %s.", kind)},
		NamesAttrImportID: dschema.StringAttribute{Computed: true, MarkdownDescription: fmt.Sprintf(
			"The ID an `import` block takes (`id = ...`) for the `%s` resource: %s.", k.TypeName, importIDForm(k))},
		NamesAttrOwner: dschema.StringAttribute{Computed: true, MarkdownDescription: "The kind and name of the object's " +
			"controller (`DisaggregatedSet llama`), listed with `include_controlled = true`; null for an object no controller owns."},
	}
	attrs := k.scopeAttributes()
	attrs[ListAttrIncludeControlled] = dschema.BoolAttribute{Optional: true, MarkdownDescription: fmt.Sprintf(
		"Also list the %ss that a controller owns (a `metadata.owner_references` entry with `controller = true`; for "+
			"example the LeaderWorkerSets a DisaggregatedSet creates for its roles). Default `false`: they are left out, "+
			"with a warning that counts them, because an import of one would make Terraform manage it beside its controller.", kind)}
	if k.Namespaced {
		identity[IdentityNamespace] = dschema.StringAttribute{Computed: true, MarkdownDescription: "`metadata.namespace`."}
		item[IdentityNamespace] = dschema.StringAttribute{Computed: true, MarkdownDescription: fmt.Sprintf("`metadata.namespace` of the %s.", kind)}
	}
	item[NamesAttrIdentity] = dschema.SingleNestedAttribute{Computed: true, Attributes: identity,
		MarkdownDescription: fmt.Sprintf("The resource identity of the %s, as an `import` block takes it (`identity = ...`; "+
			"Terraform and OpenTofu 1.12 and later).", kind)}
	attrs[NamesAttrItems] = dschema.ListNestedAttribute{Computed: true,
		MarkdownDescription: fmt.Sprintf("The %ss found, sorted by name.", kind),
		NestedObject:        dschema.NestedAttributeObject{Attributes: item}}
	return dschema.Schema{
		MarkdownDescription: fmt.Sprintf("Lists the names and identities of the %ss %s, by label selector, ", kind, listScope(k)) +
			"to adopt them with `import` blocks and `for_each` where `terraform query` is not available (OpenTofu, " +
			"Terraform before 1.14). " + firstParagraph(k.Description),
		Attributes: attrs,
	}
}

// listScope says where a listing data source of k looks: one namespace, or the whole cluster
// for a cluster-scoped kind.
func listScope(k *Kind) string {
	if k.Namespaced {
		return "of a namespace"
	}
	return "of the cluster"
}

// importIDForm describes the import ID of k.
func importIDForm(k *Kind) string {
	if k.Namespaced {
		return "`namespace/name`"
	}
	return "the name"
}

// PluralDataSourceSchema is the schema of the data source <type>s of a kind a controller owns:
// its whole objects, by namespace and label selector.
func (k *Kind) PluralDataSourceSchema() dschema.Schema {
	attrs := k.scopeAttributes()
	attrs[PluralAttrItems] = dschema.ListNestedAttribute{Computed: true,
		MarkdownDescription: fmt.Sprintf("The %ss found, sorted by namespace and name.", k.GVK.Kind),
		NestedObject:        dschema.NestedAttributeObject{Attributes: k.Node().DataSourceAttributes(nil)}}
	return dschema.Schema{
		MarkdownDescription: fmt.Sprintf("Lists the %ss %s, by label selector. ", k.GVK.Kind, listScope(k)) +
			firstParagraph(k.Description),
		Attributes: attrs,
	}
}

// ListResourceSchema is the schema of the config block of the kind's list resource (Terraform
// 1.14+, `terraform query`).
func (k *Kind) ListResourceSchema() listschema.Schema {
	attrs := map[string]listschema.Attribute{
		ListAttrLabelSelector: listschema.StringAttribute{Optional: true,
			MarkdownDescription: "Only objects whose labels match this [label selector]" +
				"(https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors), " +
				"as `kubectl get -l` takes it: `app=vllm,tier in (prefill, decode)`."},
	}
	if k.Namespaced {
		attrs[ListAttrNamespace] = listschema.StringAttribute{Optional: true,
			MarkdownDescription: "The namespace to list; every namespace when left out."}
	}
	attrs[ListAttrIncludeControlled] = listschema.BoolAttribute{Optional: true,
		MarkdownDescription: fmt.Sprintf("Also list the %ss that a controller owns (a `metadata.owner_references` entry with "+
			"`controller = true`; for example the LeaderWorkerSets a DisaggregatedSet creates for its roles). Default `false`: "+
			"they are left out, with a warning that counts them and names their owners' kinds, because their controller "+
			"creates, changes and deletes them, and a resource imported from one would fight it (after the owner's next "+
			"revision, Terraform would create the old revision's object again).", k.GVK.Kind)}
	return listschema.Schema{
		MarkdownDescription: fmt.Sprintf("Lists the %ss of the cluster, for `terraform query`.", k.GVK.Kind),
		Attributes:          attrs,
	}
}

func firstParagraph(s string) string {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\n' && s[i+1] == '\n' {
			return s[:i]
		}
	}
	return s
}
