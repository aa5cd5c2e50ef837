package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// schemaDirs are the folders of the docs folder whose pages tfplugindocs renders from a schema.
var schemaDirs = []string{"resources", "data-sources", "ephemeral-resources", "list-resources", "actions"}

// run rewrites the pages of dir that have pod templates and writes the pod template page. It
// returns the files written, relative to dir.
func run(dir string) ([]string, error) {
	var pages []*page
	for _, d := range schemaDirs {
		entries, err := os.ReadDir(filepath.Join(dir, d))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			rel := d + "/" + e.Name()
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				return nil, err
			}
			p, err := parsePage(rel, string(b))
			if err != nil {
				return nil, err
			}
			pages = append(pages, p)
		}
	}

	m := newMerged()
	out := map[string]string{}
	var written []string
	for _, p := range pages {
		text, err := collapse(p, m)
		if err != nil {
			return nil, err
		}
		if text != "" {
			out[p.rel] = text
			written = append(written, p.rel)
		}
	}
	if len(m.places) == 0 {
		return nil, fmt.Errorf("no pod template in the pages of %s: docsgen rewrites the pages `tfplugindocs generate` writes (run scripts/docs.sh generate)", dir)
	}
	target := filepath.Join(dir, filepath.FromSlash(podTemplatePage))
	if _, err := os.Stat(target); err == nil {
		return nil, fmt.Errorf("%s exists before docsgen writes it (a template under templates/ renders to it?)", target)
	}
	page, err := m.renderPage()
	if err != nil {
		return nil, err
	}
	out[podTemplatePage] = page
	written = append(written, podTemplatePage)
	for _, rel := range written {
		f := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(f, []byte(out[rel]), 0o644); err != nil {
			return nil, err
		}
	}
	return written, nil
}

// collapse adds the pod templates of p to m and returns p without their sections, each template
// attribute linking to the pod template page; "" when p has no pod template.
func collapse(p *page, m *merged) (string, error) {
	var roots []*section
	drop := map[int]bool{}
	for _, s := range p.sections {
		if drop[s.start] || !p.isPodTemplate(s) {
			continue
		}
		secs, rels, err := p.subtree(s)
		if err != nil {
			return "", err
		}
		roots = append(roots, s)
		m.add(&place{page: p, path: s.path}, secs, rels)
		for _, t := range secs {
			for i := t.start; i < t.end; i++ {
				drop[i] = true
			}
		}
	}
	if len(roots) == 0 {
		return "", nil
	}
	if p.name == "" {
		return "", fmt.Errorf("%s: no title line (# name (Type))", p.rel)
	}
	var names []string
	for _, r := range roots {
		names = append(names, "`"+r.path+"`")
	}
	slices.Sort(names)
	list := names[0]
	if n := len(names); n > 1 {
		list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	verb := "is a pod template"
	if len(names) > 1 {
		verb = "are pod templates"
	}
	intro := fmt.Sprintf("%s %s, documented once for every kind on the [pod template reference](%s). "+
		"As everywhere in this schema, attribute names are the snake_case of the Kubernetes JSON names, "+
		"map keys are written verbatim, and int-or-string fields are strings ([naming](%s#naming)).",
		list, verb, podTemplateLink, podTemplateLink)

	var lines []string
	schema, linked := false, map[string]bool{}
	for i, l := range p.lines {
		if drop[i] {
			continue
		}
		for _, r := range roots {
			if old := childLink(r.anchor); strings.Contains(l, old) {
				l = strings.Replace(l, old, "(a pod template: see the [pod template reference]("+podTemplateLink+"))", 1)
				linked[r.anchor] = true
			}
		}
		lines = append(lines, l)
		if l == "## Schema" && !schema {
			schema = true
			lines = append(lines, "", intro)
		}
	}
	if !schema {
		return "", fmt.Errorf("%s: no \"## Schema\" heading", p.rel)
	}
	for _, r := range roots {
		if !linked[r.anchor] {
			return "", fmt.Errorf("%s: no attribute links to the pod template %s", p.rel, r.path)
		}
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n", nil
}
