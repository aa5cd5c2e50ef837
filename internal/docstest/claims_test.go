package docstest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/kindrules"
	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/providerrules"
)

// The claims the pages make about the code and the tests, checked against them.

func timeoutDefaults() map[string]time.Duration {
	return map[string]time.Duration{
		"create": kindrules.DefaultCreateTimeout,
		"update": kindrules.DefaultUpdateTimeout,
		"delete": kindrules.DefaultDeleteTimeout,
	}
}

// TestSettingsAnnotationList: the index names every setting the settings annotation records
// (internal/kube/settings.go: force_conflicts, timeouts and each kind's boolean extras).
func TestSettingsAnnotationList(t *testing.T) {
	root := repoRoot(t)
	p := loadPage(t, root, "docs/index.md")
	var sentence string
	for _, para := range strings.Split(p.prose, "\n\n") {
		if strings.Contains(para, "are not part of the Kubernetes object") && strings.Contains(para, "terraform.kubeinfer.io/settings") {
			sentence = para
		}
	}
	if sentence == "" {
		t.Fatal("docs/index.md: no paragraph lists the settings of the annotation terraform.kubeinfer.io/settings")
	}
	names := map[string]bool{kindrules.AttrForceConflicts: true, kindrules.AttrTimeouts: true}
	for _, k := range providerrules.Kinds {
		for name := range k.ExtraDefaults {
			names[name] = true
		}
	}
	for name := range names {
		if !strings.Contains(sentence, "`"+name+"`") {
			t.Errorf("docs/index.md: the settings annotation's list leaves out `%s`: %q", name, sentence)
		}
	}
	t.Logf("%d settings listed", len(names))
}

// TestConnectionAttributesClaim: the attributes of hashicorp/kubernetes the index says this
// provider lacks are indeed absent from its schema, and every other connection attribute it has
// is in the index's table of environment variables.
func TestConnectionAttributesClaim(t *testing.T) {
	root := repoRoot(t)
	p := loadPage(t, root, "docs/index.md")
	schema := providerrules.Schema()
	for _, absent := range []string{"username", "password", "ignore_annotations", "ignore_labels", "experiments"} {
		if _, ok := schema.Attributes[absent]; ok {
			t.Errorf("the provider has %s, which docs/index.md says it lacks", absent)
		}
		if _, ok := schema.Blocks[absent]; ok {
			t.Errorf("the provider has the block %s, which docs/index.md says it lacks", absent)
		}
		if !strings.Contains(p.prose, "`"+absent+"`") {
			t.Errorf("docs/index.md does not say that `%s` of hashicorp/kubernetes is absent", absent)
		}
	}
}

// The facts the compatibility table states, read from where the tests take them.
type compatFacts struct {
	terraformTested, tofuTested, kubeTested, lwsTested []string
	terraformMin                                       string // major.minor
}

func readFacts(t *testing.T, root string) compatFacts {
	t.Helper()
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	find := func(rel, pattern string) string {
		m := regexp.MustCompile(pattern).FindStringSubmatch(read(rel))
		if m == nil {
			t.Fatalf("%s: no match for %s", rel, pattern)
		}
		return m[1]
	}
	var f compatFacts
	// The Terraform on PATH in CI, and the three the test phases build (scripts/tool.sh).
	f.terraformTested = append(f.terraformTested, find(".github/workflows/test.yml", `terraform_version: "([0-9.]+)"`))
	for _, d := range []string{"terraform", "terraform-latest", "terraform-oldest"} {
		f.terraformTested = append(f.terraformTested, strings.TrimPrefix(find("tools/"+d+"/go.mod", `github.com/hashicorp/terraform (v[0-9.]+)`), "v"))
	}
	f.tofuTested = []string{strings.TrimPrefix(find("tools/tofu/go.mod", `require github.com/opentofu/opentofu (v[0-9.]+)`), "v")}
	f.kubeTested = []string{find("tools/testcluster/ensure.sh", `(?m)^KUBE_VERSION=(v[0-9.]+)`)}
	f.lwsTested = []string{
		find("tools/testcluster/ensure.sh", `(?m)^LWS_VERSION=(v[0-9.]+)`),
		find("tools/testcluster/ensure-lws-v010.sh", `(?m)^LWS_VERSION=(v[0-9.]+)`),
	}
	oldest := strings.Split(strings.TrimPrefix(find("tools/terraform-oldest/go.mod", `github.com/hashicorp/terraform (v[0-9.]+)`), "v"), ".")
	f.terraformMin = oldest[0] + "." + oldest[1]
	for _, l := range [][]string{f.terraformTested, f.tofuTested, f.kubeTested, f.lwsTested} {
		sort.Slice(l, func(i, j int) bool { return versionLess(l[i], l[j]) })
	}
	return f
}

