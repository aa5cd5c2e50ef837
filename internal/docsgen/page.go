package main

import (
	"fmt"
	"regexp"
	"strings"
)

// The Markdown tfplugindocs writes for a schema (internal/provider/schema_md.go of
// terraform-plugin-docs): top-level groups, then one section per nested attribute:
//
//	<a id="nestedatt--spec--leader_worker_template"></a>
//	### Nested Schema for `spec.leader_worker_template`
//
//	Required:
//
//	- `worker_template` (Attributes) Pod template ... (see [below for nested schema](#nestedatt--spec--leader_worker_template--worker_template))
var (
	titleRe   = regexp.MustCompile(`^# (\S+) \(([^)]+)\)$`)
	anchorRe  = regexp.MustCompile(`^<a id="([^"]+)"></a>$`)
	headingRe = regexp.MustCompile("^### Nested Schema for `([^`]+)`$")
	groupRe   = regexp.MustCompile(`^([A-Z][A-Za-z-]*):$`)
	bulletRe  = regexp.MustCompile("^- `([^`]+)` \\(([^)]*)\\)(.*)$")
	childRe   = regexp.MustCompile(`^(.*?) ?\(see \[below for nested schema\]\(#([^)]+)\)\)$`)
)

// childLink is the text tfplugindocs ends an attribute with when it has a nested section.
func childLink(anchor string) string {
	return "(see [below for nested schema](#" + anchor + "))"
}

type bullet struct {
	name, typ, desc string
	child           string // anchor of the nested section, or ""
}

type group struct {
	title   string // Required, Optional, Read-Only
	bullets []*bullet
}

type section struct {
	anchor, path string
	start, end   int // the section is lines[start:end], from its anchor line
	groups       []*group
}

func (s *section) bullet(name string) *bullet {
	for _, g := range s.groups {
		for _, b := range g.bullets {
			if b.name == name {
				return b
			}
		}
	}
	return nil
}

func (s *section) names() []string {
	var n []string
	for _, g := range s.groups {
		for _, b := range g.bullets {
			n = append(n, b.name)
		}
	}
	return n
}

type page struct {
	rel      string // path relative to the docs folder, with slashes
	dir      string // resources, data-sources, ...
	name     string // kubeinfer_leaderworkerset
	typ      string // Resource, Data Source, ...
	lines    []string
	sections []*section
	byAnchor map[string]*section
}

// dataSource reports whether the page documents a data source, whose attributes are all
// read-only.
func (p *page) dataSource() bool { return p.dir == "data-sources" }

func parsePage(rel, text string) (*page, error) {
	dir, _, _ := strings.Cut(rel, "/")
	p := &page{rel: rel, dir: dir, lines: strings.Split(text, "\n"), byAnchor: map[string]*section{}}
	for _, l := range p.lines {
		if m := titleRe.FindStringSubmatch(l); m != nil {
			p.name, p.typ = m[1], m[2]
			break
		}
	}
	isStart := func(i int) (anchor, path string, ok bool) {
		if i+1 >= len(p.lines) {
			return "", "", false
		}
		a := anchorRe.FindStringSubmatch(p.lines[i])
		h := headingRe.FindStringSubmatch(p.lines[i+1])
		if a == nil || h == nil {
			return "", "", false
		}
		return a[1], h[1], true
	}
	for i := 0; i < len(p.lines); i++ {
		anchor, path, ok := isStart(i)
		if !ok {
			continue
		}
		s := &section{anchor: anchor, path: path, start: i}
		j := i + 2
		for ; j < len(p.lines); j++ {
			if _, _, next := isStart(j); next || strings.HasPrefix(p.lines[j], "# ") || strings.HasPrefix(p.lines[j], "## ") {
				break
			}
		}
		s.end = j
		if err := s.parseBody(p.lines[i+2 : j]); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", rel, i+1, err)
		}
		if _, dup := p.byAnchor[anchor]; dup {
			return nil, fmt.Errorf("%s:%d: anchor %q twice", rel, i+1, anchor)
		}
		p.sections = append(p.sections, s)
		p.byAnchor[anchor] = s
		i = j - 1
	}
	return p, nil
}

func (s *section) parseBody(lines []string) error {
	var g *group
	for k, l := range lines {
		switch {
		case l == "":
		case groupRe.MatchString(l):
			g = &group{title: groupRe.FindStringSubmatch(l)[1]}
			s.groups = append(s.groups, g)
		case bulletRe.MatchString(l):
			if g == nil {
				return fmt.Errorf("section %s: attribute %q outside a group (Required, Optional, Read-Only)", s.path, l)
			}
			m := bulletRe.FindStringSubmatch(l)
			b := &bullet{name: m[1], typ: m[2], desc: strings.TrimSpace(m[3])}
			if c := childRe.FindStringSubmatch(b.desc); c != nil {
				b.desc, b.child = c[1], c[2]
			}
			g.bullets = append(g.bullets, b)
		default:
			return fmt.Errorf("section %s, line %d: unexpected %q (tfplugindocs changed its output?)", s.path, k+3, l)
		}
	}
	return nil
}

// isPodTemplate reports whether s has the shape of a core/v1 PodTemplateSpec: `metadata` and
// `spec` only, and a `spec` with `containers` and `volumes`.
func (p *page) isPodTemplate(s *section) bool {
	n := s.names()
	if len(n) != 2 {
		return false
	}
	m, sp := s.bullet("metadata"), s.bullet("spec")
	if m == nil || sp == nil || m.child == "" || sp.child == "" {
		return false
	}
	spec := p.byAnchor[sp.child]
	if spec == nil {
		return false
	}
	c, v := spec.bullet("containers"), spec.bullet("volumes")
	return c != nil && v != nil && c.child != "" && v.child != ""
}

// subtree returns s and the sections nested in it, each with its path relative to s ("" for s).
func (p *page) subtree(s *section) ([]*section, []string, error) {
	var secs []*section
	var rels []string
	var walk func(s *section, rel string) error
	walk = func(s *section, rel string) error {
		secs = append(secs, s)
		rels = append(rels, rel)
		for _, g := range s.groups {
			for _, b := range g.bullets {
				if b.child == "" {
					continue
				}
				c := p.byAnchor[b.child]
				if c == nil {
					return fmt.Errorf("%s: %s.%s links to a missing section #%s", p.rel, s.path, b.name, b.child)
				}
				if err := walk(c, joinPath(rel, b.name)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := walk(s, "")
	return secs, rels, err
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}
