package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// treeState is every entry under dir with its mode and checksum, so a test
// sees anything created, changed or left behind.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		fi, _ := d.Info()
		line := strings.TrimPrefix(p, dir) + " " + fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out = append(out, line)
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// foreignDB makes another program's SQLite database.
func foreignDB(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{"CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)", "INSERT INTO moz_places (url) VALUES ('https://example.org')"} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

// roDir is a directory nothing can be created in (a read-only tmpfs as
// root, who ignores permissions; mode 0555 otherwise).
func roDir(t *testing.T, parent string) string {
	t.Helper()
	ro := filepath.Join(parent, "ro")
	os.Mkdir(ro, 0o755)
	if os.Geteuid() != 0 {
		os.Chmod(ro, 0o555)
		return ro
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", ro).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "needs a read-only mount: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", ro).Run() })
	return ro
}

// TestRefusedBeforeTheRun: output paths, the history and the regression
// threshold are checked before anything runs; a refusal is exit 2, one
// line naming the flag, and nothing is created or changed.
func TestRefusedBeforeTheRun(t *testing.T) {
	tests := []struct {
		name string
		// args builds the command line; files are made in box, which
		// must be unchanged afterwards.
		args func(t *testing.T, box string) []string
		want []string
	}{
		{"regression nan", func(t *testing.T, box string) []string {
			return smallFS(box, "--no-history", "--check-regression", "nan")
		}, []string{"--check-regression", "nan"}},
		{"regression inf", func(t *testing.T, box string) []string {
			return smallFS(box, "--no-history", "--check-regression", "inf")
		}, []string{"--check-regression"}},
		{"regression negative", func(t *testing.T, box string) []string {
			return smallFS(box, "--no-history", "--check-regression", "-5")
		}, []string{"--check-regression"}},
		{"regression zero", func(t *testing.T, box string) []string {
			return smallFS(box, "--no-history", "--check-regression", "0")
		}, []string{"--check-regression"}},
		{"regression 100", func(t *testing.T, box string) []string {
			return smallFS(box, "--no-history", "--check-regression", "100")
		}, []string{"--check-regression"}},
		{"json is a directory", func(t *testing.T, box string) []string {
			os.Mkdir(filepath.Join(box, "out"), 0o755)
			return smallFS(box, "--no-history", "--json", filepath.Join(box, "out"))
		}, []string{"--json", "is a directory"}},
		{"json in a missing directory", func(t *testing.T, box string) []string {
			return smallFS(box, "--no-history", "--json", filepath.Join(box, "no", "r.json"))
		}, []string{"--json", "does not exist"}},
		{"textfile in a read-only directory", func(t *testing.T, box string) []string {
			return smallFS(box, "--no-history", "--prom-textfile", filepath.Join(roDir(t, box), "clyde.prom"))
		}, []string{"--prom-textfile", "cannot create files"}},
		{"json and textfile the same file", func(t *testing.T, box string) []string {
			p := filepath.Join(box, "both")
			return smallFS(box, "--no-history", "--json", p, "--prom-textfile", p)
		}, []string{"--prom-textfile", "--json writes too"}},
		{"json over the history", func(t *testing.T, box string) []string {
			p := filepath.Join(box, "h.db")
			return smallFS(box, "--db", p, "--json", p)
		}, []string{"--json", "is the history database"}},
		{"another program's database", func(t *testing.T, box string) []string {
			p := filepath.Join(box, "places.sqlite")
			foreignDB(t, p)
			return smallFS(box, "--db", p)
		}, []string{"--db", "places.sqlite", `"moz_places"`}},
		{"another program's database, regression only", func(t *testing.T, box string) []string {
			p := filepath.Join(box, "places.sqlite")
			foreignDB(t, p)
			return smallFS(box, "--db", p, "--no-history", "--check-regression", "10")
		}, []string{"--db", `"moz_places"`}},
		{"history under a file", func(t *testing.T, box string) []string {
			os.WriteFile(filepath.Join(box, "f"), []byte("x"), 0o644)
			return smallFS(box, "--db", filepath.Join(box, "f", "clyde", "h.db"))
		}, []string{"--db", "not a directory"}},
		{"block output kept when the job is refused", func(t *testing.T, box string) []string {
			out := filepath.Join(box, "report.txt")
			os.WriteFile(out, []byte("last week's report\n"), 0o644)
			return smallBlock(filepath.Join(box, "target"), "--no-history", "--output", out, "--rw", "sideways")
		}, []string{"--rw"}},
		{"block output is a directory", func(t *testing.T, box string) []string {
			return smallBlock(filepath.Join(box, "target"), "--no-history", "--output", box)
		}, []string{"--output", "is a directory"}},
		{"report output is a directory", func(t *testing.T, box string) []string {
			return []string{"report", refDir + "bonnie-2.00a-ext4.txt", "-o", box}
		}, []string{"--output", "is a directory"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			box := t.TempDir()
			args := tc.args(t, box)
			before := treeState(t, box)
			code, stdout, stderr := runClyde(t, args...)
			if code != exitUsage || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want %d and nothing printed; stderr %s", code, stdout, exitUsage, stderr)
			}
			line := oneLine(t, stderr)
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q does not say %s", line, w)
				}
			}
			if after := treeState(t, box); after != before {
				t.Fatalf("a refused run changed things:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestNoHistoryTouchesNoDB: --no-history without --check-regression does
// not look at the database, even a damaged one.
func TestNoHistoryTouchesNoDB(t *testing.T) {
	box := t.TempDir()
	db := filepath.Join(box, "h.db")
	os.WriteFile(db, []byte("not a database at all, not even close"), 0o644)
	before := treeState(t, box)
	if code, _, stderr := runClyde(t, smallFS(t.TempDir(), "--db", db, "--no-history")...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if after := treeState(t, box); after != before {
		t.Fatalf("the database was touched:\n%s\n%s", before, after)
	}
}

// TestReadOnlyCommandsCreateNothing: history, compare and report looking
// up an id in a missing database say so and create nothing, not even its
// directory; reading an existing one leaves no -wal or -shm behind.
func TestReadOnlyCommandsCreateNothing(t *testing.T) {
	box := t.TempDir()
	db := filepath.Join(box, "clyde", "history.db")
	for _, args := range [][]string{
		{"history", "--db", db},
		{"compare", "--db", db, "1", "2"},
		{"report", "--db", db, "1"},
		{"compare", "--db", db, refDir + "bonnie-2.00a-ext4.txt", "3"},
	} {
		t.Run(strings.Join(args[:1], " "), func(t *testing.T) {
			code, _, stderr := runClyde(t, args...)
			if code != exitFailed {
				t.Fatalf("exit %d, want %d: %s", code, exitFailed, stderr)
			}
			if line := oneLine(t, stderr); !strings.Contains(line, "no history at "+db) {
				t.Fatalf("%q does not say there is no history at %s", line, db)
			}
			if _, err := os.Stat(filepath.Dir(db)); !os.IsNotExist(err) {
				t.Fatalf("%s exists after %v: %v", filepath.Dir(db), args, err)
			}
		})
	}
	t.Run("existing history", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "h.db")
		if code, _, stderr := runClyde(t, smallFS(t.TempDir(), "--db", db)...); code != 0 {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
		before := treeState(t, filepath.Dir(db))
		for _, args := range [][]string{{"history", "--db", db}, {"report", "--db", db, "1", "--format", "csv"}} {
			if code, _, stderr := runClyde(t, args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
		}
		if after := treeState(t, filepath.Dir(db)); after != before {
			t.Fatalf("reading changed the history's directory:\n%s\n%s", before, after)
		}
	})
}

// TestJSONToStdout: --json - and --json /proc/self/fd/1 put the JSON on
// stdout after the CSV line. (/dev/stdout, which leads there, is tested in
// integration/, which guards the machine's /dev/stdout against a clyde that
// would replace it.)
func TestJSONToStdout(t *testing.T) {
	for _, p := range []string{"-", "/proc/self/fd/1"} {
		t.Run(p, func(t *testing.T) {
			code, stdout, stderr := runClyde(t, smallFS(t.TempDir(), "--no-history", "--json", p)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			csv, js, ok := strings.Cut(stdout, "\n")
			var res result.FS
			if !ok || !strings.HasPrefix(csv, "1.98,clyde,keep,") || json.Unmarshal([]byte(js), &res) != nil || len(res.Runs) != 1 {
				t.Fatalf("stdout is not the CSV line then the JSON:\n%s", stdout)
			}
		})
	}
}

// TestReplacedResultKeepsMode: a result file that exists is replaced with
// its mode kept, and nothing else is left in its directory.
func TestReplacedResultKeepsMode(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "r.json")
	os.WriteFile(js, []byte("old"), 0o600)
	if code, _, stderr := runClyde(t, smallFS(t.TempDir(), "--no-history", "--json", js)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fi, _ := os.Stat(js)
	b, _ := os.ReadFile(js)
	if fi.Mode() != 0o600 || !json.Valid(b) {
		t.Fatalf("after the run: mode %v, valid JSON %v", fi.Mode(), json.Valid(b))
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Fatalf("left in the directory: %v", names)
	}
}
