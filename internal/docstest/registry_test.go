package docstest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The pages under docs/ are what the Terraform Registry shows, to readers who have no clone of
// the repository: these tests keep the repository's own machinery off them.

const repoURL = "https://github.com/kubeinfer/terraform-provider-kubeinfer/"

// registryPages lists every Markdown page under docs/, relative to root with forward slashes.
func registryPages(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && isMarkdown(p) {
			out = append(out, relTo(root, p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no page under docs/")
	}
	sort.Strings(out)
	return out
}

var (
	// A Go test's name, as the repository's tests are named (TestAccExample_policy,
	// TestKindsAreTheRulesRegistry).
	testNameRe = regexp.MustCompile(`\bTest[A-Z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*\b`)
	// A path that exists only in a clone of the repository: a top-level folder of it or a
	// contributor's file, at the start of a word (not inside a URL or another path).
	repoPathRe = regexp.MustCompile("(?:^|[\\s(\\[`\"'])((?:examples|internal|scripts|tools|cmd|templates|\\.ci|\\.github)/[A-Za-z0-9_.*/-]*|" +
		"(?:CONTRIBUTING|DESIGN|CHANGELOG)\\.md|GNUmakefile|dev\\.tfrc)")
	// The test cluster's own objects (acc-placement-update) and a line of a file of the
	// repository, as a diagnostic quotes it ("on main.tf line 191").
	testObjectRe = regexp.MustCompile(`\bacc-[a-z0-9][a-z0-9-]*|\bline [0-9]+\b`)
)

// registryProblems returns what a page for the Registry's readers must not hold: a make command,
// a test's name, a path that exists only in a clone (also as a relative link out of docs/), an
// object of the test cluster, and a front matter description longer than one line of at most
// maxDescription characters. rel is the page's path from the repository root.
func registryProblems(rel string, p *page) []string {
	var out []string
	add := func(line int, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s:%d: ", rel, line)+fmt.Sprintf(format, args...))
	}
	// Make commands, wherever a command can be written: code spans, code blocks, and the front
	// matter's comments.
	for _, s := range p.codeSpans() {
		for _, target := range makeTargets(s.text) {
			add(s.line, "`make %s`: a make target means nothing to a reader without a clone", target)
		}
	}
	for _, b := range p.blocks {
		for i, line := range b.lines {
			for _, target := range makeTargets(strings.TrimPrefix(strings.TrimSpace(line), "#")) {
				add(b.start+1+i, "`make %s` in a code block: a make target means nothing to a reader without a clone", target)
			}
		}
	}
	fm := p.frontMatter()
	for i, line := range fm {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			for _, target := range makeTargets(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))) {
				add(i+1, "`make %s` in the front matter", target)
			}
			if m := testNameRe.FindString(line); m != "" || strings.Contains(line, "internal/") {
				add(i+1, "the front matter names the repository's code: %q", strings.TrimSpace(line))
			}
		}
	}
	// Test names, repository paths and test objects, in the whole page but its URLs.
	for i, line := range p.lines {
		text := urlRe.ReplaceAllString(line, "")
		for _, m := range testNameRe.FindAllString(text, -1) {
			add(i+1, "test name %s: the Registry's readers have no tests", m)
		}
		for _, m := range repoPathRe.FindAllStringSubmatch(text, -1) {
			if isTemplateComment(p, i) {
				continue
			}
			add(i+1, "%s exists only in a clone of the repository: link it by its address (%stree/main/...)", m[1], repoURL)
		}
		for _, m := range testObjectRe.FindAllString(text, -1) {
			add(i+1, "%q is an object or a line of the provider's tests", m)
		}
	}
	for _, l := range p.links() {
		target := strings.TrimSuffix(strings.TrimPrefix(l.target, "<"), ">")
		if target == "" || strings.HasPrefix(target, "#") || schemeRe.MatchString(target) {
			continue
		}
		file, _, _ := strings.Cut(target, "#")
		dest := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(rel), file)))
		if !strings.HasPrefix(dest, "docs/") {
			add(l.line, "link %s leaves docs/: the Registry has only docs/, link it by its address (%s...)", l.raw, repoURL)
		}
	}
	// The front matter's description: one line, short, no table.
	if desc, line, n := p.description(); n > 0 {
		switch {
		case n > 1:
			add(line, "the front matter description has %d lines: write one sentence", n)
		case len(desc) > maxDescription:
			add(line, "the front matter description has %d characters, more than %d: write one sentence", len(desc), maxDescription)
		case strings.Contains(desc, "|"):
			add(line, "the front matter description holds a table")
		}
	}
	return out
}

// maxDescription is the longest front matter description of a page, in characters: the
// Registry shows it as one line under the page's title.
const maxDescription = 300

var urlRe = regexp.MustCompile(`https?://[^\s)>\]"'` + "`" + `]+`)

