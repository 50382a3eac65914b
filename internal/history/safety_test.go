package history

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// foreignDB makes another program's SQLite database at path with stmts.
func foreignDB(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// snapshot is every file in dir with its checksum and mode.
func snapshot(t *testing.T, dir string) string {
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

func TestForeignDatabaseRefused(t *testing.T) {
	tests := []struct {
		name  string
		stmts []string
		want  string
	}{
		{"another program's table", []string{"CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)", "INSERT INTO moz_places (url) VALUES ('https://example.org')"}, `table "moz_places"`},
		{"in WAL mode", []string{"PRAGMA journal_mode=WAL", "CREATE TABLE settings (k TEXT, v TEXT)"}, `table "settings"`},
		{"clyde's table beside another", []string{schema, "CREATE TABLE notes (n TEXT)"}, `table "notes"`},
		{"a runs table of another shape", []string{"CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT)"}, `without clyde's column "kind"`},
		{"a view", []string{schema, "CREATE VIEW recent AS SELECT id FROM runs"}, `view "recent"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "places.sqlite")
			foreignDB(t, path, tc.stmts...)
			before := snapshot(t, dir)
			for name, open := range map[string]func(string) error{
				"Open":          func(p string) error { s, err := Open(p); closeIf(s); return err },
				"OpenReadOnly":  func(p string) error { s, err := OpenReadOnly(p); closeIf(s); return err },
				"CheckWritable": CheckWritable,
			} {
				err := open(path)
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) ||
					strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: %v; want one line naming %s and saying %s", name, err, path, tc.want)
				}
				if after := snapshot(t, dir); after != before {
					t.Errorf("%s changed the directory:\nbefore %q\nafter  %q", name, before, after)
				}
			}
		})
	}
}

func closeIf(s *Store) {
	if s != nil {
		s.Close()
	}
}

// TestReadOnlyCreatesNothing opens histories for the read-only commands and
// checks nothing appears: no directory, no database, no -wal or -shm.
func TestReadOnlyCreatesNothing(t *testing.T) {
	t.Run("missing path", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "clyde", "history.db")
		_, err := OpenReadOnly(path)
		if !errors.Is(err, ErrNoHistory) || err.Error() != "no history at "+path {
			t.Fatalf("OpenReadOnly of a missing path: %v", err)
		}
		if got := snapshot(t, dir); got != "" {
			t.Fatalf("created %q", got)
		}
	})
	t.Run("existing history", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "h.db")
		w, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		w.Save(context.Background(), entry(1))
		w.Close()
		before := snapshot(t, dir)
		s, err := OpenReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Query(context.Background(), Filter{})
		if err != nil || len(got) != 1 {
			t.Fatalf("Query: %d entries, %v", len(got), err)
		}
		if _, err := s.Save(context.Background(), entry(2)); err == nil {
			t.Errorf("a read-only store saved a run")
		}
		if mid := snapshot(t, dir); mid != before {
			t.Errorf("reading created files:\nbefore %q\nafter  %q", before, mid)
		}
		s.Close()
		if after := snapshot(t, dir); after != before {
			t.Errorf("closing left files:\nbefore %q\nafter  %q", before, after)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "h.db")
		os.WriteFile(path, nil, 0o644)
		s, err := OpenReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got, err := s.Query(context.Background(), Filter{}); err != nil || len(got) != 0 {
			t.Fatalf("Query of an empty file: %v, %v", got, err)
		}
		if _, err := s.Get(context.Background(), 1); !errors.Is(err, ErrUnknownID) {
			t.Fatalf("Get of an empty file: %v", err)
		}
	})
}

// TestReadOnlySeesLaterWrites saves a run while an immutable reader is
// open: the reader notices the file changed and reads it again properly.
func TestReadOnlySeesLaterWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Save(context.Background(), entry(1))
	w.Close()
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.immutable {
		t.Fatal("with no writer about, the reader is not immutable")
	}
	w, _ = Open(path)
	w.Save(context.Background(), entry(2))
	got, err := r.Query(context.Background(), Filter{})
	w.Close()
	if err != nil || len(got) != 2 {
		t.Fatalf("Query after a save: %d entries, %v; want both", len(got), err)
	}
}

func TestCheckWritable(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string
		want  string // "" accepts
	}{
		{"new file in new directories", func(t *testing.T, dir string) string { return filepath.Join(dir, "a", "b", "h.db") }, ""},
		{"existing history", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "h.db")
			s, _ := Open(p)
			s.Close()
			return p
		}, ""},
		{"empty file", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "h.db")
			os.WriteFile(p, nil, 0o644)
			return p
		}, ""},
		{"not a database", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "h.db")
			os.WriteFile(p, []byte(strings.Repeat("not a database ", 20)), 0o644)
			return p
		}, "not a database"},
		{"a directory", func(t *testing.T, dir string) string { return dir }, "not a regular file"},
		{"dangling symlink", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "h.db")
			os.Symlink("gone.db", p)
			return p
		}, "symlink to a missing file"},
		{"a file on the way", func(t *testing.T, dir string) string {
			os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
			return filepath.Join(dir, "f", "sub", "h.db")
		}, "is not a directory"},
		{"read-only directory", func(t *testing.T, dir string) string {
			return filepath.Join(readOnlyDir(t, dir), "clyde", "h.db")
		}, "cannot be created"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			before := snapshot(t, dir)
			err := CheckWritable(path)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
				t.Fatalf("CheckWritable: %v; want one line saying %q", err, tc.want)
			}
			if after := snapshot(t, dir); after != before {
				t.Fatalf("CheckWritable changed the directory:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// readOnlyDir returns a directory nothing can be created in: a read-only
// tmpfs as root (root ignores permissions), mode 0555 otherwise.
func readOnlyDir(t *testing.T, dir string) string {
	t.Helper()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		os.Chmod(ro, 0o555)
		return ro
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", ro).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "needs a read-only mount: mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", ro).Run() })
	return ro
}
