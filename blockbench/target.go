package blockbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/clydebench/clyde/result"
)

// fillChunk is the write size used to fill a created file.
const fillChunk = 1 << 20

// target is the file or device every job of a run works on.
type target struct {
	given    string
	resolved string
	device   bool
	exists   bool // the file or device was there before the run
	created  bool
	size     int64 // bytes in the file or device
	fillNs   int64
	// guard is the exclusive open that keeps a block device ours while a
	// writing run lasts; nil otherwise.
	guard io.Closer
}

// region is the byte range a job uses after defaults are resolved.
type region struct{ offset, size int64 }

// resolveTarget looks at the target without changing anything: it follows
// symlinks, tells a file from a device, and finds the region. A file that
// does not exist yet is sized from the job.
func resolveTarget(j *Job) (*target, region, error) {
	t := &target{given: j.Filename}
	resolved, err := filepath.EvalSymlinks(j.Filename)
	switch {
	case err == nil:
		t.resolved = resolved
		t.exists = true
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(j.Filename); lerr == nil {
			return nil, region{}, result.Usagef("--filename", "%s is a symlink to nothing; give an existing target or a new path", j.Filename)
		}
		t.resolved = j.Filename
		size := j.Size
		if size == 0 {
			size = DefaultSize
		}
		t.size = j.Offset + size
		return t, region{offset: j.Offset, size: size}, nil
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
	if r.offset+r.size > t.size {
		return nil, region{}, result.Usagef("--size", "offset %d + size %d runs past the end of %s (%d bytes); give a smaller --size or a new path",
			r.offset, r.size, t.resolved, t.size)
	}
	return t, r, nil
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

// prepare makes the target usable: for a writing run on a device it applies
// the safety rules and keeps the device claimed; an absent file is created
// and filled completely so that reads hit real blocks.
func (t *target) prepare(ctx context.Context, writes, destroy bool, buf Buffer, seed uint64) error {
	if t.device {
		if !writes {
			return nil
		}
		guard, err := checkDeviceWrite(t.given, t.resolved, destroy)
		if err != nil {
			return err
		}
		t.guard = guard
		return nil
	}
	if t.exists {
		return nil
	}
	f, err := os.OpenFile(t.resolved, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return result.Usagef("--filename", "cannot create %s: %v; give an existing file, a block device, or a path in a writable directory",
			t.resolved, err)
	}
	t.created = true
	start := time.Now()
	if err := fillFile(ctx, f, t.size, buf, seed); err != nil {
		f.Close()
		return fmt.Errorf("fill %s: %w", t.resolved, err)
	}
	if err := f.Close(); err != nil {
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

// cleanup releases the device and removes a file clyde created.
func (t *target) cleanup() error {
	var errs []error
	if t.guard != nil {
		errs = append(errs, t.guard.Close())
	}
	if t.created {
		if err := os.Remove(t.resolved); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", t.resolved, err))
		}
	}
	return errors.Join(errs...)
}

func (t *target) describe() result.BlockTarget {
	kind := "file"
	if t.device {
		kind = "block_device"
	}
	return result.BlockTarget{Path: t.given, ResolvedPath: t.resolved, Kind: kind, Created: t.created, SizeBytes: t.size, FillNs: t.fillNs}
}
