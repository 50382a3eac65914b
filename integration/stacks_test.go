//go:build linux

package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/result"
)

// makeDirectExt4 is an ext4 filesystem on a loop device with direct I/O
// (losetup --direct-io=on), whose O_DIRECT I/O reaches the image's disk
// rather than the host's page cache: the filesystem an uncached run
// (CrystalDiskMark, Iometer) measures truthfully.
func makeDirectExt4(t *testing.T, sizeMiB int) *testFS {
	t.Helper()
	needRoot(t)
	needTool(t, "mkfs.ext4", "e2fsprogs")
	dev := directLoop(t, newImage(t, sizeMiB))
	sh(t, "mkfs.ext4", "-q", "-F", "-m", "0", dev)
	fs := &testFS{kind: ext4, dir: mountPoint(t), dev: dev}
	mount(t, fs.dir, dev)
	return fs
}

// directLoop attaches img with direct I/O, detached when the test ends.
func directLoop(t *testing.T, img string) string {
	t.Helper()
	out, err := exec.Command("losetup", "--find", "--show", "--direct-io=on", img).CombinedOutput()
	if err != nil {
		clydetest.Skipf(t, "no loop devices with direct I/O here: losetup: %v: %s", err, strings.TrimSpace(string(out)))
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "--detach", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup --detach %s: %v: %s", dev, err, out)
		}
	})
	if b, _ := os.ReadFile(filepath.Join("/sys/block", filepath.Base(dev), "loop", "dio")); strings.TrimSpace(string(b)) != "1" {
		clydetest.Skipf(t, "%s over %s did not get direct I/O (the image's filesystem refuses O_DIRECT)", dev, img)
	}
	return dev
}

// TestCDMOnACachedLoopImage is the write-ups' case: CrystalDiskMark on an
// ext4 mounted from a loop device over an image file, without direct I/O,
// printed about 8 GB/s, the host's page cache. The rule that refuses tmpfs
// follows the mount's device to the loop device to its image: refused in
// one line naming both and the ways out; --allow-cached runs it, and the
// text, the JSON, the history and the HTML page all say the figures are the
// cache's. The same run on a loop device with direct I/O is not noted.
func TestCDMOnACachedLoopImage(t *testing.T) {
	fs := makeFS(t, ext4, 256)
	img := strings.TrimSpace(sh(t, "losetup", "--noheadings", "--output", "BACK-FILE", fs.dev))
	o, _ := cdmRun(t, fs.dir)
	if o.code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr %q", o.code, exitUsage, o.stderr)
	}
	assertOneLineError(t, o.stderr, fs.dev, img, "host's page cache", "--direct-io=on", "--buffered", "--allow-cached")
	if got := entries(t, fs.dir); len(got) != 1 { // lost+found
		t.Errorf("the refused run made %v", got)
	}

	state := t.TempDir()
	db, js := filepath.Join(state, "history.db"), filepath.Join(state, "cdm.json")
	args := append(append([]string{"block", "--filename", fs.dir}, cdmQuick...), "--allow-cached", "--cdm-preset", "demo")
	args = append(args[:len(args):len(args)], "--output-format", "json", "--output", js)
	for i, a := range args {
		if a == "--no-history" {
			args[i] = "--db=" + db
		}
	}
	o = runClyde(t, args...)
	if o.code != exitOK {
		t.Fatalf("--allow-cached: exit %d: %s", o.code, o.stderr)
	}
	res := readBlockResult(t, js)
	note := res.CacheNote
	if !strings.Contains(note, fs.dev) || !strings.Contains(note, img) || !strings.Contains(note, "--allow-cached") {
		t.Fatalf("cache note %q: want the loop device, its image and --allow-cached", note)
	}
	if !strings.Contains(o.stderr, note) {
		t.Errorf("stderr does not carry the note:\n%s", o.stderr)
	}
	store, err := history.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	es, err := store.Query(context.Background(), history.Filter{WithJSON: true})
	if err != nil || len(es) != 1 || !strings.Contains(string(es[0].JSON), "cache_note") {
		t.Errorf("history: %d runs (%v); want the run with its cache note", len(es), err)
	}
	if text := runClyde(t, "report", js); text.code != exitOK || !strings.Contains(text.stdout, note) {
		t.Errorf("the text report (exit %d) does not carry the note:\n%s", text.code, text.stdout)
	}
	page := runClyde(t, "report", js, "--format", "html")
	if page.code != exitOK || !strings.Contains(page.stdout, "a loop device that reads its backing file") {
		t.Errorf("the HTML page (exit %d) does not say the figures are the cache's", page.code)
	}

	direct := makeDirectExt4(t, 256)
	if o, res := cdmRun(t, direct.dir, "--cdm-preset", "demo"); res == nil || res.CacheNote != "" {
		t.Errorf("cdm on a loop device with direct I/O: exit %d, %q; want it run, not noted", o.code, o.stderr)
	}
}

// TestOrionOnASparseLoopDevice: ORION on a loop device over a sparse image
// "measured" its holes; a sparse file is refused, and so is the loop device
// over one, saying how to fill it; once filled, it runs.
func TestOrionOnASparseLoopDevice(t *testing.T) {
	needRoot(t)
	dev := directLoop(t, newImage(t, 32))
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "ssd.lun"), []byte(dev+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	orion := func() outcome {
		return runClyde(t, "orion", "-run", "oltp", "-testname", filepath.Join(out, "ssd"), "-duration", "1", "-num_disks", "1",
			"-output-dir", out, "--no-history")
	}
	o := orion()
	if o.code != exitUsage {
		t.Fatalf("ORION on %s over a sparse image: exit %d, want %d; stderr:\n%s", dev, o.code, exitUsage, o.stderr)
	}
	assertOneLineError(t, o.stderr, "32 MiB of the 32 MiB of "+dev+"'s backing file", "holes", "fill it first", "--allow-sparse")
	if fill := runClyde(t, "block", "--filename", dev, "--rw", "write", "--bs", "1m", "--size", "32m", "--destroy-data", "--no-history"); fill.code != exitOK {
		t.Fatalf("filling %s: exit %d: %s", dev, fill.code, fill.stderr)
	}
	if o := orion(); o.code != exitOK || strings.Contains(o.stderr, "holes") {
		t.Errorf("ORION on the filled %s: exit %d; stderr:\n%s", dev, o.code, o.stderr)
	}
}

func readBlockResult(t *testing.T, path string) *result.Block {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.DecodeBlock(b)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
