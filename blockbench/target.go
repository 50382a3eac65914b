package blockbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/clydebench/clyde/result"
)

// fillChunk is the write size used to fill a created file.
const fillChunk = 1 << 20

// target is the file or device every job of a run works on. Its open
// descriptors live here: file for the target itself, dir for the directory
// a created file sits in. Workers open their own descriptors through
// openWorker, which checks each against id.
type target struct {
	given    string
	resolved string
	device   bool
	exists   bool // the file or device was there before the run
	created  bool
	size     int64 // bytes in the file or device
	fillNs   int64

	// id is the identity of the file or device node, read from file; a
	// worker's descriptor that shows another one is refused.
	id fileID
	// file is the target's own descriptor for the whole run: read-only on an
	// existing file or a device that is only read; the exclusive (O_EXCL)
	// open that keeps a device from being mounted or claimed while a writing
	// run lasts; the descriptor clyde created the file with.
	file *os.File

	// dirPath and base split resolved for a file; dir is dirPath opened
	// once, for a file clyde creates: the file, its marker, every reopen and
	// the final removal go through it.
	dirPath string
	base    string
	dir     *parentDir
	// marked is true while the marker clyde wrote is in place.
	marked bool

	// notes go into the result; warn (may be nil) gets the ones the user
	// must hear about even when the report goes to a file.
	notes []string
	warn  io.Writer
}

// region is the byte range a job uses after defaults are resolved.
type region struct{ offset, size int64 }

// resolveTarget looks at the target without changing anything: it follows
// symlinks, tells a file from a device, refuses a target left by a killed
// run, and finds the region. A file that does not exist yet is sized from
// the job.
func resolveTarget(j *Job) (*target, region, error) {
	t := &target{given: j.Filename, warn: j.Warn}
	resolved, err := filepath.EvalSymlinks(j.Filename)
	switch {
	case err == nil:
		t.resolved = resolved
		t.exists = true
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(j.Filename); lerr == nil {
			return nil, region{}, result.Usagef("--filename", "%s is a symlink to nothing; give an existing target or a new path", j.Filename)
		}
		return t.resolveNew(j)
	default:
		return nil, region{}, result.Usagef("--filename", "cannot resolve %s: %v", j.Filename, err)
	}
	fi, err := os.Stat(t.resolved)
	if err != nil {
		return nil, region{}, fmt.Errorf("stat %s: %w", t.resolved, err)
	}
	switch {
	case fi.Mode().IsRegular():
		t.size = fi.Size()
		t.dirPath, t.base = filepath.Dir(t.resolved), filepath.Base(t.resolved)
		if err := checkLeftover(t.given, t.dirPath, t.base); err != nil {
			return nil, region{}, err
		}
	case fi.Mode()&fs.ModeDevice != 0 && fi.Mode()&fs.ModeCharDevice == 0:
		t.device = true
		if t.size, err = deviceSize(t.resolved); err != nil {
			return nil, region{}, err
		}
	default:
		return nil, region{}, result.Usagef("--filename", "%s is neither a regular file nor a block device (%v)", t.resolved, fi.Mode().Type())
	}
	r := region{offset: j.Offset, size: j.Size}
	if r.offset >= t.size {
		return nil, region{}, result.Usagef("--offset", "%d is at or past the end of %s (%d bytes)", r.offset, t.resolved, t.size)
	}
	if r.size == 0 {
		r.size = t.size - r.offset
	}
	if r.size > t.size-r.offset {
		return nil, region{}, result.Usagef("--size", "offset %d + size %d runs past the end of %s (%d bytes); give a smaller --size or a new path",
			r.offset, r.size, t.resolved, t.size)
	}
	return t, r, nil
}

