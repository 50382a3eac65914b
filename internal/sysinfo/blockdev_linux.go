//go:build linux

package sysinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// blockDevice is what sysfs says about the disk(s) under a block device.
type blockDevice struct {
	Model, Serial string
	Notes         []string
	// ID names the device itself for good (deviceID): what tells two
	// clones of one filesystem on two devices apart.
	ID string
}

// maxStackDepth bounds the walk down device-mapper and md stacks; real
// stacks are a few levels deep and a cycle must not hang a run.
const maxStackDepth = 8

// describeBlockDevice reads model and serial for block device major:minor
// from the sysfs tree at sysRoot ("/sys"), going from a partition to its
// disk and from device-mapper or md devices down to the disks they are built
// on. Loop devices are named with their backing file instead, since their
// "disk" is a file on another filesystem.
func describeBlockDevice(sysRoot string, major, minor uint32) blockDevice {
	link := filepath.Join(sysRoot, "dev", "block", fmt.Sprintf("%d:%d", major, minor))
	dir, err := filepath.EvalSymlinks(link)
	if err != nil {
		return blockDevice{}
	}
	var leaves []blockDevice
	collectDisks(dir, 0, &leaves)
	var out blockDevice
	var models, serials []string
	for _, l := range leaves {
		models = appendUnique(models, l.Model)
		serials = appendUnique(serials, l.Serial)
		for _, n := range l.Notes {
			out.Notes = appendUnique(out.Notes, n)
		}
	}
	out.Model = strings.Join(models, ", ")
	out.Serial = strings.Join(serials, ", ")
	out.ID = deviceID(dir, 0)
	return out
}

// deviceID names the block device whose sysfs directory is dir by what the
// kernel keeps about it that a copy of its data does not carry: a disk's
// serial (its kernel name where it has none), a partition's disk and start
// sector, a loop device's backing file and offset, a device-mapper
// volume's UUID (LVM's VG and LV UUIDs), and for other stacks (md) the
// name over the IDs of the devices below. Two filesystems cloned with dd
// or cp carry one UUID; their devices' IDs differ.
func deviceID(dir string, depth int) string {
	if depth > maxStackDepth {
		return ""
	}
	name := filepath.Base(dir)
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		return deviceID(filepath.Dir(dir), depth+1) + "#start=" + readSysfs(filepath.Join(dir, "start"))
	}
	if strings.HasPrefix(name, "loop") {
		id := "loop:" + readSysfs(filepath.Join(dir, "loop", "backing_file"))
		if off := readSysfs(filepath.Join(dir, "loop", "offset")); off != "" && off != "0" {
			id += "@" + off
		}
		return id
	}
	if uuid := readSysfs(filepath.Join(dir, "dm", "uuid")); uuid != "" {
		return "dm:" + uuid
	}
	if dm := readSysfs(filepath.Join(dir, "dm", "name")); dm != "" {
		return "dm:" + dm
	}
	slaves, _ := os.ReadDir(filepath.Join(dir, "slaves"))
	if len(slaves) == 0 {
		if serial := diskIdentity(dir).Serial; serial != "" {
			return "serial:" + serial
		}
		return "disk:" + name
	}
	var below []string
	for _, s := range slaves {
		if p, err := filepath.EvalSymlinks(filepath.Join(dir, "slaves", s.Name())); err == nil {
			below = append(below, deviceID(p, depth+1))
		}
	}
	return name + "[" + strings.Join(below, ",") + "]"
}

// collectDisks appends one blockDevice per physical disk (or loop file)
// under the sysfs block directory dir.
func collectDisks(dir string, depth int, out *[]blockDevice) {
	if depth > maxStackDepth {
		return
	}
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		dir = filepath.Dir(dir)
	}
	name := filepath.Base(dir)
	if strings.HasPrefix(name, "loop") {
		note := "loop device " + name
		if backing := readSysfs(filepath.Join(dir, "loop", "backing_file")); backing != "" {
			note = "loop device backed by " + backing
		}
		*out = append(*out, blockDevice{Notes: []string{note}})
		return
	}
	slaves, _ := os.ReadDir(filepath.Join(dir, "slaves"))
	if len(slaves) == 0 {
		*out = append(*out, diskIdentity(dir))
		return
	}
	if dm := readSysfs(filepath.Join(dir, "dm", "name")); dm != "" {
		*out = append(*out, blockDevice{Notes: []string{"device-mapper " + dm}})
	} else if level := readSysfs(filepath.Join(dir, "md", "level")); level != "" {
		*out = append(*out, blockDevice{Notes: []string{"md " + level + " " + name}})
	}
	for _, s := range slaves {
		below, err := filepath.EvalSymlinks(filepath.Join(dir, "slaves", s.Name()))
		if err != nil {
			continue
		}
		collectDisks(below, depth+1, out)
	}
}

// diskIdentity reads model and serial of a whole disk. Where they live
// depends on the driver: SCSI/SATA and NVMe under device/, virtio-blk's
// serial beside it, eMMC's name as device/name; SCSI disks without a serial
// attribute carry it in VPD page 0x80, and a WWID is the last resort.
func diskIdentity(dir string) blockDevice {
	var d blockDevice
	d.Model = firstOf(
		readSysfs(filepath.Join(dir, "device", "model")),
		readSysfs(filepath.Join(dir, "device", "name")),
	)
	d.Serial = firstOf(
		readSysfs(filepath.Join(dir, "device", "serial")),
		readSysfs(filepath.Join(dir, "serial")),
		vpdSerial(filepath.Join(dir, "device", "vpd_pg80")),
		readSysfs(filepath.Join(dir, "device", "wwid")),
		readSysfs(filepath.Join(dir, "wwid")),
	)
	return d
}

// vpdSerial decodes a SCSI Unit Serial Number VPD page: a 4-byte header
// whose last byte is the length, then the serial in ASCII.
func vpdSerial(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 4 || b[1] != 0x80 {
		return ""
	}
	n := min(int(b[3]), len(b)-4)
	return cleanSysfs(b[4 : 4+n])
}

// readSysfs reads a sysfs attribute, "" when it is absent or unreadable.
func readSysfs(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return cleanSysfs(b)
}

// cleanSysfs trims the padding drivers put around identifiers (spaces,
// newlines, NULs) and drops control bytes that would garble a report.
func cleanSysfs(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, string(b))
	return strings.TrimSpace(s)
}

// firstOf picks the first attribute a driver provided, in order of trust.
func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// appendUnique keeps a stack over identical disks from naming them twice.
func appendUnique(list []string, v string) []string {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
