package tflintrules

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/terraform-linters/tflint-plugin-sdk/helper"
	"github.com/terraform-linters/tflint-plugin-sdk/tflint"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

func loadSchema(t testing.TB) *Schema {
	t.Helper()
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run runs a rule on files and returns its issues.
func run(t *testing.T, rule tflint.Rule, files map[string]string) helper.Issues {
	t.Helper()
	runner := helper.TestRunner(t, files)
	if err := rule.Check(runner); err != nil {
		t.Fatalf("%s: %v", rule.Name(), err)
	}
	return runner.Issues
}

// issueAt is an expected issue: its message and where it starts.
type issueAt struct {
	line, col int
	message   string
}

func assertIssues(t *testing.T, got helper.Issues, want []issueAt) {
	t.Helper()
	var g []issueAt
	for _, i := range got {
		g = append(g, issueAt{i.Range.Start.Line, i.Range.Start.Column, i.Message})
	}
	sort.Slice(g, func(a, b int) bool { return g[a].line < g[b].line || (g[a].line == g[b].line && g[a].col < g[b].col) })
	if fmt.Sprint(g) != fmt.Sprint(want) {
		t.Errorf("issues:\n got %v\nwant %v", g, want)
	}
}

func TestUnknownAttribute(t *testing.T) {
	loadSchema(t)
	cases := []struct {
		name  string
		files map[string]string
		want  []issueAt
	}{{
		name: "nested keys, camelCase, top-level, meta-arguments",
		files: map[string]string{"main.tf": `
resource "kubeinfer_leaderworkerset" "x" {
  count      = 1
  depends_on = []
  provider   = kubeinfer
  metadata = {
    name     = "x"
    nmespace = "default"
    labels   = { anything_goes = "here", "app.kubernetes.io/name" = "x" }
  }
  spec = {
    replicaz = 3
    leader_worker_template = {
      worker_template = {
        spec = {
          node_selector = { "gpu-type" = "h100" }
          containers = [{
            name            = "w"
            imagePullPolicy = "Always"
            resources       = { limits = { "nvidia.com/gpu" = "8" } }
          }]
        }
      }
    }
  }
  timeouts = { create = "10m", destroy = "5m" }
  wait_for_rolout = true
  lifecycle {
    ignore_changes = [spec]
  }
}
`},
		want: []issueAt{
			{8, 5, `metadata: "nmespace" is not an attribute of kubeinfer_leaderworkerset; did you mean "namespace"?`},
			{12, 5, `spec: "replicaz" is not an attribute of kubeinfer_leaderworkerset; did you mean "replicas"?`},
			{19, 13, `spec.leader_worker_template.worker_template.spec.containers[0]: "imagePullPolicy" is not an attribute of kubeinfer_leaderworkerset; did you mean "image_pull_policy"?`},
			{26, 32, `timeouts: "destroy" is not an attribute of kubeinfer_leaderworkerset; the attributes here are create, delete, update`},
			{27, 3, `"wait_for_rolout" is not an attribute of kubeinfer_leaderworkerset; did you mean "wait_for_rollout"?`},
		},
	}, {
		name: "quoted keys, conditionals, parentheses, for expressions, map nesting",
		files: map[string]string{"main.tf": `
variable "on" {
  default = true
}
resource "kubeinfer_flow_schema" "x" {
  metadata = { "name" = "x", "nme" = "y" }
  spec = var.on ? {
    matching_precedence = 500
    rules = [for s in ["a"] : { subjectz = [] }]
  } : ({ matchingPrecedence = 1 })
}
resource "kubeinfer_disaggregatedset" "x" {
  metadata = { name = "x" }
  footprint = {
    roles = { prefill = { requests = {}, requestz = {} } }
  }
}
`},
		want: []issueAt{
			{6, 30, `metadata: "nme" is not an attribute of kubeinfer_flow_schema; did you mean "name"? (it is set here too)`},
			{9, 33, `spec.rules[*]: "subjectz" is not an attribute of kubeinfer_flow_schema; did you mean "subjects"?`},
			{10, 10, `spec: "matchingPrecedence" is not an attribute of kubeinfer_flow_schema; did you mean "matching_precedence"?`},
			{15, 42, `footprint.roles["prefill"]: "requestz" is not an attribute of kubeinfer_disaggregatedset; did you mean "requests"? (it is set here too)`},
		},
	}, {
		name: "data sources, provider block, blocks that are attributes",
		files: map[string]string{"main.tf": `
provider "kubeinfer" {
  config_path = "~/.kube/config"
  exec {
    comand = "aws"
  }
}
data "kubeinfer_leaderworkerset" "x" {
  metadata = { name = "x", namespce = "y" }
}
resource "kubeinfer_priority_level_configuration" "x" {
  metadata = { name = "x" }
  spec {
    type = "Exempt"
  }
  timeouts {
    create = "1m"
  }
}
resource "other_thing" "x" {
  whatever = { replicaz = 1 }
}
provider "kubeinfer" {
  alias = "other"
  exec  = { command = "aws" }
}
`},
		want: []issueAt{
			{5, 5, `exec: "comand" is not an attribute of the kubeinfer provider configuration; did you mean "command"?`},
			{9, 28, `metadata: "namespce" is not an attribute of data source kubeinfer_leaderworkerset; did you mean "namespace"?`},
			{13, 3, `"spec" is an attribute of kubeinfer_priority_level_configuration, not a block: write spec = { ... }`},
			{16, 3, `"timeouts" is an attribute of kubeinfer_priority_level_configuration, not a block: write timeouts = { ... }`},
			{25, 3, `"exec" is a block of the kubeinfer provider configuration, not an attribute: write exec { ... }`},
		},
	}, {
		name: "list blocks of query files; JSON files are left out",
		files: map[string]string{
			"list.tfquery.hcl": `
list "kubeinfer_leaderworkerset" "x" {
  provider         = kubeinfer
  include_resource = true
  limit            = 10
  config {
    namespace     = "inference"
    labelSelector = "app=vllm"
  }
}
`,
			"main.tf.json": `{"resource": {"kubeinfer_leaderworkerset": {"x": {"spec": {"replicaz": 1}}}}}`,
		},
		want: []issueAt{
			{8, 5, `"labelSelector" is not an attribute of list resource kubeinfer_leaderworkerset; did you mean "label_selector"?`},
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertIssues(t, run(t, NewUnknownAttributeRule(), c.files), c.want)
		})
	}
}

// TestUnknownAttribute_fix: `tflint --fix` renames a key to the suggestion, unless the suggestion
// is set beside it.
func TestUnknownAttribute_fix(t *testing.T) {
	runner := helper.TestRunner(t, map[string]string{"main.tf": `resource "kubeinfer_leaderworkerset" "x" {
  spec = { replicaz = 3, "startupPolicy" = "LeaderReady" }
  metadata = { name = "x", naem = "y" }
}
`})
	if err := NewUnknownAttributeRule().Check(runner); err != nil {
		t.Fatal(err)
	}
	// No fix where the suggestion is set beside the key.
	helper.AssertChanges(t, map[string]string{"main.tf": `resource "kubeinfer_leaderworkerset" "x" {
  spec     = { replicas = 3, startup_policy = "LeaderReady" }
  metadata = { name = "x", naem = "y" }
}
`}, runner.Changes())
	if got := runner.Issues[2].Message; got != `metadata: "naem" is not an attribute of kubeinfer_leaderworkerset; did you mean "name"? (it is set here too)` {
		t.Errorf("message: %s", got)
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"image", "image_pull_policy", "name", "namespace", "host_ipc", "target_wwns", "replicas"}
	for key, want := range map[string]string{
		"imagePullPolicy":   "image_pull_policy",
		"image-pull-policy": "image_pull_policy",
		"hostIPC":           "host_ipc",
		"targetWWNs":        "target_wwns",
		"naem":              "name", // a swap is one edit
		"namespac":          "namespace",
		"replicaz":          "replicas",
		"Name":              "name",
		"zzz":               "",
		"imagePullSecrets":  "",
	} {
		if got := Suggest(key, names); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", key, got, want)
		}
	}
}

