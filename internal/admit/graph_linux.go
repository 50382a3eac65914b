//go:build linux

package admit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// edge is how a node of the graph was reached from the one before it.
type edge int

const (
	fromTarget  edge = iota
	toBacking        // a loop device's backing file or device: its data ends there
	toSlave          // a device-mapper or md device's slave: its data ends there
	toDisk           // a partition's disk: its data ends there
	toPartition      // a disk's partition: reads part of it
	toHolder         // device-mapper or md stacked on it: reads from it
	toLoopOver       // a loop device bound to it: reads from it
	toInside         // a partition inside it: an msdos extended partition's logical partitions, whose table it holds
	toOverlap        // a partition of the same disk whose sectors overlap it (a label nested in it)
)

// relation is what the chain says of a node reached by each edge.
var relation = map[edge]string{
	toBacking:   "its backing %s",
	toSlave:     "under it",
	toDisk:      "its disk",
	toPartition: "its partition",
	toHolder:    "device-mapper, LVM or RAID stacked on it",
	toLoopOver:  "loop device over it",
	toInside:    "a logical partition in it, whose partition table it holds",
	toOverlap:   "a partition overlapping it",
}

// node is a block device or a regular file in the target's graph.
type node struct {
	block bool
	dev   uint64 // block: the device number
	sys   string // block: the sysfs name ("" when sysfs does not know it)
	id    fileID // file: its identity
	// ids is every identity the kernel may report for a file's data, id
	// first (system.identities: through an overlay, the overlay's).
	ids  []fileID
	path string // file: a path to it, where one is known
	name string // what the chain shows
	from int    // the node it was reached from; -1 for the target
	via  edge
	// down is true when the node was reached through something the
	// target's data ends in (a backing, a slave, a disk) rather than only
	// through what reads from the target.
	down bool
}

func (n node) key() string {
	if n.block {
		return fmt.Sprintf("b%d", n.dev)
	}
	return fmt.Sprintf("f%d:%d", n.id.dev, n.id.ino)
}

// graph is every node the target's data ends in or is read by.
type graph struct {
	s     *system
	nodes []node
	seen  map[string]bool
	// rootFd is clyde's read-only descriptor on a target file (-1 for a
	// device) and rootHeld what the kernel's leases said of it; rootRead
	// is set by openBy when a process holds the file only for reading.
	rootFd   int
	rootHeld held
	rootRead bool
}

// walk builds the graph from root, breadth first, so the chain to each
// node is a shortest one. Some edges are not taken from a node reached the
// other way: from a partition up to its disk, the disk's other partitions
// (they do not overlap it, except those partitionsWithin finds); from a
// partition reached as inside or overlapping another, the partitions
// within it (a slice's neighbour slices do not overlap the slice); and
// from a device-mapper device down to a slave, the slave's other holders
// (two LVM volumes on one physical volume do not overlap). Everything else
// is followed: a loop device's backing is shared whole by every loop
// device over it.
func walk(s *system, root node) *graph {
	g := &graph{s: s, seen: map[string]bool{}, rootFd: -1}
	g.add(root)
	for i := 0; i < len(g.nodes); i++ {
		if g.nodes[i].block {
			g.blockEdges(i)
		} else {
			g.fileEdges(i)
		}
	}
	return g
}

func (g *graph) add(n node) {
	if g.seen[n.key()] {
		return
	}
	g.seen[n.key()] = true
	if !n.block {
		n.ids = g.s.identities(n.id, n.path)
		for _, id := range n.ids {
			g.seen[node{id: id}.key()] = true
		}
	}
	g.nodes = append(g.nodes, n)
}

// has is true when id is one of the file node's identities.
func (n node) has(id fileID) bool { return !n.block && slices.Contains(n.ids, id) }

// addBlock adds the block device sysfs calls name, reached from node i.
func (g *graph) addBlock(i int, name string, via edge) {
	dev, ok := readDevNumber(filepath.Join(sysfsRoot, "class", "block", name))
	if !ok {
		return
	}
	g.addDev(i, dev, name, via)
}

func (g *graph) addDev(i int, dev uint64, name string, via edge) {
	if name == "" {
		name, _ = sysfsName(dev)
	}
	display := "/dev/" + name
	if name == "" {
		display = fmt.Sprintf("block device %d:%d", unix.Major(dev), unix.Minor(dev))
	}
	g.add(node{block: true, dev: dev, sys: name, name: display, from: i, via: via, down: g.nodes[i].down || isDown(via)})
}

func isDown(via edge) bool { return via == toBacking || via == toSlave || via == toDisk }

