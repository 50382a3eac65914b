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
//
// randtrimwrite (fio 3.32) is the same pairs with each trim's block drawn
// at random, from the random map unless norandommap: io_u.c's
// get_next_block gives the write the offset and length of the trim just
// issued and does not mark the map for it, so a pass trims and writes
// every block once. fio 3.33 (and later releases until axboe/fio#1932,
// 2025) took that offset without the job's offset=: with offset= above 0
// the writes go elsewhere or the job ends after one trim. clyde writes each
// block where it trimmed it, as fio does since.

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
	case !w.target.Device && !w.engine.trimsItself():
		return result.Usagef("--rw", "rw=%s: %s is not a block device; fio 3.33 trims with BLKDISCARD, which a regular file refuses (fio's job fails with \"Inappropriate ioctl for device\")", w.RW, w.target.Resolved)
	case w.engine.queues():
		return result.Usagef("--ioengine", "rw=%s issues one BLKDISCARD at a time, as fio's sync engines; give ioengine=psync", w.RW)
	case w.RW.Trims() && (w.Fsync > 0 || w.Fdatasync > 0):
		return result.Usagef("--fsync", "rw=%s writes nothing to sync; fio issues no fsync in a trim job", w.RW)
	case w.Verify != VerifyNone:
		return result.Usagef("--verify", "rw=%s: clyde verifies the blocks of a write job, not of one that trims", w.RW)
	case w.RW.TrimsThenWrites() && !w.Direct && w.retrims() != "":
		return result.Usagef("--direct", "rw=%s buffered trims blocks it wrote in this run (%s); while clyde holds the device exclusively the kernel can only invalidate clean cached pages, so such a trim fails with EBUSY where fio's succeeds: give direct=1", w.RW, w.retrims())
	}
	return nil
}

// retrims says why a trimwrite workload may trim a block it has already
// written ("": it trims each block once): the pages of a buffered write
// are then still dirty in the device's cache. BLKDISCARD drops the cache
// of its range; without an exclusive open of its own (clyde's target
// holds that one) the kernel only invalidates it (truncate_bdev_range),
// which fails on a dirty page.
func (w *workload) retrims() string {
	switch {
	case w.TimeBased:
		return "time_based: pass after pass"
	case w.Loops > 1:
		return "loops above 1"
	case w.NumJobs > 1:
		return "numjobs above 1: the clones share the region"
	case w.RW.Random() && !w.RandomMap:
		return "norandommap: a block may come again"
	}
	return ""
}

// trimWriteIOs is the I/Os a mode does per block of its region: two for
// trimwrite and randtrimwrite (a trim and a write), one for every other
// mode.
func trimWriteIOs(m RW) int {
	if m.TrimsThenWrites() {
		return 2
	}
	return 1
}

// trimWritePattern is trimwrite and randtrimwrite as units: each block its
// pattern draws (in sequence or at random) comes twice, first as a trim
// counted in the read slot (reportTrims), then as a write of the same
// block; the loop's operations for the slots are trim and write.
type trimWritePattern struct {
	ioPattern
	off   int64
	size  int
	write bool // the next unit is the write of the block trimmed last
}

func (p *trimWritePattern) next(w *worker) (int, int64, int) {
	if p.write {
		p.write = false
		return dirWrite, p.off, p.size
	}
	_, p.off, p.size = p.ioPattern.next(w)
	p.write = true
	return dirRead, p.off, p.size
}

// checkTrimEntries refuses a report entry that group_reporting makes of
// jobs that trim and jobs that do not (fio's examples/falloc.fio: a
// falloc randwrite job and its punch-hole randtrim jobs in one group): a
// worker counts its trims in a slot of its own direction (reportTrims
// moves them per entry), so such an entry would count the trims as the
// writes, or the writes as trims.
func checkTrimEntries(groups [][]*workload) error {
	for _, ws := range groups {
		entry, _ := reportEntries(ws)
		for i := 1; i < len(ws); i++ {
			a, b := ws[i-1], ws[i]
			if entry[i] == entry[i-1] && (a.RW.Trims() != b.RW.Trims() || a.RW.TrimsThenWrites() != b.RW.TrimsThenWrites()) {
				return result.Usagef("--group_reporting", "jobs %s (rw=%s) and %s (rw=%s) share a group_reporting entry; clyde does not sum trims with other I/O in one entry yet: give the trim jobs a group of their own (stonewall or new_group) or report them apart", a.Name, a.RW, b.Name, b.RW)
			}
		}
	}
	return nil
}

// reportTrims moves a trim job's counts from the direction the workers
// kept them in (write; trimwrite's in read) to fio's trim direction.
func reportTrims(job *result.BlockJob, wl *workload) {
	switch {
	case wl.RW.Trims():
		job.Trim, job.Write = job.Write, result.BlockDir{}
		job.Notes = append(job.Notes, fmt.Sprintf("job %s: the per-second series counts the trims as writes (write_ios, write_bytes)", wl.Name))
	case wl.RW.TrimsThenWrites():
		job.Trim, job.Read = job.Read, result.BlockDir{}
		job.Notes = append(job.Notes, fmt.Sprintf("job %s: the per-second series and the logs count the trims as reads (read_ios, read_bytes; direction 0)", wl.Name))
	}
}
