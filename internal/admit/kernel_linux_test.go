//go:build linux

package admit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
)

// The tests of issue 31's data-loss items, each on the real kernel: loop
// devices, mount namespaces, overlayfs, io_uring, erofs mounted straight
// from its image. Each asks Write with --destroy-data, as the red team's
// commands did, and wants one line naming the holder.

func needRoot(t *testing.T, tools ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "needs root")
	}
	for _, tool := range append(tools, "losetup") {
		if _, err := exec.LookPath(tool); err != nil {
			clydetest.Skipf(t, "%s not installed", tool)
		}
	}
}

func sh(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}

// loopOver binds a loop device to backing until the test ends.
func loopOver(t *testing.T, backing string) string {
	t.Helper()
	out, err := exec.Command("losetup", "--find", "--show", backing).CombinedOutput()
	if err != nil {
		clydetest.Skipf(t, "losetup: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("losetup", "--detach", dev).Run() })
	return dev
}

// mountHere mounts with mount(8) arguments on a new directory until the
// test ends, and returns the directory.
func mountHere(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	sh(t, "mount", append(args, dir)...)
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// erofsImage makes an erofs image of one small file (with uuid, "" for a
// random one) in a new directory.
func erofsImage(t *testing.T, uuid string) string {
	t.Helper()
	needRoot(t, "mkfs.erofs")
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "f"), []byte("erofs content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(t.TempDir(), "ero.img")
	args := []string{"--quiet"}
	if uuid != "" {
		args = append(args, "-U", uuid)
	}
	sh(t, "mkfs.erofs", append(args, img, src)...)
	return img
}

// mountErofsFile mounts img with mount(2) (mount(8) would bind a loop
// device to it) on a new directory in this process's namespace until the
// test ends, skipping where the kernel has no file-backed erofs.
func mountErofsFile(t *testing.T, img string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount(img, dir, "erofs", unix.MS_RDONLY, ""); err != nil {
		clydetest.Skipf(t, "this kernel does not mount erofs straight from a file: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// refused asks Write to overwrite path (--destroy-data) and returns the
// refusal's Found, failing when the write is allowed or the refusal is not
// one line that no flag lifts.
func refused(t *testing.T, path string) string {
	t.Helper()
	_, f, e := openTarget(t, path)
	guard, err := Write(path, path, f, e, true)
	if err == nil {
		guard.Close()
		t.Fatalf("writing %s was allowed", path)
	}
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("writing %s: %v, want a refusal", path, err)
	}
	if re.Allow != "" || strings.Contains(err.Error(), "\n") {
		t.Errorf("refusal is not one line that no flag lifts: %q", err)
	}
	return re.Found
}

// allowed asks Write to overwrite path (--destroy-data), failing when it
// is refused.
func allowed(t *testing.T, path string) {
	t.Helper()
	_, f, e := openTarget(t, path)
	guard, err := Write(path, path, f, e, true)
	if err != nil {
		t.Fatalf("writing %s refused: %v", path, err)
	}
	guard.Close()
}

func wantFound(t *testing.T, found string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(found, p) {
			t.Errorf("refusal %q does not say %q", found, p)
		}
	}
}

// TestKernelMountInAnotherNamespace is item 1: erofs mounted straight from
// its image inside another mount namespace (unshare -m); only clyde's own
// mount table used to be read.
func TestKernelMountInAnotherNamespace(t *testing.T) {
	img := erofsImage(t, "")
	dir := t.TempDir()
	pid := startHolder(t, holderOptions{ownMountNS: true}, "mount-erofs", img, dir)
	wantFound(t, refused(t, img), img+" -> mounted on "+dir+" (erofs, straight from the file) in another mount namespace (pid "+fmt.Sprint(pid)+"'s)")
}

// TestKernelMountedImageMoved is item 2: the image of a file-backed mount
// renamed after mounting, its directory renamed, or mounted by a relative
// path. mountinfo keeps the string given at mount time; the kernel keeps
// the superblock's UUID, and the image open. A copy of the image (the same
// UUID, held by nothing) is not the mounted file.
func TestKernelMountedImageMoved(t *testing.T) {
	const byUUID = "(erofs, straight from this file, whose superblock UUID "
	t.Run("image renamed", func(t *testing.T) {
		img := erofsImage(t, "")
		dir := mountErofsFile(t, img)
		moved := img + ".moved"
		if err := os.Rename(img, moved); err != nil {
			t.Fatal(err)
		}
		wantFound(t, refused(t, moved), moved+" -> mounted on "+dir+" "+byUUID)
	})
	t.Run("directory renamed", func(t *testing.T) {
		img := erofsImage(t, "")
		dir := mountErofsFile(t, img)
		moved := filepath.Dir(img) + ".moved"
		if err := os.Rename(filepath.Dir(img), moved); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(moved) })
		wantFound(t, refused(t, filepath.Join(moved, "ero.img")), "mounted on "+dir+" "+byUUID)
	})
	t.Run("relative path", func(t *testing.T) {
		img := erofsImage(t, "")
		dir := t.TempDir()
		pid := startHolder(t, holderOptions{ownMountNS: true, dir: filepath.Dir(img)}, "mount-erofs", "ero.img", dir)
		wantFound(t, refused(t, img), "mounted on "+dir+" "+byUUID, fmt.Sprintf("in another mount namespace (pid %d's)", pid))
	})
	t.Run("a copy of a mounted image", func(t *testing.T) {
		img := erofsImage(t, "")
		mountErofsFile(t, img)
		b, err := os.ReadFile(img)
		if err != nil {
			t.Fatal(err)
		}
		cp := filepath.Join(t.TempDir(), "copy.img")
		if err := os.WriteFile(cp, b, 0o600); err != nil {
			t.Fatal(err)
		}
		allowed(t, cp)
	})
	t.Run("no UUID: only the kernel's lease tells", func(t *testing.T) {
		img := erofsImage(t, "00000000-0000-0000-0000-000000000000")
		mountErofsFile(t, img)
		moved := img + ".moved"
		if err := os.Rename(img, moved); err != nil {
			t.Fatal(err)
		}
		wantFound(t, refused(t, moved), moved+" -> held open by something no process, loop device, mount or swap clyde can see explains (the kernel refused clyde a write lease on it)")
	})
}

// overlayStack mounts an overlay of new lower, upper and work directories
// (by absolute paths, or relative ones given from their parent; lower
// filled by fill first, when not nil) and returns the merged and upper
// directories.
func overlayStack(t *testing.T, relative bool, fill ...func(lower string)) (merged, upper string) {
	t.Helper()
	base := t.TempDir()
	for _, d := range []string{"lower", "upper", "work"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range fill {
		f(filepath.Join(base, "lower"))
	}
	merged = t.TempDir()
	opts := fmt.Sprintf("lowerdir=%s/lower,upperdir=%s/upper,workdir=%s/work", base, base, base)
	if relative {
		opts = "lowerdir=lower,upperdir=upper,workdir=work"
	}
	cmd := exec.Command("mount", "-t", "overlay", "overlay", "-o", opts, merged)
	cmd.Dir = base
	if out, err := cmd.CombinedOutput(); err != nil {
		clydetest.Skipf(t, "no overlayfs here: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = unix.Unmount(merged, unix.MNT_DETACH) })
	return merged, filepath.Join(base, "upper")
}

// ext4Through makes a 32 MiB ext4 image at path (through whatever
// filesystem path is on).
func ext4Through(t *testing.T, path string) {
	t.Helper()
	needRoot(t, "mkfs.ext4")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 32<<20); err != nil {
		t.Fatal(err)
	}
	sh(t, "mkfs.ext4", "-q", "-F", path)
}

// TestKernelLoopThroughOverlay is item 3: a loop device set up over a file
// through overlayfs reports the overlay's device, never the upper file's,
// and a process that opened the file through the overlay shows the same.
// The real file is matched either way round.
func TestKernelLoopThroughOverlay(t *testing.T) {
	t.Run("loop over merged then the upper file written", func(t *testing.T) {
		merged, upper := overlayStack(t, false)
		ext4Through(t, filepath.Join(merged, "o.img"))
		l := loopOver(t, filepath.Join(merged, "o.img"))
		mnt := mountHere(t, l)
		wantFound(t, refused(t, filepath.Join(upper, "o.img")), " -> "+l+" (loop device over it) -> mounted on "+mnt+" (ext4)")
	})
	t.Run("loop over the upper file then merged written", func(t *testing.T) {
		merged, upper := overlayStack(t, false)
		ext4Through(t, filepath.Join(merged, "o.img"))
		l := loopOver(t, filepath.Join(upper, "o.img"))
		mnt := mountHere(t, l)
		wantFound(t, refused(t, filepath.Join(merged, "o.img")), " -> "+l+" (loop device over it) -> mounted on "+mnt+" (ext4)")
	})
	t.Run("layers given by relative paths", func(t *testing.T) {
		merged, upper := overlayStack(t, true)
		ext4Through(t, filepath.Join(merged, "o.img"))
		l := loopOver(t, filepath.Join(merged, "o.img"))
		mnt := mountHere(t, l)
		wantFound(t, refused(t, filepath.Join(upper, "o.img")), " -> "+l+" (loop device over it) -> mounted on "+mnt+" (ext4)")
	})
	t.Run("a process writing through the overlay", func(t *testing.T) {
		needRoot(t)
		merged, upper := overlayStack(t, false)
		if err := os.WriteFile(filepath.Join(merged, "db"), []byte("data"), 0o600); err != nil {
			t.Fatal(err)
		}
		pid := startHolder(t, holderOptions{}, "open-write", filepath.Join(merged, "db"))
		wantFound(t, refused(t, filepath.Join(upper, "db")), fmt.Sprintf("open for writing by process %d", pid))
	})
	// A file copied up from the lower layer goes on being reported by the
	// lower file's inode number; its data is in the upper file.
	fillLower := func(lower string) { ext4Through(t, filepath.Join(lower, "o.img")) }
	copyUp := func(t *testing.T, path string) {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	t.Run("copied up then a loop over the upper file and merged written", func(t *testing.T) {
		merged, upper := overlayStack(t, false, fillLower)
		copyUp(t, filepath.Join(merged, "o.img"))
		l := loopOver(t, filepath.Join(upper, "o.img"))
		mnt := mountHere(t, l)
		wantFound(t, refused(t, filepath.Join(merged, "o.img")), " -> "+l+" (loop device over it) -> mounted on "+mnt+" (ext4)")
	})
	t.Run("copied up then a process writing through the overlay", func(t *testing.T) {
		merged, upper := overlayStack(t, false, fillLower)
		pid := startHolder(t, holderOptions{}, "open-write", filepath.Join(merged, "o.img"))
		wantFound(t, refused(t, filepath.Join(upper, "o.img")), fmt.Sprintf("open for writing by process %d", pid))
	})
}

// TestKernelDeviceMapped is item 4: a block device mapped shared and
// writable by a process that then closed its descriptor. The map shows
// the device node's inode on devtmpfs, not the device's number.
func TestKernelDeviceMapped(t *testing.T) {
	dev, _ := clydetest.LoopDevice(t, 8<<20)
	pid := startHolder(t, holderOptions{}, "map-shared", dev)
	wantFound(t, refused(t, dev), fmt.Sprintf("%s -> mapped for writing (shared mmap of the device) by process %d", dev, pid))
}

// TestKernelIOUringFixedFile is item 5: a file, and a device, held only by
// an io_uring's registered-file table (the descriptor closed).
func TestKernelIOUringFixedFile(t *testing.T) {
	t.Run("file", func(t *testing.T) {
		needRoot(t)
		path, _, _ := userFile(t)
		pid := startHolder(t, holderOptions{}, "uring-fixed", path)
		wantFound(t, refused(t, path), fmt.Sprintf("%s -> registered in an io_uring (fixed file %s) by process %d", path, path, pid))
	})
	t.Run("device", func(t *testing.T) {
		dev, _ := clydetest.LoopDevice(t, 8<<20)
		pid := startHolder(t, holderOptions{}, "uring-fixed", dev)
		wantFound(t, refused(t, dev), fmt.Sprintf("registered in an io_uring (fixed file %s) by process %d", dev, pid))
	})
}

// TestKernelExtendedPartition is item 6: an msdos extended partition (the
// two sectors of its table the kernel exposes) while a logical partition
// in it is mounted. The primary partition beside it is not in use.
func TestKernelExtendedPartition(t *testing.T) {
	needRoot(t, "partx", "mkfs.ext4")
	dev, img := clydetest.LoopDevice(t, 64<<20)
	writeExtendedTable(t, img)
	// partx reads the table through the loop device: drop what its cache
	// may hold of the image from before (udev's probe on attach).
	sh(t, "blockdev", "--flushbufs", dev)
	logical := clydetest.PartitionNode(t, dev, 5)
	extended := clydetest.PartitionNode(t, dev, 2)
	primary := clydetest.PartitionNode(t, dev, 1)
	sh(t, "mkfs.ext4", "-q", "-F", logical)
	mnt := mountHere(t, logical)
	wantFound(t, refused(t, extended), "p5 (a logical partition in it, whose partition table it holds) -> mounted on "+mnt+" (ext4)")
	allowed(t, primary)
}

// writeExtendedTable writes a DOS table to img: partition 1 primary
// (sectors 2048-18431), partition 2 extended (18432 on, 100000 sectors)
// holding one logical partition (5, 40000 sectors from 20480).
func writeExtendedTable(t *testing.T, img string) {
	t.Helper()
	entry := func(b []byte, typ byte, start, size uint32) {
		b[4] = typ
		binary.LittleEndian.PutUint32(b[8:], start)
		binary.LittleEndian.PutUint32(b[12:], size)
	}
	mbr, ebr := make([]byte, 512), make([]byte, 512)
	entry(mbr[446:], 0x83, 2048, 16384)
	entry(mbr[462:], 0x05, 18432, 100000)
	entry(ebr[446:], 0x83, 2048, 40000) // relative to the EBR
	for _, b := range [][]byte{mbr, ebr} {
		b[510], b[511] = 0x55, 0xAA
	}
	f, err := os.OpenFile(img, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(mbr, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(ebr, 18432*512); err != nil {
		t.Fatal(err)
	}
}
