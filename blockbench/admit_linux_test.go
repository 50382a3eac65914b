//go:build linux

package blockbench

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/runlock"
	"github.com/clydebench/clyde/result"
)

// The cases of issue 20's first section, reproduced for real on loop
// devices: each write goes through Run with --destroy-data, as the
// reproduction did, and the filesystem is checked afterwards.

// image makes a sparse file of size bytes in a fresh directory.
func image(t *testing.T, name string, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "loop devices need root")
	}
	if _, err := exec.LookPath("losetup"); err != nil {
		clydetest.Skip(t, "losetup not installed")
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	return path
}

// attach binds a new loop device to backing (an image or another loop
// device) until the test ends.
func attach(t *testing.T, backing string) string {
	t.Helper()
	out, err := exec.Command("losetup", "--find", "--show", backing).CombinedOutput()
	if err != nil {
		clydetest.Skipf(t, "losetup failed, no loop devices here: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("losetup", "--detach", dev).Run() })
	return dev
}

// mountAt mounts dev (with options, may be empty) on a new directory until
// the test ends, and returns a function that unmounts it early.
func mountAt(t *testing.T, dev string, options ...string) func() {
	t.Helper()
	dir := t.TempDir()
	run(t, "mount", append(append(options, dev), dir)...)
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return func() { run(t, "umount", dir) }
}

// refusedChain runs a destroying write on dev and returns the refusal's
// chain, failing when the write was not refused.
func refusedChain(t *testing.T, dev string) string {
	t.Helper()
	re := refusal(t, writeJob(dev, true))
	if re.Allow != "" {
		t.Errorf("a target in use was refused with a flag that allows it: %v", re)
	}
	return re.Found
}

func wantChain(t *testing.T, found string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(found, p) {
			t.Errorf("chain %q does not name %q", found, p)
		}
	}
}

// fsckClean runs a read-only check that must find the filesystem intact.
func fsckClean(t *testing.T, name string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		clydetest.Skipf(t, "%s not installed", name)
	}
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Errorf("%s %v after the refused write: %v: %s", name, args, err, out)
	}
}

// TestAdmitLoopOverLoop is case 1: a loop device stacked on the loop device
// of a mounted ext4, written either way round.
func TestAdmitLoopOverLoop(t *testing.T) {
	t.Run("write the upper, the lower mounted", func(t *testing.T) {
		img := image(t, "ext.img", 32<<20)
		run(t, "mkfs.ext4", "-q", "-F", img)
		l1 := attach(t, img)
		umount := mountAt(t, l1)
		l2 := attach(t, l1)
		wantChain(t, refusedChain(t, l2), l2+" -> "+l1+" (its backing device) -> mounted on ")
		umount()
		fsckClean(t, "e2fsck", "-fn", img)
	})
	t.Run("write the lower, the upper mounted", func(t *testing.T) {
		img := image(t, "ext.img", 32<<20)
		run(t, "mkfs.ext4", "-q", "-F", img)
		l1 := attach(t, img)
		l2 := attach(t, l1)
		umount := mountAt(t, l2)
		wantChain(t, refusedChain(t, l1), l1+" -> "+l2+" (loop device over it) -> mounted on ")
		umount()
		fsckClean(t, "e2fsck", "-fn", img)
	})
}

