//go:build linux

package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/result"
)

// TestFSColdReadsThroughTheLoop: the suite's own filesystems (ntfs-3g too) are loop
// devices without direct I/O over images, which the host caches. clyde fs
// drops that cache before every read phase, so its reads are cold on each
// (the JSON's cache.stack names the loop device, evicted), and nothing is
// noted; where the image is memory (on tmpfs) the reads are cached, never
// cold, and the text, the JSON, the history and the HTML page say so,
// naming the loop device and the image.
func TestFSColdReadsThroughTheLoop(t *testing.T) {
	for _, kind := range []fsKind{ext4, xfs, btrfs, ntfs} {
		t.Run(string(kind), func(t *testing.T) {
			fs := makeFS(t, kind, imageMiB[kind])
			img := strings.TrimSpace(sh(t, "losetup", "--noheadings", "--output", "BACK-FILE", fs.dev))
			var st unix.Statfs_t
			if err := unix.Statfs(img, &st); err != nil {
				t.Fatal(err)
			}
			coldReadsThrough(t, fs, img, st.Type != unix.TMPFS_MAGIC)
		})
	}
	t.Run("ext4 over an image on tmpfs", func(t *testing.T) {
		needRoot(t)
		needTool(t, "mkfs.ext4", "e2fsprogs")
		shm, err := os.MkdirTemp("/dev/shm", "clyde-it")
		if err != nil {
			clydetest.Skipf(t, "/dev/shm: %v", err)
		}
		t.Cleanup(func() { os.RemoveAll(shm) })
		img := filepath.Join(shm, "disk.img")
		if err := os.WriteFile(img, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(img, 128<<20); err != nil {
			t.Fatal(err)
		}
		fs := &testFS{kind: ext4, dir: mountPoint(t), dev: attachLoop(t, img, false)}
		sh(t, "mkfs.ext4", "-q", "-F", "-m", "0", fs.dev)
		mount(t, fs.dir, fs.dev)
		coldReadsThrough(t, fs, img, false)
	})
}

// coldReadsThrough runs a small clyde fs on fs, mounted from a loop
// device over img, and checks its read phases are cold through the loop
// (cold) or cached and said to be in every output.
func coldReadsThrough(t *testing.T, fs *testFS, img string, cold bool) {
	t.Helper()
	state := t.TempDir()
	js, db := filepath.Join(state, "fs.json"), filepath.Join(state, "history.db")
	r := runClyde(t, "fs", "-d", fs.dir, "-s", "16", "-r", "0", "-f", "-n", "0", "-q", "--json", js, "--db", db)
	if r.code != exitOK {
		t.Fatalf("clyde fs exit %d; stderr:\n%s", r.code, r.stderr)
	}
	res := readFSResult(t, js)
	for _, test := range []result.FSTest{result.Rewrite, result.GetBlock, result.Seeks} {
		c := res.Runs[0].Tests[test].Cache
		if c == nil || len(c.Stack) == 0 || c.Stack[0].Loop != fs.dev || c.Stack[0].Backing != img {
			t.Fatalf("%s: cache %+v; want its stack to begin at %s over %s", test.Name(), c, fs.dev, img)
		}
		if l := c.Stack[0]; c.Cold != cold || l.Cold != cold || l.Evicted != cold || !cold && !strings.HasPrefix(l.Cached, "tmpfs") {
			t.Errorf("%s: cold %v, level %+v; want cold %v", test.Name(), c.Cold, l, cold)
		}
	}
	noted := strings.Contains(r.stderr, "Note: the read phases (rewrite, get_block, seeks) were not cold: "+fs.dev+" reads its backing file "+img)
	if noted == cold || (res.CacheNote != "") == cold {
		t.Fatalf("cold %v, but the text notes it %v and the JSON's cache_note is %q:\n%s", cold, noted, res.CacheNote, r.stderr)
	}
	if cold {
		return
	}
	store, err := history.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	es, err := store.Query(context.Background(), history.Filter{WithJSON: true})
	if err != nil || len(es) != 1 || !strings.Contains(string(es[0].JSON), `"cache_note"`) {
		t.Errorf("history: %d runs (%v); want the run with its cache note", len(es), err)
	}
	page := runClyde(t, "report", js, "--format", "html")
	if page.code != exitOK || !strings.Contains(page.stdout, fs.dev+" reads its backing file "+img) {
		t.Errorf("the HTML page (exit %d) does not say the reads were the cache's", page.code)
	}
}