// The compatibility table of docs/guides/compatibility.md, as its rows say it.
type compatTable struct {
	tested    map[string][]string // Terraform, OpenTofu, Kubernetes, LeaderWorkerSet -> "Tested with" versions
	supported map[string]string   // the same -> the "Supported" cell
	// lwsNamed are the LeaderWorkerSet releases the page names anywhere (supported or not).
	lwsNamed []string
}

const compatPage = "docs/guides/compatibility.md"

var versionRe = regexp.MustCompile(`v?[0-9]+\.[0-9]+\.[0-9]+`)

func readTable(t *testing.T, root string) compatTable {
	t.Helper()
	p := loadPage(t, root, compatPage)
	rows := tableRows(p, "## Supported releases")
	tab := compatTable{tested: map[string][]string{}, supported: map[string]string{}}
	for _, name := range []string{"Terraform", "OpenTofu", "Kubernetes", "LeaderWorkerSet"} {
		r := rows[name]
		if len(r) < 4 {
			t.Fatalf("%s: the table of ## Supported releases has no row %q with 4 cells: %q", compatPage, name, r)
		}
		tab.supported[name] = r[1]
		tested := versionRe.FindAllString(r[2], -1)
		sort.Slice(tested, func(i, j int) bool { return versionLess(tested[i], tested[j]) })
		tab.tested[name] = slices.Compact(tested)
	}
	for _, m := range lwsMentionRe.FindAllStringSubmatch(strings.Join(p.lines, "\n"), -1) {
		tab.lwsNamed = append(tab.lwsNamed, m[1])
	}
	return tab
}

// minVersion returns the major.minor of "X.Y and later" in a Supported cell.
func minVersion(cell string) string {
	m := andLaterRe.FindStringSubmatch(cell)
	if m == nil {
		return ""
	}
	return m[1]
}

var andLaterRe = regexp.MustCompile(`^v?([0-9]+\.[0-9]+) and later`)

// TestCompatibilityTable: the table states the versions the tests run, and the Terraform
// minimum is the oldest Terraform they run.
func TestCompatibilityTable(t *testing.T) {
	root := repoRoot(t)
	f := readFacts(t, root)
	tab := readTable(t, root)
	for name, want := range map[string][]string{"Terraform": f.terraformTested, "OpenTofu": f.tofuTested,
		"Kubernetes": f.kubeTested, "LeaderWorkerSet": f.lwsTested} {
		if got := tab.tested[name]; !slices.Equal(got, want) {
			t.Errorf("%s: %s is tested with %q, the table says %q", compatPage, name, want, got)
		}
	}
	if got := minVersion(tab.supported["Terraform"]); got != f.terraformMin {
		t.Errorf("%s: Terraform %s and later is tested (the oldest Terraform of the tests), the table says %q",
			compatPage, f.terraformMin, tab.supported["Terraform"])
	}
	for _, v := range f.lwsTested {
		if !strings.Contains(tab.supported["LeaderWorkerSet"], v) {
			t.Errorf("%s: LeaderWorkerSet %s is tested but not in the Supported cell %q", compatPage, v, tab.supported["LeaderWorkerSet"])
		}
	}
	t.Logf("Terraform %q (from %s), OpenTofu %q, Kubernetes %q, LeaderWorkerSet %q", f.terraformTested, f.terraformMin,
		f.tofuTested, f.kubeTested, f.lwsTested)
}

var (
	// An exact release of a CLI or of Kubernetes: "Terraform 1.11.4", "OpenTofu v1.12.6",
	// "kube-apiserver v1.37.2", and the lists after them ("under 1.11.4 and 1.16.3").
	cliMentionRe = regexp.MustCompile(`(?i)\b(terraform|opentofu|tofu|kubernetes|kube-apiserver)\b((?:[ \t]+(?:cli|v?[0-9]+\.[0-9]+\.[0-9]+[,;]?|and|or|under|with|is|tested|acceptance|tests))+)`)
	// A LeaderWorkerSet release: "LeaderWorkerSet v0.9.0", "LWS v0.10.0", "sigs.k8s.io/lws v0.9.0".
	lwsMentionRe = regexp.MustCompile(`(?i)(?:\bleaderworkerset|\blws|sigs\.k8s\.io/lws)(?:[ \t]+release)?[ \t]+(v[0-9]+\.[0-9]+\.[0-9]+)`)
	// A minimum CLI version: "Terraform 1.8 and later", "Terraform >= 1.8", "OpenTofu 1.12 or later".
	minMentionRe = regexp.MustCompile(`(?i)\b(terraform|opentofu)[ \t]+(?:>=[ \t]*)?v?([0-9]+\.[0-9]+)(?:\.0)?(?:[ \t]+(?:and|or)[ \t]+later|[ \t]*\+)?`)
)

