package blockbench

import (
	"fmt"
	"slices"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/verify"
	"github.com/clydebench/clyde/result"
)

// The blocks' headers, checksums, patterns, seeds and verify_backlog's
// queue are internal/verify; these are their names in blockbench's API,
// the rules that need a Workload, and the worker's side: when to fill a
// block, reading blocks back and counting those reads.

// VerifyKind is fio's verify=: the checksum every written block carries
// (verify.Kind).
type VerifyKind = verify.Kind

// The checksums clyde writes and checks (verify.CRC32C and the others).
// VerifyPatternOnly is fio's verify=pattern: no header, every block is
// Workload.VerifyPattern, checked byte for byte.
const (
	VerifyNone        = verify.None
	VerifyCRC32C      = verify.CRC32C
	VerifyCRC32CIntel = verify.CRC32CIntel
	VerifyMD5         = verify.MD5
	VerifyPatternOnly = verify.PatternOnly
)

// VerifyKinds are the verify= values clyde builds.
var VerifyKinds = verify.Kinds

// VerifyError is a verify pass that found bad blocks (verify.Error).
type VerifyError = verify.Error

// maxVerifyBlocks bounds the seeds a worker keeps (verify.MaxBlocks).
const maxVerifyBlocks = verify.MaxBlocks

// validateVerify holds the rules of verify= and fdatasync=.
func (w *Workload) validateVerify() error {
	if w.Fdatasync < 0 {
		return result.Usagef("--fdatasync", "%d is negative; give N to fdatasync after every N writes, 0 never", w.Fdatasync)
	}
	if (w.Fdatasync > 0 || w.FsyncOnClose) && w.Volume != nil {
		return result.Usagef("--fdatasync", "fdatasync and fsync_on_close are not supported on a volume of several targets")
	}
	if w.Verify == VerifyNone {
		return nil
	}
	hdr := w.Verify.HeaderSize()
	switch {
	case !slices.Contains(VerifyKinds, w.Verify):
		return result.Usagef("--verify", "%q is not a checksum clyde writes; accepted: crc32c, crc32c-intel, md5, meta, pattern", w.Verify)
	case w.Verify == VerifyPatternOnly && len(w.VerifyPattern) == 0:
		return result.Usagef("--verify", "verify=pattern checks the blocks against verify_pattern; give one")
	case w.Volume != nil || w.Access != nil:
		return result.Usagef("--verify", "verify=%s runs on one target with fio's rw modes", w.Verify)
	case w.RW == Read || w.RW == RandRead:
		// fio checks every read of a job that only reads against the
		// headers in the blocks, whatever do_verify says.
		return w.validateVerifyReads(hdr)
	case w.RW != Write && w.RW != RandWrite && !w.RW.Mixed():
		// A mixed mode writes its blocks with headers and reads without
		// checking them; the verify pass (and verify_backlog) reads back
		// the blocks it wrote, as fio's.
		return result.Usagef("--verify", "verify=%s with rw=%s: clyde checks the blocks a job wrote (rw=write, randwrite, readwrite, randrw) or every block a read job reads (rw=read or randread)", w.Verify, w.RW)
	case w.TimeBased && !w.NoVerifyPass:
		return result.Usagef("--verify", "verify=%s checks one pass over the region; give size= without time_based", w.Verify)
	case w.Loops > 1 && !w.NoVerifyPass:
		// With do_verify=0 the blocks only carry their headers, pass
		// after pass, as fio's.
		return result.Usagef("--verify", "verify=%s: fio verifies after each of loops=%d passes, clyde once after one pass; give loops=1", w.Verify, w.Loops)
	case w.verifyInterval() < int64(hdr):
		return result.Usagef("--bs", "%d is smaller than the %d-byte header verify=%s writes into each block", w.verifyInterval(), hdr, w.Verify)
	case w.Buffer.Kind != BufferRandom && w.Buffer.Kind != BufferPattern:
		// fio fills a verified block with random data from its seed, or
		// verify_pattern; buffer_pattern alone it leaves to the layout.
		return result.Usagef("--verify", "verify=%s fills every block with random data from its own seed; drop zero_buffers and buffer_compress_percentage", w.Verify)
	}
	return w.validateVerifyExtras()
}