// resolveNew sizes a file clyde is to create. Its directory is resolved
// now; the file is made in prepare.
func (t *target) resolveNew(j *Job) (*target, region, error) {
	dir, base, err := splitTarget(j.Filename)
	if err != nil {
		return nil, region{}, err
	}
	t.dirPath, t.base, t.resolved = dir, base, filepath.Join(dir, base)
	size := j.Size
	if size == 0 {
		if j.SizeGiven {
			return nil, region{}, result.Usagef("--size", "0 means the rest of an existing target, and %s does not exist yet; "+
				"give the size of the file to create, such as 1g", j.Filename)
		}
		size = DefaultSize
	}
	if j.Offset > math.MaxInt64-size {
		return nil, region{}, result.Usagef("--offset", "offset %d + size %d is past the largest file offset (%d)", j.Offset, size, int64(math.MaxInt64))
	}
	t.size = j.Offset + size
	if err := checkLeftover(t.given, t.dirPath, t.base); err != nil {
		return nil, region{}, err
	}
	return t, region{offset: j.Offset, size: size}, nil
}

// splitTarget resolves the directory of filename, whose last component is
// taken as it is: the name of the file to create or clean up.
func splitTarget(filename string) (dir, base string, err error) {
	base = filepath.Base(filename)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return "", "", result.Usagef("--filename", "%s does not name a file; give a file path or a block device", filename)
	}
	dir, err = filepath.EvalSymlinks(filepath.Dir(filename))
	if err != nil {
		return "", "", result.Usagef("--filename", "cannot create %s: %v; give an existing file, a block device, or a path in a writable directory",
			filename, err)
	}
	return dir, base, nil
}

func deviceSize(path string) (int64, error) {
	f, err := os.Open(path)
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

// prepare makes the target usable. An existing target is opened and, for a
// writing run, put through the safety rules (a device is then kept claimed);
// an absent file is created with its marker and filled completely so that
// reads hit real blocks.
func (t *target) prepare(ctx context.Context, writes, destroy bool, buf Buffer, seed uint64) error {
	if !t.exists {
		return t.create(ctx, buf, seed)
	}
	f, err := openNoFollow(t.resolved, os.O_RDONLY)
	if err != nil {
		return fmt.Errorf("open %s: %w", t.resolved, err)
	}
	t.file = f
	e, err := identify(f)
	if err != nil {
		return fmt.Errorf("identify %s: %w", t.resolved, err)
	}
	want := kindRegular
	if t.device {
		want = kindDevice
	}
	if e.kind != want {
		return fmt.Errorf("%s changed while clyde looked at it; run again", t.resolved)
	}
	t.id = e.id
	if !writes {
		return nil
	}
	if !t.device {
		return checkFileWrite(t.given, t.resolved, e, destroy)
	}
	guard, err := checkDeviceWrite(t.given, t.resolved, destroy)
	if err != nil {
		return err
	}
	t.file.Close()
	t.file = guard
	if g, err := identify(guard); err != nil || !g.id.same(t.id) {
		return fmt.Errorf("%s changed while clyde looked at it; run again", t.resolved)
	}
	return nil
}

// create makes the file, relative to its directory's descriptor and never
// through a symlink, sizes it, writes its marker, and fills it. From the
// moment the file exists, cleanup removes it.
func (t *target) create(ctx context.Context, buf Buffer, seed uint64) error {
	cannot := func(err error) error {
		return result.Usagef("--filename", "cannot create %s: %v; give an existing file, a block device, or a path in a writable directory",
			t.resolved, err)
	}
	d, err := openParentDir(t.dirPath)
	if err != nil {
		return cannot(err)
	}
	t.dir = d
	f, err := d.create(t.base, 0o644)
	if err != nil {
		return cannot(err)
	}
	t.file, t.created = f, true
	e, err := identify(f)
	if err != nil {
		return fmt.Errorf("identify %s: %w", t.resolved, err)
	}
	t.id = e.id
	// Sized before the marker is written, so the size it records holds
	// however early the run is killed.
	if err := f.Truncate(t.size); err != nil {
		return fmt.Errorf("size %s to %d bytes: %w", t.resolved, t.size, err)
	}
	e.size = t.size
	if err := writeMarker(d, newMarker(t.base, e)); err != nil {
		return err
	}
	t.marked = true
	start := time.Now()
	if err := fillFile(ctx, f, t.size, buf, seed); err != nil {
		return fmt.Errorf("fill %s: %w", t.resolved, err)
	}
	t.fillNs = int64(time.Since(start))
	return nil
}

// fillFile writes size bytes of the buffer pattern, fresh for every chunk so
// that the file does not dedupe, and syncs it.
func fillFile(ctx context.Context, f *os.File, size int64, spec Buffer, seed uint64) error {
	rng := newRand(seed, 0)
	buf := make([]byte, fillChunk)
	for off := int64(0); off < size; off += fillChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(int64(fillChunk), size-off)
		fillBuffer(buf[:n], spec, rng)
		if _, err := f.WriteAt(buf[:n], off); err != nil {
			return fmt.Errorf("write at %d: %w", off, err)
		}
	}
	return f.Sync()
}

