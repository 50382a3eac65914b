//go:build linux

package safepath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// Supported says whether the rule is enforced on this platform.
const Supported = true

// maxLinks is how many symlinks one walk follows, as the kernel's limit.
const maxLinks = 40

// maxSteps bounds a walk whose tree is changed under it.
const maxSteps = 4096

// caller is the uid whose files, with root's, the rule trusts; tests run
// as root and pretend to be another user through it.
var caller = func() uint32 { return uint32(os.Geteuid()) }

// disabled switches the rule off (symlinks followed, no transition
// checked), for the tests that show each check fails without it.
var disabled = false

// trusted reports whether a file owned by uid may lead anywhere.
func trusted(uid uint32) bool { return uid == 0 || uid == caller() }

// unsafeTransition is chase()'s rule: from a file of an untrusted owner,
// only to a file of the same owner.
func unsafeTransition(from, to uint32) bool {
	return !disabled && !trusted(from) && from != to
}

// node is one pinned inode: an O_PATH descriptor and what fstat said.
type node struct {
	fd   int
	st   unix.Stat_t
	path string
}

func (n *node) close() {
	if n.fd >= 0 {
		_ = unix.Close(n.fd)
		n.fd = -1
	}
}

func pin(dirfd int, name, path string) (node, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return node{fd: -1}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	n := node{fd: fd, path: path}
	if err := unix.Fstat(fd, &n.st); err != nil {
		n.close()
		return node{fd: -1}, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	return n, nil
}

func kindOf(mode uint32) Kind {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return Regular
	case unix.S_IFDIR:
		return Directory
	case unix.S_IFBLK:
		return BlockDevice
	case unix.S_IFCHR:
		return CharDevice
	case unix.S_IFIFO:
		return FIFO
	case unix.S_IFSOCK:
		return Socket
	case unix.S_IFLNK:
		return Symlink
	}
	return 0
}

func sameInode(a, b *unix.Stat_t) bool { return a.Dev == b.Dev && a.Ino == b.Ino }

// walk is one resolution. dir is the directory reached (the parent of the
// last component), leaf what the last component is (fd -1 when it does
// not exist or is not followed).
type walk struct {
	given string
	dir   node
	leaf  node
	name  string
	links int
	// dangling: the last name came from a symlink and does not exist.
	dangling bool
}

func (w *walk) close() { w.dir.close(); w.leaf.close() }

func splitComponents(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

func (w *walk) start(abs bool) error {
	path, name := "/", "/"
	if !abs {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("resolve %s: %w", w.given, err)
		}
		path, name = wd, "."
	}
	n, err := pin(unix.AT_FDCWD, name, path)
	if err != nil {
		return err
	}
	w.dir.close()
	w.dir = n
	return nil
}

