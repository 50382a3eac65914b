//go:build linux

package admit

import (
	"path/filepath"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/proc"
)

// overlay is a mounted overlayfs superblock: its device number and the
// filesystems its layers are on. The kernel reports a file opened through
// an overlay (by a descriptor, a map, a loop device, an io_uring) by the
// overlay's device and the inode number of the real file on the layer's
// filesystem (of the lower file it was copied up from, once it has been):
// that pair is how the real file is found from what holders show.
type overlay struct {
	dev       uint64
	layerDevs []uint64
	// unplaced: a layer's path (the string given at mount time) does not
	// resolve, being relative or renamed since: any filesystem may be
	// under the overlay, and its files are matched by inode number alone.
	unplaced bool
	// upper is the upper directory as namespace upperNS sees it; "" when
	// there is none or it is unplaced.
	upper   string
	upperNS proc.MountNS
}

func (s *system) readOverlays() {
	for _, m := range s.mounts {
		if m.FSType != "overlay" {
			continue
		}
		if ov, ok := s.overlays[m.dev()]; ok && !ov.unplaced {
			continue // placed through another namespace already
		}
		upper, lowers := parseOverlayLayers(m.SuperOptions)
		ov := &overlay{dev: m.dev()}
		place := func(dir string) bool {
			if !filepath.IsAbs(dir) {
				ov.unplaced = true
				return false
			}
			st, ok := statIn(m.ns, dir)
			if !ok || st.Mode&unix.S_IFMT != unix.S_IFDIR {
				ov.unplaced = true
				return false
			}
			if !slices.Contains(ov.layerDevs, st.Dev) {
				ov.layerDevs = append(ov.layerDevs, st.Dev)
			}
			return true
		}
		if upper != "" && place(upper) {
			ov.upper, ov.upperNS = upper, m.ns
		}
		for _, l := range lowers {
			place(l)
		}
		if len(upper) == 0 && len(lowers) == 0 {
			ov.unplaced = true
		}
		if _, ok := s.overlays[ov.dev]; !ok || !ov.unplaced {
			s.overlays[ov.dev] = ov
		}
	}
}

// identities is every identity the kernel may report for the data of the
// regular file id (at path in clyde's namespace, "" when unknown): id
// itself; for a file on an overlay, the real file that holds its data (the
// upper layer's, through the upper directory) and the same inode number on
// each layer's filesystem (a lower file not copied up); and for each real
// file, what every overlay over its filesystem reports for it (the
// overlay's device and that inode number, or the inode number of the lower
// file a copied-up file came from).
func (s *system) identities(id fileID, path string) []fileID {
	ids := []fileID{id}
	if len(s.overlays) == 0 {
		return ids
	}
	add := func(f fileID) {
		if !slices.Contains(ids, f) {
			ids = append(ids, f)
		}
	}
	type real struct {
		id  fileID
		dir int // a descriptor on its directory (for its origin), -1 for none
		fd  int // an O_PATH descriptor on it, -1 for none
	}
	var reals []real
	if ov := s.overlayOf(id.dev, path); ov != nil {
		if fd, dir, up, ok := s.upperFile(ov, path); ok {
			reals = append(reals, real{up, dir, fd})
		}
		for _, d := range ov.layerDevs {
			reals = append(reals, real{fileID{d, id.ino}, -1, -1})
		}
	} else {
		r := real{id, -1, -1}
		if path != "" {
			r.fd, r.dir = openReal(proc.MountNS{Self: true}, path, id)
		}
		reals = append(reals, r)
	}
	for _, r := range reals {
		add(r.id)
		inos := []uint64{r.id.ino}
		if r.fd >= 0 && r.dir >= 0 {
			if o, ok := originIno(r.fd, r.dir); ok {
				inos = append(inos, o)
			}
		}
		closeFds(r.fd, r.dir)
		for _, ov := range s.overlays {
			if ov.unplaced || slices.Contains(ov.layerDevs, r.id.dev) {
				for _, ino := range inos {
					add(fileID{ov.dev, ino})
				}
			}
		}
	}
	return ids
}

