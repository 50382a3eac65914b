//go:build linux

package integration

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
)

// holdDeviceEnv makes the test binary a helper process that holds a device
// open (see holdDevice); holdModeEnv says how: "excl" or "write".
const (
	holdDeviceEnv = "CLYDE_INTEGRATION_HOLD_DEVICE"
	holdModeEnv   = "CLYDE_INTEGRATION_HOLD_MODE"
)

// holdDevice is the helper process: it opens dev, says "holding", and keeps
// it open until its stdin closes.
func holdDevice(dev string) int {
	flags := os.O_RDONLY | unix.O_EXCL
	if os.Getenv(holdModeEnv) == "write" {
		flags = os.O_RDWR
	}
	f, err := os.OpenFile(dev, flags, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer f.Close()
	fmt.Println("holding")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// holdOpen starts another process holding dev open in mode until the test ends.
func holdOpen(t *testing.T, dev, mode string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holdDeviceEnv+"="+dev, holdModeEnv+"="+mode)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "holding\n" {
		t.Fatalf("holder of %s did not start: %q %v", dev, line, err)
	}
}

// blockWrite runs a short random-write job on dev.
func blockWrite(t *testing.T, dev string, destroy bool) outcome {
	t.Helper()
	args := []string{"block", "--filename", dev, "--rw", "randwrite", "--bs", "4k", "--size", "1m", "--runtime", "1"}
	if destroy {
		args = append(args, "--destroy-data")
	}
	return runClyde(t, args...)
}

// assertRefused checks a write was refused as a usage error (exit 2), in one
// line naming the device and the reason.
func assertRefused(t *testing.T, r outcome, dev string, reason ...string) {
	t.Helper()
	if r.code != exitUsage {
		t.Errorf("write to %s: exit %d, want %d (refused); stdout %q stderr %q", dev, r.code, exitUsage, r.stdout, r.stderr)
	}
	assertOneLineError(t, r.stderr, append([]string{dev}, reason...)...)
}

// assertReadAllowed checks a read-only job runs on dev.
func assertReadAllowed(t *testing.T, dev string) {
	t.Helper()
	// --allow-sparse: what is tested is the admission rule; the images'
	// never-written blocks are the hole rule's (TestOrionOnASparseLoopDevice).
	r := runClyde(t, "block", "--filename", dev, "--rw", "randread", "--bs", "4k", "--size", "1m", "--runtime", "1", "--allow-sparse")
	if r.code != exitOK {
		t.Errorf("read-only job on %s: exit %d, want 0; stderr %q", dev, r.code, r.stderr)
	}
}

// assertFsckClean checks the ext4 filesystem on dev (unmounted) is intact.
func assertFsckClean(t *testing.T, dev string) {
	t.Helper()
	if out, err := exec.Command("e2fsck", "-fn", dev).CombinedOutput(); err != nil {
		t.Errorf("e2fsck -fn %s after the refusal: %v:\n%s", dev, err, out)
	}
}

// ext4Loop makes an ext4 filesystem on a fresh loop device.
func ext4Loop(t *testing.T) string {
	t.Helper()
	needRoot(t)
	needTool(t, "mkfs.ext4", "e2fsprogs")
	dev := attachLoop(t, newImage(t, 64), false)
	sh(t, "mkfs.ext4", "-q", "-F", dev)
	return dev
}

// TestBlockSafetyOnLoopDevices runs clyde block the way a user would against
// loop devices that hold data. The engine-level checks live in blockbench;
// these prove the command refuses with exit 2 and one line, allows reads,
// and leaves the filesystem passing fsck.
func TestBlockSafetyOnLoopDevices(t *testing.T) {
	t.Run("ext4 without destroy-data", func(t *testing.T) {
		dev := ext4Loop(t)
		assertRefused(t, blockWrite(t, dev, false), dev, "ext4", "--destroy-data")
		assertReadAllowed(t, dev)
		assertFsckClean(t, dev)
	})
	t.Run("mounted ext4 even with destroy-data", func(t *testing.T) {
		dev := ext4Loop(t)
		dir := mountPoint(t)
		mount(t, dir, dev)
		populate(t, dir)
		before := listing(t, dir)
		assertRefused(t, blockWrite(t, dev, true), dev, "mounted on "+dir)
		assertReadAllowed(t, dev)
		assertSameListing(t, dir, before)
		unmount(t, dir)
		assertFsckClean(t, dev)
	})
	t.Run("partition table with the partition mounted", func(t *testing.T) {
		needRoot(t)
		img := newImage(t, 64)
		writeMBR(t, img)
		dev := attachLoop(t, img, true)
		part := clydetest.PartitionNode(t, dev, 1)
		sh(t, "mkfs.ext4", "-q", "-F", part)
		dir := mountPoint(t)
		mount(t, dir, part)
		assertRefused(t, blockWrite(t, dev, true), dev, filepath.Base(part))
		assertReadAllowed(t, dev)
		unmount(t, dir)
		assertFsckClean(t, part)
	})
	t.Run("held open exclusively by another process", func(t *testing.T) {
		dev := ext4Loop(t)
		holdOpen(t, dev, "excl")
		assertRefused(t, blockWrite(t, dev, true), dev, "held open")
		assertReadAllowed(t, dev)
		assertFsckClean(t, dev)
	})
	t.Run("held open for writing by another process", func(t *testing.T) {
		// A virtual machine or a dd writing to the disk opens it without
		// O_EXCL; clyde writing too would corrupt what that process writes.
		dev := ext4Loop(t)
		holdOpen(t, dev, "write")
		assertRefused(t, blockWrite(t, dev, true), dev, "open")
		assertReadAllowed(t, dev)
		assertFsckClean(t, dev)
	})
}

// writeMBR writes a DOS label with one Linux partition from sector 2048,
// 32 MiB long, into img.
func writeMBR(t *testing.T, img string) {
	t.Helper()
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
	_, err = f.WriteAt(mbr, 0)
	if cerr := f.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
}