// run walks path. followLast says whether a symlink in the last component
// is followed; a missing last component is not an error when missingOK.
// When the walk ends on a directory reached through ".." or "/", name is
// "" and leaf is that directory.
func (w *walk) run(path string, followLast, missingOK bool) error {
	w.dir, w.leaf = node{fd: -1}, node{fd: -1}
	if path == "" {
		return &fs.PathError{Op: "open", Path: path, Err: unix.ENOENT}
	}
	if err := w.start(strings.HasPrefix(path, "/")); err != nil {
		return err
	}
	mustDir := strings.HasSuffix(path, "/")
	todo := splitComponents(path)
	viaLink := false
	for steps := 0; ; steps++ {
		if steps > maxSteps {
			return &fs.PathError{Op: "resolve", Path: w.given, Err: unix.ELOOP}
		}
		if len(todo) == 0 {
			// The path ended at the directory reached so far ("/", ".",
			// "a/.."): it is its own leaf.
			if w.leaf.fd < 0 {
				fd, err := unix.Dup(w.dir.fd)
				if err != nil {
					return err
				}
				w.leaf = node{fd: fd, st: w.dir.st, path: w.dir.path}
				w.name = ""
			}
			return nil
		}
		c := todo[0]
		todo = todo[1:]
		last := len(todo) == 0
		if c == ".." {
			if err := w.up(); err != nil {
				return err
			}
			continue
		}
		child, err := pin(w.dir.fd, c, join(w.dir.path, c))
		if errors.Is(err, unix.ENOENT) && last && missingOK && !mustDir {
			w.name, w.dangling = c, viaLink
			return nil
		}
		if err != nil {
			return err
		}
		if unsafeTransition(w.dir.st.Uid, child.st.Uid) {
			child.close()
			return &UnsafeError{Path: w.given, From: w.dir.path, FromUID: w.dir.st.Uid, To: child.path, ToUID: child.st.Uid}
		}
		isLink := child.st.Mode&unix.S_IFMT == unix.S_IFLNK
		if isLink && (!last || followLast || mustDir) {
			rest, err := w.follow(&child, c)
			child.close()
			if err != nil {
				return err
			}
			todo = append(rest, todo...)
			viaLink = viaLink || last
			continue
		}
		if !last || mustDir {
			if child.st.Mode&unix.S_IFMT != unix.S_IFDIR {
				child.close()
				return &fs.PathError{Op: "open", Path: child.path, Err: unix.ENOTDIR}
			}
		}
		if last && !mustDir {
			if err := w.planted(&child); err != nil {
				child.close()
				return err
			}
			w.leaf, w.name = child, c
			return nil
		}
		w.dir.close()
		w.dir = child
	}
}

// planted applies the symlink rule's owners to a FIFO, a device or a
// socket in a sticky directory (/tmp, /dev/shm), as the kernel's
// fs.protected_fifos does for FIFOs: anyone may make one there, so one
// owned by neither root, clyde's user nor the directory's owner is another
// user's trap (root's report written into their FIFO), and is not opened.
// Regular files and directories keep the transition rule alone.
func (w *walk) planted(n *node) error {
	k := kindOf(n.st.Mode)
	if disabled || k&(FIFO|CharDevice|BlockDevice|Socket) == 0 || w.dir.st.Mode&unix.S_ISVTX == 0 ||
		trusted(n.st.Uid) || n.st.Uid == w.dir.st.Uid {
		return nil
	}
	return &UnsafeError{Path: w.given, From: n.path, FromUID: n.st.Uid, Planted: k, DirUID: w.dir.st.Uid, CallerID: caller()}
}

// up steps to the real parent of the directory reached so far.
func (w *walk) up() error {
	parent, err := pin(w.dir.fd, "..", filepath.Dir(w.dir.path))
	if err != nil {
		return err
	}
	if sameInode(&parent.st, &w.dir.st) { // at the root: ".." is itself
		parent.close()
		return nil
	}
	if unsafeTransition(w.dir.st.Uid, parent.st.Uid) {
		parent.close()
		return &UnsafeError{Path: w.given, From: w.dir.path, FromUID: w.dir.st.Uid, To: parent.path, ToUID: parent.st.Uid}
	}
	w.dir.close()
	w.dir = parent
	// The walk came here through a directory; if that one was a mount's
	// root or moved, the path text may not say where ".." is: ask.
	if p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", parent.fd)); err == nil && strings.HasPrefix(p, "/") {
		w.dir.path = p
	}
	return nil
}

// follow applies the symlink rule to link (name in w.dir) and returns the
// components of its target; an absolute one restarts the walk at "/".
func (w *walk) follow(link *node, name string) ([]string, error) {
	if !disabled && !trusted(link.st.Uid) && link.st.Uid != w.dir.st.Uid {
		return nil, &UnsafeError{Path: w.given, From: link.path, FromUID: link.st.Uid, Link: true,
			DirUID: w.dir.st.Uid, CallerID: caller()}
	}
	w.links++
	if w.links > maxLinks {
		return nil, &fs.PathError{Op: "open", Path: w.given, Err: unix.ELOOP}
	}
	dest, err := readlinkat(w.dir.fd, name)
	if err != nil {
		return nil, &fs.PathError{Op: "readlink", Path: link.path, Err: err}
	}
	if dest == "" {
		return nil, &fs.PathError{Op: "readlink", Path: link.path, Err: unix.ENOENT}
	}
	if strings.HasPrefix(dest, "/") {
		root, err := pin(unix.AT_FDCWD, "/", "/")
		if err != nil {
			return nil, err
		}
		if unsafeTransition(link.st.Uid, root.st.Uid) {
			root.close()
			return nil, &UnsafeError{Path: w.given, From: link.path, FromUID: link.st.Uid, To: dest, ToUID: root.st.Uid}
		}
		w.dir.close()
		w.dir = root
	}
	return splitComponents(dest), nil
}

