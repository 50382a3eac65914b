//go:build linux

package sysinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"
)

// needMount skips without root or without the tools a loop mount needs.
func needMount(t *testing.T, tools ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "mounting needs root")
	}
	for _, tool := range append(tools, "mount", "umount") {
		if _, err := exec.LookPath(tool); err != nil {
			clydetest.Skipf(t, "%s not installed", tool)
		}
	}
}

// mountHere mounts with args on a new directory, unmounted at the end
// (mount -o loop sets autoclear: the loop device goes with it).
func mountHere(t *testing.T, args ...string) string {
	t.Helper()
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", append(args, mnt)...).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "mount %v: %v: %s", args, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	return mnt
}

// image makes a file of sizeMiB with mkfs args run on it.
func image(t *testing.T, sizeMiB int64, mkfs ...string) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "fs.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, sizeMiB<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mkfs[0], append(mkfs[1:], img)...).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "%s: %v: %s", mkfs[0], err, out)
	}
	return img
}

// TestClonesAreTwoVolumes is item 13 of issue 31: an ext4 image and its dd
// copy, each on its loop device, carry one UUID and one creation time (the
// superblock is copied); the device tells them apart, so the history's
// volume (UUID, creation time and device) differs. The creation time is
// dumpe2fs's.
func TestClonesAreTwoVolumes(t *testing.T) {
	needMount(t, "mkfs.ext4", "dd", "dumpe2fs")
	a := image(t, 16, "mkfs.ext4", "-q", "-F")
	b := filepath.Join(t.TempDir(), "clone.img")
	if out, err := exec.Command("dd", "if="+a, "of="+b, "bs=1M", "status=none").CombinedOutput(); err != nil {
		t.Fatalf("dd: %v: %s", err, out)
	}
	fsA, err := FilesystemOf(mountHere(t, "-o", "loop", a))
	if err != nil {
		t.Fatal(err)
	}
	fsB, err := FilesystemOf(mountHere(t, "-o", "loop", b))
	if err != nil {
		t.Fatal(err)
	}
	if fsA.UUID == "" || fsA.UUID != fsB.UUID || !fsA.Created.Equal(fsB.Created) {
		t.Fatalf("the clone's superblock: UUID %q and %q, created %v and %v; want one UUID and time, as dd copies them", fsA.UUID, fsB.UUID, fsA.Created, fsB.Created)
	}
	for _, c := range []struct {
		fs  string
		id  string
		img string
	}{{"original", fsA.DeviceID, a}, {"clone", fsB.DeviceID, b}} {
		real, err := filepath.EvalSymlinks(c.img)
		if err != nil {
			t.Fatal(err)
		}
		if c.id != "loop:"+real {
			t.Errorf("the %s's device is %q, want its loop device's backing file loop:%s", c.fs, c.id, real)
		}
	}
	cmd := exec.Command("dumpe2fs", "-h", a)
	cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dumpe2fs: %v", err)
	}
	var created time.Time
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Filesystem created:"); ok {
			created, err = time.Parse("Mon Jan _2 15:04:05 2006", strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if created.IsZero() || !fsA.Created.Equal(created) {
		t.Errorf("created %v, dumpe2fs says %v", fsA.Created, created)
	}
}

// TestSourceTextIsNoDevice: a tmpfs mounted with a block device's name as
// its source (and so a FUSE fsname=) is on no device: it was recorded with
// that device's serial and model.
func TestSourceTextIsNoDevice(t *testing.T) {
	needMount(t)
	var dev string
	for _, p := range []string{"/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/xvda", "/dev/loop0"} {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFBLK {
			dev = p
			break
		}
	}
	if dev == "" {
		clydetest.Skip(t, "no block device node to name")
	}
	fs, err := FilesystemOf(mountHere(t, "-t", "tmpfs", "-o", "size=1m", dev))
	if err != nil {
		t.Fatal(err)
	}
	if fs.Type != "tmpfs" || fs.Source != dev {
		t.Fatalf("FilesystemOf = %+v; want a tmpfs whose source is %s", fs, dev)
	}
	if fs.DeviceSerial != "" || fs.DeviceModel != "" || fs.DeviceID != "" || fs.UUID != "" {
		t.Errorf("a tmpfs named %s was given that device: %+v", dev, fs)
	}
}

// TestBtrfsDevicesFromTheKernel: btrfs shows 0:N in mountinfo; its device
// comes from /sys/fs/btrfs/FSID/devices, the FSID asked of the mount.
func TestBtrfsDevicesFromTheKernel(t *testing.T) {
	needMount(t, "mkfs.btrfs")
	img := image(t, 128, "mkfs.btrfs", "-q", "-f", "-U", "5b0c1d2e-3f40-4152-8637-48596a7b8c9d")
	fs, err := FilesystemOf(mountHere(t, "-o", "loop", img))
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(img)
	if err != nil {
		t.Fatal(err)
	}
	if fs.UUID != "5b0c1d2e-3f40-4152-8637-48596a7b8c9d" || fs.DeviceID != "loop:"+real {
		t.Errorf("btrfs: UUID %q, device %q; want the FSID given to mkfs and loop:%s", fs.UUID, fs.DeviceID, real)
	}
}
