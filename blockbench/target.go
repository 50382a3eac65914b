package blockbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"syscall"
	"time"

	"github.com/clydebench/clyde/internal/admit"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/internal/runlock"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// fillChunk is the write size used to fill a created file.
const fillChunk = 1 << 20

// target is one file or device the workloads of a run work on. Its open
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
	// writes is true when a workload of the run writes to it; fill and
	// seed are what a file clyde creates is filled with (its first
	// workload's buffer).
	writes bool
	fill   Buffer
	seed   uint64
	// readFirst is true when the first workload on the target reads it:
	// an existing file must then hold data on the device (checkBacked).
	readFirst bool
	// noFill leaves a file clyde creates sparse, not filled before the
	// run: every workload on it has CreateOnOpen.
	noFill bool

	// id is the identity of the file or device node, read from file; a
	// worker's descriptor that shows another one is refused.
	id osio.Identity
	// file is the target's own descriptor for the whole run: read-only on an
	// existing file or a device that is only read; the exclusive (O_EXCL)
	// open that keeps a device from being mounted or claimed while a writing
	// run lasts; the descriptor clyde created the file with. The run lock
	// is held on it.
	file osio.File
	lock *runlock.Lock

	// dirPath and base split resolved for a file; dir is dirPath opened
	// once, for a file clyde creates: the file, its marker, every reopen and
	// the final removal go through it.
	dirPath string
	base    string
	dir     osio.Dir
	// marked is true while the marker clyde wrote is in place.
	marked bool

	// notes go into the result; warn (may be nil) gets the ones the user
	// must hear about even when the report goes to a file.
	notes []string
	warn  io.Writer

	// private, when set, is the plan's private run directory a new file is
	// made in; dir is then its descriptor, which the private directory
	// owns (dirShared). direct is true when a workload opens the target
	// uncached: a file clyde creates is then tried that way first.
	private   *rundir.Private
	dirShared bool
	direct    bool
	// sectors is what uncached I/O on the target is held to, read once
	// (sectorsRead) where the platform tells (Windows; Linux: statx
	// STATX_DIOALIGN or the device's logical block size).
	sectors     osio.SectorInfo
	sectorsErr  error
	sectorsRead bool
	// cacheRead is set once directCacheNote has asked whether O_DIRECT
	// on the target still goes through the page cache; cacheNote is what
	// it said ("" for nothing).
	cacheRead bool
	cacheNote string
	// diskless is the target of the workloads of a diskless engine (fio's
	// null, FIO_DISKLESSIO): nothing is resolved, opened, created,
	// admitted, locked or removed, and every step of a target's life
	// below is nothing for it.
	diskless bool
}

// disklessKey is the one diskless target of a plan among its targets by
// name: no file name can be empty.
const disklessKey = ""

// resolveDiskless is the target of a workload that needs none
// (Workload.Diskless): whatever filename says, fio's null engine opens no
// file, and neither does clyde.
func resolveDiskless(_ string, warn io.Writer) (*target, error) {
	t := &target{given: string(EngineNull), warn: warn, file: osio.NoFile, exists: true, diskless: true}
	t.note("ioengine null: no file was resolved, opened, created or admitted; every I/O completed at once, as in fio's null engine, so the figures measure clyde's own loop")
	return t, nil
}

// checkAlign holds an uncached workload (and on Windows every workload on a
// raw disk) to the target's sector size where the platform reads it, so a
// block size or offset Windows would refuse with ERROR_INVALID_PARAMETER
// is a usage error before anything is created; on Linux O_DIRECT is held to
// the same rule, read from statx(STATX_DIOALIGN) or the device's logical
// block size, so a misaligned job is refused instead of failing with EINVAL
// after the writes began. Elsewhere validate's DirectAlign is the rule.
func (t *target) checkAlign(w *workload) error {
	if t.diskless || (!w.Direct && !(t.device && rawDiskAligned)) {
		return nil
	}
	if !t.sectorsRead {
		p := t.resolved
		if !t.exists {
			p = t.dirPath
		}
		t.sectors, t.sectorsErr = osio.SectorSize(p)
		t.sectorsRead = true
	}
	if errors.Is(t.sectorsErr, result.ErrNotSupported) {
		return nil
	}
	si := t.sectors // unknown when it could not be read: 4 KiB then
	req := si.Required()
	switch {
	case !w.sizesMultipleOf(req):
		return result.Usagef("--bs", "%s is not a multiple of the sector size of %s, %s, which uncached I/O needs", w.sizesText(), t.given, si)
	case w.Offset%req != 0:
		return result.Usagef("--offset", "%d is not a multiple of the sector size of %s, %s, which uncached I/O needs", w.Offset, t.given, si)
	case si.BufferAlign() > osio.BufferAlign:
		return result.Usagef("--direct", "the sector size of %s, %s, is larger than the %d-byte buffer alignment clyde keeps",
			t.given, si, osio.BufferAlign)
	}
	return nil
}