// versionProblems returns the version claims of text that the table does not back: an exact
// CLI or Kubernetes release that is not one the tests run, a LeaderWorkerSet release the page of
// the table never names, and, on a line that says what is supported, a CLI minimum below the
// table's ("supports Terraform 1.6 and later"). name prefixes the messages.
func versionProblems(name, text string, tab compatTable) []string {
	var out []string
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		line = urlRe.ReplaceAllString(line, "")
		at := fmt.Sprintf("%s:%d: ", name, i+1)
		for _, m := range cliMentionRe.FindAllStringSubmatch(line, -1) {
			product := productOf(m[1])
			for _, v := range versionRe.FindAllString(m[2], -1) {
				if !slices.Contains(tab.tested[product], v) && !slices.Contains(tab.tested[product], "v"+strings.TrimPrefix(v, "v")) &&
					!slices.Contains(tab.tested[product], strings.TrimPrefix(v, "v")) {
					out = append(out, at+fmt.Sprintf("%s %s: the compatibility table tests %s with %q only", m[1], v, product, tab.tested[product]))
				}
			}
		}
		for _, m := range lwsMentionRe.FindAllStringSubmatch(line, -1) {
			if !slices.Contains(tab.lwsNamed, m[1]) {
				out = append(out, at+fmt.Sprintf("LeaderWorkerSet %s: the compatibility table names %q", m[1], slices.Compact(sortedCopy(tab.lwsNamed))))
			}
		}
		for _, m := range minMentionRe.FindAllStringSubmatch(line, -1) {
			if !strings.Contains(strings.ToLower(m[0]), "later") && !strings.Contains(m[0], ">=") && !strings.HasSuffix(m[0], "+") {
				continue
			}
			// A statement of what is supported; "X needs Terraform 1.12 and later" is a feature's.
			if !strings.Contains(strings.ToLower(line), "support") {
				continue
			}
			product := productOf(m[1])
			floor := minVersion(tab.supported[product])
			if floor != "" && versionLess(m[2], floor) {
				out = append(out, at+fmt.Sprintf("%q: the compatibility table supports %s %s and later", strings.TrimSpace(m[0]), product, floor))
			}
		}
	}
	return out
}

func productOf(word string) string {
	switch strings.ToLower(word) {
	case "terraform":
		return "Terraform"
	case "opentofu", "tofu":
		return "OpenTofu"
	default:
		return "Kubernetes"
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Slice(c, func(i, j int) bool { return versionLess(c[i], c[j]) })
	return c
}

// versionLess compares dotted versions numerically ("1.8" < "1.11"), a leading v ignored.
func versionLess(a, b string) bool {
	pa, pb := strings.Split(strings.TrimPrefix(a, "v"), "."), strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}

// TestVersionClaims checks the README, the CHANGELOG and every page under docs/ against the
// compatibility table with versionProblems.
func TestVersionClaims(t *testing.T) {
	root := repoRoot(t)
	tab := readTable(t, root)
	files := append([]string{"README.md", "CHANGELOG.md"}, registryPages(t, root)...)
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range versionProblems(rel, string(b), tab) {
			t.Error(problem)
		}
	}
	t.Logf("%d files checked against %s", len(files), compatPage)
}

