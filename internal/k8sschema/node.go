// Package k8sschema derives Terraform schemas from Kubernetes Go API types and converts values
// between the two. Every resource of the provider goes through this one path, so a field that
// exists in the Go type exists in the schema, and a value survives plan -> object -> state intact.
package k8sschema

import (
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Kind is the Terraform shape of a node.
type Kind int

const (
	KindString Kind = iota
	KindBool
	KindInt
	KindFloat
	KindObject
	KindList
	KindMap
)

// Format says how a KindString node is written in the Go type.
type Format int

const (
	FormatPlain Format = iota
	FormatQuantity
	FormatIntOrString
	FormatTime
	FormatBytes
	FormatDuration
)

// Mode says who sets a node's value.
type Mode int

const (
	// Optional: set by the user, never by the server (the default).
	Optional Mode = iota
	// Required: must be set by the user.
	Required
	// OptionalComputed: set by the user, or planned by the provider from a server default.
	OptionalComputed
	// Computed: set by the server only.
	Computed
)

// Node describes one attribute: its Terraform name, its JSON name and how its Go value is stored.
type Node struct {
	TFName      string
	JSONName    string
	Kind        Kind
	Format      Format
	GoType      reflect.Type // the type after removing one pointer
	Pointer     bool         // the Go field is a pointer: nil is null and zero values are kept
	Mode        Mode
	Sensitive   bool
	Description string
	// apiDoc: the description is the API's own text (SwaggerDoc), not ours.
	apiDoc bool
	// declaredIn is the struct type that declares the field (an inlined embedded struct's type
	// for its fields), the key of Options.FieldDocs.
	declaredIn reflect.Type
	// KeysFromPrior: a map whose state keeps only the keys the user declared, so keys added by
	// other actors (controllers adding annotations) are not reported as drift.
	KeysFromPrior bool
	// ForeignKeys are keys of a map that another actor sets and that are not drift where the
	// user leaves them out (the restart action's kubectl.kubernetes.io/restartedAt on a pod
	// template's annotations); the user's own keys of the map are compared as usual.
	ForeignKeys map[string]bool
	// foreignBelow: this node is such a map or an object with one among its fields (lists
	// aside), so a null prior does not make the server's value drift by those keys alone.
	foreignBelow bool
	// Default is the value the server gives this field when it is left unset (a CRD default
	// such as a container port's protocol "TCP"); the provider plans it. nil when none.
	Default any
	// Equivalent maps a value the user may write to the value the server stores for it
	// (LWS restartPolicy "Default" is stored as "None"); both mean the same.
	Equivalent map[string]string

	Fields []*Node // KindObject, in schema order
	Elem   *Node   // KindList and KindMap

	index []int // field index in the parent struct (through inlined embedded structs)
	// The node's types, computed once: the framework asks for them for every value it walks,
	// and rebuilding a ~2,000-attribute object type each time makes plans quadratic.
	tfType   tftypes.Type
	attrType attr.Type
	byTF     map[string]*Node
	byJSON   map[string]*Node
	path     string // dotted JSON path from the root, list elements included as "[]"
}

// Field returns the child with the given Terraform name.
func (n *Node) Field(tfName string) *Node { return n.byTF[tfName] }

// FieldJSON returns the child with the given JSON name.
func (n *Node) FieldJSON(jsonName string) *Node { return n.byJSON[jsonName] }

// Path is the dotted JSON path of the node, e.g. "spec.leaderWorkerTemplate.size".
func (n *Node) Path() string { return n.path }

// Options tailor a tree built from a Go type. Paths are dotted JSON paths from the root type,
// without list markers: "spec.template.spec.containers.name".
type Options struct {
	// Only restricts a struct to the listed JSON fields (e.g. metadata to name, labels, ...).
	Only map[string][]string
	// Skip drops fields (e.g. status of a template).
	Skip []string
	// Modes overrides the mode of a node; a Computed node makes its whole subtree Computed.
	Modes map[string]Mode
	// Sensitive marks nodes sensitive.
	Sensitive []string
	// KeysFromPrior marks maps whose foreign keys are ignored on refresh.
	KeysFromPrior []string
	// ForeignKeys lists, per map, the keys whose values others set and which are not drift
	// when the configuration leaves them out (Node.ForeignKeys).
	ForeignKeys map[string][]string
	// TypeDefaults are server defaults of fields of a Go struct type wherever it appears (the
	// structural defaults of a CRD's embedded pod templates); values are strings or booleans.
	// Such fields become OptionalComputed and their default is planned.
	TypeDefaults map[reflect.Type]map[string]any
	// Equivalents lists values the server rewrites to synonyms, per node.
	Equivalents map[string]map[string]string
	// FieldDocs are our own descriptions of the fields of a Go struct type (by JSON name),
	// wherever the type appears. They replace the API's descriptions (SwaggerDoc), which remain
	// only as a fallback that DocProblems reports.
	FieldDocs map[reflect.Type]map[string]string
	// Notes are appended to descriptions (allowed values, defaults, immutability).
	Notes map[string]string
	// Descriptions overrides or supplies descriptions.
	Descriptions map[string]string
}

type builder struct {
	opts    Options
	skip    map[string]bool
	sens    map[string]bool
	keys    map[string]bool
	visited map[reflect.Type]int
	// paths are the JSON field paths of the type (skipped ones included), to reject options
	// that name no field.
	paths map[string]bool
	// docs caches swaggerDocs by type.
	docs map[reflect.Type]map[string]string
}

var (
	quantityType = reflect.TypeOf(resource.Quantity{})
	intstrType   = reflect.TypeOf(intstr.IntOrString{})
	timeType     = reflect.TypeOf(metav1.Time{})
	microType    = reflect.TypeOf(metav1.MicroTime{})
	durationType = reflect.TypeOf(metav1.Duration{})

	objectMetaType = reflect.TypeOf(metav1.ObjectMeta{})
)

// EmbeddedMetadataFields are the metadata fields kept in embedded templates.
var EmbeddedMetadataFields = []string{"name", "namespace", "labels", "annotations", "finalizers"}

// Build derives the node tree of a Go struct type. The root node has no names.
func Build(t reflect.Type, opts Options) *Node {
	b := &builder{opts: opts, skip: set(opts.Skip), sens: set(opts.Sensitive), keys: set(opts.KeysFromPrior),
		visited: map[reflect.Type]int{}, paths: map[string]bool{}}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	root := &Node{Kind: KindObject, GoType: t}
	b.fillStruct(root, t, "", Optional)
	if unknown := b.unknownOptionPaths(); len(unknown) > 0 {
		// A typo in an option would silently change nothing (or an attribute's mode): refuse it.
		panic(fmt.Sprintf("k8sschema.Build(%s): options name no field: %s", t, strings.Join(unknown, ", ")))
	}
	root.computeTypes()
	markForeignBelow(root)
	return root
}

// markForeignBelow sets foreignBelow on n and its object fields and reports whether n has it.
func markForeignBelow(n *Node) bool {
	below := len(n.ForeignKeys) > 0
	if n.Kind == KindObject {
		for _, f := range n.Fields {
			if markForeignBelow(f) {
				below = true
			}
		}
	}
	n.foreignBelow = below
	return below
}

// unknownOptionPaths lists the option keys (Only, Skip, Modes, Sensitive, KeysFromPrior,
// ForeignKeys, Equivalents, Notes, Descriptions) that are not a JSON field path of the type.
func (b *builder) unknownOptionPaths() []string {
	var unknown []string
	check := func(option, path string) {
		if !b.paths[path] {
			unknown = append(unknown, fmt.Sprintf("%s[%q]", option, path))
		}
	}
	for p := range b.opts.Only {
		check("Only", p)
	}
	for _, p := range b.opts.Skip {
		check("Skip", p)
	}
	for p := range b.opts.Modes {
		check("Modes", p)
	}
	for _, p := range b.opts.Sensitive {
		check("Sensitive", p)
	}
	for _, p := range b.opts.KeysFromPrior {
		check("KeysFromPrior", p)
	}
	for p := range b.opts.ForeignKeys {
		check("ForeignKeys", p)
	}
	for p := range b.opts.Equivalents {
		check("Equivalents", p)
	}
	for p := range b.opts.Notes {
		check("Notes", p)
	}
	for p := range b.opts.Descriptions {
		check("Descriptions", p)
	}
	sort.Strings(unknown)
	return unknown
}

func set(items []string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
	}
	return m
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func (b *builder) node(t reflect.Type, p string, parentMode Mode) *Node {
	n := &Node{path: p}
	if m, ok := b.opts.Modes[p]; ok && parentMode != Computed {
		n.Mode = m
	} else if parentMode == Computed {
		n.Mode = Computed
	}
	n.Sensitive = b.sens[p]
	n.KeysFromPrior = b.keys[p]
	if keys := b.opts.ForeignKeys[p]; len(keys) > 0 {
		n.ForeignKeys = set(keys)
	}
	n.Equivalent = b.opts.Equivalents[p]
	if t.Kind() == reflect.Pointer {
		n.Pointer = true
		t = t.Elem()
	}
	n.GoType = t
	switch {
	case t == quantityType:
		n.Kind, n.Format = KindString, FormatQuantity
	case t == intstrType:
		n.Kind, n.Format = KindString, FormatIntOrString
	case t == timeType || t == microType:
		n.Kind, n.Format = KindString, FormatTime
	case t == durationType:
		n.Kind, n.Format = KindString, FormatDuration
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		n.Kind, n.Format = KindString, FormatBytes
	default:
		switch t.Kind() {
		case reflect.String:
			n.Kind = KindString
		case reflect.Bool:
			n.Kind = KindBool
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n.Kind = KindInt
		case reflect.Float32, reflect.Float64:
			n.Kind = KindFloat
		case reflect.Slice:
			n.Kind = KindList
			n.Elem = b.node(t.Elem(), p, n.Mode)
			n.Elem.path = p + "[]"
		case reflect.Map:
			n.Kind = KindMap
			n.Elem = b.node(t.Elem(), p, n.Mode)
			n.Elem.path = p + "{}"
		case reflect.Struct:
			n.Kind = KindObject
			// Kubernetes API types are not recursive; the guard only stops a mistake from hanging.
			if b.visited[t] > 3 {
				panic(fmt.Sprintf("k8sschema: recursive type %s at %s", t, p))
			}
			b.visited[t]++
			b.fillStruct(n, t, p, n.Mode)
			b.visited[t]--
		default:
			panic(fmt.Sprintf("k8sschema: unsupported Go kind %s at %s", t.Kind(), p))
		}
	}
	return n
}

// fillStruct adds the JSON fields of t (inlined embedded structs included) to n.
func (b *builder) fillStruct(n *Node, t reflect.Type, p string, mode Mode) {
	b.paths[p] = true
	n.byTF = make(map[string]*Node, t.NumField())
	n.byJSON = make(map[string]*Node, t.NumField())
	docs := b.swaggerDocs(t)
	if hasEmbedded(t) {
		docs = maps.Clone(docs) // addFields adds the embedded structs' descriptions
	}
	var only map[string]bool
	if list, ok := b.opts.Only[p]; ok {
		only = set(list)
	} else if t == objectMetaType {
		// Embedded object metadata (pod templates, claim templates) keeps only what a CRD's
		// embedded metadata schema keeps; the server prunes everything else.
		only = set(EmbeddedMetadataFields)
	}
	b.addFields(n, t, nil, p, mode, docs, only)
	sort.SliceStable(n.Fields, func(i, j int) bool { return n.Fields[i].TFName < n.Fields[j].TFName })
}

func (b *builder) addFields(n *Node, t reflect.Type, index []int, p string, mode Mode, docs map[string]string, only map[string]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		idx := append(append([]int{}, index...), i)
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft == reflect.TypeOf(metav1.TypeMeta{}) {
				continue // apiVersion and kind are fixed by the resource type
			}
			for k, v := range b.swaggerDocs(ft) {
				if _, ok := docs[k]; !ok && k != "" {
					docs[k] = v
				}
			}
			b.addFields(n, ft, idx, p, mode, docs, only)
			continue
		}
		if name == "" {
			name = f.Name
		}
		fp := join(p, name)
		b.paths[fp] = true
		if b.skip[fp] || (only != nil && !only[name]) {
			continue
		}
		child := b.node(f.Type, fp, mode)
		child.JSONName = name
		child.TFName = SnakeCase(name)
		child.declaredIn = t
		child.index = idx
		if own, ok := b.opts.FieldDocs[t][name]; ok {
			child.Description = own
		} else {
			child.Description, child.apiDoc = docs[name], true
		}
		if d, ok := b.opts.TypeDefaults[t][name]; ok && mode != Computed {
			child.Default = d
			if child.Mode == Optional {
				child.Mode = OptionalComputed
			}
			child.Description += fmt.Sprintf(" Defaults to `%v`.", d)
		}
		if d, ok := b.opts.Descriptions[fp]; ok {
			child.Description, child.apiDoc = d, false
		}
		if note, ok := b.opts.Notes[fp]; ok {
			child.Description = strings.TrimSpace(child.Description + " " + note)
		}
		n.Fields = append(n.Fields, child)
		n.byTF[child.TFName] = child
		n.byJSON[name] = child
	}
}

