package copybench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/runlock"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// smallOptions is three sets small enough for a unit test: a few files of
// 64 KiB (several readwrite buffers each), 4 KiB, and an odd size.
func smallOptions(dir string) Options {
	o := DefaultOptions()
	o.Dir = dir
	o.Sets = []Set{{64 << 10, 3}, {4 << 10, 5}, {1000, 4}}
	o.Dirs = 2
	o.BlockBytes = 16 << 10
	o.Seed = 7
	return o
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("%s holds %v after the run, want nothing", dir, names)
	}
}

// readCopy reads a whole copy through its directory.
func readCopy(d osio.Dir, name []byte, size int64) ([]byte, error) {
	f, err := d.Open(name, osio.ReadOnly, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([]byte, 0, size)
	buf := make([]byte, 8192)
	for {
		n, err := f.Read(buf)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
	}
}

// checkCopies is an inspect hook that compares every copy with the data
// its source was generated from, independently of the engine's checksums,
// and counts the files and bytes it saw.
type checkCopies struct {
	t     *testing.T
	o     *Options
	mu    sync.Mutex
	files map[string]int
	bytes map[string]int64
	dirs  map[string]bool // directories the copies were found in
}

func newCheckCopies(t *testing.T, o *Options) *checkCopies {
	c := &checkCopies{t: t, o: o, files: map[string]int{}, bytes: map[string]int64{}, dirs: map[string]bool{}}
	o.inspect = c.inspect
	return c
}

func (c *checkCopies) inspect(si, i int, d osio.Dir, name []byte) error {
	set := c.o.Sets[si]
	got, err := readCopy(d, name, set.FileBytes)
	if err != nil {
		return err
	}
	want := make([]byte, set.FileBytes)
	c.o.sourceData(si, i).fill(want)
	if !bytes.Equal(got, want) {
		c.t.Errorf("set %s file %d: the copy is not the source's data (%d bytes, want %d)", set.Name(), i, len(got), len(want))
	}
	if c.o.Buffer == BufferRandom && bytes.Count(got, []byte{0}) > len(got)/16 {
		c.t.Errorf("set %s file %d: random data that is %d/%d zeros", set.Name(), i, bytes.Count(got, []byte{0}), len(got))
	}
	c.mu.Lock()
	c.files[set.Name()]++
	c.bytes[set.Name()] += int64(len(got))
	c.dirs[filepath.Dir(d.Path())] = true
	c.mu.Unlock()
	return nil
}

func TestRunCopiesEverySet(t *testing.T) {
	tests := []struct {
		name   string
		modify func(o *Options)
	}{
		{"readwrite", func(*Options) {}},
		{"readwrite, buffer smaller than a page", func(o *Options) { o.BlockBytes = 1000 }},
		{"readwrite, zero data, one directory", func(o *Options) { o.Buffer, o.Dirs = BufferZero, 1 }},
		{"readwrite, more directories than files", func(o *Options) { o.Dirs = 7 }},
		{"copy_file_range", func(o *Options) { o.Method = CopyFileRange }},
		{"all", func(o *Options) { o.Method = All }},
		{"no fsync", func(o *Options) { o.Sync = SyncNone }},
		{"one syncfs per set", func(o *Options) { o.Sync = SyncFS }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := smallOptions(dir)
			tc.modify(&o)
			check := newCheckCopies(t, &o)
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			assertEmptyDir(t, dir)
			var ran []Method
			for _, m := range res.Methods {
				if m.Available {
					ran = append(ran, Method(m.Method))
				} else if m.Reason == "" {
					t.Errorf("%s is not available and no reason is given", m.Method)
				}
			}
			if len(res.Results) != len(o.Sets)*len(ran) {
				t.Fatalf("%d results for %d sets x %v", len(res.Results), len(o.Sets), ran)
			}
			for _, s := range o.Sets {
				if got, want := check.files[s.Name()], s.Files*len(ran); got != want {
					t.Errorf("%s: %d copies checked, want %d", s.Name(), got, want)
				}
				if got, want := check.bytes[s.Name()], s.Bytes()*int64(len(ran)); got != want {
					t.Errorf("%s: %d bytes checked, want %d", s.Name(), got, want)
				}
				for _, m := range ran {
					f := res.Figure(s.Name(), string(m))
					switch {
					case f == nil:
						t.Errorf("no result for %s with %s", s.Name(), m)
					case !f.Ran || !f.Verified || f.Files != int64(s.Files) || f.Bytes != s.Bytes():
						t.Errorf("%s with %s: ran %v, verified %v, %d files of %d bytes; want %d files, %d bytes",
							s.Name(), m, f.Ran, f.Verified, f.Files, f.Bytes, s.Files, s.Bytes())
					case f.ElapsedNs <= 0 || f.MBPerSec <= 0 || f.Latency.Count != int64(s.Files):
						t.Errorf("%s with %s: %d ns, %v MB/s, %d latencies", s.Name(), m, f.ElapsedNs, f.MBPerSec, f.Latency.Count)
					case f.SourceCache.FileBytes != s.Bytes():
						t.Errorf("%s with %s: cache check covered %d bytes, want %d", s.Name(), m, f.SourceCache.FileBytes, s.Bytes())
					}
				}
			}
		})
	}
}

