//go:build linux

package safepath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

// other is "the other user" of the tests: nobody.
const other = 65534

// fixture builds, in a fresh directory, the trees the table walks:
//
//	root.dat               root's 0600 file
//	sticky/ (1777 root)    link.dat -> ../root.dat owned by other; own.dat -> ../root.dat owned by root
//	theirs/ (other)        abs -> /etc/passwd, up -> ../root.dat, mine.dat (other), rootfile (root's)
//	a/b/ , a/x , l -> a/b  for ".." after a symlink
//	fifo, loop1 <-> loop2, dangling -> nowhere
func fixture(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root: the fixtures are owned by another user (uid 65534)")
	}
	s := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	p := func(n string) string { return filepath.Join(s, n) }
	must(os.WriteFile(p("root.dat"), []byte("secret"), 0o600))
	must(os.Mkdir(p("sticky"), 0o777))
	must(os.Chmod(p("sticky"), 0o1777))
	must(os.Symlink("../root.dat", p("sticky/link.dat")))
	must(os.Lchown(p("sticky/link.dat"), 1000, 1000))
	must(os.Symlink("../root.dat", p("sticky/own.dat")))
	must(os.Mkdir(p("theirs"), 0o755))
	must(os.Symlink("/etc/passwd", p("theirs/abs")))
	must(os.Symlink("../root.dat", p("theirs/up")))
	must(os.WriteFile(p("theirs/mine.dat"), []byte("x"), 0o644))
	must(os.WriteFile(p("theirs/rootfile"), []byte("x"), 0o600))
	for _, n := range []string{"theirs", "theirs/abs", "theirs/up", "theirs/mine.dat"} {
		must(os.Lchown(p(n), other, other))
	}
	must(os.MkdirAll(p("a/b"), 0o755))
	must(os.WriteFile(p("a/x"), []byte("a/x"), 0o644))
	must(os.WriteFile(p("x"), []byte("x"), 0o644))
	must(os.Symlink("a/b", p("l")))
	must(unix.Mkfifo(p("fifo"), 0o600))
	must(os.Symlink("loop2", p("loop1")))
	must(os.Symlink("loop1", p("loop2")))
	must(os.Symlink("nowhere", p("dangling")))
	return s
}

func TestLookupRule(t *testing.T) {
	s := fixture(t)
	cases := []struct {
		name, path string
		want       string // resolved path relative to s; "" when refused
		exists     bool
		unsafe     bool
		errIs      error
	}{
		{name: "plain file", path: "root.dat", want: "root.dat", exists: true},
		{name: "root's link in a sticky dir", path: "sticky/own.dat", want: "root.dat", exists: true},
		{name: "another user's link in a sticky dir (case 4)", path: "sticky/link.dat", unsafe: true},
		{name: "another user's absolute link into root's files", path: "theirs/abs", unsafe: true},
		{name: "another user's relative link out of their dir", path: "theirs/up", unsafe: true},
		{name: "root's file in another user's dir", path: "theirs/rootfile", unsafe: true},
		{name: "the other user's own file in their dir", path: "theirs/mine.dat", want: "theirs/mine.dat", exists: true},
		{name: "a new name in the other user's dir", path: "theirs/new", want: "theirs/new"},
		{name: "dotdot after a symlink is physical", path: "l/../x", want: "a/x", exists: true},
		{name: "dotdot without a symlink", path: "a/b/../x", want: "a/x", exists: true},
		{name: "missing last component", path: "a/new", want: "a/new"},
		{name: "missing directory", path: "nodir/new", errIs: fs.ErrNotExist},
		{name: "file used as a directory", path: "x/y", errIs: unix.ENOTDIR},
		{name: "symlink loop", path: "loop1", errIs: unix.ELOOP},
		{name: "dangling link", path: "dangling", want: "nowhere"},
		{name: "fifo is found, not opened", path: "fifo", want: "fifo", exists: true},
		{name: "dotdot above the root stays at the root", path: "/../../" + strings.TrimPrefix(s, "/") + "/x", want: "x", exists: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(s, p)
				if strings.Contains(c.path, "..") {
					p = s + "/" + c.path // keep ".." for the walk, not filepath.Join
				}
			}
			info, err := Lookup(p)
			switch {
			case c.unsafe:
				if !errors.Is(err, ErrUnsafe) {
					t.Fatalf("Lookup(%s) = %+v, %v; want a refusal wrapping ErrUnsafe", c.path, info, err)
				}
				return
			case c.errIs != nil:
				if !errors.Is(err, c.errIs) {
					t.Fatalf("Lookup(%s) error %v, want %v", c.path, err, c.errIs)
				}
				return
			case err != nil:
				t.Fatalf("Lookup(%s): %v", c.path, err)
			}
			if want := filepath.Join(s, c.want); info.Path != want || info.Exists != c.exists {
				t.Errorf("Lookup(%s) = %s exists=%v, want %s exists=%v", c.path, info.Path, info.Exists, want, c.exists)
			}
		})
	}
}