// The gaps the tests know of, and the words of the limitations section of
// docs/guides/compatibility.md that document each. A test that says "known gap", or a new
// deliberate divergence or known disagreement of the LeaderWorkerSet webhook parity test, fails
// TestLimitationsListKnownGaps until it is added here and to the page.
var knownGaps = []struct {
	file, marker string // the test file and the words in it that state the gap
	page         string // the words of the limitations section that document it
}{
	{"internal/provider/planapply_acc_test.go", "a known gap", "shadowed by a claim template passes the plan"},
	{"internal/leaderworkerset/webhook_parity_acc_test.go", `{"runtime names",`, "derives from it"},
	{"internal/leaderworkerset/webhook_parity_acc_test.go", `{"replicas above 1000000",`, "above\n  1000000"},
	{"internal/leaderworkerset/webhook_parity_acc_test.go", `{"StatefulSet template rules",`, "in the StatefulSets the controller creates"},
	{"internal/leaderworkerset/webhook_parity_acc_test.go", `"webhook panic":`, "webhook panics"},
	{"internal/leaderworkerset/webhook_parity_acc_test.go", `"staged validation":`, "stops at the schema stage"},
	{"internal/leaderworkerset/webhook_parity_acc_test.go", `"pair check scaled by rejected replicas":`, "second error"},
	{"internal/leaderworkerset/webhook_parity_acc_test.go", `"pair check on a malformed value":`, "second error"},
	{"internal/leaderworkerset/webhook_parity_acc_test.go", `"subgroup arithmetic with size < 1":`, "second error"},
	{"internal/leaderworkerset/webhook_parity_acc_test.go", `"not expressible":`, "is sent as the number 5"},
	{"internal/leaderworkerset/template_parity_acc_test.go", "a deliberate divergence", "in the StatefulSets the controller creates"},
	{"internal/podtemplate/podtemplatecorpus/corpus_test.go", "a deliberate divergence", "every pod of such a StatefulSet"},
	{"internal/podtemplate/podtemplatecorpus/corpus.go", "divMatchLabelKeysOverlap", "`match_label_keys`"},
	{"internal/podtemplate/podtemplatecorpus/corpus.go", "a deliberate divergence", "every pod of such a StatefulSet"},
	{"internal/podtemplate/podtemplatecorpus/corpus.go", "divImageWhitespace", "leading or trailing whitespace"},
}

// gapMarkers find, in the test files, the statements of a gap: a "known gap", a "deliberate
// divergence", and each entry of the parity test's lists of divergences and disagreements.
var (
	gapPhraseRe = regexp.MustCompile(`(?i)a known gap|a deliberate divergence`)
	listStartRe = regexp.MustCompile(`(?m)^var (providerExtras|pathDivergences|knownDisagreements) = [^\n]*\{\n((?:\t[^\n]*\n)*?)\}`)
	entryRe     = regexp.MustCompile(`(?m)^\t(\{"[^"]+",|"[^"]+":)`)
	// The pod template corpus's deliberate divergences: constants div<Name> = "...".
	corpusDivRe = regexp.MustCompile(`(?m)^\t(div[A-Z][A-Za-z0-9]*)\s*=\s*"`)
)