// TestSourcesAreCold checks that on a disk filesystem every copy starts
// from sources mincore finds out of the page cache, and that tmpfs, which
// keeps its pages, is reported warm rather than cold.
func TestSourcesAreCold(t *testing.T) {
	dir := t.TempDir()
	fs, err := sysinfo.FilesystemOf(dir)
	if err != nil || fs.Type == "" {
		clydetest.Skipf(t, "cannot tell the filesystem of %s: %v", dir, err)
	}
	res, err := Run(context.Background(), smallOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	wantCold := fs.Type != "tmpfs" && fs.Type != "ramfs" && !strings.HasPrefix(fs.Type, "fuse")
	for _, f := range res.Results {
		if f.SourceCache.Cold != wantCold || !f.SourceCache.Evicted {
			t.Errorf("%s on %s: sources cold %v (%+v), want %v", f.Set, fs.Type, f.SourceCache.Cold, f.SourceCache, wantCold)
		}
	}
}

func TestVerificationCatchesABadCopy(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(f *os.File) error
		wantErr string
	}{
		{"one byte flipped", func(f *os.File) error {
			b := []byte{0}
			if _, err := f.ReadAt(b, 100); err != nil {
				return err
			}
			b[0] ^= 0x40
			_, err := f.WriteAt(b, 100)
			return err
		}, "differs from its source"},
		{"truncated", func(f *os.File) error { return f.Truncate(999) }, "holds 999 bytes, its source 4096"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := smallOptions(dir)
			o.inspect = func(si, i int, d osio.Dir, name []byte) error {
				if si != 1 || i != 2 {
					return nil
				}
				f, err := os.OpenFile(filepath.Join(d.Path(), string(name[:len(name)-1])), os.O_RDWR, 0)
				if err != nil {
					return err
				}
				defer f.Close()
				return tc.damage(f)
			}
			res, err := Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "d0000/f000002") ||
				strings.Contains(err.Error(), "\n") {
				t.Fatalf("Run = %v, want one line naming copy.1/d0000/f000002 and %q", err, tc.wantErr)
			}
			assertEmptyDir(t, dir)
			if res == nil || len(res.Results) != 2 || !res.Results[0].Verified || res.Results[1].Verified {
				t.Fatalf("results %+v: want the first set verified, the second not", res)
			}
		})
	}
}

// cloneWorks says whether FICLONE works in dir.
func cloneWorks(t *testing.T, dir string) bool {
	t.Helper()
	d, err := osio.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	src, err := d.Open(osio.Name("a"), osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	defer d.Remove(osio.Name("a"))
	dst, err := d.Open(osio.Name("b"), osio.WriteOnly|osio.Create, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	defer d.Remove(osio.Name("b"))
	return osio.Clone(dst, src) == nil
}

func TestCloneIsRefusedWhereItCannotWork(t *testing.T) {
	dir := t.TempDir()
	if cloneWorks(t, dir) {
		clydetest.Skipf(t, "%s can clone; the integration tests check the refusal on ext4", dir)
	}
	o := smallOptions(dir)
	o.Method = Clone
	res, err := Run(context.Background(), o)
	if res != nil || !result.IsUsage(err) || !strings.HasPrefix(err.Error(), "--method: clone cannot run on ") ||
		!strings.Contains(err.Error(), "FICLONE") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Run = %v, %v; want no result and one --method line naming clone and FICLONE", res, err)
	}
	assertEmptyDir(t, dir)

	o.Method = All
	res, err = Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	last := res.Methods[len(res.Methods)-1]
	if last.Method != "clone" || last.Available || !strings.Contains(last.Reason, "FICLONE") {
		t.Errorf("with all, clone is listed as %+v; want not available, with the reason", last)
	}
	for _, f := range res.Results {
		if f.Method == "clone" {
			t.Errorf("a clone result where clone cannot run: %+v", f)
		}
	}
}

// stepWriter cancels the run when a progress line starts with step.
type stepWriter struct {
	step   string
	cancel context.CancelFunc
	mu     sync.Mutex
	buf    strings.Builder
}

func (w *stepWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.step) {
		w.cancel()
	}
	return len(p), nil
}