func readlinkat(dirfd int, name string) (string, error) {
	for size := 256; size <= 1<<16; size *= 4 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
	return "", unix.ENAMETOOLONG
}

func resolve(path string, followLast, missingOK bool) (*walk, error) {
	w := &walk{given: path}
	if err := w.run(path, followLast, missingOK); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// reopenDir turns a pinned directory into one that can be read, synced and
// locked.
func reopenDir(n *node) (osio.Dir, error) {
	fd, err := unix.Openat(n.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return osio.Dir{}, &fs.PathError{Op: "open", Path: n.path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || !sameInode(&st, &n.st) {
		_ = unix.Close(fd)
		return osio.Dir{}, fmt.Errorf("%s changed while clyde opened it", n.path)
	}
	return osio.DirOf(fd, n.path), nil
}

// Locate resolves path by the rule and returns the directory its last
// component is in (opened, for creating, replacing or removing through it)
// and what is there. A symlink in the last component is followed, so the
// directory is that of the symlink's target.
func Locate(path string) (osio.Dir, Info, error) {
	w, err := resolve(path, true, true)
	if err != nil {
		return osio.Dir{}, Info{}, err
	}
	defer w.close()
	info := Info{Path: join(w.dir.path, w.name), Name: w.name, Dangling: w.dangling}
	if w.leaf.fd >= 0 {
		info.Exists, info.Kind, info.Size = true, kindOf(w.leaf.st.Mode), w.leaf.st.Size
		if w.name == "" {
			info.Path = w.leaf.path
		}
	}
	d, err := reopenDir(&w.dir)
	return d, info, err
}

// Parent resolves the directory of path by the rule and returns it open,
// with the last component taken as it is (never followed): the name of a
// file to create, clean up or remove in it.
func Parent(path string) (osio.Dir, string, error) {
	dir, base := splitLast(path)
	if base == "" || base == "." || base == ".." {
		return osio.Dir{}, "", fmt.Errorf("%s does not name a file in a directory", path)
	}
	d, err := OpenDir(dir)
	return d, base, err
}

// OpenDir opens the directory path by the rule; the Dir's Path is the
// resolved path.
func OpenDir(path string) (osio.Dir, error) {
	w, err := resolve(path, true, false)
	if err != nil {
		return osio.Dir{}, err
	}
	defer w.close()
	if w.leaf.st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return osio.Dir{}, &fs.PathError{Op: "open", Path: w.leaf.path, Err: unix.ENOTDIR}
	}
	return reopenDir(&w.leaf)
}

// Open opens the existing file path by the rule, accepting only the kinds
// given (checked before the open); the open is non-blocking and O_NONBLOCK
// is cleared after. It returns the resolved path too.
func Open(path string, flag osio.Flag, kinds Kind) (osio.File, string, error) {
	w, err := resolve(path, true, false)
	if err != nil {
		return osio.NoFile, "", err
	}
	defer w.close()
	if w.name == "" { // a directory reached through ".." or "/"
		if kinds&Directory == 0 {
			return osio.NoFile, "", &KindError{Path: w.leaf.path, Got: Directory, Want: kinds}
		}
		f, err := openPinned(w.leaf.fd, ".", w.leaf, flag, kinds)
		return f, w.leaf.path, err
	}
	f, err := openPinned(w.dir.fd, w.name, w.leaf, flag, kinds)
	return f, w.leaf.path, err
}

// OpenIn opens name in d, which must not be a symlink, with the same
// checks as Open: the type is read from the pinned inode first, the open
// is non-blocking, and what was opened must be what was looked at. It
// returns the open file's entry.
func OpenIn(d osio.Dir, name string, flag osio.Flag, kinds Kind) (osio.File, osio.Entry, error) {
	if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
		return osio.NoFile, osio.Entry{}, fmt.Errorf("%q is not a name in %s", name, d.Path())
	}
	n, err := pin(d.Fd(), name, join(d.Path(), name))
	if err != nil {
		return osio.NoFile, osio.Entry{}, err
	}
	defer n.close()
	f, err := openPinned(d.Fd(), name, n, flag, kinds)
	if err != nil {
		return osio.NoFile, osio.Entry{}, err
	}
	e, err := f.Stat()
	if err != nil {
		f.Close()
		return osio.NoFile, osio.Entry{}, err
	}
	return f, e, nil
}

// openPinned opens name in dirfd, which pinned is, when its kind is one
// of kinds.
func openPinned(dirfd int, name string, pinned node, flag osio.Flag, kinds Kind) (osio.File, error) {
	k := kindOf(pinned.st.Mode)
	if k&kinds == 0 {
		return osio.NoFile, &KindError{Path: pinned.path, Got: k, Want: kinds}
	}
	if flag&osio.Create != 0 {
		return osio.NoFile, fmt.Errorf("open %s: safepath opens existing files; create through the directory", pinned.path)
	}
	flags, err := osio.UnixOpenFlags(flag)
	if err != nil {
		return osio.NoFile, err
	}
	fd, err := unix.Openat(dirfd, name, flags|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return osio.NoFile, &fs.PathError{Op: "open", Path: pinned.path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || !sameInode(&st, &pinned.st) {
		_ = unix.Close(fd)
		return osio.NoFile, fmt.Errorf("%s changed while clyde opened it; run again", pinned.path)
	}
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
		if err != nil {
			_ = unix.Close(fd)
			return osio.NoFile, fmt.Errorf("open %s: clear O_NONBLOCK: %w", pinned.path, err)
		}
	}
	return osio.FileOf(fd), nil
}

// ReadLink reads the symlink name in d when the rule follows it: owned by
// root, clyde's user or d's owner, and, when it is another user's, not
// pointing at an absolute path (which starts again at root's "/"). A
// relative target is to be walked from d by the caller, which the rule
// then checks step by step.
func ReadLink(d osio.Dir, name string) (string, error) {
	var dst unix.Stat_t
	if err := unix.Fstat(d.Fd(), &dst); err != nil {
		return "", &fs.PathError{Op: "fstat", Path: d.Path(), Err: err}
	}
	w := &walk{given: join(d.Path(), name), dir: node{fd: -1, st: dst, path: d.Path()}}
	link, err := pin(d.Fd(), name, w.given)
	if err != nil {
		return "", err
	}
	defer link.close()
	if link.st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return "", &fs.PathError{Op: "readlink", Path: w.given, Err: unix.EINVAL}
	}
	if unsafeTransition(dst.Uid, link.st.Uid) {
		return "", &UnsafeError{Path: w.given, From: d.Path(), FromUID: dst.Uid, To: w.given, ToUID: link.st.Uid}
	}
	if !disabled && !trusted(link.st.Uid) && link.st.Uid != dst.Uid {
		return "", &UnsafeError{Path: w.given, From: link.path, FromUID: link.st.Uid, Link: true, DirUID: dst.Uid, CallerID: caller()}
	}
	dest, err := readlinkat(d.Fd(), name)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: w.given, Err: err}
	}
	if strings.HasPrefix(dest, "/") && unsafeTransition(link.st.Uid, 0) {
		return "", &UnsafeError{Path: w.given, From: link.path, FromUID: link.st.Uid, To: dest, ToUID: 0}
	}
	return dest, nil
}
