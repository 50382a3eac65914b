//go:build linux

package fsbench

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// stackOptions is a block read through dir with nothing else: one small
// big file, no per-char or file tests, few seeks.
func stackOptions(dir string) Options {
	o := smallOptions(dir)
	o.SizeMiB, o.FilesK, o.Seeks, o.SeekProcs = 8, 0, 64, 1
	return o
}

// backingWatch counts, around the block read, the pages of the host's
// cache of img where the big file's data lies (the test's own mincore):
// just before the phase starts (after every eviction) and just after it.
type backingWatch struct {
	t             *testing.T
	dir, img      string
	region        []clydetest.Extent
	before, after int64
}

func (w *backingWatch) Before(_ context.Context, _ int, test result.FSTest, _ func() int64) error {
	if test == result.GetBlock {
		w.region = clydetest.Extents(w.t, bigFileIn(w.t, w.dir))
		w.before = clydetest.ResidentIn(w.t, w.img, 0, w.region)
	}
	return nil
}

func (w *backingWatch) After(_ context.Context, _ int, test result.FSTest, _ *result.FSTestResult) error {
	if test == result.GetBlock {
		w.after = clydetest.ResidentIn(w.t, w.img, 0, w.region)
	}
	return nil
}

// bigFileIn is the one file of 8 MiB under dir: the run's big file.
func bigFileIn(t *testing.T, dir string) string {
	t.Helper()
	var found string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil && info.Size() == 8<<20 {
				found = p
			}
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no big file under %s", dir)
	}
	return found
}

// TestBlockReadIsColdThroughTheLoop: on an ext4 mounted from a loop device
// without direct I/O over an image on disk, the block read starts with
// the image's pages where the file lies out of the host's cache, and the
// read faults them in (it read the drive, through the loop device). With
// the files' own eviction alone (how clyde ran before), those pages are
// still cached when the read starts and the read brings in none: it read
// memory, though the result said cold. -D there is noted as block's
// --direct is; with direct I/O on the loop device it is not.
func TestBlockReadIsColdThroughTheLoop(t *testing.T) {
	dev, img := clydetest.LoopDeviceIn(t, clydetest.DiskDir(t), 64<<20)
	mnt := clydetest.MountExt4(t, dev)
	const size = 8 << 20
	for _, tc := range []struct {
		name     string
		fileOnly bool
	}{{"the stack dropped", false}, {"the files only (before)", true}} {
		t.Run(tc.name, func(t *testing.T) {
			w := &backingWatch{t: t, dir: mnt, img: img}
			o := stackOptions(mnt)
			o.Phases, o.fileOnly = w, tc.fileOnly
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			st := res.Runs[0].Tests[result.GetBlock].Cache
			t.Logf("the file's region of %s: %d bytes cached when the read started, %d after it", img, w.before, w.after)
			if tc.fileOnly {
				if w.before < size*9/10 || w.after-w.before > size/10 {
					t.Errorf("files only: %d bytes of the file cached in %s before the read, %d after; want it all there, and the read to bring in nothing", w.before, img, w.after)
				}
				return
			}
			if w.before*100 >= size {
				t.Errorf("%d bytes of the file still in the host's cache of %s when the read started", w.before, img)
			}
			if w.after < size*9/10 {
				t.Errorf("the read brought %d of the file's %d bytes into the host's cache of %s (from %d): it did not read through the loop device", w.after-w.before, size, img, w.before)
			}
			if st == nil || !st.Cold || len(st.Stack) != 1 || st.Stack[0].Loop != dev || !st.Stack[0].Evicted || res.CacheNote != "" {
				t.Errorf("cache %+v, note %q; want cold, the loop level evicted, no note", st, res.CacheNote)
			}
		})
	}
	t.Run("-D", func(t *testing.T) {
		o := stackOptions(mnt)
		o.Direct = true
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if n := res.CacheNote; !strings.HasPrefix(n, "-D in "+mnt) || !strings.Contains(n, dev) || !strings.Contains(n, img) || !strings.Contains(n, "--direct-io=on") {
			t.Errorf("-D note %q; want the loop device and its image named", n)
		}
	})
	t.Run("-D with direct I/O on the loop device", func(t *testing.T) {
		ddev, _ := clydetest.LoopDeviceIn(t, clydetest.DiskDir(t), 32<<20, "--direct-io=on")
		o := stackOptions(clydetest.MountExt4(t, ddev))
		o.Direct = true
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		st := res.Runs[0].Tests[result.GetBlock].Cache
		if res.CacheNote != "" || st == nil || !st.Cold || len(st.Stack) != 1 || !st.Stack[0].DirectIO || st.Stack[0].Evicted {
			t.Errorf("note %q, cache %+v; want none, cold, the level direct and not evicted", res.CacheNote, st)
		}
	})
}

// TestReadsOnAnImageInMemoryAreCached: through a loop device over an
// image on tmpfs the read phases are memory's whatever is dropped: not
// cold, and the note names the loop device, the image and tmpfs.
func TestReadsOnAnImageInMemoryAreCached(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "clyde-test")
	if err != nil {
		clydetest.Skipf(t, "/dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	dev, img := clydetest.LoopDeviceIn(t, shm, 32<<20)
	res, err := Run(context.Background(), stackOptions(clydetest.MountExt4(t, dev)))
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []result.FSTest{result.Rewrite, result.GetBlock, result.Seeks} {
		if st := res.Runs[0].Tests[test].Cache; st == nil || st.Cold || len(st.Stack) != 1 || !strings.HasPrefix(st.Stack[0].Cached, "tmpfs") {
			t.Errorf("%s: cache %+v, want not cold, the level cached on tmpfs", test.Name(), st)
		}
	}
	if n := res.CacheNote; !strings.Contains(n, "rewrite, get_block, seeks") || !strings.Contains(n, dev) || !strings.Contains(n, img) || !strings.Contains(n, "tmpfs") {
		t.Errorf("note %q; want the read phases, the loop device, its image and tmpfs named", n)
	}
}