func TestOpenKinds(t *testing.T) {
	s := fixture(t)
	// A FIFO never hangs: refused by type before any open, and opened
	// non-blocking when asked for.
	if _, _, err := Open(s+"/fifo", osio.ReadOnly, Regular); !errors.As(err, new(*KindError)) {
		t.Fatalf("Open(fifo, Regular) = %v, want a KindError", err)
	}
	f, _, err := Open(s+"/fifo", osio.ReadOnly, FIFO)
	if err != nil {
		t.Fatalf("Open(fifo, FIFO): %v", err)
	}
	if fl, _ := unix.FcntlInt(uintptr(f.Fd()), unix.F_GETFL, 0); fl&unix.O_NONBLOCK != 0 {
		t.Errorf("O_NONBLOCK left set on the opened FIFO")
	}
	f.Close()
	f, resolved, err := Open(s+"/l/../x", osio.ReadOnly, Regular)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 8)
	n, _ := f.Read(b)
	f.Close()
	if string(b[:n]) != "a/x" || resolved != s+"/a/x" {
		t.Errorf("Open(l/../x) read %q at %s, want a/x's content at %s/a/x", b[:n], resolved, s)
	}
	if _, _, err := Open(s+"/sticky/link.dat", osio.ReadWrite, Regular); !errors.Is(err, ErrUnsafe) {
		t.Errorf("Open through another user's link = %v, want ErrUnsafe", err)
	}
	d, err := OpenDir(s + "/l")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Path() != s+"/a/b" {
		t.Errorf("OpenDir(l).Path() = %s, want %s/a/b", d.Path(), s)
	}
	if _, _, err := OpenIn(d, "..", osio.ReadOnly, Any); err == nil {
		t.Errorf("OpenIn(..) opened; want a refusal of a name that is not in the directory")
	}
	top, err := OpenDir(s)
	if err != nil {
		t.Fatal(err)
	}
	defer top.Close()
	if _, _, err := OpenIn(top, "fifo", osio.ReadOnly, Regular); !errors.As(err, new(*KindError)) {
		t.Errorf("OpenIn(fifo, Regular) = %v, want a KindError", err)
	}
	if _, _, err := OpenIn(top, "l", osio.ReadOnly, Any); err == nil {
		t.Errorf("OpenIn(symlink) opened; want it refused")
	}
}

func TestParentPhysicalDotDot(t *testing.T) {
	s := fixture(t)
	d, base, err := Parent(s + "/l/../new")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Path() != s+"/a" || base != "new" {
		t.Errorf("Parent(l/../new) = %s, %s; want %s/a, new", d.Path(), base, s)
	}
	for _, p := range []string{s + "/", s + "/..", s + "/."} {
		if _, _, err := Parent(p); err == nil {
			t.Errorf("Parent(%s) accepted a path that names no file", p)
		}
	}
}