// region is the byte range a workload uses after defaults are resolved.
type region struct{ offset, size int64 }

// resolveTarget looks at a target without changing anything: it follows
// symlinks, tells a file from a device, and refuses a target left by a
// killed run. A file that does not exist yet is sized later (sizeNew).
func resolveTarget(filename string, warn io.Writer) (*target, error) {
	t := &target{given: filename, warn: warn, file: osio.NoFile}
	if isRawDisk(filename) {
		var err error
		t.resolved, t.exists, t.device = filename, true, true
		if t.size, err = deviceSize(filename); err != nil {
			return nil, result.Usagef("--filename", "%v", err)
		}
		return t, nil
	}
	// One rule for the path (internal/safepath): another user's symlink
	// is not followed into someone else's file, ".." is the real parent.
	info, err := safepath.Lookup(filename)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return nil, result.Usagef("--filename", "cannot create %s: %v; give an existing file, a block device, or a path in a writable directory", filename, err)
	case err != nil:
		return nil, result.Usagef("--filename", "cannot resolve %s: %v", filename, err)
	case info.Dangling:
		return nil, result.Usagef("--filename", "%s is a symlink to nothing; give an existing target or a new path", filename)
	case !info.Exists:
		t.dirPath, t.base = filepath.Dir(info.Path), info.Name
		if err := admit.NewFile(filename, t.dirPath); err != nil {
			return nil, err
		}
		t.resolved = info.Path
		return t, rundir.CheckLeftover(t.given, t.dirPath, t.base)
	}
	t.resolved, t.exists = info.Path, true
	if k := safepath.KernelFS(t.resolved); k != "" { // /proc/kmsg, a sysfs attribute: the one rule of internal/safepath
		return nil, result.Usagef("--filename", "%s is a file of %s, a kernel interface, not a target", t.resolved, k)
	}
	switch info.Kind {
	case safepath.Regular:
		t.size = info.Size
		t.dirPath, t.base = filepath.Dir(t.resolved), filepath.Base(t.resolved)
		if err := rundir.CheckLeftover(t.given, t.dirPath, t.base); err != nil {
			return nil, err
		}
	case safepath.BlockDevice:
		t.device = true
		if t.size, err = deviceSize(t.resolved); err != nil {
			return nil, err
		}
	default:
		return nil, result.Usagef("--filename", "%s is neither a regular file nor a block device (a %s)", t.resolved, info.Kind)
	}
	return t, nil
}

// sizeNew sizes a file clyde is to create so that it holds every
// workload's region: offset plus size, DefaultSize where a workload leaves
// the size open. sizeGiven refuses an open size: the user said --size 0,
// which means the rest of an existing target. The workloads are taken in
// the plan's order, as fio's setup_files lays out a job's file before the
// next job's is set up: a workload's shares of the file (size=N%,
// offset=N%; region.go) are of the file as the workloads before it laid
// it out (shareBase), nothing for the first.
func (t *target) sizeNew(ws []*workload, sizeGiven bool) error {
	for _, w := range ws {
		if r, ok := w.fileRegionOn(t); ok {
			t.size = max(t.size, r.Offset+r.Size) // a file set's file (files.go)
			continue
		}
		w.shareBase = t.size
		if w.Region.SizePercent > 0 && t.size == 0 {
			// fio: "you need to specify size=" (setup_files: a share of
			// a file of no size).
			return result.Usagef("--size", "job %s: %d%% of %s, which does not exist yet and no job before it lays out: give the size of the file to create, such as 1g",
				w.Name, w.Region.SizePercent, t.given)
		}
		off, size := w.place(t.size)
		if size == 0 {
			if sizeGiven {
				return result.Usagef("--size", "0 means the rest of an existing target, and %s does not exist yet; "+
					"give the size of the file to create, such as 1g", t.given)
			}
			size = DefaultSize
		}
		if off > math.MaxInt64-size {
			return result.Usagef("--offset", "offset %d + size %d is past the largest file offset (%d)", off, size, int64(math.MaxInt64))
		}
		t.size = max(t.size, off+size)
	}
	return nil
}

