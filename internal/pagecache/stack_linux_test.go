//go:build linux

package pagecache

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

const fileBytes = 8 << 20

// writeAndEvict writes a file of fileBytes in dir, fsyncs it and drops
// its own pages as every read phase does (osio.EvictFile): what clyde
// did before its eviction followed the stack.
func writeAndEvict(t *testing.T, dir string) (string, result.CacheState) {
	t.Helper()
	path := filepath.Join(dir, "big")
	buf := make([]byte, fileBytes)
	for i := range buf {
		buf[i] = byte(i*7 + i>>12)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
	f.Close()
	d, err := osio.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st := osio.EvictFile(d, osio.Name("big"), fileBytes)
	if !st.Cold {
		t.Fatalf("the file's own pages were not dropped: %+v", st)
	}
	return path, st
}

// TestDropFollowsTheLoopToItsBackingFile: an ext4 on a loop device
// without direct I/O, over an image on a disk filesystem. Dropping the
// file's pages leaves its data in the host's cache of the image (the
// read would come from memory); the stack's drop takes it out, so the
// image's pages where the file lies are gone, and the level says so.
func TestDropFollowsTheLoopToItsBackingFile(t *testing.T) {
	dev, img := clydetest.LoopDeviceIn(t, clydetest.DiskDir(t), 64<<20)
	mnt := clydetest.MountExt4(t, dev)
	path, st := writeAndEvict(t, mnt)
	region := clydetest.Extents(t, path)
	if before := clydetest.ResidentIn(t, img, 0, region); before < fileBytes*9/10 {
		t.Fatalf("after the file's own eviction %d of its %d bytes are in the host's cache of %s; the case needs them there", before, fileBytes, img)
	}
	s := StackOf(mnt, result.Filesystem{Type: "ext4", Source: dev})
	defer s.Close()
	if len(s.levels) != 1 {
		t.Fatalf("stack %+v, want the one loop device %s", s.levels, dev)
	}
	d := s.Drop(fileBytes)
	if after := clydetest.ResidentIn(t, img, 0, region); after*100 >= fileBytes {
		t.Errorf("after the stack's drop %d bytes of the file are still in the host's cache of %s", after, img)
	}
	if len(d.Stack) != 1 {
		t.Fatalf("dropped %+v", d.Stack)
	}
	l := d.Stack[0]
	if l.Loop != dev || l.Backing != img || !l.Evicted || !l.Cold || l.ResidentBytes < 0 || l.ResidentBytes*100 >= fileBytes || l.Bytes != 64<<20 || !d.Cold {
		t.Errorf("level %+v (cold %v), want %s over %s evicted and cold over its 64 MiB", l, d.Cold, dev, img)
	}
	d.Apply(&st)
	if !st.Cold || len(st.Stack) != 1 || Explain(st) != "" {
		t.Errorf("applied: %+v, explained %q", st, Explain(st))
	}
}

// TestDirectIOLoopIsNotDropped: a loop device with direct I/O reads past
// the host's cache, so nothing of its image is dropped (pages the host
// holds for another reason stay) and the level is cold.
func TestDirectIOLoopIsNotDropped(t *testing.T) {
	dev, img := clydetest.LoopDeviceIn(t, clydetest.DiskDir(t), 32<<20, "--direct-io=on")
	mnt := clydetest.MountExt4(t, dev)
	writeAndEvict(t, mnt)
	if _, err := os.ReadFile(img); err != nil { // the host caches the image for this read
		t.Fatal(err)
	}
	warm := clydetest.Resident(t, img, 0, 32<<20)
	if warm < 16<<20 {
		t.Fatalf("reading %s cached only %d bytes of it", img, warm)
	}
	s := StackOf(mnt, result.Filesystem{Type: "ext4", Source: dev})
	defer s.Close()
	d := s.Drop(fileBytes)
	if len(d.Stack) != 1 || !d.Stack[0].DirectIO || d.Stack[0].Evicted || !d.Cold || s.levels[0].f.Valid() {
		t.Errorf("dropped %+v (cold %v, backing open %v): want one level with direct I/O, not evicted, not opened, cold", d.Stack, d.Cold, s.levels[0].f.Valid())
	}
	if after := clydetest.Resident(t, img, 0, 32<<20); after*10 < warm*9 {
		t.Errorf("%s: %d bytes cached before, %d after: something dropped a loop device's image that has direct I/O", img, warm, after)
	}
}

// TestImageOnTmpfsIsCached: a loop device over an image on tmpfs reads
// from memory whatever is dropped: the level is cached, not cold, and
// says why.
func TestImageOnTmpfsIsCached(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "clyde-test")
	if err != nil {
		clydetest.Skipf(t, "/dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	for _, args := range [][]string{nil, {"--direct-io=on"}} {
		t.Run(strings.Join(append([]string{"loop"}, args...), " "), func(t *testing.T) {
			dev, img := clydetest.LoopDeviceIn(t, shm, 32<<20, args...)
			mnt := clydetest.MountExt4(t, dev)
			_, st := writeAndEvict(t, mnt)
			s := StackOf(mnt, result.Filesystem{Type: "ext4", Source: dev})
			defer s.Close()
			s.Drop(fileBytes).Apply(&st)
			if st.Cold || len(st.Stack) != 1 || st.Stack[0].Cold || !strings.HasPrefix(st.Stack[0].Cached, "tmpfs") || st.Stack[0].Evicted {
				t.Fatalf("state %+v, want the level cached on tmpfs and the read not cold", st)
			}
			if why := Explain(st); !strings.Contains(why, dev) || !strings.Contains(why, img) || !strings.Contains(why, "tmpfs") {
				t.Errorf("explained %q, want the loop device, its image and tmpfs named", why)
			}
		})
	}
}

// TestTwoDeepStack: an ext4 in an image on an ext4 in an image on disk,
// each through a loop device without direct I/O. The data is cached
// twice, once per image; the drop follows both, nearest first.
func TestTwoDeepStack(t *testing.T) {
	outerDev, outerImg := clydetest.LoopDeviceIn(t, clydetest.DiskDir(t), 96<<20)
	outer := clydetest.MountExt4(t, outerDev)
	innerDev, innerImg := clydetest.LoopDeviceIn(t, outer, 48<<20)
	inner := clydetest.MountExt4(t, innerDev)
	path, _ := writeAndEvict(t, inner)
	fileRegion := clydetest.Extents(t, path)
	innerRegion := clydetest.Extents(t, innerImg)
	count := func() (int64, int64) {
		return clydetest.ResidentIn(t, innerImg, 0, fileRegion), clydetest.ResidentIn(t, outerImg, 0, innerRegion)
	}
	if in, out := count(); in < fileBytes/2 || out < fileBytes/2 {
		t.Fatalf("after the file's eviction %d bytes are cached in %s and %d in %s; the case needs most of the file's data in both", in, innerImg, out, outerImg)
	}
	s := StackOf(inner, result.Filesystem{Type: "ext4", Source: innerDev})
	defer s.Close()
	d := s.Drop(fileBytes)
	if len(d.Stack) != 2 || d.Stack[0].Loop != innerDev || d.Stack[1].Loop != outerDev || !d.Cold {
		t.Fatalf("levels %+v, want %s then %s, both cold", d.Stack, innerDev, outerDev)
	}
	if in, out := count(); in*100 >= fileBytes || out*100 >= fileBytes {
		t.Errorf("after the drop %d bytes are still cached in %s and %d in %s", in, innerImg, out, outerImg)
	}
}

// TestMappedBackingStaysCached: pages of the image that another program
// holds mapped survive the drop (posix_fadvise drops only unmapped
// pages), and the level counts them: not cold.
func TestMappedBackingStaysCached(t *testing.T) {
	dev, img := clydetest.LoopDeviceIn(t, clydetest.DiskDir(t), 32<<20)
	mnt := clydetest.MountExt4(t, dev)
	writeAndEvict(t, mnt)
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, 32<<20, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	sum := 0
	for i := 0; i < len(m); i += os.Getpagesize() {
		sum += int(m[i]) // fault every page into the mapping
	}
	if held := clydetest.Resident(t, img, 0, 32<<20); held < 32<<20 || sum < 0 {
		t.Fatalf("the mapping holds %d bytes of %s in memory, want all", held, img)
	}
	s := StackOf(mnt, result.Filesystem{Type: "ext4", Source: dev})
	defer s.Close()
	d := s.Drop(fileBytes)
	if len(d.Stack) != 1 || d.Cold || d.Stack[0].Cold || d.Stack[0].ResidentBytes < fileBytes {
		t.Errorf("levels %+v (cold %v); want %s's level not cold, the mapped pages counted", d.Stack, d.Cold, img)
	}
}

// TestReplacedBackingIsNotDropped: the path the kernel shows for a
// loop device's backing file can lead elsewhere later (here a tmpfs
// mounted over its directory, holding a file of that name): that file is
// not what the loop device reads, so it is neither taken for the backing
// nor dropped, and the level says why.
func TestReplacedBackingIsNotDropped(t *testing.T) {
	dir := clydetest.DiskDir(t)
	dev, img := clydetest.LoopDeviceIn(t, dir, 32<<20)
	mnt := clydetest.MountExt4(t, dev)
	if out, err := exec.Command("mount", "-t", "tmpfs", "tmpfs", dir).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "mount tmpfs on %s: %v: %s", dir, err, out)
	}
	defer exec.Command("umount", dir).Run()
	if err := os.WriteFile(img, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StackOf(mnt, result.Filesystem{Type: "ext4", Source: dev})
	defer s.Close()
	d := s.Drop(fileBytes)
	if len(d.Stack) != 1 || d.Cold || !strings.Contains(d.Stack[0].Error, "no longer what "+dev+" reads") || d.Stack[0].Evicted || d.Stack[0].Cached != "" {
		t.Errorf("levels %+v; want %s's level refused as no longer its backing", d.Stack, dev)
	}
}