// validateVerifyReads holds the rules of verify= on a job that only
// reads: every read is checked against the header each verify_interval
// of it carries (hdr bytes).
func (w *Workload) validateVerifyReads(hdr int) error {
	switch {
	case w.verifyInterval() < int64(hdr):
		return result.Usagef("--bs", "%d is smaller than the %d-byte header verify=%s finds in each block", w.verifyInterval(), hdr, w.Verify)
	case w.VerifyBacklog > 0:
		return result.Usagef("--verify_backlog", "workload %s: verify_backlog reads back blocks a job writes; this job only reads", w.Name)
	}
	return w.validateVerifyExtras()
}

// validateVerifyExtras holds the rules of verify_pattern and
// verify_backlog.
func (w *Workload) validateVerifyExtras() error {
	if len(w.VerifyPattern) > maxPatternBytes {
		return result.Usagef("--verify_pattern", "%d bytes; fio takes at most %d", len(w.VerifyPattern), maxPatternBytes)
	}
	for _, o := range w.VerifyPatternOffsets {
		if o < 0 || o >= len(w.VerifyPattern) {
			return result.Usagef("--verify_pattern", "an offset's place %d is outside the pattern's %d bytes", o, len(w.VerifyPattern))
		}
	}
	switch {
	case w.VerifyBacklog < 0 || w.VerifyBacklogBatch < 0:
		return result.Usagef("--verify_backlog", "workload %s: a negative backlog", w.Name)
	case w.VerifyBacklog > 0 && w.RW.Random() && !w.RandomMap:
		return result.Usagef("--verify_backlog", "workload %s: verify_backlog with norandommap: fio then checks the blocks in offset order, replacing overwritten ones; clyde runs verify_backlog with the random map, each block written once a pass", w.Name)
	}
	return nil
}

// verifyEngines are the engines that fill each write's buffer through
// worker.refill after the offset is drawn, as verify= needs.
var verifyEngines = []Engine{EnginePsync, EngineIOUring, EngineLibaio}

// checkDataOptions holds the rules of verify= and trim that need the
// target and the engine: it runs once both are known.
func (w *workload) checkDataOptions() error {
	switch {
	case w.Verify == VerifyNone:
	case !slices.Contains(verifyEngines, w.engine.name()):
		return result.Usagef("--ioengine", "verify=%s: ioengine=%s does not fill each block for its offset; give ioengine=psync, io_uring or libaio", w.Verify, w.engine.name())
	case w.Size/w.verifyInterval() > maxVerifyBlocks && w.RW.Writes():
		// Size is the resolved region here (0 was the rest of the target).
		return result.Usagef("--verify", "verify=%s keeps one seed per block; %d blocks are more than %d: give a larger bs or a smaller size", w.Verify, w.Size/w.verifyInterval(), maxVerifyBlocks)
	case w.VerifyBacklog > 0 && w.IODepth > 1 && w.engine.queues():
		// fio checks that a backlog block's write is no longer in
		// flight; clyde checks the blocks between its writes.
		return result.Usagef("--verify_backlog", "verify_backlog reads blocks back between writes; clyde runs it with one I/O in flight (iodepth=1 or a synchronous engine), and this job runs %s at iodepth %d", w.engine.name(), w.IODepth)
	}
	return w.checkTrim()
}

// verifyState is one worker's side of verify=: its region's blocks
// (verify.Blocks), the offset its pattern drew last, and the times the
// job's per-direction runtimes take.
type verifyState struct {
	blocks *verify.Blocks
	off    int64 // the offset the pattern drew last
	// writeNs and passNs are the write pass's measured time and the
	// verify pass's, for the job's per-direction runtimes.
	writeNs, passNs int64
	// backlogBuf is what verify_backlog reads a block into.
	backlogBuf []byte
	// reads says the job only reads: every read is checked
	// (checkRead), nothing is written or read back.
	reads bool
}

// startVerify readies the worker's write pass to write checkable blocks:
// the pattern records each offset, and the engines' refill hook (called
// after the draw, before the I/O's clock starts) fills the block for it.
func (w *worker) startVerify() {
	if !w.spec.RW.Writes() {
		w.verify = &verifyState{reads: true, blocks: verify.New(verify.Spec{Kind: w.spec.Verify, Interval: w.spec.verifyInterval(),
			Pattern: w.spec.VerifyPattern, PatternOffsets: w.spec.VerifyPatternOffsets})}
		return
	}
	s := verify.Spec{Kind: w.spec.Verify, Base: w.spec.Offset, Size: w.spec.Size, Interval: w.spec.verifyInterval(), MaxIO: int(w.spec.BS),
		Seeds: newRand(w.spec.Seed^0x5eed5eed, w.index+1), Thread: uint16(w.index + 1),
		Pattern: w.spec.VerifyPattern, PatternOffsets: w.spec.VerifyPatternOffsets}
	if !w.spec.NoVerifyPass {
		// One size (validateSizes): a block a write, each once a pass.
		s.Backlog, s.BacklogBatch = w.spec.VerifyBacklog, w.spec.VerifyBacklogBatch
	}
	w.verify = &verifyState{blocks: verify.New(s)} // at most maxVerifyBlocks (checkDataOptions)
	w.pattern = verifyPattern{w.pattern}
	if w.fill == nil {
		w.fill = newRand(w.spec.Seed^0xf111, w.index+1) // only to make the engines call refill
	}
}