// createOnOpen decides how a file clyde creates starts when its workloads
// have CreateOnOpen (fio's create_on_open): fio then lays nothing out
// before the run and the job's own writes make the file. clyde creates it
// at its size, sparse, so that its marker's size holds, and fills nothing
// when every workload on it has the option. A workload that reads it is
// refused: fio reads an empty file and stops at its first read.
func (t *target) createOnOpen(ws []*workload) error {
	all := len(ws) > 0
	for _, w := range ws {
		all = all && w.CreateOnOpen
		if w.CreateOnOpen && w.RW.Reads() {
			return result.Usagef("--create_on_open", "job %s reads %s, which does not exist: with create_on_open fio lays out no data and stops at its first read; drop create_on_open or give an existing file", w.Name, t.given)
		}
	}
	t.noFill = all
	return nil
}

// region resolves a workload's byte range on the target.
func (t *target) region(w *workload) (region, error) {
	var r region
	// fio's shares and clone increments (region.go) are of the target as
	// it is before the run; of a file the run creates, as the workloads
	// before this one lay it out (sizeNew).
	before := t.size
	if !t.exists {
		before = w.shareBase
	}
	r.offset, r.size = w.place(before)
	if t.diskless {
		// The region is size= alone (Workload.validate requires it).
		t.size = max(t.size, r.offset+r.size)
		return r, nil
	}
	if !t.exists {
		if r.size == 0 {
			r.size = t.size - r.offset
		}
		return r, nil
	}
	if r.offset >= t.size {
		return r, result.Usagef("--offset", "%d is at or past the end of %s (%d bytes)", r.offset, t.resolved, t.size)
	}
	if r.size == 0 {
		r.size = t.size - r.offset
	}
	if r.size > t.size-r.offset {
		return r, result.Usagef("--size", "offset %d + size %d runs past the end of %s (%d bytes); give a smaller --size or a new path",
			r.offset, r.size, t.resolved, t.size)
	}
	return r, nil
}

