// Package safepath is the one rule by which clyde, running as root, resolves
// every path it opens, creates or removes: the rule of systemd's chase()
// with CHASE_SAFE, and of the kernel's fs.protected_symlinks, applied to
// every directory rather than only to sticky ones.
//
// A path is walked one component at a time from a descriptor, each
// component pinned with O_PATH|O_NOFOLLOW and looked at with fstat before
// the next step:
//
//   - a symlink is followed only when it is owned by root, by clyde's
//     (effective) user, or by the owner of the directory it sits in;
//   - no step goes from something owned by a user other than root or
//     clyde's user into something owned by someone else (chase's "unsafe
//     transition"): another user's directory, or that user's symlink, leads
//     only to that user's files;
//   - a FIFO, a device or a socket in a sticky directory is opened only
//     when root, clyde's user or the directory's owner owns it (the
//     symlink rule's owners; the kernel's fs.protected_fifos);
//   - ".." is the real parent of the directory reached so far, never the
//     path text with its last element cut off;
//   - at most 40 symlinks are followed (the kernel's ELOOP limit).
//
// Every open of a name is non-blocking and checks the type the caller
// accepts with fstat of the pinned inode before anything is opened, so a
// FIFO or a device planted at a name never hangs or touches clyde. Files
// clyde removes on the word of a marker must be owned by clyde's user,
// regular, mode 0600 and single-linked (CheckOwned).
//
// The rule is implemented on Linux; elsewhere the functions keep clyde's
// earlier behaviour (symlinks followed as the OS does) and say so in
// Supported.
package safepath

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/clydebench/clyde/internal/osio"
)

// Kind is a set of file types a caller accepts.
type Kind uint

// The file types.
const (
	Regular Kind = 1 << iota
	Directory
	BlockDevice
	CharDevice
	FIFO
	Socket
	Symlink
	// Any accepts every type but a symlink.
	Any = Regular | Directory | BlockDevice | CharDevice | FIFO | Socket
)

// String names a single kind, for messages.
func (k Kind) String() string {
	switch k {
	case Regular:
		return "regular file"
	case Directory:
		return "directory"
	case BlockDevice:
		return "block device"
	case CharDevice:
		return "character device"
	case FIFO:
		return "FIFO"
	case Socket:
		return "socket"
	case Symlink:
		return "symlink"
	}
	return "special file"
}

// ErrUnsafe is what every refusal of the rule wraps (errors.Is).
var ErrUnsafe = errors.New("unsafe path")

// UnsafeError is a step the rule refuses: a symlink not followed, or a
// transition from one user's file to another's.
type UnsafeError struct {
	// Path is the path as the caller gave it.
	Path string
	// From is what the step starts at (a directory or a symlink), To where
	// it leads; the UIDs are their owners. Link is set when the refusal is
	// of following the symlink From itself.
	From, To         string
	FromUID, ToUID   uint32
	Link             bool
	DirUID, CallerID uint32
	// Planted is set when the refusal is of opening From, a FIFO or device
	// of another user in a sticky directory: its kind.
	Planted Kind
}

func (e *UnsafeError) Error() string {
	if e.Planted != 0 {
		return fmt.Sprintf("%s: another user's %s in a sticky directory: %s is owned by uid %d, neither root, clyde's user (uid %d) nor its directory's owner (uid %d); clyde does not open it",
			e.Path, e.Planted, e.From, e.FromUID, e.CallerID, e.DirUID)
	}
	if e.Link {
		return fmt.Sprintf("%s: another user's symlink: %s is owned by uid %d, neither root, clyde's user (uid %d) nor its directory's owner (uid %d); clyde does not follow it",
			e.Path, e.From, e.FromUID, e.CallerID, e.DirUID)
	}
	return fmt.Sprintf("%s: unsafe path: %s (owned by uid %d) leads to %s (owned by uid %d); clyde does not follow a path owned by another user into something owned by someone else",
		e.Path, e.From, e.FromUID, e.To, e.ToUID)
}

// Is makes errors.Is(err, ErrUnsafe) true.
func (e *UnsafeError) Is(target error) bool { return target == ErrUnsafe }

// KindError is a name of a type the caller does not accept.
type KindError struct {
	Path string
	Got  Kind
	Want Kind
}

func (e *KindError) Error() string {
	return fmt.Sprintf("%s is a %s, which clyde does not open here", e.Path, e.Got)
}

// Info is what Locate found at a path.
type Info struct {
	// Path is the path resolved: absolute, no symlink, no "..".
	Path string
	// Name is the last component of Path, in the directory Locate returns.
	Name string
	// Exists says whether something is at Path; Kind and Size describe it.
	Exists bool
	Kind   Kind
	Size   int64
	// Dangling is set when the last component named a symlink (followed by
	// the rule) whose target does not exist.
	Dangling bool
}

// Lookup resolves path by the rule without opening anything for reading or
// writing: what is there, where, after every symlink is followed. A missing
// last component is not an error (Exists is false); a missing directory is.
func Lookup(path string) (Info, error) {
	d, info, err := Locate(path)
	if err == nil {
		d.Close()
	}
	return info, err
}

// CheckOwned is the rule for a file clyde removes on the word of a marker,
// and for the marker itself: owned by clyde's user, a regular file, mode
// 0600, one link. Another user's file passed off as clyde's (a marker
// naming root's file, a hard link) is then never removed.
func CheckOwned(path string, e osio.Entry) error {
	switch {
	case !e.Reg:
		return fmt.Errorf("%s is not a regular file", path)
	case e.UID >= 0 && e.UID != os.Geteuid():
		return fmt.Errorf("%s is owned by uid %d, not by clyde's user (uid %d)", path, e.UID, os.Geteuid())
	case Supported && e.Mode&0o7777 != 0o600:
		return fmt.Errorf("%s has mode %04o, not the 0600 clyde creates it with", path, e.Mode&0o7777)
	case Supported && e.Nlink != 1:
		return fmt.Errorf("%s has %d links; clyde's files have one", path, e.Nlink)
	}
	return nil
}

// RemoveOwned removes name in d when CheckOwned passes: never a symlink,
// never another user's file. A name that is gone already is fs.ErrNotExist.
func RemoveOwned(d osio.Dir, name string) error {
	e, err := d.Lstat(osio.Name(name))
	if err != nil {
		return err
	}
	if err := CheckOwned(d.Path()+string(os.PathSeparator)+name, e); err != nil {
		return fmt.Errorf("%w; left it", err)
	}
	return d.Remove(osio.Name(name))
}

// splitLast splits path at its last slash, textually: "a/b/../c" is in
// "a/b/..", which the walk resolves, not in "a" (filepath.Dir's lexical
// answer, wrong when b is a symlink).
func splitLast(path string) (dir, base string) {
	i := strings.LastIndexByte(path, '/')
	switch {
	case i < 0:
		return ".", path
	case i == 0:
		return "/", path[1:]
	}
	return path[:i], path[i+1:]
}
