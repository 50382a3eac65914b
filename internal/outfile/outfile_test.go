//go:build linux

package outfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

const newText = "new result\n"

// fillNew writes newText; fillFails writes half of it and fails.
func fillNew(w io.Writer) error { _, err := io.WriteString(w, newText); return err }

var errFill = errors.New("encoder failed")

// ctx is the stop of a run that is never stopped.
var ctx = context.Background()

func fillFails(w io.Writer) error { _, _ = io.WriteString(w, "new "); return errFill }

func needRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root: "+why)
	}
}

// mknodLike makes a node in dir with the type and device number of an
// existing device (a char device copying /dev/null's 1:3, say).
func mknodLike(t *testing.T, dir, name string, mode uint32, major, minor uint32) string {
	t.Helper()
	needRoot(t, "mknod")
	p := filepath.Join(dir, name)
	if err := unix.Mknod(p, mode|0o666, int(unix.Mkdev(major, minor))); err != nil {
		clydetest.Skipf(t, "mknod %s: %v", p, err)
	}
	return p
}

type nodeState struct {
	mode     fs.FileMode
	rdev     uint64
	ino      uint64
	uid, gid uint32
	data     string
}

func stateOf(t *testing.T, p string) nodeState {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatalf("lstat %s: %v", p, err)
	}
	fi, _ := os.Lstat(p)
	s := nodeState{mode: fi.Mode(), rdev: st.Rdev, ino: st.Ino, uid: st.Uid, gid: st.Gid}
	if fi.Mode().IsRegular() {
		b, _ := os.ReadFile(p)
		s.data = string(b)
	}
	return s
}