// splitTarget resolves the directory of filename, whose last component is
// taken as it is: the name of the file to create or clean up.
func splitTarget(filename string) (dir, base string, err error) {
	base = filepath.Base(filename)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return "", "", result.Usagef("--filename", "%s does not name a file; give a file path or a block device", filename)
	}
	d, base, err := safepath.Parent(filename)
	if err != nil {
		return "", "", result.Usagef("--filename", "cannot create %s: %v; give an existing file, a block device, or a path in a writable directory",
			filename, err)
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

// prepare makes the target usable and takes the run lock on it. An
// existing target is opened and, for a writing run, put through the safety
// rules (a device is then kept claimed); an absent file is created with its
// marker and filled completely so that reads hit real blocks.
func (t *target) prepare(ctx context.Context, destroy bool, buf Buffer, seed uint64) error {
	if t.diskless {
		return nil
	}
	var err error
	if !t.exists {
		err = t.create(ctx, buf, seed)
	} else {
		err = t.open(destroy)
	}
	if err != nil {
		return err
	}
	t.lock, err = runlock.File(t.file, t.given)
	switch {
	case errors.Is(err, result.ErrNotSupported):
		t.warnf("no run lock on %s: %v", t.given, err)
	case err != nil:
		return err
	}
	return nil
}

// open opens an existing target and applies the write rules.
func (t *target) open(destroy bool) error {
	f, _, err := safepath.Open(t.resolved, osio.ReadOnly, safepath.Regular|safepath.BlockDevice)
	if err != nil {
		return fmt.Errorf("open %s: %w", t.resolved, err)
	}
	t.file = f
	e, err := f.Stat()
	if err != nil {
		return fmt.Errorf("identify %s: %w", t.resolved, err)
	}
	if (t.device && !e.Dev) || (!t.device && !e.Reg) {
		return fmt.Errorf("%s changed while clyde looked at it; run again", t.resolved)
	}
	t.id = e.ID
	if !t.writes {
		return nil
	}
	guard, err := admit.Write(t.given, t.resolved, t.file, e, destroy)
	if err != nil || !t.device {
		return err
	}
	t.file.Close()
	t.file = guard
	if g, err := guard.Stat(); err != nil || !g.ID.Same(t.id) {
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
	var d osio.Dir
	var err error
	if t.private != nil {
		d, t.dirShared = t.private.Run.Dir, true
		t.resolved = t.private.FilePath(t.base)
	} else if d, err = safepath.OpenDir(t.dirPath); err != nil {
		return cannot(err)
	}
	t.dir = d
	// 0600: the mode `clyde block --cleanup` holds a file it removes to
	// (safepath.CheckOwned).
	f, err := d.Open(osio.Name(t.base), osio.ReadWrite|osio.Create, 0o600)
	if err != nil {
		return cannot(err)
	}
	t.file, t.created = f, true
	e, err := f.Stat()
	if err != nil {
		return fmt.Errorf("identify %s: %w", t.resolved, err)
	}
	t.id = e.ID
	// Sized before the marker is written, so the size it records holds
	// however early the run is killed.
	if err := f.Truncate(t.size); err != nil {
		return fmt.Errorf("size %s to %d bytes: %w", t.resolved, t.size, err)
	}
	e.Size = t.size
	if err := rundir.WriteFileMarker(d, rundir.NewFileMarker(t.base, e)); err != nil {
		return err
	}
	t.marked = true
	if t.direct {
		// Before filling: a filesystem that refuses O_DIRECT is a refusal,
		// not a failure of every worker.
		pf, err := d.Open(osio.Name(t.base), osio.ReadOnly|osio.Direct, 0)
		if err != nil {
			return refusedDirect(t.given, err)
		}
		pf.Close()
	}
	if t.noFill {
		return nil // fio's create_on_open: the writes lay it out
	}
	start := time.Now()
	if err := fillFile(ctx, f, t.size, buf, seed); err != nil {
		return fmt.Errorf("fill %s: %w", t.resolved, err)
	}
	t.fillNs = int64(time.Since(start))
	return nil
}

// refusedDirect is the refusal of a filesystem that will not open a file
// with O_DIRECT.
func refusedDirect(given string, err error) error {
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, result.ErrNotSupported) {
		return result.Usagef("--direct", "%s: its filesystem refuses uncached (O_DIRECT) opens (%v); run without --direct (cdm and iometer: add --buffered)", given, err)
	}
	return fmt.Errorf("open %s uncached: %w", given, err)
}

// fillFile writes size bytes of the buffer pattern, fresh for every chunk so
// that the file does not dedupe, and syncs it.
func fillFile(ctx context.Context, f osio.File, size int64, spec Buffer, seed uint64) error {
	rng := newRand(seed, 0)
	buf := make([]byte, fillChunk)
	for off := int64(0); off < size; off += fillChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(int64(fillChunk), size-off)
		fillBuffer(buf[:n], spec, rng)
		if err := osio.PwriteFull(f, buf[:n], off); err != nil {
			return fmt.Errorf("write at %d: %w", off, err)
		}
	}
	return f.Sync()
}

// openWorker opens a descriptor for one worker: a created file through its
// directory's descriptor, an existing target by its resolved path without
// following a symlink. A descriptor that is not the target the run started
// on (the file was replaced or renamed over) is closed unused.
func (t *target) openWorker(write, direct bool, extra osio.Flag) (osio.File, error) {
	flag := osio.ReadOnly | extra
	if write {
		flag = osio.ReadWrite | extra
	}
	if direct {
		flag |= osio.Direct
	}
	var f osio.File
	var err error
	if t.created {
		f, err = t.dir.Open(osio.Name(t.base), flag, 0)
	} else {
		f, _, err = safepath.Open(t.resolved, flag, safepath.Regular|safepath.BlockDevice)
	}
	if err != nil {
		return osio.NoFile, err
	}
	e, err := f.Stat()
	if err != nil || !e.ID.Same(t.id) {
		f.Close()
		return osio.NoFile, fmt.Errorf("%s is no longer the file the run started on (it was replaced during the run); left it untouched", t.resolved)
	}
	return f, nil
}