func TestLimitationsListKnownGaps(t *testing.T) {
	root := repoRoot(t)
	page := loadPage(t, root, compatPage)
	prose := strings.Join(page.lines, "\n")
	i := strings.Index(prose, "\n## Limitations")
	if i < 0 {
		t.Fatalf("%s has no ## Limitations section", compatPage)
	}
	limitations := prose[i:]
	documented := map[string]bool{} // file + marker
	for _, g := range knownGaps {
		documented[g.file+"\x00"+g.marker] = true
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(g.file)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), g.marker) {
			t.Errorf("%s no longer says %q: update knownGaps and the limitations of %s", g.file, g.marker, compatPage)
		}
		if !strings.Contains(limitations, g.page) {
			t.Errorf("%s: ## Limitations does not document the gap of %s %q (want the words %q)", compatPage, g.file, g.marker, g.page)
		}
	}
	n := 0
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d os.DirEntry, err error) error {
		corpus := strings.Contains(filepath.ToSlash(p), "/podtemplatecorpus/")
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || (!strings.HasSuffix(p, "_test.go") && !corpus) ||
			strings.Contains(p, "docstest") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, src := relTo(root, p), string(b)
		var markers []string
		for _, m := range gapPhraseRe.FindAllString(src, -1) {
			markers = append(markers, strings.ToLower(m))
		}
		for _, m := range corpusDivRe.FindAllStringSubmatch(src, -1) {
			markers = append(markers, m[1])
		}
		for _, list := range listStartRe.FindAllStringSubmatch(src, -1) {
			for _, e := range entryRe.FindAllStringSubmatch(list[2], -1) {
				markers = append(markers, e[1])
			}
		}
		for _, m := range slices.Compact(sortedStrings(markers)) {
			n++
			if !documented[rel+"\x00"+m] {
				t.Errorf("%s states a gap (%q) that the limitations of %s do not list: add it to knownGaps and to the page", rel, m, compatPage)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d gaps stated by the tests, %d documented", n, len(knownGaps))
}

func sortedStrings(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}

// TestPlantedErrorsAreCaught feeds the checkers text with the mistakes they exist for, so that a
// checker that finds nothing cannot pass unnoticed: a make target, a test's name, a repository
// path, a test object and a long description on a page, and version claims the table does not
// back.
func TestPlantedErrorsAreCaught(t *testing.T) {
	dir := t.TempDir()
	src := "---\npage_title: \"x\"\ndescription: |-\n  One line.\n  A second line.\n---\n\n# Planted\n\n" +
		"Run `make test` to check it, as TestAccExample_policy does.\n\n" +
		"The policies are in examples/policy/policy, see [the example](../../examples/policy/README.md).\n\n" +
		"```text\n  on main.tf line 191, in resource \"kubeinfer_leaderworkerset\" \"vllm\":\n" +
		"LeaderWorkerSet controller rolls default/acc-placement-update out\n```\n\n" +
		"A link by address is fine: " + repoURL + "tree/main/examples/policy.\n"
	if err := os.MkdirAll(filepath.Join(dir, "docs", "guides"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "guides", "planted.md"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	problems := registryProblems("docs/guides/planted.md", loadPage(t, dir, "docs/guides/planted.md"))
	for _, want := range []string{"`make test`", "test name TestAccExample_policy", "examples/policy/policy exists only in a clone",
		"link [the example](../../examples/policy/README.md) leaves docs/", `"line 191"`, `"acc-placement-update"`,
		"description has 2 lines"} {
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("registryProblems missed %q; it found:\n%s", want, strings.Join(problems, "\n"))
		}
	}
	if len(problems) != 7 {
		t.Errorf("registryProblems found %d problems, want 7 (the URL is fine):\n%s", len(problems), strings.Join(problems, "\n"))
	}
	for _, p := range problems {
		t.Logf("caught: %s", p)
	}

	tab := compatTable{
		tested:    map[string][]string{"Terraform": {"1.8.5", "1.11.4"}, "OpenTofu": {"1.12.6"}, "Kubernetes": {"v1.37.2"}},
		supported: map[string]string{"Terraform": "1.8 and later", "OpenTofu": "1.12 and later"},
		lwsNamed:  []string{"v0.9.0", "v0.10.0"},
	}
	text := "Tested under Terraform 1.11.4 and 1.9.2 on kube-apiserver v1.37.2.\n" +
		"It needs LeaderWorkerSet v0.7.0, or LWS v0.9.0.\n" +
		"The provider supports Terraform 1.6 and later.\nResource identity needs Terraform 1.12 and later.\n"
	vp := versionProblems("planted", text, tab)
	for _, want := range []string{"planted:1: Terraform 1.9.2", "planted:2: LeaderWorkerSet v0.7.0", `planted:3: "Terraform 1.6 and later"`} {
		if !slices.ContainsFunc(vp, func(p string) bool { return strings.HasPrefix(p, want) }) {
			t.Errorf("versionProblems missed %q; it found:\n%s", want, strings.Join(vp, "\n"))
		}
	}
	if len(vp) != 3 {
		t.Errorf("versionProblems found %d problems, want 3:\n%s", len(vp), strings.Join(vp, "\n"))
	}
	for _, p := range vp {
		t.Logf("caught: %s", p)
	}
}

// noCallRe finds a claim that a plan makes no request to the cluster.
var noCallRe = regexp.MustCompile(`(?i)no API call|no request to the cluster|plans? never contacts? the cluster|need(?:s)? no credentials|credential-free`)

// noCallProblems returns the paragraphs of text that say a plan makes no request to the cluster
// without saying that placement_preview makes one (it lists nodes and pods at plan, also with
// -refresh=false).
func noCallProblems(name, text string) []string {
	var out []string
	line := 1
	for _, para := range strings.Split(text, "\n\n") {
		if m := noCallRe.FindString(para); m != "" && !strings.Contains(para, "placement_preview") {
			out = append(out, fmt.Sprintf("%s:%d: %q without the exception of placement_preview, which reads nodes and pods at plan", name, line, m))
		}
		line += strings.Count(para, "\n") + 2
	}
	return out
}

// TestNoAPICallClaims checks the README and every page under docs/ with noCallProblems.
func TestNoAPICallClaims(t *testing.T) {
	root := repoRoot(t)
	files := append([]string{"README.md"}, registryPages(t, root)...)
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range noCallProblems(rel, string(b)) {
			t.Error(problem)
		}
	}
	if got := noCallProblems("planted", "Plans never contact the cluster.\n\nPlans make no API call while `placement_preview` is `off`."); len(got) != 1 {
		t.Errorf("noCallProblems on a planted claim: %q, want one problem", got)
	}
}
