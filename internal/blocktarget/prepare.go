package blocktarget

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"github.com/clydebench/clyde/internal/admit"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/internal/runlock"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// FillChunk is the write size used to fill a created file.
const FillChunk = 1 << 20

// Prepare makes the target usable and takes the run lock on it. An
// existing target is opened and, for a writing run, put through the safety
// rules (a device is then kept claimed); an absent file is created with its
// marker and filled completely (fill writes each chunk's bytes) so that
// reads hit real blocks.
func (t *Target) Prepare(ctx context.Context, destroy bool, fill func([]byte)) error {
	if t.Diskless {
		return nil
	}
	var err error
	if !t.Exists {
		err = t.create(ctx, fill)
	} else {
		err = t.open(destroy)
	}
	if err != nil {
		return err
	}
	t.lock, err = runlock.File(t.File, t.Given)
	switch {
	case errors.Is(err, result.ErrNotSupported):
		t.Warnf("no run lock on %s: %v", t.Given, err)
	case err != nil:
		return err
	}
	return nil
}

// open opens an existing target and applies the write rules.
func (t *Target) open(destroy bool) error {
	f, _, err := safepath.Open(t.Resolved, osio.ReadOnly, safepath.Regular|safepath.BlockDevice)
	if err != nil {
		return fmt.Errorf("open %s: %w", t.Resolved, err)
	}
	t.File = f
	e, err := f.Stat()
	if err != nil {
		return fmt.Errorf("identify %s: %w", t.Resolved, err)
	}
	if (t.Device && !e.Dev) || (!t.Device && !e.Reg) {
		return fmt.Errorf("%s changed while clyde looked at it; run again", t.Resolved)
	}
	t.ID = e.ID
	if !t.Writes {
		return nil
	}
	guard, err := admit.Write(t.Given, t.Resolved, t.File, e, destroy)
	if err != nil || !t.Device {
		return err
	}
	t.File.Close()
	t.File = guard
	if g, err := guard.Stat(); err != nil || !g.ID.Same(t.ID) {
		return fmt.Errorf("%s changed while clyde looked at it; run again", t.Resolved)
	}
	return nil
}

// create makes the file, relative to its directory's descriptor and never
// through a symlink, sizes it, writes its marker, and fills it. From the
// moment the file exists, cleanup removes it.
func (t *Target) create(ctx context.Context, fill func([]byte)) error {
	var d osio.Dir
	var err error
	if t.Private != nil {
		d, t.dirShared = t.Private.Run.Dir, true
		t.Resolved = t.Private.FilePath(t.base)
	} else if d, err = safepath.OpenDir(t.DirPath); err != nil {
		return cannotCreate(t.Resolved, err)
	}
	t.dir = d
	// 0600: the mode `clyde block --cleanup` holds a file it removes to
	// (safepath.CheckOwned).
	f, err := d.Open(osio.Name(t.base), osio.ReadWrite|osio.Create, 0o600)
	if err != nil {
		return cannotCreate(t.Resolved, err)
	}
	t.File, t.Created = f, true
	if err := t.sizeAndMark(f); err != nil {
		return err
	}
	if t.Direct {
		// Before filling: a filesystem that refuses O_DIRECT is a refusal,
		// not a failure of every worker.
		pf, err := d.Open(osio.Name(t.base), osio.ReadOnly|osio.Direct, 0)
		if err != nil {
			return RefusedDirect(t.Given, err)
		}
		pf.Close()
	}
	if t.NoFill {
		return nil // fio's create_on_open: the writes lay it out
	}
	start := time.Now()
	if err := FillFile(ctx, f, t.Size, fill); err != nil {
		return fmt.Errorf("fill %s: %w", t.Resolved, err)
	}
	t.FillNs = int64(time.Since(start))
	return nil
}

// sizeAndMark reads the identity of the file just created, sizes it, and
// writes its marker: sized before the marker is written, so the size it
// records holds however early the run is killed.
func (t *Target) sizeAndMark(f osio.File) error {
	e, err := f.Stat()
	if err != nil {
		return fmt.Errorf("identify %s: %w", t.Resolved, err)
	}
	t.ID = e.ID
	if err := f.Truncate(t.Size); err != nil {
		return fmt.Errorf("size %s to %d bytes: %w", t.Resolved, t.Size, err)
	}
	e.Size = t.Size
	if err := rundir.WriteFileMarker(t.dir, rundir.NewFileMarker(t.base, e)); err != nil {
		return err
	}
	t.marked = true
	return nil
}

