// Package input is the one reader of files named by the user: job files and
// their includes, Iometer .icf files, bonnie++ -Z files, ORION .lun files,
// and the results compare and report read. A name may lead anywhere (a FIFO
// that blocks open(2) until a writer comes, /dev/zero that never ends, a
// directory), so every read follows the same rules: the name is opened
// without blocking, the descriptor's type is checked with fstat (a regular
// file, or "-" where the caller reads standard input), at most a bounded
// number of bytes is read, and the first ^C (the context) ends the wait at
// once. A file of a kernel filesystem (procfs, sysfs and their kin:
// internal/safepath's KernelFS) is no input either: /proc/kmsg is a regular
// file whose read blocks until the kernel logs a line, and takes that line
// from the system log. Anything else is refused in one line, before
// anything is created.
package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/clydebench/clyde/internal/safepath"
)

// DefaultMaxBytes bounds one input when the caller gives no bound: far above
// any job file or result, far below what would exhaust memory.
const DefaultMaxBytes = 64 << 20

// Open opens a named input for reading without blocking on a FIFO's writer.
// It is the one place the opening is done, so that a stricter resolution of
// the name (internal/safepath: component by component, no symlink owned by
// someone else) can be put here for every input at once.
var Open = openNonBlocking

// RefusedError is an input of the wrong kind or size: a FIFO, a device, a
// directory, a file over the bound. Callers turn it into a usage error (exit
// 2), as a bad flag value is.
type RefusedError struct {
	Path string
	Why  string
}

func (e *RefusedError) Error() string { return e.Path + " " + e.Why }

// IsRefused reports whether err is, or wraps, a *RefusedError.
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r)
}

// ReadFile reads the regular file at path, at most max bytes (0 means
// DefaultMaxBytes). A name that leads to anything but a regular file is
// refused before it is opened, and again from the opened descriptor (the
// name may have been replaced between the two). The open and the read wait
// in a goroutine so that a cancelled ctx returns at once, whatever the
// kernel does with the file (a hung network mount).
func ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	if path == "" {
		return nil, &RefusedError{Path: `""`, Why: "is an empty name; give a file"}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: reading stopped: %w", path, context.Cause(ctx))
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err := check(path, st, max); err != nil {
		return nil, err
	}
	if err := kernelFile(path, safepath.KernelFS(path)); err != nil {
		return nil, err
	}
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, err := openAndRead(path, st, max)
		done <- read{data, err}
	}()
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: reading stopped: %w", path, context.Cause(ctx))
	case rd := <-done:
		return rd.data, rd.err
	}
}

func openAndRead(path string, named fs.FileInfo, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err := check(path, st, max); err != nil {
		return nil, err
	}
	if err := kernelFile(path, safepath.KernelFSOf(f)); err != nil {
		return nil, err
	}
	if !os.SameFile(named, st) {
		return nil, &RefusedError{Path: path, Why: "was replaced while it was opened; give a file nothing else changes"}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if int64(len(data)) > max {
		return nil, &RefusedError{Path: path, Why: "grew over the " + LimitText(max) + " limit for one input while it was read"}
	}
	return data, nil
}

// ReadAll reads r (standard input) to its end, at most max bytes (0 means
// DefaultMaxBytes), and gives up at once when ctx ends; the blocked read is
// left to the exiting process. name is what messages call r. A kernel file
// redirected to it (`< /proc/kmsg`) is refused as a named one is.
func ReadAll(ctx context.Context, name string, r io.Reader, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	if f, ok := r.(*os.File); ok {
		if err := kernelFile(name, safepath.KernelFSOf(f)); err != nil {
			return nil, err
		}
	}
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, max+1))
		done <- read{data, err}
	}()
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: reading stopped: %w", name, context.Cause(ctx))
	case rd := <-done:
		switch {
		case rd.err != nil:
			return nil, fmt.Errorf("%s: %w", name, unwrapPath(rd.err))
		case int64(len(rd.data)) > max:
			return nil, &RefusedError{Path: name, Why: "is over the " + LimitText(max) + " limit for one input"}
		}
		return rd.data, nil
	}
}

// check refuses what a regular file's reader must not open or read.
func check(path string, st fs.FileInfo, max int64) error {
	m := st.Mode()
	switch {
	case m.IsDir():
		return &RefusedError{Path: path, Why: "is a directory, not a regular file"}
	case !m.IsRegular():
		return &RefusedError{Path: path, Why: "is a " + ModeName(m) + ", not a regular file"}
	case st.Size() > max:
		return &RefusedError{Path: path, Why: fmt.Sprintf("is %d bytes, over the %s limit for one input", st.Size(), LimitText(max))}
	}
	return nil
}

// kernelFile refuses a file of the kernel filesystem fs ("" for none).
func kernelFile(path, fs string) error {
	if fs == "" {
		return nil
	}
	return &RefusedError{Path: path, Why: "is a file of " + fs + ", a kernel interface, not a file to read"}
}

// LimitText says a bound as people think of it: "64 MiB".
func LimitText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ModeName names a file type that is not a regular file or a directory.
func ModeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// unwrapPath drops the operation and path *fs.PathError adds: messages name
// the input already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
