package blockbench

import (
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// fio's rw=trim and randtrim: every I/O is a BLKDISCARD of one block, as
// fio 3.33's do_io_u_trim and os_trim on Linux issue it. fio issues the
// same ioctl on a regular file, which refuses it (ENOTTY: "Inappropriate
// ioctl for device", the job fails); clyde refuses a file before the run
// with that meaning. A trim destroys data, so a trim workload is a writing
// one for the target rules (RW.Writes): an existing device needs
// DestroyData and must not be in use.
//
// Trims are counted in the worker's write slot and moved to fio's "trim"
// direction when the job is summarised; the per-second series has no trim
// columns and counts them as writes (a note says so).
//
// fio's trimwrite trims a block and then writes it, block after block in
// sequence (io_u.c's set_rw_ddir: a trim when the last trim and the last
// write started at the same offset, else a write at the offset just
// trimmed), and counts each trim and each write in its own direction; a
// non-time-based job does two I/Os per block (backend.c doubles
// number_ios). It never reads, so clyde counts its trims in the worker's
// read slot and moves them to fio's trim direction the same way.

// checkTrim refuses a trim workload clyde cannot run as fio does; it runs
// once the target and the engine are known.
func (w *workload) checkTrim() error {
	if !w.RW.Discards() {
		return nil
	}
	switch {
	case !osio.CanDiscard:
		return result.Usagef("--rw", "rw=%s: %v", w.RW, osio.Discard(osio.NoFile, 0, 0))
	case w.Volume != nil || w.Access != nil:
		return result.Usagef("--rw", "rw=%s runs on one block device with fio's rw modes", w.RW)
	case !w.target.device:
		return result.Usagef("--rw", "rw=%s: %s is not a block device; fio 3.33 trims with BLKDISCARD, which a regular file refuses (fio's job fails with \"Inappropriate ioctl for device\")", w.RW, w.target.resolved)
	case w.engine.queues():
		return result.Usagef("--ioengine", "rw=%s issues one BLKDISCARD at a time, as fio's sync engines; give ioengine=psync", w.RW)
	case w.RW.Trims() && (w.Fsync > 0 || w.Fdatasync > 0):
		return result.Usagef("--fsync", "rw=%s writes nothing to sync; fio issues no fsync in a trim job", w.RW)
	case w.Verify != VerifyNone:
		return result.Usagef("--verify", "rw=%s: clyde verifies the blocks of a write job, not of one that trims", w.RW)
	}
	return nil
}

// trimWriteIOs is the I/Os a mode does per block of its region: two for
// trimwrite (a trim and a write), one for every other mode.
func trimWriteIOs(m RW) int {
	if m == TrimWrite {
		return 2
	}
	return 1
}

// prepareTrims readies the issuer of a mode that discards: trimIssuer, or
// for trimwrite trimWriteIssuer with its write buffer filled as psync's.
func (w *worker) prepareTrims() error {
	if w.spec.RW.Trims() {
		w.issuer = trimIssuer{}
		return nil
	}
	buf := osio.AlignedBuffer(w.pattern.maxSize(w))
	fillBuffer(buf, w.spec.Buffer, w.dataRand())
	w.issuer = &trimWriteIssuer{buf: buf}
	return nil
}

// trimIssuer discards one block at a time on the worker's own thread.
type trimIssuer struct{}

func (trimIssuer) close() {}

func (trimIssuer) run(w *worker) {
	if t := w.now(); t >= w.nextEvent && w.tick(t) {
		return
	}
	for {
		_, off, size := w.pattern.next(w)
		if w.discard(dirWrite, off, size) {
			return
		}
	}
}

// discard trims one block, times it and counts it in slot dir; it says
// whether the worker is to stop (a failure, its count or time reached).
func (w *worker) discard(dir int, off int64, size int) (stop bool) {
	t0 := w.now()
	err := osio.Discard(w.file(), off, int64(size))
	t1 := w.now()
	if err != nil {
		w.fail(fmt.Errorf("trim %d bytes at offset %d: %w", size, off, err))
		return true
	}
	if !w.complete(dir, size, size, off, t0, t0, t1) {
		return true
	}
	return t1 >= w.nextEvent && w.tick(t1)
}

// trimWriteIssuer is trimwrite on the worker's own thread: each block
// drawn is discarded, then written, each timed and counted on its own.
type trimWriteIssuer struct{ buf []byte }

func (*trimWriteIssuer) close() {}

func (p *trimWriteIssuer) run(w *worker) {
	if t := w.now(); t >= w.nextEvent && w.tick(t) {
		return
	}
	for {
		_, off, size := w.pattern.next(w)
		// The read slot stands for the trims (reportTrims).
		if w.discard(dirRead, off, size) {
			return
		}
		if w.fill != nil {
			// fio fills the buffer before it starts the I/O's clock.
			w.refill(p.buf[:size])
		}
		t0 := w.now()
		n, err := w.file().Pwrite(p.buf[:size], off)
		t1 := w.now()
		if err != nil {
			w.fail(fmt.Errorf("write %d bytes at offset %d: %w", size, off, err))
			return
		}
		if !w.complete(dirWrite, n, size, off, t0, t0, t1) {
			return
		}
		if t1 >= w.nextEvent && w.tick(t1) {
			return
		}
	}
}

// reportTrims moves a trim job's counts from the direction the workers
// kept them in (write; trimwrite's in read) to fio's trim direction.
func reportTrims(job *result.BlockJob, wl *workload) {
	switch {
	case wl.RW.Trims():
		job.Trim, job.Write = job.Write, result.BlockDir{}
		job.Notes = append(job.Notes, fmt.Sprintf("job %s: the per-second series counts the trims as writes (write_ios, write_bytes)", wl.Name))
	case wl.RW == TrimWrite:
		job.Trim, job.Read = job.Read, result.BlockDir{}
		job.Notes = append(job.Notes, fmt.Sprintf("job %s: the per-second series and the logs count the trims as reads (read_ios, read_bytes; direction 0)", wl.Name))
	}
}