// isTemplateComment reports whether line i is a comment of the front matter (never shown).
func isTemplateComment(p *page, i int) bool {
	return i < len(p.frontMatter()) && strings.HasPrefix(strings.TrimSpace(p.lines[i]), "#")
}

// frontMatter returns the page's YAML front matter lines, the --- fences included (nil if none).
func (p *page) frontMatter() []string {
	if len(p.lines) == 0 || strings.TrimSpace(p.lines[0]) != "---" {
		return nil
	}
	for j := 1; j < len(p.lines); j++ {
		if strings.TrimSpace(p.lines[j]) == "---" {
			return p.lines[:j+1]
		}
	}
	return nil
}

// description returns the front matter's description (its lines joined), the line it starts on
// and its number of lines (0 when there is none).
func (p *page) description() (string, int, int) {
	fm := p.frontMatter()
	for i, line := range fm {
		v, ok := strings.CutPrefix(line, "description:")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if v != "|-" && v != "|" && v != ">-" && v != ">" {
			return strings.Trim(v, `"`), i + 1, 1
		}
		var lines []string
		for _, l := range fm[i+1 : len(fm)-1] {
			if !strings.HasPrefix(l, " ") {
				break
			}
			lines = append(lines, strings.TrimSpace(l))
		}
		return strings.Join(lines, " "), i + 2, len(lines)
	}
	return "", 0, 0
}

// TestRegistryPages checks every page under docs/ with registryProblems.
func TestRegistryPages(t *testing.T) {
	root := repoRoot(t)
	pages := registryPages(t, root)
	for _, rel := range pages {
		t.Run(rel, func(t *testing.T) {
			for _, problem := range registryProblems(rel, loadPage(t, root, rel)) {
				t.Error(problem)
			}
		})
	}
	t.Logf("%d pages under docs/ checked", len(pages))
}

// TestExamplesForEveryType: every resource, data source, list resource, action and function page
// has an example (examples/<folder>/<type>/ rendered by tfplugindocs).
func TestExamplesForEveryType(t *testing.T) {
	root := repoRoot(t)
	n := 0
	for _, dir := range []string{"resources", "data-sources", "list-resources", "actions", "functions", "ephemeral-resources"} {
		files, err := filepath.Glob(filepath.Join(root, "docs", dir, "*.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			n++
			p := loadPage(t, root, relTo(root, f))
			if !slices.Contains(p.lines, "## Example Usage") {
				t.Errorf("%s: no example: add examples/%s/%s_%s/ and run scripts/docs.sh generate",
					relTo(root, f), dir, "kubeinfer", strings.TrimSuffix(filepath.Base(f), ".md"))
			}
		}
	}
	if n == 0 {
		t.Fatal("no reference page under docs/")
	}
	t.Logf("%d reference pages have an example", n)
}

// TestGettingStartedIsOneSource: the README's getting started configuration is
// examples/getting-started/main.tf, which the getting started guide and the index render.
func TestGettingStartedIsOneSource(t *testing.T) {
	root := repoRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "examples", "getting-started", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(src))
	readme := loadPage(t, root, "README.md")
	var got string
	start := slices.Index(readme.lines, "## Getting started")
	for _, b := range readme.blocks {
		if start >= 0 && b.start > start && (b.lang == "hcl" || b.lang == "terraform") {
			got = strings.TrimSpace(strings.Join(b.lines, "\n"))
			break
		}
	}
	if got != want {
		t.Errorf("README.md's getting started configuration differs from examples/getting-started/main.tf:\n%s\n--- want ---\n%s", got, want)
	}
	for _, rel := range []string{"docs/guides/getting-started.md", "docs/index.md"} {
		p := loadPage(t, root, rel)
		found := false
		for _, b := range p.blocks {
			found = found || strings.TrimSpace(strings.Join(b.lines, "\n")) == want
		}
		if !found {
			t.Errorf("%s does not render examples/getting-started/main.tf (tffile)", rel)
		}
	}
}

// TestTimeoutDefaults: the index's table of timeouts gives the defaults the code uses.
func TestTimeoutDefaults(t *testing.T) {
	root := repoRoot(t)
	p := loadPage(t, root, "docs/index.md")
	rows := tableRows(p, "## Timeouts")
	for op, d := range timeoutDefaults() {
		want := fmt.Sprintf("%d minutes", int(d/time.Minute))
		if got := rows["`"+op+"`"]; len(got) < 2 || got[1] != want {
			t.Errorf("docs/index.md, ## Timeouts: %s is %q, the code's default is %s", op, got, want)
		}
	}
}

// tableRows returns the rows of the first table after heading (its first cell -> its cells).
func tableRows(p *page, heading string) map[string][]string {
	rows := map[string][]string{}
	in, seen := false, false
	for _, line := range strings.Split(p.prose, "\n") {
		switch {
		case line == heading:
			in = true
		case in && strings.HasPrefix(line, "|"):
			seen = true
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			rows[cells[0]] = cells
		case in && seen:
			return rows
		}
	}
	return rows
}