// names lists dir, so a test sees a temporary file left behind.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteTargets(t *testing.T) {
	tests := []struct {
		name string
		// setup makes the victim in dir and returns the path to give Check
		// and the path whose state the test checks afterwards.
		setup func(t *testing.T, dir string) (arg, victim string)
		fill  func(io.Writer) error
		// check inspects the victim after Write; before is its state
		// before Check.
		check   func(t *testing.T, before, after nodeState)
		wantErr string
		// files is what dir must hold afterwards (no temporary files).
		files []string
	}{
		{
			name: "regular file replaced keeping mode and owner",
			setup: func(t *testing.T, dir string) (string, string) {
				p := filepath.Join(dir, "r.json")
				os.WriteFile(p, []byte("old result, longer than the new one\n"), 0o600)
				os.Chmod(p, 0o640)
				if os.Geteuid() == 0 {
					os.Chown(p, 1234, 5678)
				}
				return p, p
			},
			fill: fillNew,
			check: func(t *testing.T, before, after nodeState) {
				if after.data != newText || after.mode != 0o640 || after.uid != before.uid || after.gid != before.gid {
					t.Errorf("after: %+v, want the new text, mode 0640, owner %d:%d", after, before.uid, before.gid)
				}
				if after.ino == before.ino {
					t.Errorf("inode %d unchanged: the file was rewritten in place, not replaced", after.ino)
				}
			},
			files: []string{"r.json"},
		},
		{
			name: "absent path created 0644 whatever the umask",
			setup: func(t *testing.T, dir string) (string, string) {
				old := syscall.Umask(0o077)
				t.Cleanup(func() { syscall.Umask(old) })
				p := filepath.Join(dir, "new.json")
				return p, p
			},
			fill: fillNew,
			check: func(t *testing.T, _, after nodeState) {
				if after.data != newText || after.mode != 0o644 {
					t.Errorf("after: %+v, want the new text with mode 0644", after)
				}
			},
			files: []string{"new.json"},
		},
		{
			name: "symlink to a regular file replaces the file, not the link",
			setup: func(t *testing.T, dir string) (string, string) {
				p := filepath.Join(dir, "real.json")
				os.WriteFile(p, []byte("old\n"), 0o600)
				os.Symlink("real.json", filepath.Join(dir, "link.json"))
				return filepath.Join(dir, "link.json"), p
			},
			fill: fillNew,
			check: func(t *testing.T, _, after nodeState) {
				if after.data != newText || after.mode != 0o600 {
					t.Errorf("target after: %+v, want the new text, mode kept 0600", after)
				}
			},
			files: []string{"link.json", "real.json"},
		},
		{
			name: "dangling symlink creates its target",
			setup: func(t *testing.T, dir string) (string, string) {
				os.Symlink("made.json", filepath.Join(dir, "link.json"))
				return filepath.Join(dir, "link.json"), filepath.Join(dir, "made.json")
			},
			fill:  fillNew,
			check: func(t *testing.T, _, after nodeState) { wantText(t, after) },
			files: []string{"link.json", "made.json"},
		},
		{
			name: "symlink to a character device written in place",
			setup: func(t *testing.T, dir string) (string, string) {
				dev := mknodLike(t, dir, "null", unix.S_IFCHR, 1, 3)
				os.Symlink("null", filepath.Join(dir, "out.json"))
				return filepath.Join(dir, "out.json"), dev
			},
			fill:  fillNew,
			check: unchangedNode,
			files: []string{"null", "out.json"},
		},
		{
			name: "a full device stays a device when the write fails",
			setup: func(t *testing.T, dir string) (string, string) {
				dev := mknodLike(t, dir, "full", unix.S_IFCHR, 1, 7)
				return dev, dev
			},
			fill:    fillNew,
			check:   unchangedNode,
			wantErr: "no space left",
			files:   []string{"full"},
		},
		{
			name:  "/dev/null in place",
			setup: func(t *testing.T, dir string) (string, string) { return "/dev/null", "/dev/null" },
			fill:  fillNew,
			check: unchangedNode,
		},
		{
			name: "FIFO written in place",
			setup: func(t *testing.T, dir string) (string, string) {
				p := filepath.Join(dir, "fifo")
				if err := unix.Mkfifo(p, 0o600); err != nil {
					t.Fatal(err)
				}
				got := make(chan string, 1)
				go func() {
					b, _ := os.ReadFile(p) // opens once the writer does; ends at its close
					got <- string(b)
				}()
				t.Cleanup(func() {
					if s := <-got; s != newText {
						t.Errorf("the FIFO's reader got %q, want %q", s, newText)
					}
				})
				return p, p
			},
			fill:  fillNew,
			check: unchangedNode,
			files: []string{"fifo"},
		},
		{
			name: "temporary file removed when filling fails",
			setup: func(t *testing.T, dir string) (string, string) {
				p := filepath.Join(dir, "r.json")
				os.WriteFile(p, []byte("old\n"), 0o644)
				return p, p
			},
			fill: fillFails,
			check: func(t *testing.T, before, after nodeState) {
				if after != before {
					t.Errorf("after a failed write %+v, want it untouched %+v", after, before)
				}
			},
			wantErr: "encoder failed",
			files:   []string{"r.json"},
		},
		{
			name: "temporary file removed when a new file fails",
			setup: func(t *testing.T, dir string) (string, string) {
				return filepath.Join(dir, "r.json"), ""
			},
			fill:    fillFails,
			wantErr: "encoder failed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			arg, victim := tc.setup(t, dir)
			var before nodeState
			_, err := os.Lstat(victim)
			existed := err == nil
			if existed {
				before = stateOf(t, victim)
			}
			target, err := Check("--json", arg)
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			fill := func(w io.Writer) error {
				// Until the rename, a reader sees the old file whole.
				if existed && before.mode.IsRegular() && stateOf(t, victim) != before {
					t.Errorf("the target changed before its replacement was complete")
				}
				return tc.fill(w)
			}
			err = target.Write(ctx, io.Discard, fill)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Write: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Write: %v, want an error saying %q", err, tc.wantErr)
			case err != nil && !strings.Contains(err.Error(), "--json "+arg):
				t.Errorf("error %q does not name the flag and path", err)
			}
			if tc.check != nil {
				tc.check(t, before, stateOf(t, victim))
			}
			if !strings.HasPrefix(arg, "/dev/") {
				if got := strings.Join(names(t, dir), " "); got != strings.Join(tc.files, " ") {
					t.Errorf("directory holds [%s], want [%s]", got, strings.Join(tc.files, " "))
				}
			}
		})
	}
}

func wantText(t *testing.T, after nodeState) {
	t.Helper()
	if after.data != newText {
		t.Errorf("holds %q, want %q", after.data, newText)
	}
}

// unchangedNode checks an in-place target is still the node it was.
func unchangedNode(t *testing.T, before, after nodeState) {
	t.Helper()
	if after.mode != before.mode || after.rdev != before.rdev || after.ino != before.ino {
		t.Errorf("node changed: before %+v, after %+v", before, after)
	}
}