// fill writes the blocks of one write at the offset drawn last.
func (v *verifyState) fill(buf []byte, nowNs int64) { v.blocks.Fill(buf, v.off, nowNs) }

// verifyPattern records the offset of each I/O its pattern draws, for the
// fill that follows it, after the blocks verify_backlog reads back first.
type verifyPattern struct{ ioPattern }

func (p verifyPattern) next(w *worker) (int, int64, int) {
	w.backlogDue()
	dir, off, size := p.ioPattern.next(w)
	w.verify.off = off
	if dir == dirRead {
		// A mixed job's read: fio's check_get_verify starts no batch
		// after a read (last_ddir).
		w.verify.blocks.Read()
	}
	return dir, off, size
}

// backlogDue reads back and checks the blocks verify_backlog has due
// before the next write, each as an I/O of its own, counted in the job's
// reads. A bad block fails the worker, which then stops, as fio ends the
// job at its first bad block.
func (w *worker) backlogDue() {
	for w.err == nil {
		i, ok := w.verify.blocks.NextBacklog()
		if !ok {
			return
		}
		if !w.verifyBlock(i) {
			w.remaining = 0 // the write drawn next is the last
			return
		}
	}
}

// beforeBacklogRead, when set (by a test), runs before each block the
// backlog reads back.
var beforeBacklogRead func(w *worker, off int64)

// verifyBlock reads back block i of the region during the write pass and
// checks it against its last write; false when it is bad or cannot be
// read (the worker's error says which). It leaves the block to no later
// pass.
func (w *worker) verifyBlock(i int64) bool {
	v := w.verify
	r := v.blocks.Take(i)
	if v.backlogBuf == nil {
		v.backlogBuf = osio.AlignedBuffer(r.Len)
	}
	if beforeBacklogRead != nil {
		beforeBacklogRead(w, r.Off)
	}
	tp := w.now()
	n, err := w.h.Pread(v.backlogBuf, r.Off)
	t1 := w.now()
	if err != nil {
		w.fail(fmt.Errorf("verify: read %d bytes at offset %d: %w", len(v.backlogBuf), r.Off, err))
		return false
	}
	w.complete(dirRead, n, len(v.backlogBuf), r.Off, tp, tp, t1) // not one of the write pass's I/Os: the loop counts those
	w.paused = true                                              // the engine's clock reading from before is stale
	if bad := v.blocks.CheckRun(v.backlogBuf[:n], r); bad != "" {
		w.fail(&VerifyError{File: w.spec.target.Resolved, Bad: 1, Checked: 1, Backlog: true, Lines: []string{bad}})
		return false
	}
	return true
}

// checkRead checks got, what a read of a job that only reads returned at
// off, against the blocks' own headers, as fio's verify_io_u does on a
// read-only workload; a bad block fails the worker (false), which stops,
// as fio ends the job at the read's error. The read is counted first, as
// fio accounts it before its end_io.
func (w *worker) checkRead(got []byte, off int64) bool {
	if bad := w.verify.blocks.CheckRead(got, off); bad != "" {
		w.fail(&VerifyError{File: w.spec.target.Resolved, Bad: 1, Checked: 1, Read: true, Lines: []string{bad}})
		return false
	}
	return true
}

// beforeVerifyPass, when set (by a test), runs between a worker's write
// pass and its verify pass.
var beforeVerifyPass func(w *worker)

