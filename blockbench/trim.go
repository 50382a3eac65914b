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

// checkTrim refuses a trim workload clyde cannot run as fio does; it runs
// once the target and the engine are known.
func (w *workload) checkTrim() error {
	if !w.RW.Trims() {
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
	case w.Fsync > 0 || w.Fdatasync > 0:
		return result.Usagef("--fsync", "rw=%s writes nothing to sync; fio issues no fsync in a trim job", w.RW)
	}
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
		t0 := w.now()
		err := osio.Discard(w.file(), off, int64(size))
		t1 := w.now()
		if err != nil {
			w.fail(fmt.Errorf("trim %d bytes at offset %d: %w", size, off, err))
			return
		}
		if !w.complete(dirWrite, size, size, off, t0, t0, t1) {
			return
		}
		if t1 >= w.nextEvent && w.tick(t1) {
			return
		}
	}
}

// reportTrims moves a trim job's counts from the write direction, where
// the workers kept them, to fio's trim direction.
func reportTrims(job *result.BlockJob, wl *workload) {
	if !wl.RW.Trims() {
		return
	}
	job.Trim, job.Write = job.Write, result.BlockDir{}
	job.Notes = append(job.Notes, fmt.Sprintf("job %s: the per-second series counts the trims as writes (write_ios, write_bytes)", wl.Name))
}