// step is one attribute on the way to a misspelled one.
type step struct {
	name    string
	nesting Nesting
}

// candidate is an attribute path of a schema: the steps to the object that holds the attribute,
// and the attribute.
type candidate struct {
	kind, typ string
	steps     []step
	object    *Object
	name      string
}

func collect(kind, typ string, o *Object, steps []step, out *[]candidate) {
	for _, n := range o.Names() {
		at := o.Attrs[n]
		*out = append(*out, candidate{kind, typ, steps, o, n})
		if at.Nested != nil && len(steps) < 12 {
			collect(kind, typ, at.Nested, append(append([]step{}, steps...), step{n, at.Nesting}), out)
		}
	}
}

// misspell returns a mutation of name: a letter dropped, two adjacent letters swapped, or the
// name in camelCase.
func misspell(rng *rand.Rand, name, how string) string {
	r := []rune(name)
	switch how {
	case "drop":
		i := rng.IntN(len(r))
		return string(append(append([]rune{}, r[:i]...), r[i+1:]...))
	case "swap":
		if len(r) < 2 {
			return name
		}
		i := rng.IntN(len(r) - 1)
		r[i], r[i+1] = r[i+1], r[i]
		return string(r)
	case "camel":
		parts := strings.Split(name, "_")
		for i := 1; i < len(parts); i++ {
			if parts[i] != "" {
				parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
			}
		}
		return strings.Join(parts, "")
	}
	panic(how)
}

