package acctest

import (
	"reflect"
	"testing"
)

func TestParseCLIs(t *testing.T) {
	got, err := parseCLIs(" terraform=/usr/bin/terraform\n tofu=/c/tofu-v1.12.6  terraform=/c/terraform-v1.8.5=^(TestAccA|TestAccB)$ ")
	if err != nil {
		t.Fatal(err)
	}
	want := []cli{
		{kind: "terraform", path: "/usr/bin/terraform"},
		{kind: "tofu", path: "/c/tofu-v1.12.6"},
		{kind: "terraform", path: "/c/terraform-v1.8.5", run: "^(TestAccA|TestAccB)$"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseCLIs = %+v, want %+v", got, want)
	}
	if got[0].String() != "/usr/bin/terraform" || got[1].String() != "tofu-v1.12.6" {
		t.Errorf("String() = %q, %q; want the path when the file name is the kind, else the file name", got[0].String(), got[1].String())
	}
	if clis, err := parseCLIs(""); err != nil || len(clis) != 0 {
		t.Errorf("parseCLIs(\"\") = %v, %v; want none", clis, err)
	}
	for _, bad := range []string{"terraform", "opentofu=/x", "terraform=", "=/x"} {
		if _, err := parseCLIs(bad); err == nil {
			t.Errorf("parseCLIs(%q): no error", bad)
		}
	}
}

// The CLI runs after the first skip themselves when their pattern selects no test of the package,
// which matchesAnyTest finds from the testing.M of this test binary.
func TestMatchesAnyTest(t *testing.T) {
	if mainM == nil {
		t.Fatal("Main was not called")
	}
	for pattern, want := range map[string]bool{
		"^TestMatchesAnyTest$":             true,
		"^TestParseCLIs$":                  true,
		"^(TestNoSuchTest|TestParseCLIs)$": true,
		"^TestParseCLIs$/subtest":          true,
		"^TestNoSuchTest$":                 false,
		"^TestAccNoSuchTest":               false,
	} {
		if got := matchesAnyTest(mainM, pattern); got != want {
			t.Errorf("matchesAnyTest(%q) = %v, want %v", pattern, got, want)
		}
	}
}