// TestStdout writes the names of standard output. /dev/stdout itself is
// left to the integration tests, which guard it: code that replaced it would
// break the machine's /dev/stdout; a symlink of our own to /proc/self/fd/1
// takes the same path.
func TestStdout(t *testing.T) {
	likeDevStdout := filepath.Join(t.TempDir(), "stdout")
	if err := os.Symlink("/proc/self/fd/1", likeDevStdout); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"-", likeDevStdout, "/proc/self/fd/1", "/dev/fd/1"} {
		t.Run(arg, func(t *testing.T) {
			target, err := Check("--json", arg)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := target.Write(ctx, &out, fillNew); err != nil || out.String() != newText {
				t.Fatalf("Write: %v; stdout got %q", err, out.String())
			}
		})
	}
}

// TestOwnDescriptor writes /dev/fd/N for a pipe clyde holds: the pipe gets
// the text, and the descriptor stays open.
func TestOwnDescriptor(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	target, err := Check("--json", "/dev/fd/"+strconv.Itoa(int(w.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	if err := target.Write(ctx, io.Discard, fillNew); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString("more\n"); err != nil {
		t.Fatalf("the descriptor was closed by Write: %v", err)
	}
	w.Close()
	b, _ := io.ReadAll(r)
	if string(b) != newText+"more\n" {
		t.Fatalf("pipe got %q", b)
	}
}

func TestCheckRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string
		want  string
	}{
		{"directory", func(t *testing.T, dir string) string { return dir }, "is a directory"},
		{"trailing slash", func(t *testing.T, dir string) string { return filepath.Join(dir, "new") + "/" }, "names a directory"},
		{"missing parent", func(t *testing.T, dir string) string { return filepath.Join(dir, "no", "r.json") }, "does not exist"},
		{"parent is a file", func(t *testing.T, dir string) string {
			os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
			return filepath.Join(dir, "f", "r.json")
		}, "not a directory"},
		{"empty", func(t *testing.T, dir string) string { return "" }, "empty path"},
		{"block device", func(t *testing.T, dir string) string {
			return mknodLike(t, dir, "loop", unix.S_IFBLK, 7, 0)
		}, "block device"},
		{"socket", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "sock")
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { unix.Close(fd) })
			if err := unix.Bind(fd, &unix.SockaddrUnix{Name: p}); err != nil {
				t.Fatal(err)
			}
			return p
		}, "socket"},
		{"symlink loop", func(t *testing.T, dir string) string {
			os.Symlink("b", filepath.Join(dir, "a"))
			os.Symlink("a", filepath.Join(dir, "b"))
			return filepath.Join(dir, "a")
		}, "too many levels"},
		{"read-only descriptor", func(t *testing.T, dir string) string {
			f, err := os.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return "/dev/fd/" + strconv.Itoa(int(f.Fd()))
		}, "reading only"},
		{"another user's symlink in a sticky shared directory", func(t *testing.T, dir string) string {
			needRoot(t, "a symlink owned by another user")
			shared := filepath.Join(dir, "tmp")
			os.Mkdir(shared, 0o777)
			os.Chmod(shared, os.ModeSticky|0o777)
			victim := filepath.Join(dir, "passwd")
			os.WriteFile(victim, []byte("root:x:0:0\n"), 0o644)
			link := filepath.Join(shared, "r.json")
			os.Symlink(victim, link)
			if err := os.Lchown(link, 1234, 1234); err != nil {
				t.Fatal(err)
			}
			return link
		}, "another user's symlink"},
		{"unwritable parent", func(t *testing.T, dir string) string {
			ro := readOnlyDir(t, dir)
			return filepath.Join(ro, "r.json")
		}, "cannot create files in"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			arg := tc.setup(t, dir)
			before := listTree(t, dir)
			target, err := Check("--prom-textfile", arg)
			if err == nil {
				target.Close()
				t.Fatalf("Check(%q) accepted it", arg)
			}
			if !result.IsUsage(err) || !strings.Contains(err.Error(), tc.want) ||
				!strings.HasPrefix(err.Error(), "--prom-textfile: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one usage line naming --prom-textfile and saying %q", err, tc.want)
			}
			if after := listTree(t, dir); after != before {
				t.Fatalf("Check changed the directory:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// readOnlyDir returns a directory clyde cannot create files in: a
// read-only tmpfs as root (root ignores permissions), mode 0555 otherwise.
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

// listTree describes every entry under dir, so a test sees anything made.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			fi, _ := d.Info()
			b.WriteString(p + " " + fi.Mode().String() + "; ")
		}
		return nil
	})
	return b.String()
}

