//go:build linux

package clydetest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// LoopDevice attaches a new loop device, with losetup's extra args
// (--sector-size 4096), to a sparse image of size bytes in the test's
// temporary directory, detached when the test ends, and returns the device
// and the image. It skips the test where loop devices cannot be made: not
// root, no losetup, none free; in CI (CLYDE_CI=1) that is a failure.
func LoopDevice(t testing.TB, size int64, args ...string) (dev, img string) {
	t.Helper()
	return LoopDeviceIn(t, t.TempDir(), size, args...)
}

// LoopDeviceIn is LoopDevice with the image in dir (DiskDir, or /dev/shm
// for an image in memory).
func LoopDeviceIn(t testing.TB, dir string, size int64, args ...string) (dev, img string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Skip(t, "loop devices need root")
	}
	if _, err := exec.LookPath("losetup"); err != nil {
		Skip(t, "losetup not installed")
	}
	f, err := os.CreateTemp(dir, "clyde-disk*.img")
	if err != nil {
		t.Skipf("no image in %s: %v", dir, err)
	}
	img = f.Name()
	f.Close()
	t.Cleanup(func() { os.Remove(img) })
	if err := os.Truncate(img, size); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", append(append([]string{"--find", "--show"}, args...), img)...).CombinedOutput()
	if err != nil {
		Skipf(t, "losetup %s: %v: %s", strings.Join(args, " "), err, out)
	}
	dev = strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("losetup", "--detach", dev).Run() })
	return dev, img
}
