package sysinfo

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestVolumeIDAgainstBlkid makes each filesystem in an image file (no root
// needed) and reads its UUID as blkid reports it.
func TestVolumeIDAgainstBlkid(t *testing.T) {
	if _, err := exec.LookPath("blkid"); err != nil {
		clydetest.Skip(t, "blkid is not installed (util-linux)")
	}
	for _, tc := range []struct {
		fstype, mkfs string
		args         []string
		sizeMiB      int64
	}{
		{"ext4", "mkfs.ext4", []string{"-q", "-F", "-U", "0f7d3e2a-91b4-4c1e-8a5d-2b6c7d8e9f01"}, 16},
		{"ext2", "mkfs.ext2", []string{"-q", "-F"}, 16},
		{"xfs", "mkfs.xfs", []string{"-q", "-f", "-m", "uuid=6a1b2c3d-4e5f-4071-8293-a4b5c6d7e8f9"}, 300},
		{"btrfs", "mkfs.btrfs", []string{"-q", "-f", "-U", "11223344-5566-4788-99aa-bbccddeeff00"}, 128},
		{"fuseblk", "mkntfs", []string{"-q", "-F", "-f"}, 16},
	} {
		t.Run(tc.fstype, func(t *testing.T) {
			if _, err := exec.LookPath(tc.mkfs); err != nil {
				clydetest.Skipf(t, "%s is not installed", tc.mkfs)
			}
			img := filepath.Join(t.TempDir(), "img")
			if err := os.WriteFile(img, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(img, tc.sizeMiB<<20); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(tc.mkfs, append(tc.args, img)...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.mkfs, err, out)
			}
			out, err := exec.Command("blkid", "-p", "-o", "value", "-s", "UUID", img).Output()
			if err != nil {
				t.Fatalf("blkid: %v", err)
			}
			want := strings.TrimSpace(string(out))
			f, err := os.Open(img)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if got := superblockUUID(tc.fstype, f); got == "" || !strings.EqualFold(got, want) {
				t.Errorf("%s: UUID %q, blkid says %q", tc.fstype, got, want)
			}
			// Another type's reader finds no UUID there.
			if got := superblockUUID(map[bool]string{true: "xfs", false: "ext4"}[tc.fstype != "xfs"], f); got != "" {
				t.Errorf("%s read as another type gave %q", tc.fstype, got)
			}
		})
	}
}

func TestVolumeIDRefusesOthers(t *testing.T) {
	zeros := bytes.NewReader(make([]byte, volumeIDBytes))
	for _, fstype := range []string{"ext4", "xfs", "btrfs", "ntfs", "tmpfs", "nfs"} {
		if got := superblockUUID(fstype, zeros); got != "" {
			t.Errorf("%s on zeros: %q", fstype, got)
		}
	}
	short := bytes.NewReader([]byte("XFSB"))
	if got := superblockUUID("xfs", short); got != "" {
		t.Errorf("a short read gave %q", got)
	}
}

func FuzzVolumeID(f *testing.F) {
	sb := make([]byte, 2048)
	sb[ext4SuperOffset+ext4MagicOffset], sb[ext4SuperOffset+ext4MagicOffset+1] = 0x53, 0xEF
	f.Add(sb, "ext4")
	f.Add([]byte("XFSB"), "xfs")
	f.Add([]byte("\xeb\x52\x90NTFS    "), "ntfs")
	f.Fuzz(func(t *testing.T, b []byte, fstype string) {
		sb := readSuperblockID(fstype, bytes.NewReader(b))
		if id := sb.UUID; id != "" && len(id) != 36 && len(id) != 16 {
			t.Fatalf("%q is neither a UUID nor a serial", id)
		}
		if !sb.Created.IsZero() && fstype != "ext2" && fstype != "ext3" && fstype != "ext4" {
			t.Fatalf("a creation time %v for %s", sb.Created, fstype)
		}
	})
}

func superblockUUID(fstype string, r io.ReaderAt) string { return readSuperblockID(fstype, r).UUID }