// RefusedDirect is the refusal of a filesystem that will not open a file
// with O_DIRECT.
func RefusedDirect(given string, err error) error {
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, result.ErrNotSupported) {
		return result.Usagef("--direct", "%s: its filesystem refuses uncached (O_DIRECT) opens (%v); run without --direct (cdm and iometer: add --buffered)", given, err)
	}
	return fmt.Errorf("open %s uncached: %w", given, err)
}

// FillFile writes size bytes in chunks of FillChunk, each as fill makes
// it (fresh for every chunk, so that the file does not dedupe), and syncs
// the file.
func FillFile(ctx context.Context, f osio.File, size int64, fill func([]byte)) error {
	buf := make([]byte, FillChunk)
	for off := int64(0); off < size; off += FillChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(int64(FillChunk), size-off)
		fill(buf[:n])
		if err := osio.PwriteFull(f, buf[:n], off); err != nil {
			return fmt.Errorf("write at %d: %w", off, err)
		}
	}
	return f.Sync()
}

// OpenWorker opens a descriptor for one worker: a created file through its
// directory's descriptor, an existing target by its resolved path without
// following a symlink. A descriptor that is not the target the run started
// on (the file was replaced or renamed over) is closed unused.
func (t *Target) OpenWorker(write, direct bool, extra osio.Flag) (osio.File, error) {
	flag := osio.ReadOnly | extra
	if write {
		flag = osio.ReadWrite | extra
	}
	if direct {
		flag |= osio.Direct
	}
	var f osio.File
	var err error
	if t.Created {
		f, err = t.dir.Open(osio.Name(t.base), flag, 0)
	} else {
		f, _, err = safepath.Open(t.Resolved, flag, safepath.Regular|safepath.BlockDevice)
	}
	if err != nil {
		return osio.NoFile, err
	}
	e, err := f.Stat()
	if err != nil || !e.ID.Same(t.ID) {
		f.Close()
		return osio.NoFile, fmt.Errorf("%s is no longer the file the run started on (it was replaced during the run); left it untouched", t.Resolved)
	}
	return f, nil
}

// Cleanup gives the lock back, closes the target and removes a file clyde
// created, then its marker. The file goes only while it is still the one
// clyde made: a file renamed over it during the run is someone else's and
// stays, with a note.
func (t *Target) Cleanup() error {
	var errs []error
	if err := t.lock.Release(); err != nil {
		errs = append(errs, err)
	}
	t.lock = nil
	if t.File.Valid() {
		errs = append(errs, t.File.Close())
		t.File = osio.NoFile
	}
	if t.Created && t.dir.Valid() {
		errs = append(errs, t.removeCreated())
	}
	if t.dir.Valid() && !t.dirShared {
		errs = append(errs, t.dir.Close())
	}
	t.dir = osio.Dir{}
	return errors.Join(errs...)
}

// removeCreated removes the created file, then the marker. When the file
// cannot be removed the marker stays, so `clyde block --cleanup` can finish
// the job. Between the check and the unlink nothing can be made atomic:
// POSIX has no unlink of a given inode.
func (t *Target) removeCreated() error {
	e, err := t.dir.Lstat(osio.Name(t.base))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.Note(fmt.Sprintf("the file clyde created, %s, was removed by someone else during the run", t.Resolved))
	case err != nil:
		return fmt.Errorf("check %s before removing it: %w", t.Resolved, err)
	case !e.Reg || !e.ID.Same(t.ID):
		t.Warnf("%s was replaced during the run; the file now there is not the one clyde created, so it was left in place", t.Resolved)
	default:
		if err := t.dir.Remove(osio.Name(t.base)); err != nil {
			return fmt.Errorf("remove %s: %w", t.Resolved, err)
		}
	}
	if t.marked {
		if err := t.dir.Remove(osio.Name(rundir.FileMarkerName(t.base))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove marker: %w", err)
		}
		t.marked = false
	}
	_ = t.dir.Sync() // best effort, as in rundir.WriteFileMarker
	return nil
}