// minimalHCL writes the smallest configuration that reaches key at the candidate's path, and
// returns it with the key's line and the path the message names.
func minimalHCL(c candidate, key string) (file, src string, line int, path string) {
	var b strings.Builder
	indent := "  "
	var closers []string
	switch c.kind {
	case "resource":
		file = "main.tf"
		fmt.Fprintf(&b, "resource %q \"t\" {\n", c.typ)
	case "data source":
		file = "main.tf"
		fmt.Fprintf(&b, "data %q \"t\" {\n", c.typ)
	case "list resource":
		file = "main.tfquery.hcl"
		fmt.Fprintf(&b, "list %q \"t\" {\n  provider = kubeinfer\n  config {\n", c.typ)
		indent = "    "
		closers = append(closers, "  }\n")
	}
	for _, s := range c.steps {
		switch s.nesting {
		case NestingList, NestingSet:
			b.WriteString(indent + s.name + " = [{\n")
			closers = append(closers, indent+"}]\n")
			path = joinPath(path, s.name) + "[0]"
		case NestingMap:
			b.WriteString(indent + s.name + " = {\n" + indent + "  k = {\n")
			closers = append(closers, indent+"}\n", indent+"  }\n")
			path = joinPath(path, s.name) + `["k"]`
			indent += "  "
		default:
			b.WriteString(indent + s.name + " = {\n")
			closers = append(closers, indent+"}\n")
			path = joinPath(path, s.name)
		}
		indent += "  "
	}
	line = strings.Count(b.String(), "\n") + 1
	b.WriteString(indent + key + " = null\n")
	for i := len(closers) - 1; i >= 0; i-- {
		b.WriteString(closers[i])
	}
	b.WriteString("}\n")
	return file, b.String(), line, path
}

