package k8sschema

// MetadataDocs are the descriptions of the metadata attributes that name the kind; the
// server-set ones (uid, resourceVersion, generation) read the same for every kind.
type MetadataDocs struct {
	Metadata, Name, Labels, Annotations string
}

// WithClusterScopedMetadata adds to opts (and returns it) the metadata of a cluster-scoped
// object: name (required), labels and annotations (keys that others add are kept from the
// prior state, not drift), and uid, resourceVersion and generation (computed, set by the
// server), described by docs.
func WithClusterScopedMetadata(opts Options, docs MetadataDocs) Options {
	if opts.Only == nil {
		opts.Only = map[string][]string{}
	}
	opts.Only["metadata"] = []string{"name", "labels", "annotations", "uid", "resourceVersion", "generation"}
	if opts.Modes == nil {
		opts.Modes = map[string]Mode{}
	}
	opts.Modes["metadata"] = Required
	opts.Modes["metadata.name"] = Required
	opts.Modes["metadata.uid"] = Computed
	opts.Modes["metadata.resourceVersion"] = Computed
	opts.Modes["metadata.generation"] = Computed
	opts.KeysFromPrior = append(opts.KeysFromPrior, "metadata.annotations", "metadata.labels")
	if opts.Descriptions == nil {
		opts.Descriptions = map[string]string{}
	}
	opts.Descriptions["metadata"] = docs.Metadata
	opts.Descriptions["metadata.name"] = docs.Name
	opts.Descriptions["metadata.labels"] = docs.Labels
	opts.Descriptions["metadata.annotations"] = docs.Annotations
	opts.Descriptions["metadata.uid"] = "Unique identifier assigned by the server."
	opts.Descriptions["metadata.resourceVersion"] = "Version of the object in the server's storage."
	opts.Descriptions["metadata.generation"] = "Sequence number of spec changes, set by the server."
	return opts
}