// verifyPass is fio's do_verify after a write pass: the file synced and its
// cache dropped so the reads come from the device, then every block the
// worker wrote read back in offset order and checked. The reads are
// counted in the job's read direction, as fio counts them, and the pass's
// time is the read direction's runtime (setVerifyRuntime). Every bad block
// is counted and the worker fails at the end; with verify_fatal at the
// first. fio 3.33 ends the job at the first bad block whatever
// verify_fatal says (it only decides whether the rest of one block's
// headers are checked when verify_interval is below bs).
func (w *worker) verifyPass() {
	v := w.verify
	if v == nil || v.reads || w.spec.NoVerifyPass || !w.measuring || w.err != nil || w.ctx.Err() != nil {
		return
	}
	v.writeNs = w.endNs - w.startNs
	t0 := w.now() // fio's read runtime starts before its sync and drop
	if !w.flushBeforeVerify() {
		return
	}
	e, ok := w.readBack(v)
	if !ok {
		return
	}
	v.passNs = max(w.endNs-t0, 1)
	if e.Bad > 0 {
		w.fail(e)
	}
}

// flushBeforeVerify syncs the written blocks to the device and drops the
// file's cache, so the verify pass reads from the device; false when the
// sync failed (the worker has failed).
func (w *worker) flushBeforeVerify() bool {
	if err := w.h.Sync(); err != nil {
		w.fail(fmt.Errorf("verify: fsync before reading back: %w", err))
		return false
	}
	if !w.spec.Direct {
		// fio drops the cache here too; where it cannot (tmpfs keeps
		// its pages), the blocks are checked all the same.
		_ = osio.DropCache(w.h)
	}
	if beforeVerifyPass != nil {
		beforeVerifyPass(w)
	}
	return true
}

// readBack reads back every block the worker wrote, in offset order, one
// write (a run of blocks of one seed) a read, and counts the bad ones; it
// stops at an interruption, and at the first bad block with verify_fatal.
// false when a read failed (the worker has failed).
func (w *worker) readBack(v *verifyState) (*VerifyError, bool) {
	buf := osio.AlignedBuffer(int(w.spec.BS))
	e := &VerifyError{File: w.spec.target.Resolved, Fatal: w.spec.VerifyFatal}
	for i := 0; ; {
		r, more := v.blocks.NextRun(i)
		if !more {
			break
		}
		if e.Checked%256 == 0 && w.ctx.Err() != nil {
			w.stoppedEarly = true
			break
		}
		if !w.verifyWrite(v, e, buf, r) {
			return nil, false
		}
		if e.Bad > 0 && e.Fatal {
			break
		}
		i = r.Block + r.Blocks
	}
	return e, true
}

// verifyWrite reads back one write, run r, into buf and checks its
// blocks against their seed; the first bad block goes into e. false when
// the read failed (the worker has failed).
func (w *worker) verifyWrite(v *verifyState, e *VerifyError, buf []byte, r verify.Run) bool {
	tp := w.now()
	n, err := w.h.Pread(buf[:r.Len], r.Off)
	t1 := w.now()
	if err != nil {
		w.fail(fmt.Errorf("verify: read %d bytes at offset %d: %w", r.Len, r.Off, err))
		return false
	}
	w.complete(dirRead, n, r.Len, r.Off, tp, tp, t1)
	e.Checked++
	if bad := v.blocks.CheckRun(buf[:n], r); bad != "" {
		e.Add(bad)
	}
	return true
}

// setVerifyRuntime gives a job whose workers ran a verify pass fio's
// per-direction runtimes: the write pass's for writes, the verify pass's
// for the reads it counted (and a mixed job's reads of the write pass).
func setVerifyRuntime(job *result.BlockJob, workers []*worker) {
	var writeNs, readNs int64
	for _, w := range workers {
		if w.verify == nil {
			continue
		}
		writeNs = max(writeNs, w.verify.writeNs)
		pass := w.verify.passNs
		if pass > 0 && w.spec.RW.Mixed() {
			// fio adds the verify pass to the reads' runtime of the
			// write pass (backend.c update_runtime, cumulative).
			pass += w.verify.writeNs
		}
		readNs = max(readNs, pass)
	}
	if readNs == 0 {
		return
	}
	setDirRuntime(&job.Write, writeNs)
	setDirRuntime(&job.Read, readNs)
}

// setDirRuntime sets a direction's runtime and the rates over it.
func setDirRuntime(out *result.BlockDir, ns int64) {
	if out.TotalIOs == 0 || ns <= 0 {
		return
	}
	out.Runtime, out.RuntimeNs = ns/1e6, ns
	out.IOPS = float64(out.TotalIOs) * 1e9 / float64(ns)
	out.BWBytes = int64(float64(out.IOBytes)*1e9/float64(ns) + 0.5)
	out.BW = out.BWBytes >> 10
}