// openWorker opens a descriptor for one worker: a created file through its
// directory's descriptor, an existing target by its resolved path without
// following a symlink. A descriptor that is not the target the run started
// on (the file was replaced or renamed over) is closed unused.
func (t *target) openWorker(write, direct bool) (fileHandle, error) {
	flag, err := handleFlags(write, direct)
	if err != nil {
		return fileHandle{}, err
	}
	var f *os.File
	if t.created {
		f, err = t.dir.openFile(t.base, flag, 0)
	} else {
		f, err = openNoFollow(t.resolved, flag)
	}
	if err != nil {
		return fileHandle{}, err
	}
	e, err := identify(f)
	if err != nil || !e.id.same(t.id) {
		f.Close()
		return fileHandle{}, fmt.Errorf("%s is no longer the file the run started on (it was replaced during the run); left it untouched", t.resolved)
	}
	return newFileHandle(f), nil
}

// cleanup closes the target and removes a file clyde created, then its
// marker. The file goes only while it is still the one clyde made: a file
// renamed over it during the run is someone else's and stays, with a note.
func (t *target) cleanup() error {
	var errs []error
	if t.file != nil {
		errs = append(errs, t.file.Close())
		t.file = nil
	}
	if t.created && t.dir != nil {
		errs = append(errs, t.removeCreated())
	}
	if t.dir != nil {
		errs = append(errs, t.dir.close())
		t.dir = nil
	}
	return errors.Join(errs...)
}

// removeCreated removes the created file, then the marker. When the file
// cannot be removed the marker stays, so `clyde block --cleanup` can finish
// the job. Between the check and the unlink nothing can be made atomic:
// POSIX has no unlink of a given inode.
func (t *target) removeCreated() error {
	e, err := t.dir.lstat(t.base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.note(fmt.Sprintf("the file clyde created, %s, was removed by someone else during the run", t.resolved))
	case err != nil:
		return fmt.Errorf("check %s before removing it: %w", t.resolved, err)
	case e.kind != kindRegular || !e.id.same(t.id):
		t.warnf("%s was replaced during the run; the file now there is not the one clyde created, so it was left in place", t.resolved)
	default:
		if err := t.dir.remove(t.base); err != nil {
			return fmt.Errorf("remove %s: %w", t.resolved, err)
		}
	}
	if t.marked {
		if err := t.dir.remove(markerName(t.base)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove marker: %w", err)
		}
		t.marked = false
	}
	_ = t.dir.sync() // best effort, as in writeMarker
	return nil
}

func (t *target) note(s string) { t.notes = append(t.notes, s) }

// warnf records a note and prints it as one line.
func (t *target) warnf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	t.note(s)
	if t.warn != nil {
		fmt.Fprintf(t.warn, "clyde: warning: %s\n", s)
	}
}

func (t *target) describe() result.BlockTarget {
	kind := "file"
	if t.device {
		kind = "block_device"
	}
	return result.BlockTarget{Path: t.given, ResolvedPath: t.resolved, Kind: kind, Created: t.created, SizeBytes: t.size, FillNs: t.fillNs}
}
