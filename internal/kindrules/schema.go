package kindrules

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
)

// Names of the attributes every resource has besides the object's own (the protocol server
// plans their defaults and computed values itself).
const (
	AttrID             = "id"
	AttrForceConflicts = "force_conflicts"
	AttrTimeouts       = "timeouts"
)

// The default of each operation's timeout (timeouts.create, .update, .delete): create and update
// include the rollout wait (wait_for_rollout), delete the wait until the object and what its
// controllers created are gone.
const (
	DefaultCreateTimeout = 20 * time.Minute
	DefaultUpdateTimeout = 20 * time.Minute
	DefaultDeleteTimeout = 10 * time.Minute
)

// DefaultForceConflicts: an apply takes back the fields the configuration declares from other
// field managers, so an approved plan is carried out (as Argo CD, Flux and Crossplane do).
const DefaultForceConflicts = true

// The attributes of a resource identity (Terraform 1.12+): the object's name, and its namespace
// for a namespaced kind.
const (
	IdentityName      = "name"
	IdentityNamespace = "namespace"
)

// ResourceSchema is the schema of the kind's resource: the object's attributes, the id,
// force_conflicts, timeouts, the kind's extra and derived attributes.
func (k *Kind) ResourceSchema(ctx context.Context) rschema.Schema {
	attrs := k.Node().ResourceAttributes()
	idDesc := "`name` of the object."
	if k.Namespaced {
		idDesc = "`namespace/name` of the object."
	}
	attrs[AttrID] = rschema.StringAttribute{Computed: true, MarkdownDescription: "Identifier: " + idDesc,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	attrs[AttrForceConflicts] = rschema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(DefaultForceConflicts),
		MarkdownDescription: "Take ownership of the fields this resource sets when another field manager (`kubectl edit`, " +
			"a controller, someone's server-side apply) has changed them, so that an approved plan is carried out, and remove " +
			"the attributes others added or co-own (a field added by `kubectl patch`, the fields of the `kubectl` or Helm " +
			"that created an imported object) when the plan removes them. Fields the configuration leaves out stay with " +
			"their managers: labels and annotations others add, `spec.replicas` of a LeaderWorkerSet with " +
			"`manage_replicas = false`. The refresh and the plan name the attributes and their managers. Set to `false` for " +
			"objects deliberately shared between managers: the apply then fails on such a conflict or removal, naming the " +
			"other manager and the fields. Defaults to `true`."}
	attrs[AttrTimeouts] = timeoutsAttribute(ctx)
	for name, a := range k.Extras {
		attrs[name] = a
	}
	for name, a := range k.Derived {
		attrs[name] = a
	}
	return rschema.Schema{MarkdownDescription: k.Description, Attributes: attrs}
}

// IdentitySchema is the schema of the kind's resource identity.
func (k *Kind) IdentitySchema() identityschema.Schema {
	attrs := map[string]identityschema.Attribute{
		IdentityName: identityschema.StringAttribute{RequiredForImport: true,
			Description: "metadata.name of the " + k.GVK.Kind + "."},
	}
	if k.Namespaced {
		attrs[IdentityNamespace] = identityschema.StringAttribute{OptionalForImport: true,
			Description: "metadata.namespace of the " + k.GVK.Kind + "; \"default\" when left out at import."}
	}
	return identityschema.Schema{Attributes: attrs}
}

// timeoutsAttribute is the resource's timeouts attribute, whose descriptions give each
// operation's default and what it bounds.
func timeoutsAttribute(ctx context.Context) rschema.Attribute {
	const duration = " A duration such as `\"30s\"`, `\"10m\"` or `\"2h\"`."
	a := timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true,
		CreateDescription: fmt.Sprintf("How long a create may take, the rollout wait of a kind that has one "+
			"(`wait_for_rollout`) included. Defaults to %s.", minutes(DefaultCreateTimeout)) + duration,
		UpdateDescription: fmt.Sprintf("How long an update may take, the rollout wait of a kind that has one "+
			"(`wait_for_rollout`) included. Defaults to %s.", minutes(DefaultUpdateTimeout)) + duration,
		DeleteDescription: fmt.Sprintf("How long a destroy may take, the wait until the object is gone included (for a "+
			"LeaderWorkerSet or DisaggregatedSet, also what its controllers created: StatefulSets, pods, Services, the "+
			"roles' LeaderWorkerSets). Defaults to %s. A destroy reads it from the state, so a new value takes effect "+
			"once applied.", minutes(DefaultDeleteTimeout)) + duration,
	})
	if n, ok := a.(rschema.SingleNestedAttribute); ok {
		n.MarkdownDescription = fmt.Sprintf("Per-operation timeouts. Defaults: create %s, update %s, delete %s. "+
			"They are recorded in the `terraform.kubeinfer.io/settings` annotation when set, so an import restores them.",
			minutes(DefaultCreateTimeout), minutes(DefaultUpdateTimeout), minutes(DefaultDeleteTimeout))
		return n
	}
	return a
}

// minutes writes a whole number of minutes as the docs do ("20 minutes").
func minutes(d time.Duration) string {
	return fmt.Sprintf("%d minutes", int(d/time.Minute))
}