func TestRemoveOwned(t *testing.T) {
	s := fixture(t)
	d, err := OpenDir(s)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(s+"/ok", nil, 0o600))
	must(os.WriteFile(s+"/wide", nil, 0o644))
	must(os.WriteFile(s+"/theirs.m", nil, 0o600))
	must(os.Chown(s+"/theirs.m", other, other))
	must(os.Link(s+"/ok", s+"/ok.hard"))
	for _, c := range []struct {
		name string
		ok   bool
	}{{"wide", false}, {"theirs.m", false}, {"fifo", false}, {"l", false}, {"ok.hard", false}} {
		if err := RemoveOwned(d, c.name); err == nil {
			t.Errorf("RemoveOwned(%s) removed it; want it kept", c.name)
		}
		if _, err := os.Lstat(s + "/" + c.name); err != nil {
			t.Errorf("%s is gone: %v", c.name, err)
		}
	}
	must(os.Remove(s + "/ok.hard"))
	if err := RemoveOwned(d, "ok"); err != nil {
		t.Errorf("RemoveOwned(ok): %v", err)
	}
}

// FuzzWalk checks the walk on a tree owned by the caller alone, where the
// rule follows everything the kernel follows: whatever the path, Lookup
// does not panic, answers with an absolute clean path, and agrees with the
// kernel's own resolution (filepath.EvalSymlinks plus physical "..").
func FuzzWalk(f *testing.F) {
	s := f.TempDir()
	for _, d := range []string{"a/b/c", "d"} {
		if err := os.MkdirAll(filepath.Join(s, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for n, dest := range map[string]string{"l": "a/b", "a/up": "..", "a/b/abs": s + "/d", "loop": "loop", "d/f.lnk": "../a/b/c"} {
		if err := os.Symlink(dest, filepath.Join(s, n)); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(s, "a/b/c/file"), nil, 0o644); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"l/../d", "a/up/l/c/file", "a/b/abs/f.lnk/file", "loop", "l/c/../../b/./c//file", "..", "a/b/c/file/x", "new"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if strings.ContainsRune(rel, 0) || len(rel) > 512 {
			return
		}
		p := s + "/" + rel
		info, err := Lookup(p)
		if err != nil {
			return
		}
		if !filepath.IsAbs(info.Path) || filepath.Clean(info.Path) != info.Path {
			t.Fatalf("Lookup(%q) = %q, not an absolute clean path", rel, info.Path)
		}
		if !info.Exists {
			return
		}
		// The kernel resolves the same path to the same inode.
		var a, b unix.Stat_t
		if unix.Stat(p, &a) != nil {
			t.Fatalf("Lookup(%q) found %s, the kernel finds nothing", rel, info.Path)
		}
		if unix.Stat(info.Path, &b) != nil || a.Ino != b.Ino || a.Dev != b.Dev {
			t.Fatalf("Lookup(%q) = %s, not the inode the kernel resolves the path to", rel, info.Path)
		}
	})
}

// TestReadLinkRule holds ReadLink, the symlink read outfile uses for the
// last component of an output path, to the rule itself: another user's link
// in root's sticky directory (the /tmp attack) is refused, as is another
// user's absolute link even in their own directory; root's link, and the
// directory owner's relative one, are read.
func TestReadLinkRule(t *testing.T) {
	s := fixture(t)
	cases := []struct {
		name, dir, link string
		want            string // "" when refused
		errIs           error
	}{
		{"another user's link in a sticky dir", "sticky", "link.dat", "", ErrUnsafe},
		{"root's link in a sticky dir", "sticky", "own.dat", "../root.dat", nil},
		{"the dir owner's relative link", "theirs", "up", "../root.dat", nil},
		{"the dir owner's absolute link", "theirs", "abs", "", ErrUnsafe},
		{"not a link", ".", "root.dat", "", unix.EINVAL},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := OpenDir(filepath.Join(s, c.dir))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			got, err := ReadLink(d, c.link)
			if c.errIs != nil {
				if !errors.Is(err, c.errIs) {
					t.Fatalf("ReadLink(%s/%s) = %q, %v; want %v", c.dir, c.link, got, err, c.errIs)
				}
				var ue *UnsafeError
				if errors.As(err, &ue) && c.link == "link.dat" && (!ue.Link || ue.FromUID != 1000) {
					t.Errorf("refusal %+v: want the link named with its owner, uid 1000", ue)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("ReadLink(%s/%s) = %q, %v; want %q", c.dir, c.link, got, err, c.want)
			}
		})
	}
}
