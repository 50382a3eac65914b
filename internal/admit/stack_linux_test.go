//go:build linux

package admit

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
)

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// mountOn mounts dev on a new directory, unmounted when the test ends.
func mountOn(t *testing.T, dev string) string {
	t.Helper()
	dir := t.TempDir()
	sh(t, "mount", dev, dir)
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

// TestLoopsUnderRealDevices resolves real loop devices to their backing
// files, with and without direct I/O, through a filesystem mounted on one
// and through a second loop device over an image in that filesystem.
func TestLoopsUnderRealDevices(t *testing.T) {
	cached, img := clydetest.LoopDevice(t, 64<<20)
	direct, dimg := clydetest.LoopDevice(t, 64<<20, "--direct-io=on")
	// A second loop device over the first one's image reads from it; the
	// first one's data does not end in it.
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Fatalf("losetup: %v: %s", err, out)
	}
	second := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("losetup", "--detach", second).Run() })
	for _, tc := range []struct {
		dev, img string
		dio      bool
	}{{cached, img, false}, {direct, dimg, true}} {
		ls, err := LoopsUnder(tc.dev)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) != 1 {
			t.Fatalf("%s: %+v, want itself", tc.dev, ls)
		}
		l := ls[0]
		if l.Device != tc.dev || l.Backing != tc.img || !l.File || l.BackingIno != inode(t, tc.img) || l.At != 0 || l.Offset != 0 {
			t.Errorf("%s: %+v, want itself over %s from its start", tc.dev, l, tc.img)
		}
		if !l.DirectIOKnown || l.DirectIO != tc.dio {
			t.Errorf("%s: direct I/O %v (known %v), want %v", tc.dev, l.DirectIO, l.DirectIOKnown, tc.dio)
		}
	}

	sh(t, "mkfs.ext4", "-q", "-F", cached)
	mnt := mountOn(t, cached)
	file := filepath.Join(mnt, "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, mnt} {
		ls, err := LoopsUnder(p)
		if err != nil || len(ls) != 1 || ls[0].Device != cached || ls[0].At != -1 || ls[0].DirectIO {
			t.Errorf("%s: %+v (%v), want the cached loop device under its filesystem", p, ls, err)
		}
	}
	// An image in that filesystem, on a loop device of its own.
	inner := filepath.Join(mnt, "inner.img")
	if err := os.WriteFile(inner, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(inner, 8<<20); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command("losetup", "--find", "--show", "--direct-io=on", inner).CombinedOutput()
	if err != nil {
		t.Fatalf("losetup: %v: %s", err, out)
	}
	stacked := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("losetup", "--detach", stacked).Run() })
	ls, err := LoopsUnder(stacked)
	if err != nil || len(ls) != 2 || ls[0].Device != stacked || ls[1].Device != cached || ls[1].DirectIO {
		t.Fatalf("%s: %+v (%v), want itself, then the cached loop device under the image's filesystem", stacked, ls, err)
	}

	// A filesystem on no device has no loop under it.
	if ls, err := LoopsUnder("/proc/self"); err != nil || len(ls) != 0 {
		t.Errorf("/proc/self: %+v (%v), want none", ls, err)
	}
}

// TestLoopsUnderPartition: a partition of a loop device begins at its
// start in the loop device, and so in the backing file.
func TestLoopsUnderPartition(t *testing.T) {
	dev, img := clydetest.LoopDevice(t, 64<<20, "--partscan")
	mbr := make([]byte, 512)
	e := mbr[446:462]
	e[4] = 0x83
	binary.LittleEndian.PutUint32(e[8:], 2048)
	binary.LittleEndian.PutUint32(e[12:], 32<<20/512)
	mbr[510], mbr[511] = 0x55, 0xAA
	f, err := os.OpenFile(dev, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(mbr, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_ = exec.Command("blockdev", "--rereadpt", dev).Run()
	part := clydetest.PartitionNode(t, dev, 1)
	ls, err := LoopsUnder(part)
	if err != nil || len(ls) != 1 || ls[0].Device != dev || ls[0].Backing != img || ls[0].At != 2048*512 {
		t.Fatalf("%s: %+v (%v), want %s over %s, from 1 MiB in", part, ls, err, dev, img)
	}
}

// TestLoopsUnderBtrfs: a btrfs's files report a device of their
// subvolume's own, which no mount and no block device has; the mount they
// are on (by its ID) leads to the loop device it is mounted from, and so
// does an image in it to the loop device beneath.
func TestLoopsUnderBtrfs(t *testing.T) {
	if _, err := exec.LookPath("mkfs.btrfs"); err != nil {
		clydetest.Skip(t, "mkfs.btrfs not installed")
	}
	dev, img := clydetest.LoopDevice(t, 320<<20)
	sh(t, "mkfs.btrfs", "-q", "-f", dev)
	mnt := mountOn(t, dev)
	file := filepath.Join(mnt, "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, mnt} {
		ls, err := LoopsUnder(p)
		if err != nil || len(ls) != 1 || ls[0].Device != dev || ls[0].Backing != img {
			t.Errorf("%s: %+v (%v), want %s over %s under its btrfs", p, ls, err, dev, img)
		}
	}
	inner, _ := clydetest.LoopDeviceIn(t, mnt, 32<<20)
	sh(t, "mkfs.ext4", "-q", "-F", inner)
	ls, err := LoopsUnder(mountOn(t, inner))
	if err != nil || len(ls) != 2 || ls[0].Device != inner || ls[1].Device != dev {
		t.Errorf("ext4 in an image on the btrfs: %+v (%v), want %s then %s", ls, err, inner, dev)
	}
}
