//go:build linux

package integration

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryKnowsTheFilesystemElsewhere mounts one filesystem at two
// mount points in turn (a USB disk that comes back elsewhere): the second
// run's regression check finds the first by the filesystem's UUID, and
// history --dir under the new mount point lists both.
func TestHistoryKnowsTheFilesystemElsewhere(t *testing.T) {
	for _, kind := range []fsKind{ext4, ntfs} {
		t.Run(string(kind), func(t *testing.T) {
			fs := makeFS(t, kind, 64)
			db := filepath.Join(t.TempDir(), "history.db")
			run := func(dir string) outcome {
				t.Helper()
				out := runClyde(t, "block", "--filename", filepath.Join(dir, "bench.dat"), "--rw", "randread", "--size", "4m",
					"--runtime", "200ms", "--db", db, "--check-regression", "20")
				if out.code != 0 {
					t.Fatalf("exit %d: %s", out.code, out.stderr)
				}
				return out
			}
			first := run(fs.dir)
			if !strings.Contains(first.stderr, "no earlier comparable run in the history") {
				t.Fatalf("first run: %s", first.stderr)
			}
			unmount(t, fs.dir)
			elsewhere := mountPoint(t)
			args := []string{}
			if kind == ntfs {
				args = append(args, "-t", "ntfs-3g")
			}
			mount(t, elsewhere, append(args, fs.dev)...)
			second := run(elsewhere)
			if !strings.Contains(second.stderr, "the mean of 1 earlier comparable run (") {
				t.Errorf("the run on the same filesystem mounted elsewhere did not find the first: %s", second.stderr)
			}
			list := runClyde(t, "history", "--db", db, "--dir", filepath.Join(elsewhere, "bench.dat"))
			if list.code != 0 || strings.Count(list.stdout, "randread") < 2 || !strings.Contains(list.stdout, fs.dir) {
				t.Errorf("history --dir under the new mount point: exit %d\n%s%s", list.code, list.stdout, list.stderr)
			}
			other := makeFS(t, kind, 64)
			third := run(other.dir)
			if !strings.Contains(third.stderr, "no earlier comparable run in the history") {
				t.Errorf("a run on another filesystem of the same kind took the first two as its baseline: %s", third.stderr)
			}
		})
	}
}

// TestHistoryTellsClonesApart is item 13 of issue 31: a filesystem copied
// with dd (one UUID, one creation time) onto another loop device is another
// volume: a run on the clone, mounted elsewhere or where the original was,
// never takes the original's runs for its baseline.
func TestHistoryTellsClonesApart(t *testing.T) {
	needTool(t, "dd", "coreutils")
	orig := makeFS(t, ext4, 64)
	db := filepath.Join(t.TempDir(), "history.db")
	run := func(dir string) outcome {
		t.Helper()
		out := runClyde(t, "block", "--filename", filepath.Join(dir, "bench.dat"), "--rw", "randread", "--size", "4m",
			"--runtime", "200ms", "--db", db, "--check-regression", "20")
		if out.code != 0 {
			t.Fatalf("exit %d: %s", out.code, out.stderr)
		}
		return out
	}
	run(orig.dir)
	unmount(t, orig.dir)
	img := newImage(t, 64)
	sh(t, "dd", "if="+orig.dev, "of="+img, "bs=1M", "conv=notrunc", "status=none")
	clone := attachLoop(t, img, false)
	elsewhere := mountPoint(t)
	mount(t, elsewhere, clone)
	if o := run(elsewhere); !strings.Contains(o.stderr, "no earlier comparable run in the history") {
		t.Errorf("the clone mounted elsewhere took the original's run as its baseline: %s", o.stderr)
	}
	unmount(t, elsewhere)
	mount(t, orig.dir, clone)
	if o := run(orig.dir); !strings.Contains(o.stderr, "against the mean of 1 earlier comparable run (") {
		t.Errorf("the clone where the original was mounted: want its own earlier run alone: %s", o.stderr)
	}
}
