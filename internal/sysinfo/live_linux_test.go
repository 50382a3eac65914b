//go:build linux

package sysinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
)

func TestFilesystemOfDevShm(t *testing.T) {
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		clydetest.Skip(t, "/dev/shm is not a tmpfs on this machine")
	}
	fs, err := FilesystemOf("/dev/shm")
	if err != nil {
		t.Fatal(err)
	}
	if fs.Type != "tmpfs" || fs.MountPoint != "/dev/shm" || fs.Path != "/dev/shm" {
		t.Errorf("FilesystemOf(/dev/shm) = %+v, want tmpfs mounted at /dev/shm", fs)
	}
	if fs.DeviceModel != "" || fs.DeviceSerial != "" {
		t.Errorf("tmpfs has a device: %+v", fs)
	}

	// A symlink is followed to the filesystem it points into.
	link := filepath.Join(t.TempDir(), "shm")
	if err := os.Symlink("/dev/shm", link); err != nil {
		t.Fatal(err)
	}
	viaLink, err := FilesystemOf(link)
	if err != nil {
		t.Fatal(err)
	}
	if viaLink.Type != "tmpfs" || viaLink.Path != "/dev/shm" {
		t.Errorf("FilesystemOf(symlink to /dev/shm) = %+v, want tmpfs at /dev/shm", viaLink)
	}
}

func TestFilesystemOfTempDir(t *testing.T) {
	dir := t.TempDir()
	fs, err := FilesystemOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Type == "" || fs.MountPoint == "" || fs.MountOptions == "" {
		t.Errorf("FilesystemOf(%s) = %+v, want type, mount point and options", dir, fs)
	}
	if !pathWithin(fs.Path, fs.MountPoint) {
		t.Errorf("path %s is not under mount point %s", fs.Path, fs.MountPoint)
	}
	// The mount found must be the one statfs sees: same device.
	var dirSt, mpSt unix.Stat_t
	if err := unix.Stat(dir, &dirSt); err != nil {
		t.Fatal(err)
	}
	if err := unix.Stat(fs.MountPoint, &mpSt); err != nil {
		t.Fatal(err)
	}
	if dirSt.Dev != mpSt.Dev {
		t.Errorf("mount point %s is on device %d, %s on %d", fs.MountPoint, mpSt.Dev, dir, dirSt.Dev)
	}
	if p := NewProvenance([]string{"clyde"}, "v", "", dir); p.Filesystem != fs {
		t.Errorf("NewProvenance filesystem = %+v, want %+v", p.Filesystem, fs)
	}
}

func TestFilesystemOfMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such")
	if _, err := FilesystemOf(missing); err == nil {
		t.Errorf("FilesystemOf(%s) succeeded", missing)
	}
}

func TestRAMLive(t *testing.T) {
	r, err := RAM()
	if err != nil {
		t.Fatal(err)
	}
	if r.Physical == 0 || r.Effective == 0 || r.Effective > r.Physical {
		t.Errorf("RAM = %+v, want 0 < effective <= physical", r)
	}
	if r.Limit != 0 && r.Effective != min(r.Limit, r.Physical) {
		t.Errorf("RAM = %+v, effective is not min(physical, limit)", r)
	}
}

func TestKernelLive(t *testing.T) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	want := "Linux " + unix.ByteSliceToString(u.Release[:])
	if got := Kernel(); got != want {
		t.Errorf("Kernel() = %q, want %q", got, want)
	}
}

func TestIsTerminalPTY(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		clydetest.Skipf(t, "no pseudo-terminals here: %v", err)
	}
	defer ptmx.Close()
	if !IsTerminal(ptmx) {
		t.Error("IsTerminal(/dev/ptmx) = false")
	}
}

// TestFilesystemOfLoopExt4 mounts a small ext4 image through a loop device
// to check the whole path from mountinfo to sysfs on a real block device.
func TestFilesystemOfLoopExt4(t *testing.T) {
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "mounting a loop device needs root")
	}
	for _, tool := range []string{"mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			clydetest.Skipf(t, "%s not installed", tool)
		}
	}
	dir := t.TempDir()
	img := filepath.Join(dir, "fs image.ext4") // a space, escaped as \040 in mountinfo
	mnt := filepath.Join(dir, "mnt point")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(16 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "mkfs.ext4 failed: %v: %s", err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop,noatime", img, mnt).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "mount -o loop failed (no loop devices or no mount permission here): %v: %s", err, out)
	}
	t.Cleanup(func() {
		// mount -o loop sets autoclear, so unmounting frees the loop device.
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})

	sub := filepath.Join(mnt, "bench")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fs, err := FilesystemOf(sub)
	if err != nil {
		t.Fatal(err)
	}
	realImg, err := filepath.EvalSymlinks(img)
	if err != nil {
		t.Fatal(err)
	}
	realMnt, err := filepath.EvalSymlinks(mnt)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Type != "ext4" || fs.MountPoint != realMnt {
		t.Errorf("FilesystemOf = %+v, want ext4 mounted at %s", fs, realMnt)
	}
	if !strings.HasPrefix(fs.Source, "/dev/loop") {
		t.Errorf("Source = %q, want a /dev/loop device", fs.Source)
	}
	if !strings.Contains(fs.Note, "loop device backed by "+realImg) {
		t.Errorf("Note = %q, want it to name the backing file %s", fs.Note, realImg)
	}
	if !strings.Contains(","+fs.MountOptions+",", ",noatime,") {
		t.Errorf("MountOptions = %q, want noatime", fs.MountOptions)
	}
}