// TestChangedSinceCheck swaps the target between Check and Write: a regular
// file that became a FIFO is not replaced, a device that became a regular
// file is not written.
func TestChangedSinceCheck(t *testing.T) {
	t.Run("regular file became a FIFO", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "r.json")
		os.WriteFile(p, []byte("old\n"), 0o644)
		target, err := Check("--json", p)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		unix.Mkfifo(p, 0o600)
		if err := target.Write(ctx, io.Discard, fillNew); err == nil || !strings.Contains(err.Error(), "became a FIFO") {
			t.Fatalf("Write: %v, want a refusal saying it became a FIFO", err)
		}
		if fi, _ := os.Lstat(p); fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO was replaced: now %v", fi.Mode())
		}
		if got := names(t, dir); len(got) != 1 {
			t.Fatalf("left behind: %v", got)
		}
	})
	t.Run("device became a regular file", func(t *testing.T) {
		dir := t.TempDir()
		dev := mknodLike(t, dir, "null", unix.S_IFCHR, 1, 3)
		target, err := Check("--json", dev)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(dev)
		os.WriteFile(dev, []byte("someone's file\n"), 0o644)
		if err := target.Write(ctx, io.Discard, fillNew); err == nil || !strings.Contains(err.Error(), "changed since") {
			t.Fatalf("Write: %v, want a refusal saying it changed", err)
		}
		if b, _ := os.ReadFile(dev); string(b) != "someone's file\n" {
			t.Fatalf("the file that took the device's place was written: %q", b)
		}
	})
	t.Run("directory swapped for a symlink", func(t *testing.T) {
		dir := t.TempDir()
		sub, elsewhere := filepath.Join(dir, "out"), filepath.Join(dir, "elsewhere")
		os.Mkdir(sub, 0o755)
		os.Mkdir(elsewhere, 0o755)
		target, err := Check("--json", filepath.Join(sub, "r.json"))
		if err != nil {
			t.Fatal(err)
		}
		os.Rename(sub, filepath.Join(dir, "out.moved"))
		os.Symlink(elsewhere, sub)
		if err := target.Write(ctx, io.Discard, fillNew); err != nil {
			t.Fatal(err)
		}
		if got := names(t, elsewhere); len(got) != 0 {
			t.Fatalf("written through the swapped-in symlink: %v", got)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "out.moved", "r.json")); string(b) != newText {
			t.Fatalf("the directory Check opened holds %q", b)
		}
	})
}

func TestSame(t *testing.T) {
	dir := t.TempDir()
	os.Symlink(".", filepath.Join(dir, "here"))
	a, _ := Check("--json", filepath.Join(dir, "x"))
	b, _ := Check("--prom-textfile", filepath.Join(dir, "here", "x"))
	c, _ := Check("--prom-textfile", filepath.Join(dir, "y"))
	d, _ := Check("--prom-textfile", "-")
	defer func() { a.Close(); b.Close(); c.Close() }()
	if !a.Same(b) || a.Same(c) || a.Same(d) || d.Same(d) {
		t.Fatalf("Same: a~b %v, a~c %v, a~- %v, -~- %v", a.Same(b), a.Same(c), a.Same(d), d.Same(d))
	}
}

// TestWriteResultNothingMeasured: the result of a run that measured
// nothing replaces no file (an existing one keeps what it held, a new one
// is not made, no temporary is left), and still goes to an in-place
// target, which replaces nothing; a measured run replaces the file.
func TestWriteResultNothingMeasured(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{old, filepath.Join(dir, "new.json")} {
		tg, err := Check("--json", p)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.WriteResult(ctx, io.Discard, false, fillNew); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(old); string(b) != "previous\n" {
		t.Errorf("the previous result became %q", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("the directory holds %v, want the old file alone", es)
	}
	var stdout bytes.Buffer
	tg, err := Check("--json", "-")
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.WriteResult(ctx, &stdout, false, fillNew); err != nil || stdout.String() != newText {
		t.Errorf("standard output got %q (%v), want the result", stdout.String(), err)
	}
	tg, err = Check("--json", old)
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.WriteResult(ctx, io.Discard, true, fillNew); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(old); string(b) != newText {
		t.Errorf("a measured run's result: the file holds %q", b)
	}
}
