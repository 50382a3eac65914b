//go:build linux

package outfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// nobody is "the other user" of these tests.
const nobody = 65534

// TestCheckPathRule is case 6 and the path parts of case 15 of issue 20:
// outputs through another user's files, outputs in procfs and sysfs, and
// ".." after a symlink, which is the symlink target's parent.
func TestCheckPathRule(t *testing.T) {
	needRoot(t, "files owned by another user (uid 65534)")
	dir := t.TempDir()
	victim := filepath.Join(dir, "root.dat")
	if err := os.WriteFile(victim, []byte("root's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// node-exporter's textfile directory: owned by its user, not sticky.
	theirs := filepath.Join(dir, "textfile")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(theirs, "clyde.prom")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join(theirs, "rel.prom")
	if err := os.Symlink("../root.dat", rel); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{theirs, link, rel} {
		if err := os.Lchown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ name, path, want string }{
		{"their symlink to root's file, absolute", link, "owned by uid 65534"},
		{"their symlink to root's file, relative", rel, "owned by uid 65534"},
		{"a file in procfs", "/proc/self/comm", "procfs"},
		{"a file in sysfs", "/sys/kernel/mm/transparent_hugepage/enabled", "sysfs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Lstat(c.path); err != nil {
				clydetest.Skipf(t, "%s: %v", c.path, err)
			}
			target, err := Check("--prom-textfile", c.path)
			if err == nil {
				target.Close()
				t.Fatalf("Check(%s) accepted it", c.path)
			}
			if !result.IsUsage(err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check(%s) = %v; want a usage error saying %q", c.path, err, c.want)
			}
		})
	}
	if b, _ := os.ReadFile(victim); string(b) != "root's\n" {
		t.Fatalf("root's file now holds %q", b)
	}

	t.Run("a new file in their directory is theirs, and is replaced next time", func(t *testing.T) {
		p := filepath.Join(theirs, "new.prom")
		for range 2 {
			target, err := Check("--prom-textfile", p)
			if err != nil {
				t.Fatal(err)
			}
			if err := target.Write(ctx, nil, fillNew); err != nil {
				t.Fatal(err)
			}
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != nobody {
			t.Errorf("new file owned by uid %d, want the directory's owner %d", st.Uid, nobody)
		}
	})

	t.Run("dotdot after a symlink is the target's parent", func(t *testing.T) {
		deep := filepath.Join(dir, "a", "b")
		if err := os.MkdirAll(deep, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(deep, filepath.Join(dir, "l")); err != nil {
			t.Fatal(err)
		}
		target, err := Check("--json", dir+"/l/../out.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := target.Write(ctx, nil, fillNew); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "a", "out.json")); err != nil || !bytes.Equal(b, []byte(newText)) {
			t.Errorf("a/out.json: %q, %v; want the result there, as the kernel resolves l/..", b, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "out.json")); err == nil {
			t.Errorf("out.json was written where l/.. is cleaned lexically")
		}
	})
}

// TestWriteFallsBackToStdout is case 15's lost report on ENOSPC: a result
// that cannot be written (here /dev/full, which answers every write with
// ENOSPC) goes to standard output instead, and the error says so.
func TestWriteFallsBackToStdout(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		clydetest.Skip(t, "no /dev/full")
	}
	target, err := Check("--json", "/dev/full")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = target.Write(ctx, &out, fillNew)
	if err == nil || !strings.Contains(err.Error(), "standard output instead") || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("Write(/dev/full) = %v; want the ENOSPC and the fallback named", err)
	}
	if out.String() != newText {
		t.Errorf("standard output got %q, want the result", out.String())
	}
}
