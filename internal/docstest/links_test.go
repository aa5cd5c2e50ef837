package docstest

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// The user-facing pages, relative to the repository root; docs/guides/*.md is added by pages().
var fixedPages = []string{"README.md", "CONTRIBUTING.md", "docs/index.md"}

// TestLinks checks that every relative Markdown link of the pages resolves to a file or folder
// relative to the page, and that a link into a Markdown file with a #fragment names one of its
// headings (GitHub's slug) or HTML anchors. Links inside fenced code blocks and inline code, to
// other schemes (http, https, mailto, ...) and to a fragment of the page itself are not checked.
func TestLinks(t *testing.T) {
	root := repoRoot(t)
	anchors := map[string]map[string]bool{} // Markdown file (absolute) -> its anchors
	for _, rel := range pages(t, root) {
		t.Run(rel, func(t *testing.T) {
			p := loadPage(t, root, rel)
			checked := 0
			for _, l := range p.links() {
				target := strings.TrimSuffix(strings.TrimPrefix(l.target, "<"), ">")
				if target == "" {
					t.Errorf("%s:%d: link %s: empty target", rel, l.line, l.raw)
					continue
				}
				if strings.HasPrefix(target, "#") || strings.HasPrefix(target, "//") || schemeRe.MatchString(target) {
					continue
				}
				checked++
				file, fragment, _ := strings.Cut(target, "#")
				file, _, _ = strings.Cut(file, "?")
				unescaped, err := url.PathUnescape(file)
				if err != nil {
					t.Errorf("%s:%d: link %s: target %q: %v", rel, l.line, l.raw, target, err)
					continue
				}
				var abs string
				if strings.HasPrefix(unescaped, "/") { // GitHub resolves these from the repository root
					abs = filepath.Join(root, filepath.FromSlash(unescaped))
				} else {
					abs = filepath.Join(root, filepath.FromSlash(path.Dir(rel)), filepath.FromSlash(unescaped))
				}
				if r, err := filepath.Rel(root, abs); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
					t.Errorf("%s:%d: link %s: target %q is outside the repository", rel, l.line, l.raw, target)
					continue
				}
				fi, err := os.Stat(abs)
				if err != nil {
					t.Errorf("%s:%d: link %s: target %q does not exist (%s)", rel, l.line, l.raw, target, relTo(root, abs))
					continue
				}
				if fragment == "" || fi.IsDir() || !isMarkdown(abs) {
					continue
				}
				if f, err := url.PathUnescape(fragment); err == nil {
					fragment = f
				}
				a, ok := anchors[abs]
				if !ok {
					a = loadPage(t, root, relTo(root, abs)).anchors()
					anchors[abs] = a
				}
				if !a[fragment] {
					t.Errorf("%s:%d: link %s: %s has no heading or anchor %q (its anchors: %s)",
						rel, l.line, l.raw, relTo(root, abs), "#"+fragment, anchorList(a))
				}
			}
			t.Logf("%s: %d relative links checked", rel, checked)
		})
	}
}

// TestMakeTargets checks that every `make <target>` the pages mention in inline code or in a
// fenced code block is a target of GNUmakefile.
func TestMakeTargets(t *testing.T) {
	root := repoRoot(t)
	targets := makefileTargets(t, filepath.Join(root, "GNUmakefile"))
	for _, rel := range pages(t, root) {
		t.Run(rel, func(t *testing.T) {
			p := loadPage(t, root, rel)
			checked := 0
			check := func(line int, text string) {
				for _, target := range makeTargets(text) {
					checked++
					if !targets[target] {
						t.Errorf("%s:%d: `make %s`: GNUmakefile has no target %q (in %q)", rel, line, target, target, strings.TrimSpace(text))
					}
				}
			}
			for _, s := range p.codeSpans() {
				check(s.line, s.text)
			}
			for _, b := range p.blocks {
				for i, line := range b.lines {
					check(b.start+1+i, line)
				}
			}
			t.Logf("%s: %d make targets checked", rel, checked)
		})
	}
}

