package tflintrules

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/terraform-linters/tflint-plugin-sdk/tflint"
)

// UnknownAttributeRule reports the keys of a kubeinfer resource, data source, list resource
// config or provider block that are not attributes of the provider's schema, at any depth of
// the object and tuple constructors of nested attributes. Terraform itself rejects unknown
// top-level arguments, but it converts the value of a nested attribute to the attribute's
// object type and drops the keys the type does not have before the provider sees them
// (hashicorp/terraform#33570), so `spec = { replicaz = 3 }` plans without a word.
type UnknownAttributeRule struct {
	tflint.DefaultRule
}

// NewUnknownAttributeRule returns the kubeinfer_unknown_attribute rule.
func NewUnknownAttributeRule() *UnknownAttributeRule { return &UnknownAttributeRule{} }

func (r *UnknownAttributeRule) Name() string              { return "kubeinfer_unknown_attribute" }
func (r *UnknownAttributeRule) Enabled() bool             { return true }
func (r *UnknownAttributeRule) Severity() tflint.Severity { return tflint.ERROR }
func (r *UnknownAttributeRule) Link() string              { return guideLink }

// Check walks every body the provider's schema describes.
func (r *UnknownAttributeRule) Check(runner tflint.Runner) error {
	s, err := Load()
	if err != nil {
		return err
	}
	files, err := runner.GetFiles()
	if err != nil {
		return err
	}
	for _, t := range targets(files, s) {
		var issues []issue
		checkBody(t, func(i issue) { issues = append(issues, i) })
		for _, i := range issues {
			if err := r.emit(runner, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// issue is one unknown key or block, with the name to put instead (by tflint --fix) when there
// is one.
type issue struct {
	message    string
	rng        hcl.Range
	suggestion string
}

func (r *UnknownAttributeRule) emit(runner tflint.Runner, i issue) error {
	if i.suggestion == "" {
		return runner.EmitIssue(r, i.message, i.rng)
	}
	// `tflint --fix` renames the key to the suggestion.
	return runner.EmitIssueWithFix(r, i.message, i.rng, func(f tflint.Fixer) error {
		return f.ReplaceText(i.rng, i.suggestion)
	})
}

// checkBody reports the unknown attributes and blocks of a target's body.
func checkBody(t target, report func(issue)) {
	checkBlockBody(t, t.body, t.object, "", t.metaAttrs(), t.metaBlocks(), report)
}

// checkBlockBody checks the body of a block at path (the target's body, or a nested block's)
// against obj.
func checkBlockBody(t target, body *hclsyntax.Body, obj *Object, path string, meta, metaBlocks map[string]bool, report func(issue)) {
	for _, a := range sortedAttributes(body) {
		if meta[a.Name] {
			continue
		}
		at := obj.Attrs[a.Name]
		switch {
		case at == nil:
			report(unknownIssue(t, unknownKey{path: path, key: a.Name, rng: a.NameRange, object: obj, present: attrNames(body)}))
		case at.Block:
			report(issue{message: prefix(path) + fmt.Sprintf("%q is a block of %s, not an attribute: write %s { ... }",
				a.Name, t.what(), a.Name), rng: a.NameRange})
		default:
			walkValue(a.Expr, at, joinPath(path, a.Name), func(u unknownKey) { report(unknownIssue(t, u)) })
		}
	}
	for _, b := range body.Blocks {
		if metaBlocks[b.Type] || (path == "" && t.kind == "list resource" && b.Type == "config") {
			continue
		}
		rng := b.TypeRange
		at := obj.Attrs[b.Type]
		switch {
		case at != nil && at.Block:
			checkBlockBody(t, b.Body, at.Nested, joinPath(path, b.Type), noMeta, noMeta, report)
			continue
		case at != nil && at.Nesting != NestingNone:
			report(issue{message: prefix(path) + fmt.Sprintf("%q is an attribute of %s, not a block: write %s = %s",
				b.Type, t.what(), b.Type, constructor(at.Nesting)), rng: rng})
			continue
		}
		msg := prefix(path) + fmt.Sprintf("%q is not a block type of %s", b.Type, t.what())
		if s := Suggest(b.Type, obj.Names()); s != "" {
			if obj.Attrs[s].Block {
				msg += fmt.Sprintf("; did you mean %s { ... }?", s)
			} else {
				msg += fmt.Sprintf("; did you mean the attribute %s = %s?", s, constructor(obj.Attrs[s].Nesting))
			}
		}
		report(issue{message: msg, rng: rng})
	}
}

func attrNames(body *hclsyntax.Body) map[string]bool {
	names := make(map[string]bool, len(body.Attributes))
	for n := range body.Attributes {
		names[n] = true
	}
	return names
}

func prefix(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

func constructor(n Nesting) string {
	switch n {
	case NestingList, NestingSet:
		return "[{ ... }]"
	case NestingNone:
		return "..."
	}
	return "{ ... }"
}

// maxListed is the most attribute names a message lists when it has no suggestion.
const maxListed = 12

func unknownIssue(t target, u unknownKey) issue {
	var b strings.Builder
	b.WriteString(prefix(u.path))
	fmt.Fprintf(&b, "%q is not an attribute of %s", u.key, t.what())
	s := Suggest(u.key, u.object.Names())
	fix := s
	switch {
	case s != "" && u.present[s]:
		// Renaming the key would write the attribute twice: no fix.
		fmt.Fprintf(&b, "; did you mean %q? (it is set here too)", s)
		fix = ""
	case s != "":
		fmt.Fprintf(&b, "; did you mean %q?", s)
	case len(u.object.Names()) <= maxListed:
		fmt.Fprintf(&b, "; the attributes here are %s", strings.Join(u.object.Names(), ", "))
	}
	return issue{message: b.String(), rng: u.rng, suggestion: fix}
}
