//go:build linux

package clydetest

import (
	"os"
	"os/exec"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// DiskDir is a new directory on a disk filesystem (/var/tmp), removed
// when the test ends: an image there is cached by the host as a disk's
// data is, where t.TempDir may be on tmpfs (which never drops a page).
// The test skips where /var/tmp is not a disk filesystem.
func DiskDir(t testing.TB) string {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs("/var/tmp", &st); err != nil || uint32(st.Type) == unix.TMPFS_MAGIC || uint32(st.Type) == unix.RAMFS_MAGIC {
		t.Skipf("/var/tmp is not a disk filesystem (statfs: %v)", err)
	}
	dir, err := os.MkdirTemp("/var/tmp", "clyde-test")
	if err != nil {
		t.Skipf("/var/tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// MountExt4 makes an ext4 on dev and mounts it on a new directory,
// unmounted when the test ends; it skips without mkfs.ext4.
func MountExt4(t testing.TB, dev string) string {
	t.Helper()
	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		t.Skip("mkfs.ext4 not installed")
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", dev).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4 %s: %v: %s", dev, err, out)
	}
	dir, err := os.MkdirTemp("", "clyde-mnt")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", dev, dir).CombinedOutput(); err != nil {
		os.Remove(dir)
		t.Fatalf("mount %s: %v: %s", dev, err, out)
	}
	t.Cleanup(func() {
		_ = exec.Command("umount", dir).Run()
		os.Remove(dir)
	})
	return dir
}

// Resident counts the bytes of [off, off+n) of the file at path that are
// in the page cache, with mincore(2) on a mapping of it: the tests' own
// count, apart from clyde's (osio asks cachestat first).
func Resident(t testing.TB, path string, off, n int64) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	size := off + n - start
	if size <= 0 {
		return 0
	}
	m, err := unix.Mmap(int(f.Fd()), start, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatalf("mmap %s: %v", path, err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (size+page-1)/page)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(size), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore %s: %v", path, e)
	}
	var resident int64
	for _, v := range vec {
		if v&1 != 0 {
			resident += page
		}
	}
	return resident
}

// Extent is where a stretch of a file's data lies on its filesystem's
// device.
type Extent struct{ Physical, Length int64 }

// Extents lists where the data of the file at path lies on its
// filesystem's device (FIEMAP, synced first): for a filesystem on a loop
// device at offset 0, where it lies in the backing file.
func Extents(t testing.TB, path string) []Extent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const (
		fsIocFiemap = 0xC020660B
		flagSync    = 0x1
		extentLast  = 0x1
		batch       = 32
	)
	type extent struct {
		Logical, Physical, Length uint64
		_                         [2]uint64
		Flags                     uint32
		_                         [3]uint32
	}
	var req struct {
		Start, Length                     uint64
		Flags, MappedExtents, ExtentCount uint32
		_                                 uint32
		Extents                           [batch]extent
	}
	var out []Extent
	for start := uint64(0); ; {
		req.Start, req.Length, req.Flags, req.ExtentCount = start, ^uint64(0)-start, flagSync, batch
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), fsIocFiemap, uintptr(unsafe.Pointer(&req))); e != 0 {
			t.Skipf("FIEMAP %s: %v", path, e)
		}
		if req.MappedExtents == 0 {
			return out
		}
		for _, x := range req.Extents[:req.MappedExtents] {
			out = append(out, Extent{int64(x.Physical), int64(x.Length)})
			if x.Flags&extentLast != 0 {
				return out
			}
		}
		last := req.Extents[req.MappedExtents-1]
		start = last.Logical + last.Length
	}
}

// ResidentIn sums Resident over extents in the file at path, each moved
// by base (where the device the extents are on begins in the file).
func ResidentIn(t testing.TB, path string, base int64, extents []Extent) int64 {
	t.Helper()
	var n int64
	for _, x := range extents {
		n += Resident(t, path, base+x.Physical, x.Length)
	}
	return n
}
