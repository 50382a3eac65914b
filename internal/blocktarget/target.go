// Package blocktarget is the life of a block test's target on disk: a file
// or device named for clyde block (or an I/O engine's job), resolved
// through the path rule (internal/safepath), admitted for writing
// (internal/admit), created with its marker in its directory or in a
// private run directory (internal/rundir), filled, locked
// (internal/runlock), opened again for each worker only while it is the
// same file, and removed while it is still the file clyde made. It also
// holds the checks that ask the target's filesystem: the sector alignment
// uncached I/O needs, whether O_DIRECT there bypasses the page cache, and
// the drop of its cached pages. Which targets a run has, and what each
// workload does on them, is blockbench's planner: this package is told.
package blocktarget

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/clydebench/clyde/internal/admit"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/internal/runlock"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// Target is one file or device the workloads of a run work on. Its open
// descriptors live here: File for the target itself, dir for the directory
// a created file sits in. Workers open their own descriptors through
// OpenWorker, which checks each against ID.
type Target struct {
	Given    string
	Resolved string
	Device   bool
	Exists   bool // the file or device was there before the run
	Created  bool
	Size     int64 // bytes in the file or device
	FillNs   int64
	// Writes is true when a workload of the run writes to it (set by the
	// planner): an existing target is then admitted (admit.Write).
	Writes bool
	// NoFill leaves a file clyde creates sparse, not filled before the
	// run: every workload on it has fio's create_on_open.
	NoFill bool

	// ID is the identity of the file or device node, read from File; a
	// worker's descriptor that shows another one is refused.
	ID osio.Identity
	// File is the target's own descriptor for the whole run: read-only on an
	// existing file or a device that is only read; the exclusive (O_EXCL)
	// open that keeps a device from being mounted or claimed while a writing
	// run lasts; the descriptor clyde created the file with. The run lock
	// is held on it.
	File osio.File
	lock *runlock.Lock

	// DirPath and base split Resolved for a file; dir is DirPath opened
	// once, for a file clyde creates: the file, its marker, every reopen and
	// the final removal go through it.
	DirPath string
	base    string
	dir     osio.Dir
	// marked is true while the marker clyde wrote is in place.
	marked bool

	// Notes go into the result; Warn (may be nil) gets the ones the user
	// must hear about even when the report goes to a file.
	Notes []string
	Warn  io.Writer

	// Private, when set, is the plan's private run directory a new file is
	// made in; dir is then its descriptor, which the private directory
	// owns (dirShared). Direct is true when a workload opens the target
	// uncached: a file clyde creates is then tried that way first.
	Private   *rundir.Private
	dirShared bool
	Direct    bool
	// sectors is what uncached I/O on the target is held to, read once
	// (sectorsRead) where the platform tells (Windows; Linux: statx
	// STATX_DIOALIGN or the device's logical block size).
	sectors     osio.SectorInfo
	sectorsErr  error
	sectorsRead bool
	// cacheRead is set once DirectCacheNote has asked whether O_DIRECT
	// on the target still goes through the page cache; CacheNote is what
	// it said ("" for nothing).
	cacheRead bool
	CacheNote string
	// Diskless is the target of the workloads of a diskless engine (fio's
	// null, FIO_DISKLESSIO): nothing is resolved, opened, created,
	// admitted, locked or removed, and every step of a target's life
	// is nothing for it.
	Diskless bool
}

// NewDiskless is the target of workloads that need none, named given:
// nothing on disk.
func NewDiskless(given string, warn io.Writer) *Target {
	return &Target{Given: given, Warn: warn, File: osio.NoFile, Exists: true, Diskless: true}
}

// cannotCreate is the refusal of a path clyde cannot make a file at.
func cannotCreate(filename string, err error) error {
	return result.Usagef("--filename", "cannot create %s: %v; give an existing file, a block device, or a path in a writable directory", filename, err)
}

