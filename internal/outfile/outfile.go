// Package outfile writes the output files a user names on the command line
// (--json, --prom-textfile, --output, report -o) under one rule: a regular
// file, or a path that does not exist yet, is replaced atomically through
// its directory's handle; anything else that exists (a character device, a
// FIFO, /dev/stdout, /proc/self/fd/N) is written in place and never
// replaced. Check runs before the benchmark does, so a path that cannot be
// written refuses the run before anything is created; Write runs after.
package outfile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// maxLinks is how many symlinks Check reads before giving up, as the
// kernel's ELOOP limit.
const maxLinks = 40

// newFileMode is the mode of a file clyde creates: a result is for sharing.
const newFileMode = 0o644

// kind is how a Target is written.
type kind int

const (
	// replace: a regular file or an absent path, replaced through root.
	replace kind = iota
	// inPlace: an existing non-regular file, opened for writing as it is.
	inPlace
	// stdout: "-" (or our own fd 1), the command's standard output.
	stdout
	// ownFD: /dev/fd/N or /proc/self/fd/N for another of our descriptors.
	ownFD
)

// Target is a checked output path, ready to be written once.
type Target struct {
	// Flag and Path are as the user gave them, for messages.
	Flag, Path string
	kind       kind
	// replace: the directory's handle, and the name in it.
	root *os.Root
	name string
	// inPlace: the resolved path, what it was at Check, and whether the
	// last component is a magic link the kernel must follow (/proc/PID/fd/N).
	path   string
	info   fs.FileInfo
	follow bool
	// ownFD: the descriptor.
	fd int
}

// Check resolves path and decides how it will be written; every refusal is
// a *result.UsageError naming flag, and nothing is created. "-" is standard
// output. The path is resolved by clyde's one path rule (internal/safepath):
// a symlink is followed only when root, clyde's user or its directory's
// owner owns it, never from another user's file into someone else's, and
// ".." is the real parent. A directory, a block device, a socket and a file
// in procfs or sysfs are refused; the directory of a file to be created or
// replaced must exist and be writable.
// Close the Target when it will not be written.
func Check(flag, path string) (*Target, error) {
	t := &Target{Flag: flag, Path: path}
	if path == "" {
		return nil, result.Usagef(flag, "empty path; give a file name, or - for standard output")
	}
	if path == "-" {
		t.kind = stdout
		return t, nil
	}
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		return nil, t.refuse("names a directory; give a file name")
	}
	p := path
	if !filepath.IsAbs(p) {
		// Not filepath.Abs: it cleans "link/../x" to "x", and ".." after
		// a symlink is the symlink target's parent, as the kernel and fio
		// resolve it; the walk below resolves it so.
		wd, err := os.Getwd()
		if err != nil {
			return nil, t.refuse("%v", err)
		}
		p = wd + string(filepath.Separator) + p
	}
	// The last component's own symlinks are read one by one, each under
	// the path rule, so that a link to /proc/self/fd/1 is still our
	// standard output and /proc/PID/fd/N still a magic link.
	for links := 0; ; links++ {
		if fd, ok := ownDescriptor(filepath.Clean(p)); ok {
			return t.checkFD(fd)
		}
		if mp, ok := magicLink(p); ok {
			// /proc/PID/fd/N: its text ("pipe:[123]") is no path; only
			// the kernel can follow it.
			fi, err := os.Stat(mp)
			if err != nil {
				return nil, t.refuse("%v", pathErr(err))
			}
			return t.checkExisting(mp, fi, true)
		}
		dest, ok, err := lastLink(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, t.refuse("a directory on its path does not exist")
		}
		if err != nil {
			return nil, t.refuse("%v", unwrapPath(err))
		}
		if !ok {
			break
		}
		if links == maxLinks {
			return nil, t.refuse("too many levels of symbolic links")
		}
		p = dest
	}
	// One rule for every path clyde writes (internal/safepath): another
	// user's symlink, or a path through another user's directory into
	// someone else's file, is refused.
	d, info, err := safepath.Locate(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, t.refuse("a directory on its path does not exist")
	}
	if err != nil {
		return nil, t.refuse("%v", unwrapPath(err))
	}
	if !info.Exists {
		return t.checkReplace(d, info.Name)
	}
	d.Close()
	fi, err := os.Lstat(info.Path)
	if err != nil {
		return nil, t.refuse("%v", pathErr(err))
	}
	return t.checkExisting(info.Path, fi, false)
}

// lastLink reads p's last component when it is a symlink the path rule
// follows, and returns the path it leads to (ok false when it is none).
func lastLink(p string) (string, bool, error) {
	d, name, err := safepath.Parent(p)
	if err != nil {
		return "", false, err
	}
	defer d.Close()
	if e, err := d.Lstat(osio.Name(name)); err != nil || !e.Link {
		return "", false, nil
	}
	dest, err := safepath.ReadLink(d, name)
	if err != nil {
		return "", false, err
	}
	if !filepath.IsAbs(dest) {
		dest = d.Path() + string(filepath.Separator) + dest
	}
	return dest, true, nil
}