func TestCancelLeavesNothing(t *testing.T) {
	for _, step := range []string{"Creating 64Kx3 sources", "Copying 4Kx5 with copy_file_range", "Verifying 1000x4"} {
		t.Run(step, func(t *testing.T) {
			dir, to := t.TempDir(), t.TempDir()
			o := smallOptions(dir)
			o.To = to
			o.Method = All
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o.Progress = &stepWriter{step: step, cancel: cancel}
			res, err := Run(ctx, o)
			if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted {
				t.Fatalf("Run = %v (result %v); want a cancelled, partial result", err, res)
			}
			assertEmptyDir(t, dir)
			assertEmptyDir(t, to)
			interrupted := 0
			for _, f := range res.Results {
				if f.Interrupted {
					interrupted++
					if f.Verified {
						t.Errorf("%s with %s is marked both verified and interrupted", f.Set, f.Method)
					}
				}
			}
			if want := min(len(res.Results), 1); interrupted != want {
				t.Errorf("%d results marked interrupted, want %d", interrupted, want)
			}
		})
	}
}

func TestToCopiesIntoTheOtherDirectory(t *testing.T) {
	dir, to := t.TempDir(), t.TempDir()
	o := smallOptions(dir)
	o.To = to
	check := newCheckCopies(t, &o)
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	assertEmptyDir(t, dir)
	assertEmptyDir(t, to)
	if res.Config.To != to || res.ToFilesystem == nil {
		t.Errorf("config %+v, to filesystem %v: want --to recorded", res.Config, res.ToFilesystem)
	}
	for d := range check.dirs {
		if !strings.HasPrefix(d, to+string(os.PathSeparator)) {
			t.Errorf("a copy was made in %s, outside --to %s", d, to)
		}
	}
	if len(check.dirs) == 0 {
		t.Error("no copies seen")
	}
}

func TestRefusedRunsCreateNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		modify func(o *Options)
		flag   string
	}{
		{"missing -d", func(o *Options) { o.Dir = filepath.Join(dir, "nope") }, "-d"},
		{"-d is a file", func(o *Options) { o.Dir = file }, "-d"},
		{"missing --to", func(o *Options) { o.To = filepath.Join(dir, "nope") }, "--to"},
		{"--to is -d by another name", func(o *Options) { o.To = dir + "/./" }, "--to"},
		{"--to is -d through a symlink", func(o *Options) {
			link := filepath.Join(t.TempDir(), "link")
			if err := os.Symlink(dir, link); err != nil {
				t.Fatal(err)
			}
			o.To = link
		}, "--to"},
		{"zero count", func(o *Options) { o.Sets = []Set{{4096, 0}} }, "--set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := smallOptions(dir)
			tc.modify(&o)
			res, err := Run(context.Background(), o)
			if res != nil || !result.IsUsage(err) || !strings.HasPrefix(err.Error(), tc.flag+": ") {
				t.Fatalf("Run = %v, %v; want no result and a usage error naming %s", res, err, tc.flag)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Fatalf("%s holds %d entries after a refused run, want only the file", dir, len(entries))
			}
		})
	}
}

func TestSecondRunOnADirectoryIsRefused(t *testing.T) {
	for _, flag := range []string{"-d", "--to"} {
		t.Run(flag, func(t *testing.T) {
			dir, to := t.TempDir(), t.TempDir()
			locked := dir
			if flag == "--to" {
				locked = to
			}
			d, err := osio.OpenDir(locked)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			lock, err := runlock.Dir(d, locked, nil)
			if errors.Is(err, result.ErrNotSupported) {
				clydetest.Skip(t, "no directory locks here")
			}
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Release()
			o := smallOptions(dir)
			o.To = to
			res, err := Run(context.Background(), o)
			var held *runlock.HeldError
			if res != nil || !errors.As(err, &held) || held.Target != locked {
				t.Fatalf("Run = %v, %v; want refused, naming %s", res, err, locked)
			}
			assertEmptyDir(t, dir)
			assertEmptyDir(t, to)
		})
	}
}

// ExampleRun copies four 1 MiB files with read and write and prints what
// was copied and verified; MB/s and latencies vary from run to run and are
// left out here.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "copybench-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	o := DefaultOptions()
	o.Dir = dir
	o.Sets = []Set{{FileBytes: 1 << 20, Files: 4}}
	o.Sync = SyncNone
	res, err := Run(context.Background(), o)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.Results {
		fmt.Printf("%s %s: %d files, %d bytes, verified %v\n", f.Method, f.Set, f.Files, f.Bytes, f.Verified)
	}
	// Output:
	// readwrite 1Mx4: 4 files, 4194304 bytes, verified true
}
