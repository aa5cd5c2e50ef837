package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// podTemplatePage is where the pod template page goes, relative to the docs folder, and the link
// to it from the resource and data source pages (the Registry serves docs/guides/X.md as
// .../docs/guides/X and resolves relative links, with or without .md, as GitHub does).
const (
	podTemplatePage = "guides/pod-template.md"
	podTemplateLink = "../" + podTemplatePage
)

// A place a pod template is used: a template attribute on a resource or data source page.
type place struct {
	page *page
	path string // the template attribute on the page, e.g. spec.leader_worker_template.worker_template
}

func (c *place) kind() string {
	if c.page.dataSource() {
		return "data source"
	}
	return strings.ToLower(c.page.typ)
}

// The pod template as documented by every place: its sections by relative path.
type merged struct {
	places   []*place
	sections map[string]*mSection
}

type mSection struct {
	path    string
	places  []int // indices into merged.places
	bullets map[string]*mBullet
}

type mBullet struct {
	name     string
	group    string
	fromData bool // group taken from a data source (no resource has the attribute)
	child    bool
	texts    []*mText // distinct descriptions, in the order of the places
	places   []int
}

type mText struct {
	typ, desc string
	places    []int
}

func newMerged() *merged { return &merged{sections: map[string]*mSection{}} }

// add merges one place's sections (secs[i] at relative path rels[i]).
func (m *merged) add(c *place, secs []*section, rels []string) {
	ci := len(m.places)
	m.places = append(m.places, c)
	for i, s := range secs {
		ms := m.sections[rels[i]]
		if ms == nil {
			ms = &mSection{path: rels[i], bullets: map[string]*mBullet{}}
			m.sections[rels[i]] = ms
		}
		ms.places = append(ms.places, ci)
		for _, g := range s.groups {
			for _, b := range g.bullets {
				mb := ms.bullets[b.name]
				if mb == nil {
					mb = &mBullet{name: b.name, group: g.title, fromData: c.page.dataSource()}
					ms.bullets[b.name] = mb
				} else if mb.fromData && !c.page.dataSource() {
					// In a data source every attribute is Read-Only; a resource says what a
					// configuration may set.
					mb.group, mb.fromData = g.title, false
				}
				mb.places = append(mb.places, ci)
				mb.child = mb.child || b.child != ""
				var t *mText
				for _, x := range mb.texts {
					if x.typ == b.typ && x.desc == b.desc {
						t = x
					}
				}
				if t == nil {
					t = &mText{typ: b.typ, desc: b.desc}
					mb.texts = append(mb.texts, t)
				}
				t.places = append(t.places, ci)
			}
		}
	}
}

var groupOrder = []string{"Required", "Optional", "Read-Only"}

// groups returns the section's attributes by group, in tfplugindocs' order.
func (s *mSection) groups() ([]string, map[string][]*mBullet) {
	by := map[string][]*mBullet{}
	var titles []string
	for _, b := range s.bullets {
		if _, ok := by[b.group]; !ok {
			titles = append(titles, b.group)
		}
		by[b.group] = append(by[b.group], b)
	}
	rank := func(t string) int {
		if i := slices.Index(groupOrder, t); i >= 0 {
			return i
		}
		return len(groupOrder)
	}
	sort.Slice(titles, func(i, j int) bool {
		if ri, rj := rank(titles[i]), rank(titles[j]); ri != rj {
			return ri < rj
		}
		return titles[i] < titles[j]
	})
	for _, t := range titles {
		sort.Slice(by[t], func(i, j int) bool { return by[t][i].name < by[t][j].name })
	}
	return titles, by
}

// label names a set of places: a kind alone when it covers every place of that kind.
func (m *merged) label(places []int) string {
	var out []string
	done := map[string]bool{}
	for _, ci := range places {
		name := m.places[ci].page.name
		if done[name] {
			continue
		}
		done[name] = true
		all := true
		for cj, c := range m.places {
			if c.page.name == name && !slices.Contains(places, cj) {
				all = false
			}
		}
		if all {
			out = append(out, "`"+name+"`")
			continue
		}
		for _, cj := range places {
			if c := m.places[cj]; c.page.name == name {
				out = append(out, fmt.Sprintf("`%s` (%s) `%s`", name, c.kind(), c.path))
			}
		}
	}
	return strings.Join(out, ", ")
}

func anchorOf(path string) string { return "nestedatt--" + strings.ReplaceAll(path, ".", "--") }