// TestUnknownAttribute_corpus generates misspellings of real attribute paths of the schema, at
// every depth, and checks that each is reported once, at its line, with the right name.
func TestUnknownAttribute_corpus(t *testing.T) {
	s := loadSchema(t)
	var all []candidate
	for _, kinds := range []struct {
		kind string
		m    map[string]*Object
	}{{"resource", s.Resources}, {"data source", s.DataSources}, {"list resource", s.ListResources}} {
		types := make([]string, 0, len(kinds.m))
		for typ := range kinds.m {
			types = append(types, typ)
		}
		sort.Strings(types)
		for _, typ := range types {
			collect(kinds.kind, typ, kinds.m[typ], nil, &all)
		}
	}
	// Pools by kind of block and depth: resources get half of the draws, and every depth is
	// drawn as often as any other.
	type poolKey struct {
		kind  string
		depth int
	}
	pools := map[poolKey][]candidate{}
	maxDepth := 0
	for _, c := range all {
		k := poolKey{c.kind, len(c.steps)}
		pools[k] = append(pools[k], c)
		maxDepth = max(maxDepth, len(c.steps))
	}
	kinds := []string{"resource", "data source", "resource", "list resource"}
	rng := rand.New(rand.NewPCG(26, 1))
	const want = 150
	hows := []string{"drop", "swap", "camel"}
	var generated, atLine, suggested, ambiguous int
	seen := map[string]bool{}
	mix := map[string]int{} // by kind of block and mutation
	for round := 0; generated < want && round < 100*want; round++ {
		pool := pools[poolKey{kinds[round%len(kinds)], rng.IntN(maxDepth + 1)}]
		if len(pool) == 0 {
			continue
		}
		c := pool[rng.IntN(len(pool))]
		how := hows[round%len(hows)]
		if how == "camel" && !strings.Contains(c.name, "_") {
			how = "swap"
		}
		key := misspell(rng, c.name, how)
		if key == c.name || c.object.Attrs[key] != nil || !hclsyntax.ValidIdentifier(key) {
			continue
		}
		// A misspelling as near another name as the one it misspells has no single right answer.
		if k8sschema.SnakeCase(key) != c.name {
			d := editDistance(key, c.name)
			clash := false
			for _, n := range c.object.Names() {
				if n != c.name && editDistance(key, n) <= d {
					clash = true
				}
			}
			if clash {
				ambiguous++
				continue
			}
		}
		file, src, line, path := minimalHCL(c, key)
		if seen[src] {
			continue
		}
		seen[src] = true
		generated++
		mix[c.kind+", "+how]++
		where := target{kind: c.kind, typ: c.typ}.what()
		wantMsg := fmt.Sprintf("%q is not an attribute of %s; did you mean %q?", key, where, c.name)
		if path != "" {
			wantMsg = path + ": " + wantMsg
		}
		issues := run(t, NewUnknownAttributeRule(), map[string]string{file: src})
		if len(issues) != 1 || issues[0].Range.Start.Line != line || issues[0].Range.Filename != file {
			t.Errorf("%s %s (depth %d, %s of %q): want one issue at line %d, got %d: %v\n%s", c.kind, c.typ, len(c.steps), how, c.name, line, len(issues), messages(issues), src)
			continue
		}
		atLine++
		if issues[0].Message != wantMsg {
			t.Errorf("message\n got %s\nwant %s", issues[0].Message, wantMsg)
			continue
		}
		suggested++
	}
	t.Logf("misspellings: %d generated, %d reported at the right line, %d with the expected suggestion (over %d attribute paths of depth 0-%d; %d ambiguous mutations skipped)",
		generated, atLine, suggested, len(all), maxDepth, ambiguous)
	t.Logf("misspellings by block kind and mutation: %v", mix)
	if generated < 100 {
		t.Errorf("only %d misspellings generated", generated)
	}
}

func messages(issues helper.Issues) []string {
	var out []string
	for _, i := range issues {
		out = append(out, fmt.Sprintf("%d: %s", i.Range.Start.Line, i.Message))
	}
	return out
}

// exampleFolders returns the repository's example folders, each with its configuration files
// (.tf and .tfquery.hcl) by name.
func exampleFolders(t *testing.T) map[string]map[string]string {
	t.Helper()
	root := filepath.Join("..", "..", "examples")
	folders := map[string]map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".tf") && !isQueryFile(p)) {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(p))
		if folders[dir] == nil {
			folders[dir] = map[string]string{}
		}
		folders[dir][filepath.Base(p)] = string(src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(folders) < 10 {
		t.Fatalf("found %d example folders", len(folders))
	}
	return folders
}

// TestRules_examples: the rules report no error on the repository's examples.
func TestRules_examples(t *testing.T) {
	loadSchema(t)
	var files, blocks, warnings int
	for dir, fs := range exampleFolders(t) {
		files += len(fs)
		for name, src := range fs {
			f, diags := hclsyntax.ParseConfig([]byte(src), name, hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatalf("%s/%s: %v", dir, name, diags)
			}
			blocks += len(targets(map[string]*hcl.File{name: f}, loaded))
		}
		if issues := run(t, NewUnknownAttributeRule(), fs); len(issues) > 0 {
			t.Errorf("examples/%s: %v", dir, messages(issues))
		}
		// The provider's warnings at plan are reported too (as warnings): the examples may
		// have them on purpose (taking over a bootstrap APF object warns).
		for _, i := range run(t, NewPlanTimeValidationRule(), fs) {
			if i.Rule.Severity() != tflint.WARNING {
				t.Errorf("examples/%s: %s: %d: %s", dir, i.Rule.Name(), i.Range.Start.Line, i.Message)
				continue
			}
			warnings++
			t.Logf("examples/%s: warning (the provider warns at plan too): %d: %s", dir, i.Range.Start.Line, i.Message)
		}
	}
	t.Logf("examples: %d files, %d kubeinfer blocks, no errors, %d warnings", files, blocks, warnings)
	if blocks < 20 {
		t.Errorf("only %d kubeinfer blocks in the examples", blocks)
	}
}