// TestAdmitLowerHeldExclusively: the device under a loop device claimed
// exclusively with nothing else to show for it (here by this very process,
// which the scan of other processes' descriptors passes over) refuses the
// write through the loop device over it.
func TestAdmitLowerHeldExclusively(t *testing.T) {
	img := image(t, "ext.img", 32<<20)
	run(t, "mkfs.ext4", "-q", "-F", img)
	l1 := attach(t, img)
	l2 := attach(t, l1)
	f, err := os.OpenFile(l1, os.O_RDONLY|unix.O_EXCL, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wantChain(t, refusedChain(t, l2), l2+" -> "+l1+" (its backing device) -> held open exclusively")
	f.Close()
	fsckClean(t, "e2fsck", "-fn", img)
}

// TestAdmitBtrfsMember is case 2: btrfs raid1 over two loop images, one
// loop mounted (mountinfo names only that one), written through a second
// loop device over the other image.
func TestAdmitBtrfsMember(t *testing.T) {
	if _, err := exec.LookPath("mkfs.btrfs"); err != nil {
		clydetest.Skip(t, "btrfs-progs not installed")
	}
	imgA, imgB := image(t, "a.img", 128<<20), image(t, "b.img", 128<<20)
	run(t, "mkfs.btrfs", "-q", "-f", "-d", "raid1", "-m", "raid1", imgA, imgB)
	la, lb := attach(t, imgA), attach(t, imgB)
	t.Cleanup(func() { _ = exec.Command("btrfs", "device", "scan", "--forget", la, lb).Run() })
	umount := mountAt(t, la, "-t", "btrfs", "-o", "device="+lb)
	lc := attach(t, imgB)
	wantChain(t, refusedChain(t, lc), lc+" -> "+imgB+" (its backing file) -> "+lb+" (loop device over it) -> a device of the btrfs filesystem")
	// The member itself, and its image as a file.
	wantChain(t, refusedChain(t, lb), lb+" -> a device of the btrfs filesystem")
	wantChain(t, refusedChain(t, imgB), lb+" (loop device over it) -> a device of the btrfs filesystem")
	umount()
	fsckClean(t, "btrfs", "check", "--readonly", la)
}

// TestAdmitErofsImage is case 3 for real where the kernel mounts an erofs
// image straight from its file. This kernel's erofs has no file-backed
// mounts (mount returns ENOENT for a regular file): the rule is then tested
// by internal/admit's TestFileWriteRules on a fake mountinfo.
func TestAdmitErofsImage(t *testing.T) {
	if _, err := exec.LookPath("mkfs.erofs"); err != nil {
		clydetest.Skip(t, "erofs-utils not installed")
	}
	img := image(t, "ero.img", 0)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "f"), []byte("erofs content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, "mkfs.erofs", img, src)
	dir := t.TempDir()
	// mount(2) itself: mount(8) would bind a loop device to the image.
	mountFile := func() error { return unix.Mount(img, dir, "erofs", unix.MS_RDONLY, "") }
	if err := mountFile(); err != nil {
		clydetest.Skipf(t, "this kernel does not mount erofs straight from a file (mount(2): %v); the rule is tested on a fake mountinfo in internal/admit", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, 0) })
	j := countJob(img, Write, 4096, 4096)
	j.DestroyData = true
	re := refusal(t, j)
	wantChain(t, re.Found, img+" -> mounted on "+dir+" (erofs, straight from the file)")
	if err := unix.Unmount(dir, 0); err != nil {
		t.Fatal(err)
	}
	if err := mountFile(); err != nil {
		t.Fatalf("the image no longer mounts: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(b) != "erofs content\n" {
		t.Errorf("the image no longer reads as it was: %q, %v", b, err)
	}
}

// TestAdmitPartitionedLoopImage: a second loop device over the image of a
// loop disk whose partition is mounted (partx adds the partition where the
// kernel does not scan the table).
func TestAdmitPartitionedLoopImage(t *testing.T) {
	img := image(t, "disk.img", 64<<20)
	mbr := make([]byte, 512)
	e := mbr[446:462]
	e[4] = 0x83
	binary.LittleEndian.PutUint32(e[8:], 2048)
	binary.LittleEndian.PutUint32(e[12:], 32<<20/512)
	mbr[510], mbr[511] = 0x55, 0xAA
	f, err := os.OpenFile(img, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(mbr, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	l1 := attach(t, img)
	part := clydetest.PartitionNode(t, l1, 1)
	run(t, "mkfs.ext4", "-q", "-F", part)
	umount := mountAt(t, part)
	l2 := attach(t, img)
	wantChain(t, refusedChain(t, l2), l2+" -> "+img+" (its backing file) -> "+l1+" (loop device over it) -> ", "p1 (its partition) -> mounted on ")
	umount()
	fsckClean(t, "e2fsck", "-fn", part)
}

// TestAdmitSwapFile: a swap file, and a loop device over it.
func TestAdmitSwapFile(t *testing.T) {
	img := image(t, "swap.img", 16<<20)
	f, err := os.OpenFile(img, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(make([]byte, 16<<20)) // a swap file may have no holes
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	run(t, "mkswap", "-q", img)
	if out, err := exec.Command("swapon", img).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "swapon of a file not possible here: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("swapoff", img).Run() })
	j := countJob(img, Write, 4096, 4096)
	j.DestroyData = true
	wantChain(t, refusal(t, j).Found, img+" -> used as swap")
	l := attach(t, img)
	wantChain(t, refusedChain(t, l), l+" -> "+img+" (its backing file) -> used as swap")
}

// TestNewFileInDev: a mistyped device name is not created as a file in
// /dev (devtmpfs), even for a write that would need no --destroy-data.
func TestNewFileInDev(t *testing.T) {
	for _, name := range []string{"/dev/sdzz9", "/dev/loop999"} {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Lstat(name); err == nil {
				clydetest.Skipf(t, "%s exists here", name)
			}
			_, err := Run(context.Background(), countJob(name, Write, 1<<20, 4096))
			if !result.IsUsage(err) || !strings.Contains(err.Error(), "does not create files in /dev") {
				t.Errorf("err = %v, want a usage error refusing a file in /dev", err)
			}
			if _, err := os.Lstat(name); err == nil {
				os.Remove(name)
				t.Errorf("%s was created", name)
			}
		})
	}
}

// TestNewFilePreflight: a new test file that does not fit is refused
// before anything is created, for block and for a preset's own file in a
// private directory (CrystalDiskMark's).
func TestNewFilePreflight(t *testing.T) {
	const huge = 1 << 50 // 1 PiB: no test machine has it free
	for _, tc := range []struct {
		name string
		plan func(dir string) Plan
	}{
		{"block", func(dir string) Plan {
			j := countJob(filepath.Join(dir, "f"), Write, huge, 4096)
			return j.Plan()
		}},
		{"a private directory's file", func(dir string) Plan { return privatePlan(dir, huge, true) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := RunPlan(context.Background(), tc.plan(dir))
			if err == nil || !strings.Contains(err.Error(), "preflight: the test file needs") {
				t.Fatalf("err = %v, want the preflight refusal", err)
			}
			if got := entries(t, dir); len(got) != 0 {
				t.Errorf("a refused run left %v", got)
			}
		})
	}
}

// TestNewFileOnSmallTmpfs is the case: a 1 GiB file on a 32 MiB
// tmpfs filled it; it is now refused before anything is created.
func TestNewFileOnSmallTmpfs(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	run(t, "mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", dir)
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	_, err := Run(context.Background(), countJob(filepath.Join(dir, "f"), Write, 1<<30, 1<<20))
	if err == nil || !strings.Contains(err.Error(), "preflight: the test file needs 1.0 GiB in "+dir) {
		t.Fatalf("err = %v, want the preflight refusal", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("a refused run left %v", got)
	}
}

// TestPrivateDirectoryRunLock: a plan's private directory (CDM's, in the
// directory it is given) takes the run lock fs and copy take there, so it
// does not run beside another run in it.
func TestPrivateDirectoryRunLock(t *testing.T) {
	dir := t.TempDir()
	d, err := osio.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	lock, err := runlock.Dir(d, dir, nil)
	if errors.Is(err, result.ErrNotSupported) {
		clydetest.Skipf(t, "no run locks here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	_, err = RunPlan(context.Background(), privatePlan(dir, 1<<20, true))
	var held *runlock.HeldError
	if !errors.As(err, &held) {
		t.Fatalf("err = %v, want the run lock held", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("a run that did not get the lock left %v", got)
	}
}
