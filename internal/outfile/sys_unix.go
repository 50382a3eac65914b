//go:build unix

package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// writable asks the kernel whether clyde, with its effective user and
// groups (after -u), may write path: permissions, a read-only mount.
func writable(path string) error {
	if err := unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS); err != nil {
		return err
	}
	return nil
}

// ownFDPath matches the names of clyde's own descriptors: /dev/fd/N and
// /proc/self/fd/N (/dev/stdout leads to one of these).
var ownFDPath = regexp.MustCompile(`^/(?:dev/fd|proc/(self|thread-self|[0-9]+)/fd)/([0-9]+)$`)

// ownDescriptor reports whether p names one of clyde's own descriptors,
// which are written as they are: opening /proc/self/fd/1 anew would start
// at offset 0 of a redirected stdout, over what was written before.
func ownDescriptor(p string) (int, bool) {
	m := ownFDPath.FindStringSubmatch(p)
	if m == nil {
		return 0, false
	}
	if m[1] != "" && m[1] != "self" && m[1] != "thread-self" && m[1] != strconv.Itoa(os.Getpid()) {
		return 0, false
	}
	fd, err := strconv.Atoi(m[2])
	return fd, err == nil
}

func fdWritable(fd int) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return fmt.Errorf("is not open: %v", err)
	}
	if fl&unix.O_ACCMODE == unix.O_RDONLY {
		return errors.New("is open for reading only")
	}
	return nil
}

// dupFD returns a copy of fd that can be closed without closing fd.
func dupFD(fd int) (*os.File, error) {
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("duplicate descriptor %d: %w", fd, err)
	}
	return os.NewFile(uintptr(nfd), "/dev/fd/"+strconv.Itoa(fd)), nil
}

// openInPlace opens an existing node for writing: never created, never
// truncated, no controlling terminal taken. follow is set only for magic
// links (/proc/PID/fd/N), which only the kernel can follow. The open does
// not block: a FIFO nobody reads (ENXIO) is tried again for fifoReaderWait,
// for a reader started just after clyde, and then fails in one line rather
// than hang the command past its ^C; Go's poller waits for a slow reader.
func openInPlace(path string, follow bool) (*os.File, error) {
	flags := os.O_WRONLY | unix.O_NOCTTY | unix.O_NONBLOCK
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	deadline := time.Now().Add(fifoReaderWait)
	for {
		f, err := os.OpenFile(path, flags, 0)
		if !errors.Is(err, unix.ENXIO) {
			return f, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("is a FIFO that no process reads (waited %v); start its reader first", fifoReaderWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fifoReaderWait is how long a FIFO output waits for its reader.
const fifoReaderWait = 5 * time.Second

// copyOwner gives the replacement the replaced file's owner and group when
// clyde runs as root (a user's file stays the user's); a non-root clyde
// cannot give a file away, and its own files keep their owner anyway.
func copyOwner(f *os.File, old fs.FileInfo) error {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 {
		return nil
	}
	return f.Chown(int(st.Uid), int(st.Gid))
}

// sameDir reports whether root is the directory d: the handle the file is
// renamed in through is the directory the path rule resolved.
func sameDir(root *os.Root, d osio.Dir) bool {
	fi, err := root.Stat(".")
	id, err2 := d.Identity()
	st, ok := fi.Sys().(*syscall.Stat_t)
	return err == nil && err2 == nil && ok && uint64(st.Dev) == id.Dev && uint64(st.Ino) == id.Ino
}

// giveToDirOwner gives a new file to the owner of its directory when clyde
// runs as root and that owner is another user.
func giveToDirOwner(f *os.File, root *os.Root) error {
	fi, err := root.Stat(".")
	if err != nil || os.Geteuid() != 0 {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return nil
	}
	return f.Chown(int(st.Uid), int(st.Gid))
}

// rdev is a device node's device number.
func rdev(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Rdev)
	}
	return 0
}