// renderBullet writes an attribute; link is what follows it when it has a nested section.
func (m *merged) renderBullet(s *mSection, b *mBullet, link string) string {
	var sb strings.Builder
	var missing []int
	for _, ci := range s.places {
		if !slices.Contains(b.places, ci) {
			missing = append(missing, ci)
		}
	}
	line := func(parts ...string) {
		var nonEmpty []string
		for _, p := range parts {
			if p != "" {
				nonEmpty = append(nonEmpty, p)
			}
		}
		sb.WriteString(strings.Join(nonEmpty, " ") + "\n")
	}
	if len(b.texts) == 1 {
		t := b.texts[0]
		line("- `"+b.name+"`", "("+t.typ+")", t.desc, link)
		if len(missing) > 0 {
			line("  - Only in", m.label(b.places)+".")
		}
		return sb.String()
	}
	sameType := true
	for _, t := range b.texts {
		sameType = sameType && t.typ == b.texts[0].typ
	}
	if sameType {
		line("- `"+b.name+"`", "("+b.texts[0].typ+"),", "by kind:", link)
	} else {
		line("- `"+b.name+"`,", "by kind:", link)
	}
	for _, t := range b.texts {
		typ := ""
		if !sameType {
			typ = "(" + t.typ + ")"
		}
		line("  -", m.label(t.places)+":", typ, t.desc)
	}
	if len(missing) > 0 {
		line("  - Not in", m.label(missing)+".")
	}
	return sb.String()
}

// minShared is the size (bytes of Markdown, nested sections included) from which a nested
// object documented the same way as one already written links to it: a smaller one (a
// `secret_ref` of a single `name`) reads better written out than behind a link.
const minShared = 500

// signatures returns, for every section, a digest of what it and its nested sections render
// to (two sections with the same digest document the same attributes the same way) and the
// size of that Markdown.
func (m *merged) signatures() (map[string]string, map[string]int) {
	sigs, sizes := map[string]string{}, map[string]int{}
	var sig func(path string) string
	sig = func(path string) string {
		if s, ok := sigs[path]; ok {
			return s
		}
		s := m.sections[path]
		h := sha256.New()
		size := len(anchorOf(path)) + 2*len(path) + 50
		titles, by := s.groups()
		for _, t := range titles {
			fmt.Fprintf(h, "%s:\n", t)
			for _, b := range by[t] {
				link := ""
				if b.child {
					cp := joinPath(path, b.name)
					link = "-> " + sig(cp)
					size += sizes[cp]
				}
				r := m.renderBullet(s, b, link)
				fmt.Fprint(h, r)
				size += len(r)
			}
		}
		sigs[path] = hex.EncodeToString(h.Sum(nil))
		sizes[path] = size
		return sigs[path]
	}
	for p := range m.sections {
		sig(p)
	}
	return sigs, sizes
}

// renderSections writes the root's attributes as "## Schema" and every nested section once,
// depth first in tfplugindocs' order; a nested object documented the same way as one already
// written links to it.
func (m *merged) renderSections() (string, error) {
	sigs, sizes := m.signatures()
	first := map[string]string{} // signature -> path of the section that documents it
	var sb strings.Builder
	var write func(path string) error
	write = func(path string) error {
		s := m.sections[path]
		if s == nil {
			return fmt.Errorf("pod template: no section %q", path)
		}
		if path == "" {
			sb.WriteString("## Schema\n\n")
		} else {
			fmt.Fprintf(&sb, "<a id=%q></a>\n### Nested Schema for `%s`\n\n", anchorOf(path), path)
		}
		titles, by := s.groups()
		var next []string
		for _, t := range titles {
			if path == "" {
				fmt.Fprintf(&sb, "### %s\n\n", t)
			} else {
				fmt.Fprintf(&sb, "%s:\n\n", t)
			}
			for _, b := range by[t] {
				link := ""
				if b.child {
					cp := joinPath(path, b.name)
					if _, ok := m.sections[cp]; !ok {
						return fmt.Errorf("pod template: %s has no section", cp)
					}
					if f, ok := first[sigs[cp]]; ok && sizes[cp] >= minShared {
						link = fmt.Sprintf("(same nested schema as [`%s`](#%s))", f, anchorOf(f))
					} else {
						if !ok {
							first[sigs[cp]] = cp
						}
						link = childLink(anchorOf(cp))
						next = append(next, cp)
					}
				}
				sb.WriteString(m.renderBullet(s, b, link))
			}
			sb.WriteString("\n")
		}
		for _, cp := range next {
			if err := write(cp); err != nil {
				return err
			}
		}
		return nil
	}
	err := write("")
	return sb.String(), err
}

// require fails when the page's hand-written text names an attribute the schema no longer has.
func (m *merged) require(path, name, typ string) error {
	s := m.sections[path]
	if s == nil || s.bullets[name] == nil {
		return fmt.Errorf("pod template: the naming section names %s, which the schema no longer has: update internal/docsgen", joinPath(path, name))
	}
	for _, t := range s.bullets[name].texts {
		if t.typ != typ {
			return fmt.Errorf("pod template: the naming section gives %s as %s, the schema as %s: update internal/docsgen", joinPath(path, name), typ, t.typ)
		}
	}
	return nil
}

