//go:build linux

package sysinfo

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// sysTree writes a fake /sys under root: files with their content and
// symlinks, making the directories they need.
type sysTree struct {
	t    *testing.T
	root string
}

func (s sysTree) write(rel, content string) {
	s.t.Helper()
	p := filepath.Join(s.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s sysTree) link(target, rel string) {
	s.t.Helper()
	p := filepath.Join(s.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		s.t.Fatal(err)
	}
}

// fakeSysfs builds the parts of /sys/dev/block and /sys/devices that
// describeBlockDevice reads: a partitioned SATA disk whose serial is only in
// VPD page 0x80, an NVMe disk, a virtio disk, an LVM volume over a partition
// of each of the first two, and a loop device.
func fakeSysfs(t *testing.T) sysTree {
	t.Helper()
	tree := sysTree{t, t.TempDir()}
	write, link := tree.write, tree.link
	const sda = "devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda"
	write(sda+"/device/model", "Samsung SSD 860 \n")
	write(sda+"/device/vpd_pg80", "\x00\x80\x00\x0cS3Z9NB0K12  \x00")
	write(sda+"/sda1/partition", "1\n")
	write(sda+"/sda1/start", "2048\n")
	write(sda+"/sda2/partition", "2\n")
	write(sda+"/sda2/start", "1050624\n")
	link("../../"+sda+"/sda1", "dev/block/8:1")

	const nvme = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1"
	write(nvme+"/device/model", "WDC PC SN730 SDBQNTY-512G-1001          \n")
	write(nvme+"/device/serial", "        20122K445407\n")
	write(nvme+"/nvme0n1p3/partition", "3\n")
	write(nvme+"/nvme0n1p3/start", "4096\n")
	link("../../"+nvme, "dev/block/259:0")

	const vda = "devices/pci0000:00/0000:00:04.0/virtio2/block/vda"
	write(vda+"/serial", "overlayblk\n")
	write(vda+"/device/vendor", "0x1af4\n")
	link("../../"+vda, "dev/block/254:0")

	const dm = "devices/virtual/block/dm-0"
	write(dm+"/dm/name", "vg-data\n")
	write(dm+"/dm/uuid", "LVM-Tq1wA9xxYYzz\n")
	link("../../../../../"+sda+"/sda2", dm+"/slaves/sda2")
	link("../../../../../"+nvme+"/nvme0n1p3", dm+"/slaves/nvme0n1p3")
	link("../../"+dm, "dev/block/253:0")

	const loop = "devices/virtual/block/loop3"
	write(loop+"/loop/backing_file", "/var/tmp/img with space.ext4\n")
	write(loop+"/loop/offset", "1048576\n")
	link("../../"+loop, "dev/block/7:3")

	const vdb = "devices/pci0000:00/0000:00:05.0/virtio3/block/vdb" // no serial
	write(vdb+"/device/vendor", "0x1af4\n")
	link("../../"+vdb, "dev/block/254:16")

	const md = "devices/virtual/block/md0"
	write(md+"/md/level", "raid1\n")
	link("../../../../../"+vdb, md+"/slaves/vdb")
	link("../../../../../"+vda, md+"/slaves/vda")
	link("../../"+md, "dev/block/9:0")
	return tree
}

func TestDescribeBlockDevice(t *testing.T) {
	root := fakeSysfs(t).root
	tests := []struct {
		name         string
		major, minor uint32
		want         blockDevice
	}{
		{"partition of a SATA disk, serial from VPD page 0x80", 8, 1,
			blockDevice{Model: "Samsung SSD 860", Serial: "S3Z9NB0K12", ID: "serial:S3Z9NB0K12#start=2048"}},
		{"whole NVMe disk", 259, 0,
			blockDevice{Model: "WDC PC SN730 SDBQNTY-512G-1001", Serial: "20122K445407", ID: "serial:20122K445407"}},
		{"virtio disk with serial beside device/", 254, 0, blockDevice{Serial: "overlayblk", ID: "serial:overlayblk"}},
		{"virtio disk without a serial: its kernel name", 254, 16, blockDevice{ID: "disk:vdb"}},
		{"device-mapper over two disks", 253, 0, blockDevice{
			// slaves are read in name order
			Model:  "WDC PC SN730 SDBQNTY-512G-1001, Samsung SSD 860",
			Serial: "20122K445407, S3Z9NB0K12",
			Notes:  []string{"device-mapper vg-data"},
			ID:     "dm:LVM-Tq1wA9xxYYzz",
		}},
		{"md over two disks", 9, 0, blockDevice{Serial: "overlayblk", Notes: []string{"md raid1 md0"}, ID: "md0[serial:overlayblk,disk:vdb]"}},
		{"loop device at an offset", 7, 3, blockDevice{Notes: []string{"loop device backed by /var/tmp/img with space.ext4"},
			ID: "loop:/var/tmp/img with space.ext4@1048576"}},
		{"unknown device", 9, 9, blockDevice{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := describeBlockDevice(root, tc.major, tc.minor)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("describeBlockDevice(%d:%d) = %+v, want %+v", tc.major, tc.minor, got, tc.want)
			}
		})
	}
}

func TestDescribeBlockDeviceCycle(t *testing.T) {
	root := t.TempDir()
	dm := filepath.Join(root, "devices", "virtual", "block", "dm-1")
	if err := os.MkdirAll(filepath.Join(dm, "slaves"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dm, filepath.Join(dm, "slaves", "dm-1")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "dev", "block"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dm, filepath.Join(root, "dev", "block", "253:1")); err != nil {
		t.Fatal(err)
	}
	got := describeBlockDevice(root, 253, 1) // must return, not recurse forever
	if got.Model != "" || got.Serial != "" {
		t.Errorf("cyclic stack = %+v, want no model or serial", got)
	}
}