func (g *graph) blockEdges(i int) {
	n := g.nodes[i]
	for _, l := range g.s.loops {
		if l.backDev == n.dev {
			g.addDev(i, l.dev, l.name, toLoopOver)
		}
	}
	if l, ok := g.s.loop(n.dev); ok {
		if l.backDev != 0 {
			g.addDev(i, l.backDev, "", toBacking)
		}
		if len(l.ids) > 0 {
			g.add(node{id: l.ids[0], path: l.backing, name: l.backing, from: i, via: toBacking, down: true})
			for _, id := range l.ids[1:] {
				g.seen[node{id: id}.key()] = true
			}
		}
	}
	if n.sys == "" {
		return
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(sysfsRoot, "class", "block", n.sys))
	if err != nil {
		return
	}
	if isPartition(dir) {
		g.addBlock(i, filepath.Base(filepath.Dir(dir)), toDisk)
		if n.via != toInside && n.via != toOverlap {
			for _, p := range partitionsWithin(dir) {
				g.addBlock(i, p.name, p.via)
			}
		}
	} else if n.via != toDisk {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if isPartition(filepath.Join(dir, e.Name())) {
				g.addBlock(i, e.Name(), toPartition)
			}
		}
	}
	if n.via != toSlave {
		holders, _ := os.ReadDir(filepath.Join(dir, "holders"))
		for _, h := range holders {
			g.addBlock(i, h.Name(), toHolder)
		}
	}
	slaves, _ := os.ReadDir(filepath.Join(dir, "slaves"))
	for _, sl := range slaves {
		g.addBlock(i, sl.Name(), toSlave)
	}
}

func isPartition(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "partition"))
	return err == nil
}

func (g *graph) fileEdges(i int) {
	for _, l := range g.s.loops {
		if l.backsAny(g.nodes[i].ids) {
			g.addDev(i, l.dev, l.name, toLoopOver)
		}
	}
}

func (s *system) loop(dev uint64) (loopDev, bool) {
	for _, l := range s.loops {
		if l.dev == dev {
			return l, true
		}
	}
	return loopDev{}, false
}

// chain names the way from the target to node i and what was found there:
// "/dev/loop9 -> /dev/loop8 (its backing device) -> mounted on /mnt (ext4)".
func (g *graph) chain(i int, found string) string {
	var path []node
	for j := i; j >= 0; j = g.nodes[j].from {
		path = append(path, g.nodes[j])
	}
	var b strings.Builder
	for k := len(path) - 1; k >= 0; k-- {
		n := path[k]
		if k < len(path)-1 {
			b.WriteString(" -> ")
		}
		b.WriteString(n.name)
		if n.from >= 0 {
			rel := relation[n.via]
			if n.via == toBacking {
				what := "file"
				if n.block {
					what = "device"
				}
				rel = fmt.Sprintf(rel, what)
			}
			b.WriteString(" (" + rel + ")")
		}
	}
	if found != "" {
		b.WriteString(" -> " + found)
	}
	return b.String()
}

// What a use found in the graph weighs: the chain shown is of the
// heaviest use, the nearest among equals.
const (
	useMounted    = iota // mounted, swap, a member of a mounted btrfs
	useSuperblock        // a superblock naming a mounted btrfs
	useStacked           // a holder stacked on it
	useBound             // only a loop device bound over the target
	useNone
)

// inUse is the use found in the graph, as a chain, or "". In order: what
// the kernel's tables say of each node (mounted, swap, a member of a
// mounted btrfs), a holder stacked on one, other processes' descriptors,
// each other device's exclusive open, and last a loop device bound over
// the target and nothing else.
func (g *graph) inUse() string {
	best, bestAt, bestFound := useNone, 0, ""
	for i := range g.nodes {
		if found, weight := g.tables(i); weight < best {
			best, bestAt, bestFound = weight, i, found
		}
	}
	if best < useBound {
		return g.chain(bestAt, bestFound)
	}
	if i, found, ok := g.openBy(); ok {
		return g.chain(i, found)
	}
	for i, n := range g.nodes {
		if i == 0 || !n.block || n.via == toDisk {
			// The target's own exclusive open comes last, from Write; a
			// partition's disk is claimed by any mounted partition of it.
			continue
		}
		fd, err := unix.Open(filepath.Join(devRoot, n.sys), unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_EXCL, 0)
		if errors.Is(err, unix.EBUSY) {
			return g.chain(i, "held open exclusively by another program or the kernel (O_EXCL open failed: device busy)")
		}
		if err == nil {
			unix.Close(fd)
		}
	}
	if best == useBound {
		return g.chain(bestAt, bestFound)
	}
	if found := g.unnamedHolder(); found != "" {
		return g.chain(0, found)
	}
	return ""
}

