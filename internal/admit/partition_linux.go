//go:build linux

package admit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// partRange is a partition as sysfs shows it: its name and its sectors
// (512 bytes each, whatever the disk's sector size).
type partRange struct {
	name        string
	start, size uint64
}

// inside is a partition of the same disk found within another.
type inside struct {
	name string
	via  edge
}

// partitionsWithin lists the other partitions of the disk that the
// partition at sysfs directory dir contains or overlaps. The kernel shows
// an msdos extended partition as its first two sectors only, where its
// table (the first extended boot record) is, and the logical partitions
// beside it, as partitions of the disk: writing those two sectors loses
// every logical partition at the next scan. The extended partition's whole
// extent is read from the disk's own table. A partition whose sectors
// overlap another's (a label nested in it, such as BSD slices in a DOS
// partition) is the other's too.
func partitionsWithin(dir string) []inside {
	self, ok := readPartRange(dir)
	if !ok {
		return nil
	}
	diskDir := filepath.Dir(dir)
	var siblings []partRange
	entries, _ := os.ReadDir(diskDir)
	for _, e := range entries {
		d := filepath.Join(diskDir, e.Name())
		if e.Name() == self.name || !isPartition(d) {
			continue
		}
		if p, ok := readPartRange(d); ok {
			siblings = append(siblings, p)
		}
	}
	if len(siblings) == 0 {
		return nil
	}
	return containedIn(self, extendedExtent(diskDir, self), siblings)
}

// containedIn picks the siblings within ext (the extent of the table self
// holds; size 0 for none) and those whose sectors overlap self's.
func containedIn(self, ext partRange, siblings []partRange) []inside {
	var found []inside
	for _, p := range siblings {
		switch {
		case ext.size > 0 && p.start >= ext.start && p.start < ext.start+ext.size:
			found = append(found, inside{p.name, toInside})
		case p.start < self.start+self.size && self.start < p.start+p.size:
			found = append(found, inside{p.name, toOverlap})
		}
	}
	return found
}

// extendedExtent is the whole extent of self when the disk's DOS table
// says it is an extended partition (its slot starts where self does), in
// 512-byte sectors; size 0 otherwise.
func extendedExtent(diskDir string, self partRange) partRange {
	disk := filepath.Base(diskDir)
	dev, ok := readDevNumber(diskDir)
	if !ok {
		return partRange{}
	}
	lbs := uint64(512)
	if b, err := os.ReadFile(filepath.Join(diskDir, "queue", "logical_block_size")); err == nil {
		if n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32); err == nil && n >= 512 && n%512 == 0 {
			lbs = n
		}
	}
	fd, ok := openNode(disk, dev)
	if !ok {
		return partRange{}
	}
	defer unix.Close(fd)
	sector := make([]byte, lbs)
	if n, err := unix.Pread(fd, sector, 0); err != nil || n < 512 {
		return partRange{}
	}
	k := lbs / 512
	for _, e := range parseMBR(sector) {
		if e.extended() && e.Start*k == self.start {
			return partRange{name: self.name, start: e.Start * k, size: e.Size * k}
		}
	}
	return partRange{}
}

func readPartRange(dir string) (partRange, bool) {
	p := partRange{name: filepath.Base(dir)}
	for _, f := range []struct {
		name string
		to   *uint64
	}{{"start", &p.start}, {"size", &p.size}} {
		b, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			return p, false
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return p, false
		}
		*f.to = n
	}
	return p, true
}
