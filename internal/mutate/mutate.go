// Package mutate reads the list of mutations `make mutate` runs (one
// deliberate bug each: a line of a file changed) and applies one to a test
// run through `go test -overlay`, which compiles the changed copy in place of
// the file and leaves the tree untouched. A mutation the tests still pass
// with is a survivor: a wrong line in a place where it means a wrong number
// or lost data, and no test noticed.
package mutate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Mutation is one entry of the list.
type Mutation struct {
	// Name says what the mutation breaks, in a few words.
	Name string
	// File is relative to the module root; Find must occur in it exactly
	// once and is replaced by Replace.
	File, Find, Replace string
	// Packages are the `go test` patterns whose tests must catch it; Run,
	// when set, narrows them with -run.
	Packages []string
	Run      string
	// Short puts the mutation in the short subset (`make mutate-short`).
	Short bool
	// Equivalent, when set, says why no test can catch the mutation (it
	// changes no behaviour); such an entry is listed, never run.
	Equivalent string
	// Line is where the entry starts in the list, for messages.
	Line int
}

// Parse reads a list: entries of "key: value" lines separated by blank
// lines, '#' lines are comments. Keys: name, file, find, replace, packages
// (space-separated), run, short (yes), equivalent. A value may carry "\t"
// and "\n" escapes, for code that has them.
func Parse(r io.Reader) ([]Mutation, error) {
	var out []Mutation
	var cur *Mutation
	flush := func() error {
		if cur == nil {
			return nil
		}
		m := *cur
		cur = nil
		switch {
		case m.Name == "":
			return fmt.Errorf("line %d: an entry without a name", m.Line)
		case m.File == "" || m.Find == "":
			return fmt.Errorf("line %d: %q needs a file and a find", m.Line, m.Name)
		case m.Find == m.Replace:
			return fmt.Errorf("line %d: %q replaces %q with itself", m.Line, m.Name, m.Find)
		case len(m.Packages) == 0 && m.Equivalent == "":
			return fmt.Errorf("line %d: %q names no packages to catch it", m.Line, m.Name)
		}
		out = append(out, m)
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		if trimmed == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("line %d: want key: value, got %q", n, line)
		}
		val = unescape(strings.TrimPrefix(val, " "))
		if cur == nil {
			cur = &Mutation{Line: n}
		}
		switch strings.TrimSpace(key) {
		case "name":
			cur.Name = val
		case "file":
			cur.File = val
		case "find":
			cur.Find = val
		case "replace":
			cur.Replace = val
		case "packages":
			cur.Packages = strings.Fields(val)
		case "run":
			cur.Run = val
		case "short":
			cur.Short = val == "yes"
		case "equivalent":
			cur.Equivalent = val
		default:
			return nil, fmt.Errorf("line %d: unknown key %q", n, key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

func unescape(s string) string {
	return strings.NewReplacer(`\t`, "\t", `\n`, "\n").Replace(s)
}

// Apply writes the mutated copy of m.File under dir, and the overlay file
// that puts it in place of the original for `go test -overlay`; it returns
// the overlay's path. root is the module root.
func Apply(m Mutation, root, dir string) (string, error) {
	src := filepath.Join(root, m.File)
	b, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("mutation %q: %w", m.Name, err)
	}
	if n := strings.Count(string(b), m.Find); n != 1 {
		return "", fmt.Errorf("mutation %q (line %d): %q occurs %d times in %s, want once", m.Name, m.Line, m.Find, n, m.File)
	}
	mutated := filepath.Join(dir, "mutated-"+filepath.Base(m.File))
	if err := os.WriteFile(mutated, []byte(strings.Replace(string(b), m.Find, m.Replace, 1)), 0o644); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {abs: mutated}})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, overlay, 0o644)
}
