//go:build linux

package clydetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// PartitionNode is the device node of partition n of the loop device dev,
// for the tests that put a partition table on one. Without udev (a
// container) the kernel still lists the partition in sysfs; the node is then
// made in a temporary directory from its device number. A kernel without the
// DOS label parser (CONFIG_MSDOS_PARTITION) finds no partition; partx then
// reads the label and adds them, and removes them again in t.Cleanup. When
// neither shows the partition the test skips with that reason.
func PartitionNode(t testing.TB, dev string, n int) string {
	t.Helper()
	name := filepath.Base(dev) + "p" + strconv.Itoa(n)
	if _, err := os.Stat("/dev/" + name); err == nil {
		return "/dev/" + name
	}
	sysDev := filepath.Join("/sys/class/block", name, "dev")
	if _, err := os.Stat(sysDev); err != nil {
		if out, err := exec.Command("partx", "--add", dev).CombinedOutput(); err != nil {
			Skipf(t, "the kernel did not scan the partitions of %s and partx --add failed: %v: %s", dev, err, out)
		}
		t.Cleanup(func() { _ = exec.Command("partx", "--delete", dev).Run() })
	}
	b, err := os.ReadFile(sysDev)
	if err != nil {
		Skipf(t, "no partitions of %s appear, even after losetup --partscan and partx --add: %v", dev, err)
	}
	var major, minor uint32
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d:%d", &major, &minor); err != nil {
		t.Fatalf("parse %s dev number %q: %v", name, b, err)
	}
	node := filepath.Join(t.TempDir(), name)
	if err := unix.Mknod(node, unix.S_IFBLK|0o600, int(unix.Mkdev(major, minor))); err != nil {
		Skipf(t, "cannot make a node for %s: %v", name, err)
	}
	return node
}