// unnamedHolder is the last word on a target file, from the kernel's
// leases: something has it open for writing, or has it open at all while
// no process is seen reading it, and no table clyde reads says what. That
// is a holder no scan reaches (a process in a PID namespace clyde does not
// see, an io_uring whose ring descriptor is closed, a kernel server, a
// file-backed mount clyde could not identify), and the write is refused.
// A second descriptor of clyde's own on the file makes the leases say
// nothing.
func (g *graph) unnamedHolder() string {
	if g.rootFd < 0 || g.rootHeld == heldNone || g.rootHeld == heldUnknown || (g.rootHeld == heldReaders && g.rootRead) {
		return ""
	}
	if selfHolds(g.nodes[0].ids, g.rootFd) {
		return ""
	}
	if g.rootHeld == heldWriters {
		return "open for writing by something no process, loop device, mount or swap clyde can see explains (the kernel refused clyde a read lease on it)"
	}
	return "held open by something no process, loop device, mount or swap clyde can see explains (the kernel refused clyde a write lease on it)"
}

// selfHolds is true when clyde has the file open on a descriptor other
// than fd.
func selfHolds(ids []fileID, fd int) bool {
	dir := filepath.Join(procRoot, "self", "fd")
	fds, _ := os.ReadDir(dir)
	for _, e := range fds {
		if e.Name() == strconv.Itoa(fd) {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(filepath.Join(dir, e.Name()), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && slices.Contains(ids, fileID{st.Dev, st.Ino}) {
			return true
		}
	}
	return false
}

// backedBy is the file-backed mount (erofs straight from an image, in any
// namespace) whose superblock file node i holds, found by the UUID the
// kernel reports for the mount, since of the image it shows only the path
// given at mount time. The target file is passed over when the kernel's
// leases say nothing else has it open: it is then a copy of a mounted
// image, as the mount holds its own image open.
func (g *graph) backedBy(i int) string {
	if g.nodes[i].block || len(g.s.backed) == 0 || (i == 0 && g.rootHeld == heldNone) {
		return ""
	}
	fd, done, ok := g.openFile(i)
	if !ok {
		return ""
	}
	defer done()
	for at, m := range g.s.mounts {
		b, ok := g.s.backed[m.dev()]
		if !ok || b.at != at {
			continue
		}
		if u, ok := superUUID(fd, m.FSType); ok && u == b.uuid {
			return m.where("straight from this file, whose superblock UUID " + formatUUID(u) + " the mount reports")
		}
	}
	return ""
}

// openFile opens file node i read-only: the target through clyde's own
// descriptor, another file by its path while that is still the file.
func (g *graph) openFile(i int) (int, func(), bool) {
	n := g.nodes[i]
	if i == 0 && g.rootFd >= 0 {
		return g.rootFd, func() {}, true
	}
	if n.path == "" {
		return -1, nil, false
	}
	fd, err := unix.Open(n.path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return -1, nil, false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || (fileID{st.Dev, st.Ino}) != n.id {
		unix.Close(fd)
		return -1, nil, false
	}
	return fd, func() { unix.Close(fd) }, true
}

// tables holds the rules read from the kernel's tables for node i: what
// was found and its weight (useNone: nothing).
func (g *graph) tables(i int) (string, int) {
	n := g.nodes[i]
	for _, m := range g.s.mounts {
		switch {
		case n.block && (m.srcDev == n.dev || m.dev() == n.dev):
			return m.where(""), useMounted
		case n.has(m.srcFile):
			return m.where("straight from the file"), useMounted
		}
	}
	if found := g.backedBy(i); found != "" {
		return found, useMounted
	}
	for _, sw := range g.s.swaps {
		if (n.block && sw.dev == n.dev) || n.has(sw.file) {
			return "used as swap (" + sw.path + ")", useMounted
		}
	}
	if fsid, ok := g.s.member[n.sys]; ok && n.block {
		return fmt.Sprintf("a device of the btrfs filesystem %s, mounted on %s", fsid, g.s.btrfs[fsid].where), useMounted
	}
	if len(g.s.btrfs) > 0 {
		if fs := g.s.btrfs[g.fsid(i)]; fs != nil {
			return fmt.Sprintf("holds a superblock of the btrfs filesystem %s, which is mounted on %s", fs.fsid, fs.where), useSuperblock
		}
	}
	switch {
	case n.via == toHolder:
		return "", useStacked // the holder is the use
	case n.via == toLoopOver && !n.down:
		return fmt.Sprintf("bound (losetup -d %s detaches it)", n.name), useBound
	}
	return "", useNone
}

// fsid reads the btrfs fsid in node i's superblock, "" for none.
func (g *graph) fsid(i int) string {
	if n := g.nodes[i]; n.block {
		fd, ok := openNode(n.sys, n.dev)
		if !ok {
			return ""
		}
		defer unix.Close(fd)
		return btrfsFsid(fd)
	}
	fd, done, ok := g.openFile(i)
	if !ok {
		return ""
	}
	defer done()
	return btrfsFsid(fd)
}