// unwrapPath drops what a safepath refusal repeats: its message starts
// with the path the user gave, which refuse names already.
func unwrapPath(err error) error {
	var ue *safepath.UnsafeError
	if errors.As(err, &ue) {
		return errors.New(strings.TrimPrefix(ue.Error(), ue.Path+": "))
	}
	return pathErr(err)
}

// Writable reports whether clyde, with its effective user and groups, may
// write path (create files in it, for a directory): permissions and a
// read-only mount, asked of the kernel without creating anything.
func Writable(path string) error { return writable(path) }

func (t *Target) refuse(format string, args ...any) error {
	return result.Usagef(t.Flag, "%s: "+format, append([]any{t.Path}, args...)...)
}

// pathErr drops the operation and path *fs.PathError adds: the message
// already names the path the user gave.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkExisting applies the rules to an existing non-symlink p.
func (t *Target) checkExisting(p string, fi fs.FileInfo, follow bool) (*Target, error) {
	m := fi.Mode()
	switch {
	case m.IsDir():
		return nil, t.refuse("is a directory; give a file name in it")
	case m.IsRegular() && !follow:
		d, name, err := safepath.Parent(p)
		if err != nil {
			return nil, t.refuse("%v", unwrapPath(err))
		}
		return t.checkReplace(d, name)
	case m.IsRegular():
		return nil, t.refuse("is another process's descriptor of a regular file; name the file itself")
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return nil, t.refuse("is a block device; clyde writes results only to files, character devices, FIFOs and standard output (a benchmark target goes in --filename)")
	case m&fs.ModeSocket != 0:
		return nil, t.refuse("is a socket; clyde writes results only to files, character devices, FIFOs and standard output")
	}
	if err := writable(p); err != nil {
		return nil, t.refuse("cannot be written: %v", err)
	}
	t.kind, t.path, t.info, t.follow = inPlace, p, fi, follow
	return t, nil
}