// Resolve looks at a target without changing anything: it follows
// symlinks, tells a file from a device, and refuses a target left by a
// killed run. A file that does not exist yet is sized later, by the
// planner (Size).
func Resolve(filename string, warn io.Writer) (*Target, error) {
	t := &Target{Given: filename, Warn: warn, File: osio.NoFile}
	if IsRawDisk(filename) {
		var err error
		t.Resolved, t.Exists, t.Device = filename, true, true
		if t.Size, err = deviceSize(filename); err != nil {
			return nil, result.Usagef("--filename", "%v", err)
		}
		return t, nil
	}
	// One rule for the path (internal/safepath): another user's symlink
	// is not followed into someone else's file, ".." is the real parent.
	info, err := safepath.Lookup(filename)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return nil, cannotCreate(filename, err)
	case err != nil:
		return nil, result.Usagef("--filename", "cannot resolve %s: %v", filename, err)
	case info.Dangling:
		return nil, result.Usagef("--filename", "%s is a symlink to nothing; give an existing target or a new path", filename)
	case !info.Exists:
		t.DirPath, t.base = filepath.Dir(info.Path), info.Name
		if err := admit.NewFile(filename, t.DirPath); err != nil {
			return nil, err
		}
		t.Resolved = info.Path
		return t, rundir.CheckLeftover(t.Given, t.DirPath, t.base)
	}
	t.Resolved, t.Exists = info.Path, true
	if err := t.resolveExisting(info); err != nil {
		return nil, err
	}
	return t, nil
}

// resolveExisting is Resolve for a path that is there: a regular file not
// left by a killed run, or a block device, never a kernel interface.
func (t *Target) resolveExisting(info safepath.Info) error {
	if k := safepath.KernelFS(t.Resolved); k != "" { // /proc/kmsg, a sysfs attribute: the one rule of internal/safepath
		return result.Usagef("--filename", "%s is a file of %s, a kernel interface, not a target", t.Resolved, k)
	}
	var err error
	switch info.Kind {
	case safepath.Regular:
		t.Size = info.Size
		t.DirPath, t.base = filepath.Dir(t.Resolved), filepath.Base(t.Resolved)
		return rundir.CheckLeftover(t.Given, t.DirPath, t.base)
	case safepath.BlockDevice:
		t.Device = true
		t.Size, err = deviceSize(t.Resolved)
		return err
	}
	return result.Usagef("--filename", "%s is neither a regular file nor a block device (a %s)", t.Resolved, info.Kind)
}

// ResolvePrivate is a target clyde creates in the plan's private
// directory: its directory resolved, its name taken as it is. Nothing that
// exists at that name matters: the file is made in a fresh directory.
func ResolvePrivate(filename string, warn io.Writer) (*Target, error) {
	dir, base, err := Split(filename)
	if err != nil {
		return nil, err
	}
	if err := admit.NewFile(filename, dir); err != nil {
		return nil, err
	}
	return &Target{Given: filename, Warn: warn, File: osio.NoFile, DirPath: dir, base: base, Resolved: filepath.Join(dir, base)}, nil
}

// Split resolves the directory of filename, whose last component is
// taken as it is: the name of the file to create or clean up.
func Split(filename string) (dir, base string, err error) {
	base = filepath.Base(filename)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return "", "", result.Usagef("--filename", "%s does not name a file; give a file path or a block device", filename)
	}
	d, base, err := safepath.Parent(filename)
	if err != nil {
		return "", "", cannotCreate(filename, err)
	}
	dir = d.Path()
	d.Close()
	return dir, base, nil
}

func deviceSize(path string) (int64, error) {
	f, err := osio.OpenFile(path, osio.ReadOnly)
	if err != nil {
		return 0, fmt.Errorf("open %s to read its size: %w", path, err)
	}
	defer f.Close()
	n, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", path, err)
	}
	return n, nil
}

// Note records a note for the result.
func (t *Target) Note(s string) { t.Notes = append(t.Notes, s) }

// Warnf records a note and prints it as one line.
func (t *Target) Warnf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	t.Note(s)
	if t.Warn != nil {
		fmt.Fprintf(t.Warn, "clyde: warning: %s\n", s)
	}
}