// TestHCLSnippets checks that every fenced code block tagged hcl or terraform parses as HCL
// native syntax. A block that does not parse and contains "..." is a deliberate fragment: it is
// skipped and logged.
func TestHCLSnippets(t *testing.T) {
	root := repoRoot(t)
	for _, rel := range pages(t, root) {
		t.Run(rel, func(t *testing.T) {
			p := loadPage(t, root, rel)
			parsed, skipped := 0, 0
			for _, b := range p.blocks {
				if b.lang != "hcl" && b.lang != "terraform" {
					continue
				}
				src := strings.Join(b.lines, "\n") + "\n"
				_, diags := hclparse.NewParser().ParseHCL([]byte(src), fmt.Sprintf("%s:%d", rel, b.start))
				if !diags.HasErrors() {
					parsed++
					continue
				}
				if strings.Contains(src, "...") {
					skipped++
					t.Logf("%s:%d: skipped the %s block: it contains \"...\" and does not parse (%s)",
						rel, b.start, b.lang, describe(b, diags))
					continue
				}
				t.Errorf("%s:%d: the %s block does not parse: %s", rel, b.start, b.lang, describe(b, diags))
			}
			t.Logf("%s: %d HCL blocks parsed, %d fragments skipped", rel, parsed, skipped)
		})
	}
}

// describe names each error of a block's parse with its line in the page and that line's text.
func describe(b codeBlock, diags hcl.Diagnostics) string {
	var parts []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		if d.Subject != nil {
			n := d.Subject.Start.Line // 1-based within the block
			text := ""
			if n >= 1 && n <= len(b.lines) {
				text = strings.TrimSpace(b.lines[n-1])
			}
			msg = fmt.Sprintf("line %d %q: %s", b.start+n, text, msg)
		}
		parts = append(parts, msg)
	}
	return strings.Join(parts, "; ")
}

