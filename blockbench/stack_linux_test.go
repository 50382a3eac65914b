//go:build linux

package blockbench

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// fillDevice writes dev whole with a non-zero pattern, so its image has
// no holes and no unwritten extents.
func fillDevice(t *testing.T, dev string) {
	t.Helper()
	f, err := os.OpenFile(dev, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	size, err := f.Seek(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i%251 + 1)
	}
	for off := int64(0); off < size; off += int64(len(buf)) {
		if _, err := f.WriteAt(buf[:min(int64(len(buf)), size-off)], off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// deviceRead is a short direct random read of a whole device.
func deviceRead(dev string) Job {
	j := NewJob(dev)
	j.RW, j.BlockSizes, j.Direct, j.IOEngine = RandRead, []int64{4096}, true, EngineAuto
	j.TimeBased, j.Runtime = true, 100*time.Millisecond
	return j
}

func cacheNoted(res *result.Block) bool {
	return res != nil && res.CacheNote != "" && strings.Contains(strings.Join(res.Notes, "\n"), res.CacheNote)
}

// TestDirectOnCachedLoopDevice: O_DIRECT on a loop device without direct
// I/O is served by the host's cache of its backing file, and the result
// says so, naming the loop device and the file; with losetup
// --direct-io=on it says nothing. A plan that needs uncached I/O
// (CrystalDiskMark's rows) is refused on the cached one, naming
// --allow-cached, which runs it with the note.
func TestDirectOnCachedLoopDevice(t *testing.T) {
	cached, img := clydetest.LoopDevice(t, 16<<20)
	direct, _ := clydetest.LoopDevice(t, 16<<20, "--direct-io=on")
	fillDevice(t, cached)
	fillDevice(t, direct)

	res, err := Run(context.Background(), deviceRead(cached))
	if err != nil {
		t.Fatal(err)
	}
	if !cacheNoted(res) || !strings.Contains(res.CacheNote, cached) || !strings.Contains(res.CacheNote, img) || !strings.Contains(res.CacheNote, "--direct-io=on") {
		t.Errorf("direct read of %s (no direct I/O): cache note %q, notes %q; want the loop device and its image named", cached, res.CacheNote, res.Notes)
	}
	if res, err := Run(context.Background(), deviceRead(direct)); err != nil || res.CacheNote != "" {
		t.Errorf("direct read of %s (direct I/O): %v, cache note %q; want none", direct, err, res.CacheNote)
	}
	// Buffered I/O asks nothing of the cache and is told nothing.
	buffered := deviceRead(cached)
	buffered.Direct = false
	if res, err := Run(context.Background(), buffered); err != nil || res.CacheNote != "" {
		t.Errorf("buffered read of %s: %v, cache note %q; want none", cached, err, res.CacheNote)
	}

	cdm := func(dev string, allow bool) (*result.Block, error) {
		return RunPlan(context.Background(), uncachedPlan(dev, 1<<20, allow))
	}
	_, err = cdm(cached, false)
	var ue *result.UsageError
	if !asUsage(err, &ue) || !strings.Contains(ue.Msg, cached) || !strings.Contains(ue.Msg, "--allow-cached") {
		t.Errorf("cdm on %s: %v, want a refusal naming the loop device and --allow-cached", cached, err)
	}
	res, err = cdm(cached, true)
	if err != nil || !cacheNoted(res) || !strings.Contains(res.CacheNote, "--allow-cached") {
		t.Errorf("cdm --allow-cached on %s: %v, cache note %q; want it run and noted", cached, err, res.CacheNote)
	}
	if res, err := cdm(direct, false); err != nil || res.CacheNote != "" {
		t.Errorf("cdm on %s (direct I/O): %v, cache note %q; want it run, unnoted", direct, err, res.CacheNote)
	}
}

// TestDirectFollowsTheMountToTheLoop: a file in an ext4 mounted from a
// loop device without direct I/O is cached by the host too; the note
// follows the filesystem's device to the loop device to its image.
func TestDirectFollowsTheMountToTheLoop(t *testing.T) {
	for _, tool := range []string{"mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			clydetest.Skipf(t, "%s not installed", tool)
		}
	}
	for _, tc := range []struct {
		name   string
		args   []string
		cached bool
	}{{"loop without direct I/O", nil, true}, {"loop with direct I/O", []string{"--direct-io=on"}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			dev, img := clydetest.LoopDevice(t, 32<<20, tc.args...)
			run(t, "mkfs.ext4", "-q", "-F", dev)
			mnt := t.TempDir()
			run(t, "mount", dev, mnt)
			t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
			res, err := Run(context.Background(), directJob(mnt))
			if err != nil {
				t.Fatal(err)
			}
			if tc.cached != (res.CacheNote != "") || tc.cached && (!strings.Contains(res.CacheNote, dev) || !strings.Contains(res.CacheNote, img)) {
				t.Errorf("cache note %q; want one naming %s and %s: %v", res.CacheNote, dev, img, tc.cached)
			}
			if entries, _ := os.ReadDir(mnt); len(entries) != 1 { // lost+found
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

// TestReadOfSparseLoopDeviceRefused: a loop device over a sparse image
// reads its holes as zeros from memory, as a sparse file does; the file's
// rule applies to its backing file: refused saying how to fill it,
// measured with --allow-sparse and a note, not refused for a job that
// writes it first, and read as usual once filled. A partition of it is
// judged by its own stretch of the image.
func TestReadOfSparseLoopDeviceRefused(t *testing.T) {
	dev, img := clydetest.LoopDevice(t, 8<<20, "--direct-io=on")
	read := deviceRead(dev)
	_, err := Run(context.Background(), read)
	var ue *result.UsageError
	if !asUsage(err, &ue) || !strings.Contains(ue.Msg, "8.0 MiB of the 8.0 MiB of "+dev+"'s backing file "+img) ||
		!strings.Contains(ue.Msg, "fill it first (clyde block --filename "+dev+" --rw write") || !strings.Contains(ue.Msg, "--allow-sparse") {
		t.Fatalf("read of %s over a sparse image: %v, want a refusal naming its backing file and how to fill it", dev, err)
	}
	read.AllowSparse = true
	if res, err := Run(context.Background(), read); err != nil || !strings.Contains(strings.Join(res.Notes, "\n"), "--allow-sparse") {
		t.Fatalf("--allow-sparse: %v, want it measured with a note", err)
	}
	w := NewJob(dev)
	w.RW, w.BlockSizes, w.DestroyData, w.TimeBased, w.Runtime = Write, []int64{1 << 20}, true, false, 0
	if _, err := Run(context.Background(), w); err != nil {
		t.Fatalf("a write of the whole device: %v", err)
	}
	if res, err := Run(context.Background(), deviceRead(dev)); err != nil || strings.Contains(strings.Join(res.Notes, "\n"), "never written") {
		t.Fatalf("read of the filled device: %v", err)
	}
	// Punch a hole in the image's second half: a read is refused again,
	// for what the device shows.
	f, err := os.OpenFile(img, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 4<<20, 4<<20); err != nil {
		f.Close()
		clydetest.Skipf(t, "cannot punch a hole in %s: %v", img, err)
	}
	f.Close()
	if _, err := Run(context.Background(), deviceRead(dev)); !asUsage(err, &ue) || !strings.Contains(ue.Msg, "4.0 MiB of the 8.0 MiB") {
		t.Errorf("read after a hole was punched: %v, want 4 MiB of holes", err)
	}
}

// TestReadOfSparseLoopPartition: a partition's stretch of the image is
// what counts: holes before it do not refuse it.
func TestReadOfSparseLoopPartition(t *testing.T) {
	mbr := make([]byte, 512)
	e := mbr[446:462]
	e[4] = 0x83
	binary.LittleEndian.PutUint32(e[8:], 2048)
	binary.LittleEndian.PutUint32(e[12:], 8<<20/512)
	mbr[510], mbr[511] = 0x55, 0xAA
	dev := loopDeviceWith(t, 16<<20, true, mbr)
	part := clydetest.PartitionNode(t, dev, 1)
	fillDevice(t, part)
	res, err := Run(context.Background(), deviceRead(part))
	if err != nil || strings.Contains(strings.Join(res.Notes, "\n"), "never written") {
		t.Fatalf("read of the filled partition %s of a sparse image: %v; want it read", part, err)
	}
	if _, err := Run(context.Background(), deviceRead(dev)); !result.IsUsage(err) || !strings.Contains(err.Error(), "holes") {
		t.Errorf("read of the whole device, around the partition sparse: %v, want a refusal", err)
	}
}
