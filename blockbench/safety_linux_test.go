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
	"github.com/clydebench/clyde/result"
)

// loopDevice attaches a fresh zeroed image of size bytes as a loop device,
// or skips the test with the reason it cannot.
func loopDevice(t *testing.T, size int64, partscan bool) string {
	return loopDeviceWith(t, size, partscan, nil)
}

// loopDeviceWith writes mbr (when not nil) as the image's first sector first.
func loopDeviceWith(t *testing.T, size int64, partscan bool, mbr []byte) string {
	t.Helper()
	if os.Geteuid() != 0 {
		clydetest.Skip(t, "loop devices need root")
	}
	if _, err := exec.LookPath("losetup"); err != nil {
		clydetest.Skip(t, "losetup not installed")
	}
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, size); err != nil {
		t.Fatal(err)
	}
	if mbr != nil {
		f, err := os.OpenFile(img, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteAt(mbr, 0)
		if cerr := f.Close(); err != nil || cerr != nil {
			t.Fatal(err, cerr)
		}
	}
	args := []string{"--find", "--show"}
	if partscan {
		args = append(args, "--partscan")
	}
	out, err := exec.Command("losetup", append(args, img)...).CombinedOutput()
	if err != nil {
		clydetest.Skipf(t, "losetup failed, no loop devices here: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("losetup", "--detach", dev).Run() })
	return dev
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		clydetest.Skipf(t, "%s not installed", name)
	}
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, out)
	}
}

func mountTmp(t *testing.T, dev string) {
	t.Helper()
	dir := t.TempDir()
	run(t, "mount", dev, dir)
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
}

func writeJob(dev string, destroy bool) Job {
	j := countJob(dev, RandWrite, 1<<20, 4096)
	j.DestroyData = destroy
	return j
}

// refusal runs j and returns the refusal, failing when it was not refused.
func refusal(t *testing.T, j Job) *RefusedError {
	t.Helper()
	_, err := Run(context.Background(), j)
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("write to %s was not refused: err = %v", j.Filename, err)
	}
	if !result.IsUsage(err) {
		t.Errorf("refusal is not a usage error (exit 2): %v", err)
	}
	if !strings.Contains(err.Error(), re.Path) {
		t.Errorf("refusal does not name the device: %v", err)
	}
	return re
}

func TestSafetyOnLoopDevice(t *testing.T) {
	t.Run("ext4 needs destroy-data and says what it holds", func(t *testing.T) {
		dev := loopDevice(t, 64<<20, false)
		run(t, "mkfs.ext4", "-q", "-F", dev)
		re := refusal(t, writeJob(dev, false))
		if re.Found != "ext4 filesystem" || re.Allow != "--destroy-data" {
			t.Errorf("found %q allow %q; want ext4 filesystem, --destroy-data", re.Found, re.Allow)
		}
		if !strings.Contains(re.Error(), "--destroy-data") {
			t.Errorf("refusal does not name the flag: %v", re)
		}
		if _, err := Run(context.Background(), writeJob(dev, true)); err != nil {
			t.Errorf("write with --destroy-data refused: %v", err)
		}
	})
	t.Run("empty device says no signature found", func(t *testing.T) {
		dev := loopDevice(t, 8<<20, false)
		if re := refusal(t, writeJob(dev, false)); re.Found != "no signature found" {
			t.Errorf("found %q", re.Found)
		}
	})
	t.Run("mounted is refused even with destroy-data", func(t *testing.T) {
		dev := loopDevice(t, 64<<20, false)
		run(t, "mkfs.ext4", "-q", "-F", dev)
		mountTmp(t, dev)
		re := refusal(t, writeJob(dev, true))
		if re.Allow != "" || !strings.Contains(re.Found, "mounted on") {
			t.Errorf("found %q allow %q; want a mount and no flag", re.Found, re.Allow)
		}
		// Reading a mounted device is always allowed (by the admission
		// rule: its image's never-written blocks are another rule's).
		j := countJob(dev, RandRead, 1<<20, 4096)
		j.AllowSparse = true
		if _, err := Run(context.Background(), j); err != nil {
			t.Errorf("read of a mounted device refused: %v", err)
		}
	})
	t.Run("mounted partition refuses the whole disk", func(t *testing.T) {
		// One Linux partition from sector 2048, 32 MiB long, in a DOS label.
		mbr := make([]byte, 512)
		e := mbr[446:462]
		e[4] = 0x83
		binary.LittleEndian.PutUint32(e[8:], 2048)
		binary.LittleEndian.PutUint32(e[12:], 32<<20/512)
		mbr[510], mbr[511] = 0x55, 0xAA
		dev := loopDeviceWith(t, 64<<20, true, mbr)
		part := clydetest.PartitionNode(t, dev, 1)
		run(t, "mkfs.ext4", "-q", "-F", part)
		mountTmp(t, part)
		re := refusal(t, writeJob(dev, true))
		if !strings.Contains(re.Found, filepath.Base(part)) {
			t.Errorf("found %q, want the mounted partition named", re.Found)
		}
	})
	t.Run("swap is refused even with destroy-data", func(t *testing.T) {
		dev := loopDevice(t, 16<<20, false)
		run(t, "mkswap", "-q", dev)
		if out, err := exec.Command("swapon", dev).CombinedOutput(); err != nil {
			clydetest.Skipf(t, "swapon not possible here: %v: %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("swapoff", dev).Run() })
		if re := refusal(t, writeJob(dev, true)); !strings.Contains(re.Found, "swap") {
			t.Errorf("found %q, want swap", re.Found)
		}
	})
	t.Run("held open exclusively is refused", func(t *testing.T) {
		dev := loopDevice(t, 8<<20, false)
		f, err := os.OpenFile(dev, os.O_RDONLY|unix.O_EXCL, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if re := refusal(t, writeJob(dev, true)); !strings.Contains(re.Found, "exclusively") {
			t.Errorf("found %q", re.Found)
		}
	})
	t.Run("symlink is resolved before the checks", func(t *testing.T) {
		dev := loopDevice(t, 64<<20, false)
		run(t, "mkfs.ext4", "-q", "-F", dev)
		mountTmp(t, dev)
		link := filepath.Join(t.TempDir(), "by-id-alias")
		if err := os.Symlink(dev, link); err != nil {
			t.Fatal(err)
		}
		re := refusal(t, writeJob(link, true))
		if re.Path != dev || re.Given != link || !strings.Contains(re.Error(), link) {
			t.Errorf("device %q given %q; want %s via %s", re.Path, re.Given, dev, link)
		}
	})
}
