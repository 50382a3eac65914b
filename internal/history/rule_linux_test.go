//go:build linux

package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestDBPathRule is case 6 of issue 20 for --db: another user's symlink in
// a sticky directory to root's empty 0600 file (which SQLite would take
// for a new database) is not followed, nor is a -wal symlink beside a
// database, nor their symlink in their own directory to root's file.
func TestDBPathRule(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root: the symlinks belong to another user (uid 65534)")
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "root-only")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sticky := filepath.Join(dir, "sticky")
	if err := os.Mkdir(sticky, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sticky, 0o1777); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(dir, "theirs")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	plant := func(dest, link string) string {
		if err := os.Symlink(dest, link); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(link, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		return link
	}
	if err := os.Lchown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	inSticky := plant(empty, filepath.Join(sticky, "h.db"))
	inTheirs := plant(empty, filepath.Join(theirs, "h.db"))
	// A database of root's own, with a -wal symlink planted beside it.
	own := filepath.Join(sticky, "own.db")
	s, err := Open(own)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(own + suffix)
	}
	plant(empty, own+"-wal")
	for _, c := range []struct{ name, path, want string }{
		{"their symlink in a sticky dir", inSticky, "another user's symlink"},
		{"their symlink in their dir to root's file", inTheirs, "owned by uid 65534"},
		{"a -wal symlink beside root's database", own, "-wal is not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := CheckWritable(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("CheckWritable = %v, want a refusal saying %q", err, c.want)
			}
			if s, err := Open(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
				if err == nil {
					s.Close()
				}
				t.Errorf("Open = %v, want a refusal saying %q", err, c.want)
			}
		})
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Fatalf("root's empty file: %v, size %d; want it untouched", err, fi.Size())
	}
}
