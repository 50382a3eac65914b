//go:build unix

package osio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// victim is a directory outside the one under test holding one file whose
// content and mode a test can check afterwards.
func victim(t *testing.T) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	file = filepath.Join(dir, "precious")
	if err := os.WriteFile(file, []byte("keep me"), 0o640); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

func assertVictim(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(b, []byte("keep me")) {
		t.Fatalf("%s changed: %q, %v", file, b, err)
	}
	fi, _ := os.Stat(file)
	if fi.Mode().Perm() != 0o640 {
		t.Fatalf("%s mode changed to %v", file, fi.Mode())
	}
}

func TestNoSymlinkFollowed(t *testing.T) {
	vdir, vfile := victim(t)
	base := t.TempDir()
	if err := os.Symlink(vfile, filepath.Join(base, "file")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(vdir, filepath.Join(base, "dir")); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(base)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tests := []struct {
		name string
		do   func() error
	}{
		{"open for writing", func() error {
			f, err := d.Open(Name("file"), ReadWrite, 0)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"create over a symlink", func() error {
			f, err := d.Open(Name("file"), WriteOnly|Create, 0o600)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"open a symlinked directory", func() error {
			s, err := d.OpenSubdir(Name("dir"))
			if err == nil {
				s.Close()
			}
			return err
		}},
		{"create a small file over a symlink", func() error {
			f, err := d.CreateSmall(Name("file"))
			if err == nil {
				f.Close()
			}
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(); err == nil {
				t.Fatal("went through the symlink")
			}
			assertVictim(t, vfile)
		})
	}
	e, err := d.Lstat(Name("file"))
	if err != nil || !e.Link {
		t.Fatalf("Lstat of a symlink: %+v, %v", e, err)
	}
}

func TestRemoveAllStaysInside(t *testing.T) {
	vdir, vfile := victim(t)
	base := t.TempDir()
	tree := filepath.Join(base, "tree", "a", "b")
	if err := os.MkdirAll(tree, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(tree, "f"), filepath.Join(base, "tree", ".hidden")} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(vdir, filepath.Join(tree, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(vfile, filepath.Join(base, "tree", "a", "precious")); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(base)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.RemoveAll(Name("tree")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(base, "tree")); !os.IsNotExist(err) {
		t.Fatalf("tree still there: %v", err)
	}
	assertVictim(t, vfile)
	if err := d.RemoveAll(Name("tree")); err != nil {
		t.Fatalf("removing what is gone: %v", err)
	}
}

func TestAlignedBuffer(t *testing.T) {
	for _, n := range []int{1, 511, 4096, 65536 + 3} {
		b := AlignedBuffer(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("AlignedBuffer(%d): len %d cap %d", n, len(b), cap(b))
		}
		if addr := uintptrOfSlice(b); addr%BufferAlign != 0 {
			t.Fatalf("AlignedBuffer(%d) starts at %#x, not on %d", n, addr, BufferAlign)
		}
	}
}
