package blockbench

import (
	"fmt"
)

// fio's sync options, counted as fio 3.33 counts them (io_u.c get_rw_ddir,
// backend.c do_io, stat.c):
//
//   - fsync=N and fdatasync=N put a sync before the I/O that follows every
//     Nth write, so a job that ends on its Nth write issues none after it
//     (256 writes with fsync=4: 63 fsyncs). When both fall on one write,
//     the fsync is issued.
//   - Both are timed into the job's "sync" latency (lat_ns.N counts them
//     all), but "sync".total_ios counts only the fsyncs: fio's total_io_u
//     stops at DDIR_SYNC, and fdatasync is DDIR_DATASYNC.
//   - end_fsync=1 and fsync_on_close=1 fsync once when the job's I/O is
//     done, inside its runtime, neither timed nor counted in "sync";
//     fsync_on_close fsyncs again when the file is closed, after the
//     runtime.

// syncAfterWrite issues the fsync or fdatasync due after a write; false
// means it failed and the worker's error says how.
func (w *worker) syncAfterWrite() bool {
	w.sinceSync++ // here: the worker's writes so far
	if w.ios[dirRead]+w.ios[dirWrite] >= w.ioLimit {
		return true // no I/O follows, so fio issues no sync before one
	}
	switch {
	case w.spec.Fsync > 0 && w.sinceSync%w.spec.Fsync == 0:
		return w.sync()
	case w.spec.Fdatasync > 0 && w.sinceSync%w.spec.Fdatasync == 0:
		return w.datasync()
	}
	return true
}

// datasync issues one fdatasync, timed into fio's "sync" latency but not
// its total_ios.
func (w *worker) datasync() bool { return w.timedSync(true) }

// endFsync is fio's end_fsync (and the first fsync of fsync_on_close): one
// fsync when a worker that wrote is done, inside its measured time, not
// counted in the sync direction.
func (w *worker) endFsync() {
	if !(w.spec.EndFsync || w.spec.FsyncOnClose) || !writesData(w.spec.RW) || !w.measuring || w.err != nil || w.ctx.Err() != nil {
		return
	}
	if err := w.fileSync(false); err != nil {
		w.fail(fmt.Errorf("end_fsync: %w", err))
		return
	}
	w.endNs = max(w.endNs, w.now())
}

// syncOnClose is fsync_on_close's second fsync, as the worker is about to
// close the target: after the measured time, neither timed nor counted.
func (w *worker) syncOnClose() {
	if !w.spec.FsyncOnClose || !writesData(w.spec.RW) || w.err != nil || (!w.h.Valid() && !w.spec.Diskless()) {
		return
	}
	if err := w.fileSync(false); err != nil {
		w.fail(fmt.Errorf("fsync_on_close: %w", err))
	}
}

// writesData says whether a mode writes data for a sync to flush: fio's
// td_write, which a trim job is not (it issues no end_fsync).
func writesData(m RW) bool { return m.Writes() && !m.Trims() }
