//go:build windows

package osio

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// These run on Windows, and on Linux under Wine through the tests in
// integration/wine (which cross-build this package's test binary).

// tempDir is t.TempDir removed entry by entry through osio: Go's
// os.RemoveAll fails on a non-empty directory under Wine 8.
func tempDir(t *testing.T) string {
	t.Helper()
	p, err := os.MkdirTemp("", "osio")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		parent, err := OpenDir(filepath.Dir(p))
		if err != nil {
			t.Error(err)
			return
		}
		defer parent.Close()
		if err := parent.RemoveAll(Name(filepath.Base(p))); err != nil {
			t.Errorf("remove %s: %v", p, err)
		}
	})
	return p
}

func openTemp(t *testing.T) (Dir, string) {
	t.Helper()
	p := tempDir(t)
	d, err := OpenDir(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, p
}

func TestWindowsFileRoundTrip(t *testing.T) {
	d, p := openTemp(t)
	for _, flag := range []Flag{0, Direct, WriteThrough, Direct | WriteThrough} {
		name := Name("f")
		f, err := d.Open(name, ReadWrite|Create|flag, 0o600)
		if err != nil {
			t.Fatalf("create with %#x: %v", flag, err)
		}
		buf := AlignedBuffer(8192)
		for i := range buf {
			buf[i] = byte(i * 7)
		}
		if n, err := f.Pwrite(buf, 4096); n != len(buf) || err != nil {
			t.Fatalf("pwrite: %d, %v", n, err)
		}
		got := AlignedBuffer(8192)
		if n, err := f.Pread(got, 4096); n != len(got) || err != nil || !bytes.Equal(got, buf) {
			t.Fatalf("pread: %d, %v, equal %v", n, err, bytes.Equal(got, buf))
		}
		if n, err := f.Pread(got, 1<<20); n != 0 || err != nil {
			t.Fatalf("pread past the end: %d, %v; want 0, nil", n, err)
		}
		e, err := f.Stat()
		if err != nil || !e.Reg || e.Size != 12288 || e.ID.Ino == 0 {
			t.Fatalf("stat: %+v, %v", e, err)
		}
		if err := f.Sync(); err != nil {
			t.Fatalf("FlushFileBuffers: %v", err)
		}
		f.Close()
		fi, err := os.Stat(filepath.Join(p, "f"))
		if err != nil || fi.Size() != 12288 {
			t.Fatalf("os.Stat: %v, %v", fi, err)
		}
		if err := d.Remove(name); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWindowsCreateIsExclusive(t *testing.T) {
	d, _ := openTemp(t)
	f, err := d.Open(Name("f"), WriteOnly|Create, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := d.Open(Name("f"), WriteOnly|Create, 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second create: %v, want fs.ErrExist", err)
	}
}

func TestWindowsNamesStayInside(t *testing.T) {
	d, _ := openTemp(t)
	for _, n := range []string{`..\x`, `a\..\..\x`, `C:\x`, `\x`, "a:stream", ""} {
		if _, err := d.Open(Name(n), WriteOnly|Create, 0o600); err == nil {
			t.Errorf("create %q succeeded", n)
		}
	}
}

func TestWindowsTreeRemoval(t *testing.T) {
	d, p := openTemp(t)
	if err := d.Mkdir(Name("top"), 0o700); err != nil {
		t.Fatal(err)
	}
	top, err := d.OpenSubdir(Name("top"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"a", "b"} {
		if err := top.Mkdir(Name(dir), 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"x", "y"} {
			h, err := top.CreateSmall(Name(dir + "/" + f))
			if err != nil {
				t.Fatal(err)
			}
			h.WriteSmall([]byte("data"))
			h.CloseSmall()
		}
	}
	if err := top.LinkSmall(Name("a/x"), Name("a/link")); err != nil {
		t.Errorf("hard link relative to the handle: %v", err)
	}
	if err := top.Rename(Name("b/y"), Name("b/z")); err != nil {
		t.Errorf("rename relative to the handle: %v", err)
	}
	names, err := top.ReadNames()
	slices.Sort(names)
	if err != nil || !slices.Equal(names, []string{"a", "b"}) {
		t.Fatalf("ReadNames = %v, %v", names, err)
	}
	if size, err := top.StatSmall(Name("a/x"), nil); err != nil || size != 4 {
		t.Fatalf("StatSmall = %d, %v", size, err)
	}
	top.Close()
	if err := d.RemoveAll(Name("top")); err != nil {
		t.Fatalf("RemoveAll: %v", err)
	}
	left, _ := os.ReadDir(p)
	if len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
	if err := d.RemoveAll(Name("top")); err != nil {
		t.Fatalf("RemoveAll of a missing name: %v", err)
	}
}

func TestWindowsSymlinkNotFollowed(t *testing.T) {
	d, p := openTemp(t)
	victim := filepath.Join(tempDir(t), "precious")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(p, "link")); err != nil {
		clydetest.Skipf(t, "cannot make a symlink here: %v", err)
	}
	if fi, err := os.Lstat(filepath.Join(p, "link")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		// Wine 8 makes a Unix symlink it cannot open as a reparse point.
		clydetest.Skipf(t, "this system made a symlink it does not show as one (os.Lstat: %v, %v)", fi, err)
	}
	e, err := d.Lstat(Name("link"))
	if err != nil {
		t.Fatal(err)
	}
	if !e.Link {
		clydetest.Skipf(t, "this system does not report the symlink as a reparse point (%+v)", e)
	}
	if f, err := d.Open(Name("link"), ReadWrite, 0); err == nil {
		f.Close()
		t.Fatal("opened a symlink for writing")
	}
	if err := d.RemoveAll(Name("link")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep me" {
		t.Fatalf("victim changed: %q, %v", b, err)
	}
}

func TestWindowsEvictAndSectors(t *testing.T) {
	d, p := openTemp(t)
	f, err := d.Open(Name("big"), WriteOnly|Create, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 1<<16))
	f.Close()
	st := EvictFile(d, Name("big"), 1<<16)
	if !st.Evicted || st.Error != "" || st.Cold || st.ResidentBytes != -1 || st.Method == "" {
		t.Fatalf("EvictFile = %+v; want evicted, unverified, with a method", st)
	}
	si, err := SectorSize(p)
	if err != nil {
		t.Fatalf("SectorSize: %v", err)
	}
	t.Logf("sector size of %s: %v", p, si)
	if si.Known() && si.Required()%512 != 0 {
		t.Fatalf("sector size %v", si)
	}
}

func TestWindowsFlush(t *testing.T) {
	d, _ := openTemp(t)
	if err := d.Sync(); err != nil {
		t.Errorf("directory flush: %v", err)
	}
	err := d.SyncFS()
	t.Logf("volume flush: %v", err)
	if err != nil && !errors.Is(err, result.ErrNotSupported) {
		t.Errorf("volume flush failed without being unsupported: %v", err)
	}
}