// repoRoot walks up from the test's working directory to the folder that holds go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// pages lists the checked pages, relative to root with forward slashes.
func pages(t *testing.T, root string) []string {
	t.Helper()
	guides, err := filepath.Glob(filepath.Join(root, "docs", "guides", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(guides) == 0 {
		t.Fatal("no docs/guides/*.md")
	}
	out := slices.Clone(fixedPages)
	for _, g := range guides {
		out = append(out, relTo(root, g))
	}
	return out
}

func relTo(root, abs string) string {
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

func isMarkdown(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// makefileTargets reads the targets of a makefile: the names before ':' on lines that start
// with one (not variable assignments, not special targets such as .PHONY).
func makefileTargets(t *testing.T, file string) map[string]bool {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := ruleRe.FindStringSubmatch(sc.Text())
		if m == nil || strings.HasPrefix(m[2], "=") || strings.HasPrefix(m[2], ":=") {
			continue
		}
		for _, name := range strings.Fields(m[1]) {
			if !strings.HasPrefix(name, ".") {
				targets[name] = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(targets) == 0 {
		t.Fatalf("no targets in %s", file)
	}
	return targets
}

var (
	// A rule: target names at the start of the line, then ':' (m[2] is what follows, to tell
	// rules from := and ::= assignments).
	ruleRe = regexp.MustCompile(`^([A-Za-z0-9_.%/-]+(?:[ \t]+[A-Za-z0-9_.%/-]+)*)[ \t]*:(.*)$`)
	// A URI scheme (http:, https:, mailto:, ...).
	schemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	// Where a `make` command can start: the start of the text, after a shell separator, after
	// "$ " (a prompt) or after ": " (as in "# or: make build"), then optional VAR=value words.
	makeRe = regexp.MustCompile(`(?:^|&&|\|\||[;|(]|\$\(|:[ \t])[ \t]*(?:\$[ \t]+)?(?:[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*make(?:[ \t]|$)`)
	// A word that can be a make target.
	targetRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	// An assignment given on make's command line.
	assignRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
)

// makeTargets returns the targets of every make command in a line of text: the words after
// `make` up to the first word that is not a target, a flag or a VAR=value assignment.
func makeTargets(text string) []string {
	var out []string
	for _, loc := range makeRe.FindAllStringIndex(text, -1) {
		for _, word := range strings.Fields(text[loc[1]:]) {
			if strings.HasPrefix(word, "-") || assignRe.MatchString(word) {
				continue
			}
			trimmed := strings.TrimRight(word, ").,;`'\"")
			if !targetRe.MatchString(trimmed) {
				break
			}
			out = append(out, trimmed)
			if trimmed != word {
				break // punctuation ends the command
			}
		}
	}
	return out
}

// A page: its lines and fenced code blocks.
type page struct {
	lines  []string
	blocks []codeBlock
	// prose is the page with fenced code blocks (fences included) and the YAML front matter
	// blanked, so offsets and line numbers match the page.
	prose string
}

type codeBlock struct {
	lang  string   // the first word of the info string, lowercased
	start int      // line of the opening fence (1-based)
	lines []string // the contents, without the fence's indentation
}

var (
	fenceRe   = regexp.MustCompile("^([ \t]*)(`{3,}|~{3,})(.*)$")
	headingRe = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextRe  = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	htmlIDRe  = regexp.MustCompile(`<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']`)
	// An inline link or image: [text](target "title"). The text may hold one level of brackets;
	// the target may be in <>, and may hold balanced parentheses.
	linkRe = regexp.MustCompile(`!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([ \t]*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*\)`)
)

func loadPage(t *testing.T, root, rel string) *page {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	p := &page{lines: strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")}
	prose := slices.Clone(p.lines)
	i := 0
	if len(p.lines) > 0 && strings.TrimSpace(p.lines[0]) == "---" { // front matter
		for j := 1; j < len(p.lines); j++ {
			if strings.TrimSpace(p.lines[j]) == "---" {
				for k := 0; k <= j; k++ {
					prose[k] = ""
				}
				i = j + 1
				break
			}
		}
	}
	for ; i < len(p.lines); i++ {
		m := fenceRe.FindStringSubmatch(p.lines[i])
		if m == nil || (m[2][0] == '`' && strings.Contains(m[3], "`")) {
			continue
		}
		indent, fence := len(m[1]), m[2]
		lang := ""
		if f := strings.Fields(m[3]); len(f) > 0 {
			lang = strings.ToLower(strings.Trim(f[0], "{}."))
		}
		b := codeBlock{lang: lang, start: i + 1}
		prose[i] = ""
		closed := false
		for i++; i < len(p.lines); i++ {
			line := p.lines[i]
			prose[i] = ""
			if c := strings.TrimSpace(line); strings.HasPrefix(c, fence) && strings.Trim(c, fence[:1]) == "" {
				closed = true
				break
			}
			b.lines = append(b.lines, trimIndent(line, indent))
		}
		if !closed {
			t.Errorf("%s:%d: the code fence %s is never closed", rel, b.start, fence)
		}
		p.blocks = append(p.blocks, b)
	}
	p.prose = strings.Join(prose, "\n")
	return p
}

// trimIndent removes up to n leading spaces or tabs.
func trimIndent(line string, n int) string {
	for n > 0 && line != "" && (line[0] == ' ' || line[0] == '\t') {
		line, n = line[1:], n-1
	}
	return line
}

// A code span of the prose and the line it starts on.
type span struct {
	line int
	text string
}

// scanCodeSpans returns the inline code spans of the prose, and the prose with each span
// (backticks included) replaced by 'x's, newlines kept.
func (p *page) scanCodeSpans() ([]span, string) {
	src := p.prose
	var spans []span
	out := []byte(src)
	for i := 0; i < len(src); {
		if src[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(src) && src[j] == '`' {
			j++
		}
		run := j - i
		// The closing run: the next run of exactly the same length.
		end := -1
		for k := j; k < len(src); {
			if src[k] != '`' {
				k++
				continue
			}
			l := k
			for l < len(src) && src[l] == '`' {
				l++
			}
			if l-k == run {
				end = k
				break
			}
			k = l
		}
		if end < 0 {
			i = j // a literal run of backticks
			continue
		}
		text := strings.ReplaceAll(src[j:end], "\n", " ")
		if strings.TrimSpace(text) != "" && strings.HasPrefix(text, " ") && strings.HasSuffix(text, " ") {
			text = text[1 : len(text)-1]
		}
		spans = append(spans, span{line: p.lineOf(i), text: text})
		for k := i; k < end+run; k++ {
			if out[k] != '\n' {
				out[k] = 'x'
			}
		}
		i = end + run
	}
	return spans, string(out)
}

func (p *page) codeSpans() []span {
	s, _ := p.scanCodeSpans()
	return s
}

// A link of the prose.
type link struct {
	line   int
	raw    string // as written, code spans included
	target string
}

func (p *page) links() []link {
	_, blanked := p.scanCodeSpans()
	var out []link
	for _, m := range linkRe.FindAllStringSubmatchIndex(blanked, -1) {
		out = append(out, link{
			line:   p.lineOf(m[0]),
			raw:    strings.ReplaceAll(p.prose[m[0]:m[1]], "\n", " "),
			target: blanked[m[4]:m[5]],
		})
	}
	return out
}

// lineOf returns the 1-based line of an offset of the prose.
func (p *page) lineOf(offset int) int {
	return strings.Count(p.prose[:offset], "\n") + 1
}

// anchors returns the fragments a link into the page can name: the slugs of its headings, as
// GitHub makes them (with -1, -2, ... for repeated ones), and the ids and names of its <a> tags.
func (p *page) anchors() map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	add := func(heading string) {
		s := slug(heading)
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	lines := strings.Split(p.prose, "\n")
	for i, line := range lines {
		if m := headingRe.FindStringSubmatch(line); m != nil {
			add(m[2])
		} else if i > 0 && setextRe.MatchString(line) && strings.TrimSpace(lines[i-1]) != "" &&
			!headingRe.MatchString(lines[i-1]) && !setextRe.MatchString(lines[i-1]) {
			add(lines[i-1])
		}
		for _, m := range htmlIDRe.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
	}
	return out
}

var (
	inlineLinkRe = regexp.MustCompile(`!?\[([^\[\]]*)\]\([^)]*\)`)
	htmlTagRe    = regexp.MustCompile(`<[^>]+>`)
)

// slug makes a heading's anchor as GitHub does: the text of its links kept and HTML tags
// dropped, lowercased, spaces turned into '-', every other character that is not a letter, a
// digit, '-' or '_' removed.
func slug(heading string) string {
	s := inlineLinkRe.ReplaceAllString(strings.TrimSpace(heading), "$1")
	s = htmlTagRe.ReplaceAllString(s, "")
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func anchorList(a map[string]bool) string {
	var names []string
	for n := range a {
		names = append(names, "#"+n)
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// The helpers on small inputs, so a change to them that checks nothing cannot pass unnoticed.

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"What is validated at plan time":                          "what-is-validated-at-plan-time",
		"Prerequisite: the LeaderWorkerSet CRD":                   "prerequisite-the-leaderworkerset-crd",
		"Nested Schema for `exec`":                                "nested-schema-for-exec",
		"Server-side apply, drift and import":                     "server-side-apply-drift-and-import",
		"What `make test` runs":                                   "what-make-test-runs",
		"The [test cluster](DESIGN.md) and snake_case names (v2)": "the-test-cluster-and-snake_case-names-v2",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestMakeTargetsParsing(t *testing.T) {
	for text, want := range map[string][]string{
		"make demo":                                       {"demo"},
		"DEMO_KEEP=1 make demo":                           {"demo"},
		"make demo   # build the provider":                {"demo"},
		"$ make -j2 docs docs-check V=1":                  {"docs", "docs-check"},
		"go build .     # or: make build (also compiles)": {"build"},
		"(docs/ is generated: make docs)":                 {"docs"},
		"cd x && make unit; make lint | tee":              {"unit", "lint"},
		"# The test operations make the patch fail":       nil,
		"make":        nil,
		"cmake build": nil,
	} {
		if got := makeTargets(text); !slices.Equal(got, want) {
			t.Errorf("makeTargets(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestPageParsing(t *testing.T) {
	dir := t.TempDir()
	src := "---\ntitle: x\n---\n\n# Top\n\nSee [a](b.md#top) and `[c](d.md)`, [e\nf](g.md \"t\").\n\n" +
		"- item\n\n  ```terraform\n  x = 1\n  [h](i.md)\n  ```\n\n~~~\n`make unit`\n~~~\n\n## Top\n\n`DEMO_KEEP=1 make demo`\n"
	if err := os.WriteFile(filepath.Join(dir, "p.md"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	p := loadPage(t, dir, "p.md")
	var got []string
	for _, l := range p.links() {
		got = append(got, fmt.Sprintf("%d:%s", l.line, l.target))
	}
	if want := []string{"7:b.md#top", "7:g.md"}; !slices.Equal(got, want) {
		t.Errorf("links = %q, want %q", got, want)
	}
	if len(p.blocks) != 2 || p.blocks[0].lang != "terraform" || p.blocks[0].start != 12 ||
		!slices.Equal(p.blocks[0].lines, []string{"x = 1", "[h](i.md)"}) || p.blocks[1].lang != "" {
		t.Errorf("blocks = %+v", p.blocks)
	}
	var spans []string
	for _, s := range p.codeSpans() {
		spans = append(spans, fmt.Sprintf("%d:%s", s.line, s.text))
	}
	if want := []string{"7:[c](d.md)", "23:DEMO_KEEP=1 make demo"}; !slices.Equal(spans, want) {
		t.Errorf("code spans = %q, want %q", spans, want)
	}
	if a := p.anchors(); len(a) != 2 || !a["top"] || !a["top-1"] {
		t.Errorf("anchors = %v, want #top and #top-1", anchorList(a))
	}
}