// checkReplace checks that the directory d, which the file name is to be
// created or replaced in, is writable and can hold a result (not procfs or
// sysfs, where a "file" is a kernel interface), and opens the handle the
// new file is renamed in through. It owns d.
func (t *Target) checkReplace(d osio.Dir, name string) (*Target, error) {
	defer d.Close()
	dir := d.Path()
	if fs := pseudoFS(d); fs != "" {
		return nil, t.refuse("is in %s (%s), whose files are kernel interfaces, not files a result can be written to", dir, fs)
	}
	if err := writable(dir); err != nil {
		return nil, t.refuse("cannot create files in %s: %v", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, t.refuse("%v", pathErr(err))
	}
	if !sameDir(root, d) {
		root.Close()
		return nil, t.refuse("%s changed while clyde checked it; run again", dir)
	}
	t.kind, t.root, t.name = replace, root, name
	return t, nil
}

func (t *Target) checkFD(fd int) (*Target, error) {
	if err := fdWritable(fd); err != nil {
		return nil, t.refuse("descriptor %d %v", fd, err)
	}
	t.kind, t.fd = ownFD, fd
	if fd == 1 {
		t.kind = stdout
	}
	return t, nil
}

// InPlace reports whether the target is written where it is (a device, a
// FIFO, standard output) rather than replaced.
func (t *Target) InPlace() bool { return t != nil && t.kind != replace }

// Same reports whether t and u would replace the same file; two in-place
// targets (both /dev/stdout) are never the same, as writing both is fine.
func (t *Target) Same(u *Target) bool {
	if t == nil || u == nil || t.kind != replace || u.kind != replace || t.name != u.name {
		return false
	}
	a, err1 := t.root.Stat(".")
	b, err2 := u.root.Stat(".")
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// Close releases what Check holds (the directory's handle). Write closes
// the Target itself; Close after Write, and on a nil Target, does nothing.
func (t *Target) Close() {
	if t != nil && t.root != nil {
		t.root.Close()
		t.root = nil
	}
}

// Write writes what fill produces: to out for standard output, in place
// for a device or FIFO, otherwise into a temporary file in the target's
// directory that is renamed over the target once it is complete and on
// disk. A replaced file keeps its mode (and, when clyde runs as root, its
// owner); a new one gets 0644. The error names the flag and the path; when
// the file cannot be written, what fill produces goes to out instead.
//
// ctx is the run's stop. A write to standard output, a FIFO or a device
// waits for its reader as any program's does, until the stop: from then on
// (or from the start, for the report of a run the stop ended) a write that
// makes no progress for stopWait is abandoned, so a FIFO whose reader
// never reads cannot keep clyde past GNU timeout's SIGTERM; the error then
// wraps context.Cause(ctx) (the stop's exit code).
func (t *Target) Write(ctx context.Context, out io.Writer, fill func(io.Writer) error) error {
	defer t.Close()
	var err error
	abandoned := false
	switch t.kind {
	case stdout:
		abandoned, err = stoppable(ctx, out, fill)
	case ownFD:
		abandoned, err = t.writeFD(ctx, fill)
	case inPlace:
		abandoned, err = t.writeInPlace(ctx, fill)
	default:
		err = t.writeReplace(fill)
	}
	if err != nil {
		werr := fmt.Errorf("%s %s: %w", t.Flag, t.Path, pathErr(err)) // "write /dev/full: " says nothing more
		if t.kind != stdout && out != nil && !abandoned {
			// A full disk (ENOSPC) or a file gone bad after the run must
			// not lose the result: it goes to standard output instead.
			if _, ferr := stoppable(ctx, out, fill); ferr == nil {
				return fmt.Errorf("%w; it was written to standard output instead", werr)
			}
		}
		return werr
	}
	return nil
}

// WriteResult writes a run's result as Write does, except for a run that
// measured nothing (it failed while preparing: a target refused, a file
// that could not be filled): that result replaces no file. A regular file
// keeps what the previous run wrote there, and a new one is not made, as
// for a run refused before it started; the error is the command's one
// line. An in-place target (standard output, a FIFO, a device) is written
// all the same: it replaces nothing, and a FIFO's reader waits for it.
// Every command writes its result file through here, so none replaces a
// good result with an empty one.
func (t *Target) WriteResult(ctx context.Context, out io.Writer, measured bool, fill func(io.Writer) error) error {
	if !measured && t.kind == replace {
		t.Close()
		return nil
	}
	return t.Write(ctx, out, fill)
}

func (t *Target) writeFD(ctx context.Context, fill func(io.Writer) error) (bool, error) {
	f, err := dupFD(t.fd)
	if err != nil {
		return false, err
	}
	abandoned, err := stoppable(ctx, f, fill)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return abandoned, err
}

// writeInPlace opens the node Check saw, without creating or truncating,
// and refuses one that was swapped since.
func (t *Target) writeInPlace(ctx context.Context, fill func(io.Writer) error) (bool, error) {
	f, err := openInPlace(t.path, t.follow)
	if err != nil {
		return false, pathErr(err)
	}
	fi, err := f.Stat()
	if err == nil && !sameNode(fi, t.info) {
		err = errors.New("changed since clyde checked it at the start; not written")
	}
	abandoned := false
	if err == nil {
		abandoned, err = stoppable(ctx, f, fill)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return abandoned, err
}

// writeReplace writes a temporary file beside the target and renames it
// over the target, all through the directory's handle: no path is looked up
// again, so a directory swapped for a symlink since Check changes nothing.
func (t *Target) writeReplace(fill func(io.Writer) error) error {
	mode := fs.FileMode(newFileMode)
	var old fs.FileInfo
	switch fi, err := t.root.Lstat(t.name); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return pathErr(err)
	case fi.Mode().IsRegular():
		old = fi
		mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	default:
		return fmt.Errorf("became a %s since clyde checked it at the start; not replaced", describeMode(fi.Mode()))
	}
	tmp, tmpName, err := createTemp(t.root, t.name)
	if err != nil {
		return err
	}
	err = fill(tmp)
	if err == nil && old != nil {
		err = copyOwner(tmp, old) // before the chmod: chown clears setuid bits
	}
	if err == nil && old == nil {
		// A new file in another user's directory (node-exporter's
		// textfile directory) is given to that user: root's file there
		// would be a step from their directory to root's file, which the
		// path rule refuses, so the next run could not replace it.
		err = giveToDirOwner(tmp, t.root)
	}
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.root.Rename(tmpName, t.name)
	}
	if err != nil {
		_ = t.root.Remove(tmpName)
		return pathErr(err)
	}
	syncDir(t.root)
	return nil
}

// createTemp makes a new file in root, exclusively: O_EXCL fails on any
// name that exists, a symlink included, so nothing planted is followed.
func createTemp(root *os.Root, name string) (*os.File, string, error) {
	if len(name) > 200 {
		name = name[:200]
	}
	var err error
	for range 10 {
		var b [6]byte
		_, _ = rand.Read(b[:])
		tmpName := "." + name + ".clyde-" + hex.EncodeToString(b[:]) + ".tmp"
		var f *os.File
		f, err = root.OpenFile(tmpName, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			return f, tmpName, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return nil, "", fmt.Errorf("create a temporary file beside it: %w", pathErr(err))
}

// syncDir makes the rename durable; where a directory cannot be synced
// (Windows) the rename is still atomic, only its durability is the OS's.
func syncDir(root *os.Root) {
	if d, err := root.Open("."); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// sameNode is os.SameFile made strict for nodes: a removed file's inode
// number is reused at once, so type and device number must match too.
func sameNode(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Mode().Type() == b.Mode().Type() && rdev(a) == rdev(b)
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
