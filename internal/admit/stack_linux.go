//go:build linux

package admit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// maxStackDepth bounds how many filesystems deep LoopsUnder follows a loop
// device's backing file (an image on a filesystem on another loop device
// over an image ...): far more than anyone stacks, and a cycle ends there.
const maxStackDepth = 8

// LoopsUnder lists the loop devices the data at path ends in, nearest
// first, and what the kernel says of each: the rules about what really
// holds a target's data (the host's page cache, holes in an image) follow
// them. path is a block device, or a file or directory, whose data goes to
// the device of the filesystem holding it (its mount's source, for a
// filesystem on an anonymous device such as btrfs); a filesystem on no
// device (tmpfs) has none. The walk is the admission graph's (walk), its
// edges down only (a loop device's backing, a partition's disk, a
// device-mapper or md slave), and from a loop device's backing file on
// through the device of the filesystem that holds that file, so a loop
// over an image on a filesystem on another loop device lists both.
func LoopsUnder(path string) ([]StackLoop, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	s, err := readSystem()
	if err != nil {
		return nil, err
	}
	device := st.Mode&unix.S_IFMT == unix.S_IFBLK
	root, ok := pathRoot(s, path, st.Dev)
	if device {
		root, ok = blockNode(st.Rdev)
	}
	if !ok {
		return nil, nil
	}
	var out []StackLoop
	seen := map[uint64]bool{}
	level := []node{root}
	for depth := 0; len(level) > 0 && depth < maxStackDepth; depth++ {
		var next []node
		for _, root := range level {
			g := walk(s, root)
			for i, n := range g.nodes {
				l, isLoop := s.loop(n.dev)
				if !n.block || !isLoop || !g.under(i) || seen[n.dev] {
					continue
				}
				seen[n.dev] = true
				sl := describeLoop(l)
				sl.Chain, sl.At = g.chain(i, ""), -1
				if device && depth == 0 {
					sl.At = g.startIn(i) // a file's blocks lie where its filesystem put them
				}
				out = append(out, sl)
				if r, ok := pathRoot(s, sl.Backing, sl.BackingDev); ok && sl.File {
					next = append(next, r)
				}
			}
		}
		level = next
	}
	return out, nil
}

// dataRoot is the block device the data of a filesystem on device number
// dev goes to: dev itself when sysfs knows it as a block device, else the
// source of the mount on dev (btrfs and other filesystems on an anonymous
// device); false for a filesystem on no device (tmpfs, procfs, FUSE).
func dataRoot(s *system, dev uint64) (node, bool) {
	if n, ok := blockNode(dev); ok {
		return n, true
	}
	for _, m := range s.mounts {
		if unix.Mkdev(m.Major, m.Minor) == dev && m.srcDev != 0 {
			return blockNode(m.srcDev)
		}
	}
	return node{}, false
}

// pathRoot is dataRoot for the file at path, whose st_dev is dev, and
// where that device is no mount's (a btrfs subvolume's files report a
// device of their own, not the mount's) the source of the mount path is
// on, found by its mount ID (statx STATX_MNT_ID, Linux 5.8).
func pathRoot(s *system, path string, dev uint64) (node, bool) {
	if n, ok := dataRoot(s, dev); ok {
		return n, true
	}
	var sx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_MNT_ID, &sx) != nil || sx.Mask&unix.STATX_MNT_ID == 0 {
		return node{}, false
	}
	for _, m := range s.mounts {
		if m.ns.Self && uint64(m.ID) == sx.Mnt_id && m.srcDev != 0 {
			return blockNode(m.srcDev)
		}
	}
	return node{}, false
}

// blockNode is the walk's root for block device dev, when sysfs knows it.
func blockNode(dev uint64) (node, bool) {
	name, err := sysfsName(dev)
	if err != nil {
		return node{}, false
	}
	return node{block: true, dev: dev, sys: name, name: "/dev/" + name, from: -1}, true
}

// under reports whether node i is reached from the root by edges down only
// (its data ends there), not through something that reads from a node on
// the way (a second loop device over the same image).
func (g *graph) under(i int) bool {
	for j := i; g.nodes[j].from >= 0; j = g.nodes[j].from {
		if !isDown(g.nodes[j].via) {
			return false
		}
	}
	return true
}

// startIn is where the root's data begins in node i: 0 for the root, a
// partition's start in its disk, -1 past anything else.
func (g *graph) startIn(i int) int64 {
	n := g.nodes[i]
	switch {
	case n.from < 0:
		return 0
	case n.via == toDisk && g.nodes[n.from].from < 0:
		if sectors, ok := sysfsInt(filepath.Join(sysfsRoot, "class", "block", g.nodes[n.from].sys, "start")); ok {
			return sectors * 512
		}
	}
	return -1
}

func describeLoop(l loopDev) StackLoop {
	sl := StackLoop{Device: "/dev/" + l.name, Backing: l.backing, BackingRdev: l.backDev}
	if len(l.ids) > 0 {
		sl.File, sl.BackingDev, sl.BackingIno = true, l.ids[0].dev, l.ids[0].ino
	}
	dir := filepath.Join(sysfsRoot, "block", l.name, "loop")
	if dio, ok := sysfsInt(filepath.Join(dir, "dio")); ok {
		sl.DirectIO, sl.DirectIOKnown = dio == 1, true
	}
	sl.Offset, _ = sysfsInt(filepath.Join(dir, "offset"))
	sl.SizeLimit, _ = sysfsInt(filepath.Join(dir, "sizelimit"))
	return sl
}

func sysfsInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}