// cleanup gives the lock back, closes the target and removes a file clyde
// created, then its marker. The file goes only while it is still the one
// clyde made: a file renamed over it during the run is someone else's and
// stays, with a note.
func (t *target) cleanup() error {
	var errs []error
	if err := t.lock.Release(); err != nil {
		errs = append(errs, err)
	}
	t.lock = nil
	if t.file.Valid() {
		errs = append(errs, t.file.Close())
		t.file = osio.NoFile
	}
	if t.created && t.dir.Valid() {
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
func (t *target) removeCreated() error {
	e, err := t.dir.Lstat(osio.Name(t.base))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.note(fmt.Sprintf("the file clyde created, %s, was removed by someone else during the run", t.resolved))
	case err != nil:
		return fmt.Errorf("check %s before removing it: %w", t.resolved, err)
	case !e.Reg || !e.ID.Same(t.id):
		t.warnf("%s was replaced during the run; the file now there is not the one clyde created, so it was left in place", t.resolved)
	default:
		if err := t.dir.Remove(osio.Name(t.base)); err != nil {
			return fmt.Errorf("remove %s: %w", t.resolved, err)
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

func (t *target) note(s string) { t.notes = append(t.notes, s) }

// warnf records a note and prints it as one line.
func (t *target) warnf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	t.note(s)
	if t.warn != nil {
		fmt.Fprintf(t.warn, "clyde: warning: %s\n", s)
	}
}

// diskStatsBefore snapshots the disks under the open targets, for fio's
// disk_util (sysinfo.DiskStats).
func diskStatsBefore(targets []*target) *sysinfo.DiskSnapshot {
	var ds []sysinfo.DiskTarget
	for _, t := range targets {
		if t.file.Valid() {
			ds = append(ds, sysinfo.DiskTarget{Fd: t.file.Fd(), Device: t.device})
		}
	}
	return sysinfo.DiskStats(ds)
}

func (t *target) describe() result.BlockTarget {
	kind := "file"
	switch {
	case t.device:
		kind = "block_device"
	case t.diskless:
		return result.BlockTarget{Path: t.given, Kind: string(EngineNull), SizeBytes: t.size}
	}
	return result.BlockTarget{Path: t.given, ResolvedPath: t.resolved, Kind: kind, Created: t.created, SizeBytes: t.size, FillNs: t.fillNs}
}

// directCacheNote says, for the first direct=1 workload on a target whose
// O_DIRECT I/O a page cache serves anyway (pagecache.CachedOnly: tmpfs, ramfs, FUSE,
// ext4 data=journal, a loop device the host reads its backing file for
// through its cache), that the figures of the direct jobs there are the
// cache's: the kernel accepts such opens without a word, and the result
// would otherwise say direct=1 beside memory speeds. allowed
// (--allow-cached) says the user asked to measure it so. Asked once per
// target.
func (w *workload) directCacheNote(allowed bool) string {
	t := w.target
	if !w.Direct || t == nil || t.diskless || t.cacheRead {
		return ""
	}
	t.cacheRead = true
	path := t.dirPath
	if t.exists {
		path = t.resolved
	}
	what, err := pagecache.CachedOnly(path)
	switch {
	case err != nil:
		return fmt.Sprintf("direct=1 on %s: cannot tell whether O_DIRECT bypasses the page cache there (%v)", t.given, err)
	case what != "":
		t.cacheNote = fmt.Sprintf("direct=1 on %s (job %s and every direct job on it), but it is on %s: the page cache served the I/O, so the figures are the cache's, not the drive's",
			t.given, w.Name, what)
		if allowed {
			t.cacheNote += " (--allow-cached: measured so as asked)"
		}
		return t.cacheNote
	}
	return ""
}
