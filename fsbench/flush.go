package fsbench

import (
	"errors"
	"fmt"
	"strings"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// flushCreated is bonnie++'s sync() at the end of the create tests, inside
// the timing: the filesystem under test (syncfs on Linux, the volume on
// Windows as an administrator). Where the platform cannot flush a whole
// filesystem (Windows without administrator rights: a volume handle is
// theirs only), each file the phase wrote and each of its directories is
// flushed on its own (FlushFileBuffers), which costs an open per file on
// top. It returns what was flushed, for the result.
func (r *runner) flushCreated(c *copyState, root osio.Dir) (string, error) {
	err := root.SyncFS()
	if err == nil {
		return osio.SyncFSMethod, nil
	}
	if !errors.Is(err, result.ErrNotSupported) {
		return "", fmt.Errorf("syncfs: %w", err)
	}
	s := c.names
	files := 0
	path := make([]byte, 0, 64)
	for i := range s.n {
		if i > 0 && r.opts.MaxFileBytes < 0 {
			break // links to file 0: it has the only data
		}
		path = s.path(path, i)
		f, oerr := root.Open(path, osio.WriteOnly, 0)
		if oerr != nil {
			return "", fmt.Errorf("open %s to flush it: %w", r.testPath(c, path), oerr)
		}
		serr := f.Sync()
		cerr := f.Close()
		if serr = errors.Join(serr, cerr); serr != nil {
			return "", fmt.Errorf("flush %s: %w", r.testPath(c, path), serr)
		}
		files++
	}
	dirs, derr := r.flushTestDirs(c, root)
	if derr != nil {
		return "", derr
	}
	return fmt.Sprintf("each of %d files and %d directories on its own (%s)", files, dirs, notSupported(err)), nil
}

// flushTestDirs flushes the test directory's subdirectories, the test
// directory and the copy's directory, which holds it.
func (r *runner) flushTestDirs(c *copyState, root osio.Dir) (int, error) {
	n := 0
	if r.opts.Dirs > 1 {
		var b []byte
		for d := range r.opts.Dirs {
			b = append(appendDirName(b[:0], d), 0)
			sub, err := root.OpenSubdirSmall(b)
			if err != nil {
				return n, fmt.Errorf("open directory %s to flush it: %w", r.testPath(c, b), err)
			}
			err = sub.Sync()
			sub.Close()
			if err != nil {
				return n, fmt.Errorf("flush directory %s: %w", r.testPath(c, b), err)
			}
			n++
		}
	}
	if err := root.Sync(); err != nil {
		return n, fmt.Errorf("flush directory %s: %w", root.Path(), err)
	}
	if err := c.dir.Sync(); err != nil {
		return n + 1, fmt.Errorf("flush directory %s: %w", c.dir.Path(), err)
	}
	return n + 2, nil
}

// flushDeleted is bonnie++'s sync() at the end of the delete tests, once
// the test directory is gone: the filesystem, or where that cannot be
// flushed, the copy's directory that held the test directory (every file
// and directory of the phase is gone).
func (r *runner) flushDeleted(c *copyState) (string, error) {
	d := c.at().dir
	err := d.SyncFS()
	if err == nil {
		return osio.SyncFSMethod, nil
	}
	if !errors.Is(err, result.ErrNotSupported) {
		return "", fmt.Errorf("syncfs: %w", err)
	}
	if serr := d.Sync(); serr != nil {
		return "", fmt.Errorf("flush directory %s: %w", d.Path(), serr)
	}
	return fmt.Sprintf("the directory that held the test directory (%s)", notSupported(err)), nil
}

// notSupported is why the filesystem could not be flushed, without the
// ErrNotSupported suffix.
func notSupported(err error) string {
	return strings.TrimSuffix(err.Error(), ": "+result.ErrNotSupported.Error())
}

// fullSync is -b's flush of a file: through the drive's write cache
// (F_FULLFSYNC on macOS), noting when the filesystem allowed only fsync.
func (r *runner) fullSync(f osio.File) error {
	full, err := f.SyncFull()
	if err == nil && !full {
		r.plainSync.Store(true)
	}
	return err
}
