//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

// fsKind names a filesystem the suite can make.
type fsKind string

const (
	btrfs fsKind = "btrfs"
	ext4  fsKind = "ext4"
	xfs   fsKind = "xfs"
	ntfs  fsKind = "ntfs-3g"
	tmpfs fsKind = "tmpfs"
)

// kernelType is the type /proc/self/mountinfo shows, which is what clyde
// records: ntfs-3g is a FUSE filesystem on a block device, so "fuseblk".
func (k fsKind) kernelType() string {
	if k == ntfs {
		return "fuseblk"
	}
	return string(k)
}

// mkfsTool is the program that makes the filesystem and the Debian package
// that has it, for the skip message.
func (k fsKind) mkfsTool() (prog, pkg string) {
	switch k {
	case btrfs:
		return "mkfs.btrfs", "btrfs-progs"
	case ext4:
		return "mkfs.ext4", "e2fsprogs"
	case xfs:
		return "mkfs.xfs", "xfsprogs"
	case ntfs:
		return "mkntfs", "ntfs-3g"
	}
	return "mount", "mount"
}

// testFS is one mounted filesystem, unmounted and detached by t.Cleanup.
type testFS struct {
	kind fsKind
	dir  string // mount point
	dev  string // loop device; empty for tmpfs
}

// needRoot skips the test where the suite cannot make filesystems.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "integration tests need root: they make loop devices and mount filesystems")
	}
}

// needTool skips the test when prog is not installed.
func needTool(t *testing.T, prog, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(prog); err != nil {
		clydetest.Skipf(t, "%s not installed (apt-get install %s)", prog, pkg)
	}
}

// sh runs a command and fails the test when it fails or outlives the
// test's deadline.
func sh(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx := clydetest.Context(t)
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	clydetest.Expired(t, ctx, name+" "+strings.Join(args, " "))
	if err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// newImage makes a sparse image file of sizeMiB.
func newImage(t *testing.T, sizeMiB int) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "disk.img")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(sizeMiB) << 20); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return img
}

// attachLoop attaches img to a free loop device; the device is detached
// when the test ends. Where losetup cannot (no loop devices: a container)
// the test skips with the reason, which in CI is a failure.
func attachLoop(t *testing.T, img string, partscan bool) string {
	t.Helper()
	needTool(t, "losetup", "util-linux")
	args := []string{"--find", "--show"}
	if partscan {
		args = append(args, "--partscan")
	}
	out, err := exec.Command("losetup", append(args, img)...).CombinedOutput()
	if err != nil {
		clydetest.Skipf(t, "no loop devices here: losetup: %v: %s", err, strings.TrimSpace(string(out)))
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "--detach", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup --detach %s: %v: %s", dev, err, out)
		}
	})
	return dev
}

// mountPoint is a fresh directory that other users can traverse, so tests
// that drop root can reach the filesystem.
func mountPoint(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "clyde-mnt-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	return dir
}

// mount mounts and registers the unmount; it never leaves a mount behind:
// a busy filesystem is retried, then lazily unmounted and the test fails.
func mount(t *testing.T, dir string, args ...string) {
	t.Helper()
	sh(t, "mount", append(args, dir)...)
	t.Cleanup(func() { unmount(t, dir) })
}

func unmount(t *testing.T, dir string) {
	t.Helper()
	if !isMounted(t, dir) {
		return // unmounted by the test already
	}
	var out []byte
	var err error
	for range 50 {
		if out, err = exec.Command("umount", dir).CombinedOutput(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = exec.Command("umount", "--lazy", dir).Run()
	t.Errorf("umount %s: %v: %s (unmounted lazily)", dir, err, out)
}

// isMounted reports whether dir is a mount point, from /proc/self/mountinfo.
func isMounted(t *testing.T, dir string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == dir {
			return true
		}
	}
	return false
}

// makeFS makes and mounts a filesystem of kind in a fresh sizeMiB image (a
// size-limited tmpfs for tmpfs), or skips the test with the reason it cannot.
func makeFS(t *testing.T, kind fsKind, sizeMiB int, mountOpts ...string) *testFS {
	t.Helper()
	needRoot(t)
	prog, pkg := kind.mkfsTool()
	needTool(t, prog, pkg)
	fs := &testFS{kind: kind, dir: mountPoint(t)}
	opts := strings.Join(mountOpts, ",")
	if kind == tmpfs {
		o := "size=" + strconv.Itoa(sizeMiB) + "m"
		if opts != "" {
			o += "," + opts
		}
		mount(t, fs.dir, "-t", "tmpfs", "-o", o, "tmpfs")
		return fs
	}
	fs.dev = attachLoop(t, newImage(t, sizeMiB), false)
	switch kind {
	case btrfs:
		sh(t, "mkfs.btrfs", "-q", "-f", fs.dev)
	case ext4:
		// -m 0: no blocks reserved for root, so ENOSPC comes at the same
		// point for clyde (root) and for the ballast.
		sh(t, "mkfs.ext4", "-q", "-F", "-m", "0", fs.dev)
	case xfs:
		sh(t, "mkfs.xfs", "-q", "-f", fs.dev)
	case ntfs:
		needTool(t, "ntfs-3g", "ntfs-3g")
		if _, err := os.Stat("/dev/fuse"); err != nil {
			clydetest.Skip(t, "ntfs-3g needs FUSE and /dev/fuse is missing")
		}
		sh(t, "mkntfs", "-Q", "-q", "-F", fs.dev)
	}
	args := []string{}
	if kind == ntfs {
		args = append(args, "-t", "ntfs-3g")
	}
	if opts != "" {
		args = append(args, "-o", opts)
	}
	mount(t, fs.dir, append(args, fs.dev)...)
	return fs
}

// remount changes the mount options of a mounted filesystem.
func (fs *testFS) remount(t *testing.T, opts string) {
	t.Helper()
	sh(t, "mount", "-o", "remount,"+opts, fs.dir)
}