type swaggerDoc interface{ SwaggerDoc() map[string]string }

// swaggerDocs is swaggerDocs(t), once per type and tree: pod specs appear several times in a
// kind's tree. The map is shared: not to be modified.
func (b *builder) swaggerDocs(t reflect.Type) map[string]string {
	if d, ok := b.docs[t]; ok {
		return d
	}
	if b.docs == nil {
		b.docs = map[reflect.Type]map[string]string{}
	}
	d := swaggerDocs(t)
	b.docs[t] = d
	return d
}

// hasEmbedded reports whether t has an anonymous field, whose fields addFields inlines.
func hasEmbedded(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Anonymous {
			return true
		}
	}
	return false
}

// swaggerDocs returns the field descriptions that k8s.io/api (and our own API types) publish.
func swaggerDocs(t reflect.Type) map[string]string {
	out := map[string]string{}
	v := reflect.New(t)
	if d, ok := v.Interface().(swaggerDoc); ok {
		for k, s := range d.SwaggerDoc() {
			out[k] = s
		}
	} else if d, ok := v.Elem().Interface().(swaggerDoc); ok {
		for k, s := range d.SwaggerDoc() {
			out[k] = s
		}
	}
	return out
}

// APIDocFields lists, once per declaring type and field, the fields below n whose description
// is still the API's own text rather than ours (Options.FieldDocs or Options.Descriptions), as
// "Type.jsonField (first path)".
func (n *Node) APIDocFields() []string {
	var out []string
	seen := map[string]bool{}
	n.Walk(func(c *Node) {
		if !c.apiDoc || c.TFName == "" {
			return
		}
		key := typeName(c.declaredIn) + "." + c.JSONName
		if !seen[key] {
			seen[key] = true
			out = append(out, key+" ("+c.path+")")
		}
	})
	return out
}

