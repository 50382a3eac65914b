package mutate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	list := "# a comment\nname: one\nfile: a.go\nfind: x := 1\\n\\ty\nreplace: x := 2\npackages: ./a/ ./b/\nshort: yes\n\n" +
		"name: two\nfile: b.go\nfind: a\nreplace: b\nequivalent: no behaviour\n"
	ms, err := Parse(strings.NewReader(list))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Find != "x := 1\n\ty" || len(ms[0].Packages) != 2 || !ms[0].Short || ms[1].Equivalent == "" || ms[1].Line != 9 {
		t.Errorf("parsed %+v", ms)
	}
	for _, bad := range []string{
		"file: a.go\nfind: x\npackages: ./a/\n",                      // no name
		"name: n\nfind: x\npackages: ./a/\n",                         // no file
		"name: n\nfile: a.go\nfind: x\nreplace: y\n",                 // no packages
		"name: n\nfile: a.go\nfind: x\nreplace: x\npackages: ./a/\n", // no change
		"name: n\nwhat: x\n",
		"name n\n",
	} {
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestApplyWritesAnOverlay(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\nconst k = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := Apply(Mutation{Name: "k", File: "a.go", Find: "k = 3", Replace: "k = 2"}, root, dir)
	if err != nil {
		t.Fatal(err)
	}
	var o struct{ Replace map[string]string }
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &o); err != nil || len(o.Replace) != 1 {
		t.Fatalf("overlay %s: %v", b, err)
	}
	for orig, mutated := range o.Replace {
		got, _ := os.ReadFile(mutated)
		if !filepath.IsAbs(orig) || string(got) != "package a\nconst k = 2\n" {
			t.Errorf("overlay %s -> %q", orig, got)
		}
	}
	if src, _ := os.ReadFile(filepath.Join(root, "a.go")); string(src) != "package a\nconst k = 3\n" {
		t.Error("the original was changed")
	}
	if _, err := Apply(Mutation{Name: "none", File: "a.go", Find: "k = 4", Replace: "k = 2"}, root, dir); err == nil {
		t.Error("a find that does not occur was applied")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("name: one\nfile: a.go\nfind: x\nreplace: y\npackages: ./a/\n")
	f.Add("# c\n\nname: n\nequivalent: e\nfile: f\nfind: \\t\n")
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.Name == "" || m.File == "" || m.Find == "" || m.Find == m.Replace {
				t.Fatalf("accepted an incomplete entry %+v", m)
			}
		}
	})
}

// TestProjectListApplies applies every entry of the project's own list
// (scripts/mutate/mutations.txt) to the tree: each find must still occur
// exactly once in its file. A move or a merge that leaves an entry pointing
// at code that is gone fails here, in make test, not first in make mutate.
func TestProjectListApplies(t *testing.T) {
	root := filepath.Join("..", "..")
	f, err := os.Open(filepath.Join(root, "scripts", "mutate", "mutations.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 250 {
		t.Fatalf("the list has %d entries; it had 293 when this test was written", len(ms))
	}
	dir := t.TempDir()
	for _, m := range ms {
		if _, err := Apply(m, root, dir); err != nil {
			t.Errorf("%s (line %d): %v", m.Name, m.Line, err)
		}
	}
}
