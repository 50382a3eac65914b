package blockbench

import (
	"math"

	"github.com/clydebench/clyde/result"
)

// RegionSpec is fio's way of placing a job's region by the size of its
// target and by the clone it is, and of doing an amount of I/O other than
// a pass over the region: fio 3.33's size=N%, offset=N%, offset_increment
// (filesetup.c get_start_offset and setup_files) and io_size (backend.c
// io_bytes_exceeded and keep_running). The zero value places the region
// by Offset and Size alone.
type RegionSpec struct {
	// SizePercent, from 1 to 100, makes the region that share of the
	// target (fio's size=N%, with Size 0): a share of the whole target,
	// at most what is left after the offset, cut to whole blocks. The
	// target must exist: fio takes no share of a file it creates.
	SizePercent int
	// OffsetPercent, from 1 to 100, starts the region at that share of
	// the target instead of at Offset (fio's offset=N%).
	OffsetPercent int
	// Increment moves the region of the clone by Increments times it
	// (fio's offset_increment, times the clone's subjob_number);
	// IncrementPercent is the same in percent of the target.
	Increment        int64
	IncrementPercent int
	Increments       int
	// IOSize, when above 0, is the bytes of I/O a worker does in place of
	// one pass over the region per loop (fio's io_size): at least Loops
	// passes, more while the bytes done fall short of IOSize by a block or
	// more, and never more than IOSize times Loops (ioSizeLimit). A
	// time-based workload ignores it, as fio does.
	IOSize int64
	// IOSizePercent, from 1 to 99, is IOSize as a share of the region
	// (fio's io_size=N%, which lowers the job's size to that share).
	IOSizePercent int
}

// validate holds the region spec's rules that need no target.
func (r RegionSpec) validate(w *Workload) error {
	switch {
	case r.SizePercent < 0 || r.SizePercent > 100:
		return result.Usagef("--size", "%d%% is outside 1..100", r.SizePercent)
	case r.OffsetPercent < 0 || r.OffsetPercent > 100:
		return result.Usagef("--offset", "%d%% is outside 1..100", r.OffsetPercent)
	case r.IOSizePercent < 0 || r.IOSizePercent > 100:
		return result.Usagef("--io_size", "%d%% is outside 1..100", r.IOSizePercent)
	case r.IncrementPercent < 0 || r.IncrementPercent > 100:
		return result.Usagef("--offset_increment", "%d%% is outside 1..100", r.IncrementPercent)
	case r.Increment < 0 || r.Increments < 0 || r.IOSize < 0:
		return result.Usagef("--offset_increment", "workload %s: a negative offset increment or io_size", w.Name)
	case (r.Increment > 0 || r.IncrementPercent > 0) && r.Increments > 0 && w.NumJobs > 1:
		return result.Usagef("--offset_increment", "workload %s: an offset increment places one clone's region; give each clone a workload of its own (NumJobs 1)", w.Name)
	case (r.IOSize > 0 || r.IOSizePercent > 0) && w.RW.Discards():
		// fio 3.33 trims nothing at all with io_size and a trim mode.
		return result.Usagef("--io_size", "workload %s: io_size with rw=%s: clyde runs io_size with reads and writes, not trims", w.Name, w.RW)
	case (r.IOSize > 0 || r.IOSizePercent > 0) && w.Verify != VerifyNone:
		return result.Usagef("--io_size", "workload %s: verify=%s checks one pass over the region; give size= without io_size", w.Name, w.Verify)
	case w.Diskless() && (r.SizePercent > 0 || r.OffsetPercent > 0 || r.IncrementPercent > 0):
		return result.Usagef("--size", "workload %s: ioengine=null opens no file, so there is no size to take a share of; give size= in bytes", w.Name)
	}
	return nil
}

// percentOf is pct percent of size, as fio's integer arithmetic takes it.
func percentOf(size int64, pct int) int64 {
	if size > math.MaxInt64/100 {
		return size / 100 * int64(pct)
	}
	return size * int64(pct) / 100
}

// place is the region's offset and size on a target of size bytes (0 for
// a file clyde creates) as fio 3.33's get_start_offset and setup_files
// place it: the offset at offset= or its share of the target, plus the
// clone's increments, rounded up to a whole block when a share is in it;
// the size at size=, or the share of the whole target size=N% takes, at
// most the rest after the offset, cut to whole blocks (size=100% is the
// rest, uncut). A size of 0 is left for the caller: the rest.
func (w *Workload) place(size int64) (off, sz int64) {
	r := w.Region
	inc, align := r.Increment, false
	if r.IncrementPercent > 0 {
		inc, align = percentOf(size, r.IncrementPercent), true
	}
	off = w.Offset
	if r.OffsetPercent > 0 {
		off, align = percentOf(size, r.OffsetPercent), true
	}
	off += int64(r.Increments) * inc
	bs := w.minBS() // fio's td_min_bs (blocksize.go)
	if align && bs > 0 {
		// fio's offset_align is not an option clyde reads: the smallest
		// block size aligns it.
		off = (off + bs - 1) / bs * bs
	}
	sz = w.Size
	if r.SizePercent > 0 && r.SizePercent < 100 {
		sz = min(percentOf(size, r.SizePercent), max(size-off, 0))
		if bs > 0 {
			sz -= sz % bs
		}
	}
	return off, sz
}

// ioBytes is the workload's io_size in bytes on its resolved region of
// size bytes; 0 without one.
func (r RegionSpec) ioBytes(size int64) int64 {
	if r.IOSizePercent > 0 {
		return percentOf(size, r.IOSizePercent)
	}
	return r.IOSize
}

// ioSizeLimit is the I/Os a worker does with io_size (fio's io_size,
// loops passes of perPass I/Os of bs bytes), as fio 3.33 counts them:
// keep_running makes the loops passes and then more while the bytes done
// are short of io_size by at least a block; io_bytes_exceeded stops
// issuing once io_size times loops bytes are issued, whatever pass it is
// in. So io_size above the region runs more passes, ending exactly at
// io_size with one loop (an I/O over it when it is not a whole number of
// blocks); below, one pass stops early; with several loops, each loop is
// a whole pass while they last.
func ioSizeLimit(ioSize, bs int64, perPass uint64, loops int) int64 {
	if bs <= 0 || perPass == 0 || ioSize <= 0 {
		return 0
	}
	l := int64(max(1, loops))
	pass := int64(perPass)
	// keep_running stops once the bytes done are more than io_size less
	// a block: the first pass count from loops on that gets there.
	passes := l
	if need := ioSize - bs + 1; need > 0 && pass <= math.MaxInt64/bs {
		passes = max(l, (need+pass*bs-1)/(pass*bs))
	}
	capIOs := int64(math.MaxInt64)
	if ioSize <= math.MaxInt64/l {
		capIOs = (ioSize*l-1)/bs + 1
	}
	if passes > math.MaxInt64/pass {
		return capIOs
	}
	return min(passes*pass, capIOs)
}