// UnusedFieldDocs lists the Options.FieldDocs entries that name no field of the tree (typos,
// removed fields).
func UnusedFieldDocs(root *Node, docs map[reflect.Type]map[string]string) []string {
	used := map[reflect.Type]map[string]bool{}
	root.Walk(func(c *Node) {
		if c.declaredIn != nil {
			if used[c.declaredIn] == nil {
				used[c.declaredIn] = map[string]bool{}
			}
			used[c.declaredIn][c.JSONName] = true
		}
	})
	var out []string
	for t, fields := range docs {
		for f := range fields {
			if !used[t][f] {
				out = append(out, typeName(t)+"."+f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// SnakeCase turns a JSON field name into a Terraform attribute name:
// leaderWorkerTemplate -> leader_worker_template, hostIPC -> host_ipc, targetWWNs -> target_wwns.
func SnakeCase(s string) string {
	if strings.IndexFunc(s, unicode.IsUpper) < 0 {
		return s // most JSON names are one lower-case word: no copy
	}
	r := []rune(s)
	var out strings.Builder
	out.Grow(len(s) + 4) // a few underscores
	for i, c := range r {
		if unicode.IsUpper(c) {
			prevLower := i > 0 && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]))
			// An acronym ends where an upper-case letter is followed by a lower-case one, except a
			// plural "s" that ends the word ("WWNs", "IPs").
			acronymEnd := i > 0 && unicode.IsUpper(r[i-1]) && i+1 < len(r) && unicode.IsLower(r[i+1]) &&
				(r[i+1] != 's' || (i+2 != len(r) && !unicode.IsUpper(r[i+2])))
			if prevLower || acronymEnd {
				out.WriteByte('_')
			}
			out.WriteRune(unicode.ToLower(c))
			continue
		}
		out.WriteRune(c)
	}
	return out.String()
}

// Walk calls fn for every node below n (depth first), with its dotted JSON path.
func (n *Node) Walk(fn func(*Node)) {
	for _, f := range n.Fields {
		fn(f)
		f.Walk(fn)
	}
	if n.Elem != nil {
		n.Elem.Walk(fn)
	}
}

// typeName names a Go type by the last two elements of its package path: "core/v1.Container".
func typeName(t reflect.Type) string {
	pkg := t.PkgPath()
	if i := strings.LastIndex(pkg, "/"); i > 0 {
		if j := strings.LastIndex(pkg[:i], "/"); j >= 0 {
			pkg = pkg[j+1:]
		}
	}
	return pkg + "." + t.Name()
}

// CopiedFieldDocs lists the FieldDocs entries that repeat the API's own first sentence
// verbatim: descriptions are meant to be written for the Terraform reader, not copied.
func CopiedFieldDocs(docs map[reflect.Type]map[string]string) []string {
	var out []string
	for t, fields := range docs {
		api := swaggerDocs(t)
		for f, d := range fields {
			first, _, _ := strings.Cut(api[f], ". ")
			first = strings.TrimSuffix(strings.TrimSpace(first), ".")
			if len(first) > 20 && strings.Contains(d, first) {
				out = append(out, typeName(t)+"."+f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// DocProblems lists what keeps the descriptions of the tree below root from being the
// provider's own: fields still described by the API's text, FieldDocs entries naming no field or
// repeating the API's sentence, and attributes with an empty or multi-line description.
func DocProblems(root *Node, docs map[reflect.Type]map[string]string) []string {
	var out []string
	for _, f := range root.APIDocFields() {
		out = append(out, "uses the Kubernetes API description (add it to FieldDocs): "+f)
	}
	for _, f := range UnusedFieldDocs(root, docs) {
		out = append(out, "FieldDocs entry names no attribute: "+f)
	}
	for _, f := range CopiedFieldDocs(docs) {
		out = append(out, "FieldDocs entry copies the API's sentence: "+f)
	}
	root.Walk(func(n *Node) {
		switch {
		case n.TFName != "" && strings.TrimSpace(n.Description) == "":
			out = append(out, "no description: "+n.path)
		case strings.Contains(n.Description, "\n"):
			out = append(out, "description spans lines: "+n.path)
		}
	})
	return out
}
