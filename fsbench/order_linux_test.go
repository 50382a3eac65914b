package fsbench

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// deleteWatch watches the sequential delete through inotify: just before
// the phase it finds the directory holding the test's files, remembers the
// order readdir lists them in and adds a watch; after it, the IN_DELETE
// events give the order the files were unlinked in.
type deleteWatch struct {
	t       *testing.T
	root    string
	fd, wd  int
	readdir []string
	deleted []string
}

func (w *deleteWatch) Before(_ context.Context, _ int, test result.FSTest, _ func() int64) error {
	if test != result.SeqDelete {
		return nil
	}
	var dir string
	_ = filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && dir == "" && !strings.HasPrefix(d.Name(), ".") && !strings.HasPrefix(d.Name(), "clyde") {
			dir = filepath.Dir(p)
		}
		return nil
	})
	if dir == "" {
		w.t.Fatal("no test files found before the sequential delete")
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	w.readdir, err = f.Readdirnames(-1)
	_ = f.Close()
	if err != nil {
		return err
	}
	w.fd, err = unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		clydetest.Skipf(w.t, "no inotify here: %v", err)
	}
	w.wd, err = unix.InotifyAddWatch(w.fd, dir, unix.IN_DELETE)
	return err
}

func (w *deleteWatch) After(_ context.Context, _ int, test result.FSTest, _ *result.FSTestResult) error {
	if test != result.SeqDelete {
		return nil
	}
	defer unix.Close(w.fd)
	buf := make([]byte, 1<<20)
	for {
		n, err := unix.Read(w.fd, buf)
		if err == unix.EAGAIN {
			return nil
		}
		if err != nil {
			return err
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			if ev.Mask&unix.IN_DELETE != 0 {
				w.deleted = append(w.deleted, string(bytes.TrimRight(name, "\x00")))
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// TestSequentialDeleteOrder checks the order the sequential delete unlinks
// files in, as the kernel saw it: bonnie++'s readdir order by default, and
// with CreationOrder by name in the order they were made (the names'
// leading hex index), as mdtest deletes.
func TestSequentialDeleteOrder(t *testing.T) {
	for _, creation := range []bool{false, true} {
		name := "readdir"
		if creation {
			name = "creation"
		}
		t.Run(name, func(t *testing.T) {
			o := smallOptions(t.TempDir())
			o.SizeMiB, o.Dirs, o.MaxFileBytes, o.MinFileBytes = 0, 1, 0, 0
			o.CreationOrder = creation
			w := &deleteWatch{t: t, root: o.Dir}
			o.Phases = w
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Config.VisitOrder; got != map[bool]string{false: "", true: "creation"}[creation] {
				t.Errorf("visit order recorded as %q", got)
			}
			if len(w.deleted) != len(w.readdir) || len(w.deleted) != o.FilesK*1024 {
				t.Fatalf("%d files deleted, readdir listed %d, want %d", len(w.deleted), len(w.readdir), o.FilesK*1024)
			}
			byIndex := slices.Clone(w.deleted)
			slices.SortFunc(byIndex, func(a, b string) int { return strings.Compare(a[:hexDigits], b[:hexDigits]) })
			want := w.readdir
			if creation {
				want = byIndex
			} else if slices.Equal(w.readdir, byIndex) {
				t.Fatal("readdir lists the files in creation order here; the test cannot tell the two orders apart")
			}
			if !slices.Equal(w.deleted, want) {
				t.Errorf("deleted in another order: first %q, want %q", w.deleted[:3], want[:3])
			}
			for _, tt := range []result.FSTest{result.SeqCreate, result.SeqDelete} {
				if tr := res.Runs[0].Tests[tt]; tr.Flush == "" || tr.FlushNs <= 0 || tr.FlushNs > tr.ElapsedNs {
					t.Errorf("%s: flush %q took %d ns of %d", tt.Name(), tr.Flush, tr.FlushNs, tr.ElapsedNs)
				}
			}
			notes := strings.Join(res.Runs[0].Tests[result.SeqDelete].Notes, "\n")
			if strings.Contains(notes, "--creation-order") != creation {
				t.Errorf("sequential delete notes %q", notes)
			}
		})
	}
}