// overlayOf is the overlay a file with st_dev dev at path is on: by the
// device number, or, for an overlay whose layers are on different
// filesystems (whose files report a device of their own per layer), by the
// mount path is on in clyde's namespace.
func (s *system) overlayOf(dev uint64, path string) *overlay {
	if ov, ok := s.overlays[dev]; ok {
		return ov
	}
	if m, ok := s.ownMountAt(path); ok && m.FSType == "overlay" {
		return s.overlays[m.dev()]
	}
	return nil
}

// ownMountAt is the mount of clyde's namespace that path is on, as the
// mount table says: the last, deepest mount point path is within.
func (s *system) ownMountAt(path string) (mount, bool) {
	var best mount
	found := false
	if path == "" {
		return best, false
	}
	for _, m := range s.mounts {
		if !m.ns.Self || !within(path, m.MountPoint) {
			continue
		}
		if !found || len(m.MountPoint) >= len(best.MountPoint) {
			best, found = m, true
		}
	}
	return best, found
}

// upperFile opens the file of the upper layer that the overlay file at
// path is, when the upper directory is known and holds it (the file was
// made there, or copied up): an O_PATH descriptor on it and a descriptor
// on its directory.
func (s *system) upperFile(ov *overlay, path string) (int, int, fileID, bool) {
	m, ok := s.ownMountAt(path)
	if ov.upper == "" || !ok || m.dev() != ov.dev {
		return -1, -1, fileID{}, false
	}
	rel, err := filepath.Rel(m.MountPoint, path)
	if err != nil {
		return -1, -1, fileID{}, false
	}
	upper := filepath.Join(ov.upper, m.Root, rel)
	fd, ok := openIn(ov.upperNS, upper, unix.O_PATH|unix.O_NOFOLLOW)
	if !ok {
		return -1, -1, fileID{}, false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, -1, fileID{}, false
	}
	dir, ok := openIn(ov.upperNS, filepath.Dir(upper), unix.O_RDONLY|unix.O_DIRECTORY)
	if !ok {
		dir = -1
	}
	return fd, dir, fileID{st.Dev, st.Ino}, true
}

// openReal opens (O_PATH) the file at path when it is still id, and its
// directory; -1 for what it cannot.
func openReal(ns proc.MountNS, path string, id fileID) (fd, dir int) {
	fd, ok := openIn(ns, path, unix.O_PATH|unix.O_NOFOLLOW)
	if !ok {
		return -1, -1
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || (fileID{st.Dev, st.Ino}) != id {
		unix.Close(fd)
		return -1, -1
	}
	dir, ok = openIn(ns, filepath.Dir(path), unix.O_RDONLY|unix.O_DIRECTORY)
	if !ok {
		dir = -1
	}
	return fd, dir
}

func closeFds(fds ...int) {
	for _, fd := range fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// originIno is the inode number of the lower file a copied-up upper file
// (the O_PATH descriptor fd) came from, which the overlay goes on
// reporting for it: overlayfs records the lower file's handle in the
// "overlay.origin" extended attribute. The handle is opened on fd's own
// filesystem, through dir, a descriptor on its directory (upper and lower
// on one filesystem, as container engines lay them out); false otherwise.
func originIno(fd, dir int) (uint64, bool) {
	self := "/proc/self/fd/" + strconv.Itoa(fd)
	buf := make([]byte, 256)
	n, err := unix.Getxattr(self, "trusted.overlay.origin", buf)
	if err != nil {
		n, err = unix.Getxattr(self, "user.overlay.origin", buf)
	}
	if err != nil {
		return 0, false
	}
	typ, fid, ok := parseOverlayFH(buf[:n])
	if !ok {
		return 0, false
	}
	lower, err := unix.OpenByHandleAt(dir, unix.NewFileHandle(typ, fid), unix.O_PATH|unix.O_CLOEXEC)
	if err != nil {
		return 0, false
	}
	defer unix.Close(lower)
	var st unix.Stat_t
	if unix.Fstat(lower, &st) != nil {
		return 0, false
	}
	return st.Ino, true
}