// namingRefs are the attributes (section, name, type) the naming section and its example name.
var namingRefs = [][3]string{
	{"spec", "termination_grace_period_seconds", "Number"},
	{"spec.containers", "image_pull_policy", "String"},
	{"spec.containers.resources", "limits", "Map of String"},
	{"spec.containers.readiness_probe.tcp_socket", "port", "String"},
	{"spec.volumes.empty_dir", "size_limit", "String"},
	{"metadata", "labels", "Map of String"},
	{"spec", "node_selector", "Map of String"},
}

func (m *merged) renderPage() (string, error) {
	for _, r := range namingRefs {
		if err := m.require(r[0], r[1], r[2]); err != nil {
			return "", err
		}
	}
	body, err := m.renderSections()
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.WriteString(`---
# generated by the provider's documentation generator from the pages tfplugindocs generates: do not edit
page_title: "Pod template reference - kubeinfer"
subcategory: "Reference"
description: |-
  The attributes of a pod template (leader_template, worker_template), documented once for every resource and data source that has one, with the naming rule.
---

# Pod template reference

The attributes in the table below each hold a Kubernetes pod template (` + "`core/v1` `PodTemplateSpec`" + `):
the labels and annotations of the pods and their specification. Its attributes are the same in
every place, so they are documented here once.

`)
	sb.WriteString(m.placesTable())
	sb.WriteString(`
Where two kinds describe an attribute differently, each description is given with the kinds it
applies to. A nested object documented the same way as one above links to it ("same nested schema
as") instead of repeating it.

## Naming

The attributes follow the Kubernetes API field by field:

- An attribute's name is the snake_case of the field's JSON name: ` + "`imagePullPolicy`" + ` is
  ` + "`image_pull_policy`" + `, ` + "`terminationGracePeriodSeconds`" + ` is ` + "`termination_grace_period_seconds`" + `.
  An object is an object (` + "`security_context = { ... }`" + `), a list of objects a list
  (` + "`containers = [{ ... }]`" + `).
- Map keys are written verbatim, as in a manifest: labels, annotations, ` + "`node_selector`" + `, and the
  resource names of ` + "`resources.limits`" + ` and ` + "`resources.requests`" + ` (` + "`\"nvidia.com/gpu\" = \"8\"`" + `).
- A field that takes an integer or a string (` + "`IntOrString`" + `, such as a probe's ` + "`port`" + `) is a
  string: ` + "`port = \"8080\"`" + ` or ` + "`port = \"http\"`" + `. Quantities are strings too (` + "`\"15Gi\"`" + `, ` + "`\"500m\"`" + `).
- In a data source every attribute is read-only; the lists below say what a resource
  configuration may set.

` + "```terraform" + `
worker_template = {
  metadata = { labels = { "app.kubernetes.io/name" = "vllm" } }
  spec = {
    termination_grace_period_seconds = 60
    node_selector                    = { "nvidia.com/gpu.product" = "NVIDIA-H100-80GB-HBM3" }
    containers = [{
      name              = "vllm"
      image             = "vllm/vllm-openai:v0.11.0"
      image_pull_policy = "IfNotPresent"
      resources         = { limits = { "nvidia.com/gpu" = "8" } }
      readiness_probe   = { tcp_socket = { port = "8080" } }
    }]
    volumes = [{ name = "dshm", empty_dir = { medium = "Memory", size_limit = "15Gi" } }]
  }
}
` + "```" + `

`)
	sb.WriteString(body)
	return strings.TrimRight(sb.String(), "\n") + "\n", nil
}

// placesTable lists, per kind, the template attributes and the pages that link here.
func (m *merged) placesTable() string {
	type row struct {
		name  string
		paths []string
		pages []string
	}
	var rows []*row
	byName := map[string]*row{}
	for _, c := range m.places {
		r := byName[c.page.name]
		if r == nil {
			r = &row{name: c.page.name}
			byName[c.page.name] = r
			rows = append(rows, r)
		}
		if p := "`" + c.path + "`"; !slices.Contains(r.paths, p) {
			r.paths = append(r.paths, p)
		}
		if l := fmt.Sprintf("[%s](../%s)", c.kind(), c.page.rel); !slices.Contains(r.pages, l) {
			r.pages = append(r.pages, l)
		}
	}
	var sb strings.Builder
	sb.WriteString("| Kind | Pod templates | Pages |\n|---|---|---|\n")
	for _, r := range rows {
		slices.Sort(r.paths)
		fmt.Fprintf(&sb, "| `%s` | %s | %s |\n", r.name, strings.Join(r.paths, ", "), strings.Join(r.pages, ", "))
	}
	return sb.String()
}
