package blockbench

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/clydebench/clyde/internal/datagen"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// VerifyKind is fio's verify=: the checksum every written block carries.
type VerifyKind string

// The checksums clyde writes and checks. crc32c-intel is fio's name for the
// same CRC computed with SSE4.2; hash/crc32 uses the instruction where the
// CPU has it either way.
const (
	VerifyNone        VerifyKind = ""
	VerifyCRC32C      VerifyKind = "crc32c"
	VerifyCRC32CIntel VerifyKind = "crc32c-intel"
	VerifyMD5         VerifyKind = "md5"
	// VerifyPatternOnly is fio's verify=pattern (VERIFY_PATTERN_NO_HDR):
	// no header, every block is Workload.VerifyPattern, checked byte for
	// byte.
	VerifyPatternOnly VerifyKind = "pattern"
)

// VerifyKinds are the verify= values clyde builds.
var VerifyKinds = []VerifyKind{VerifyCRC32C, VerifyCRC32CIntel, VerifyMD5, VerifyPatternOnly}

// The block header, laid out as fio 3.33's struct verify_header (verify.h)
// on a little-endian machine: magic, verify_type, len, rand_seed, offset,
// time_sec, time_nsec, thread, numberio, then crc32c of those 36 bytes; the
// checksum of the rest of the block follows it (fio's vhdr_crc32 or
// vhdr_md5). fio 3.33 writes the same bytes, so either tool's blocks have
// the same shape; clyde checks only its own.
const (
	verifyMagic      = 0xacca
	verifyHeaderSize = 40 // sizeof(struct verify_header)
	vhOffType        = 2
	vhOffLen         = 4
	vhOffSeed        = 8
	vhOffOffset      = 16
	vhOffTimeSec     = 24
	vhOffTimeNsec    = 28
	vhOffThread      = 32
	vhOffNumberio    = 34
	vhOffCRC         = 36
	// maxVerifyBlocks bounds the seeds a worker keeps, one 8-byte word per
	// block of its region (fio keeps an io_piece of about 100 bytes per
	// written block): 1 GiB of them, a 512 GiB region at bs=4k.
	maxVerifyBlocks = 1 << 27
	// verifyDataStream is the PCG stream a block's contents come from.
	verifyDataStream = 0x7e51f1ed
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fioType is fio's enum value for the kind (VERIFY_MD5 = 2, VERIFY_CRC32C =
// 5, VERIFY_CRC32C_INTEL = 6).
func (k VerifyKind) fioType() uint16 {
	switch k {
	case VerifyMD5:
		return 2
	case VerifyCRC32CIntel:
		return 6
	}
	return 5
}

// sumSize is the checksum's bytes after the header.
func (k VerifyKind) sumSize() int {
	if k == VerifyMD5 {
		return md5.Size
	}
	return 4
}

// headerSize is fio's hdr_size: the header and the checksum, which the
// checksum does not cover; none for verify=pattern.
func (k VerifyKind) headerSize() int {
	if k == VerifyPatternOnly {
		return 0
	}
	return verifyHeaderSize + k.sumSize()
}

// name is how fio's messages name the checksum.
func (k VerifyKind) name() string {
	if k == VerifyMD5 {
		return "md5"
	}
	return "crc32c"
}

// putSum writes the checksum of data into dst.
func (k VerifyKind) putSum(dst, data []byte) {
	if k == VerifyMD5 {
		sum := md5.Sum(data)
		copy(dst, sum[:])
		return
	}
	binary.LittleEndian.PutUint32(dst, crc32.Checksum(data, castagnoli))
}

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
	hdr := w.Verify.headerSize()
	switch {
	case !slices.Contains(VerifyKinds, w.Verify):
		return result.Usagef("--verify", "%q is not a checksum clyde writes; accepted: crc32c, crc32c-intel, md5, pattern", w.Verify)
	case w.Verify == VerifyPatternOnly && len(w.VerifyPattern) == 0:
		return result.Usagef("--verify", "verify=pattern checks the blocks against verify_pattern; give one")
	case w.RW != Write && w.RW != RandWrite && !(w.RW.Mixed() && w.NoVerifyPass):
		// A mixed mode with do_verify=0 writes its blocks with headers
		// and reads without checking them, as fio's.
		return result.Usagef("--verify", "verify=%s checks the blocks a write job wrote; give rw=write or randwrite", w.Verify)
	case w.Volume != nil || w.Access != nil:
		return result.Usagef("--verify", "verify=%s runs on one target with fio's rw modes", w.Verify)
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
	case w.Size/w.verifyInterval() > maxVerifyBlocks:
		// Size is the resolved region here (0 was the rest of the target).
		return result.Usagef("--verify", "verify=%s keeps one seed per block; %d blocks are more than %d: give a larger bs or a smaller size", w.Verify, w.Size/w.verifyInterval(), maxVerifyBlocks)
	case w.VerifyBacklog > 0 && w.IODepth > 1 && w.engine.queues():
		// fio checks that a backlog block's write is no longer in
		// flight; clyde checks the blocks between its writes.
		return result.Usagef("--verify_backlog", "verify_backlog reads blocks back between writes; clyde runs it with one I/O in flight (iodepth=1 or a synchronous engine), and this job runs %s at iodepth %d", w.engine.name(), w.IODepth)
	}
	return w.checkTrim()
}

// verifyState is one worker's side of verify=: the seed of every block it
// wrote last (what fio's io_piece log keeps), from which the verify pass
// knows what each block must hold. A block is fio's verify_interval: the
// write size, or with write sizes that vary a part of each write with a
// header of its own (Workload.verifyInterval); a write's blocks share its
// seed, so a run of one seed is one write to read back.
type verifyState struct {
	kind   VerifyKind
	seeds  []uint64 // per block of the region; 0: not written
	base   int64
	bs     int64
	maxIO  int       // the largest write: what the verify pass reads at most
	rng    *rand.PCG // the blocks' seeds
	data   rand.PCG  // a block's contents, reseeded per write
	off    int64     // the offset the pattern drew last
	thread uint16
	issued uint16 // fio's numberio: writes before this one
	// writeNs and passNs are the write pass's measured time and the
	// verify pass's, for the job's per-direction runtimes.
	writeNs, passNs int64
	// pattern and offsets are verify_pattern and its %o places; nil
	// fills blocks with random data.
	pattern []byte
	offsets []int
	// backlog is verify_backlog's state (backlog.go); nil without it.
	backlog *backlog
}

// startVerify readies the worker's write pass to write checkable blocks:
// the pattern records each offset, and the engines' refill hook (called
// after the draw, before the I/O's clock starts) fills the block for it.
func (w *worker) startVerify() {
	v := &verifyState{kind: w.spec.Verify, base: w.spec.Offset, bs: w.spec.verifyInterval(), maxIO: int(w.spec.BS),
		rng: newRand(w.spec.Seed^0x5eed5eed, w.index+1), thread: uint16(w.index + 1),
		pattern: w.spec.VerifyPattern, offsets: w.spec.VerifyPatternOffsets}
	v.seeds = make([]uint64, w.spec.Size/v.bs) // at most maxVerifyBlocks (checkDataOptions)
	if w.spec.VerifyBacklog > 0 && !w.spec.NoVerifyPass {
		v.backlog = newBacklog(w.spec, w.nBlocks) // one size (validateSizes)
	}
	w.verify = v
	w.pattern = verifyPattern{w.pattern}
	if w.fill == nil {
		w.fill = newRand(w.spec.Seed^0xf111, w.index+1) // only to make the engines call refill
	}
}

// verifyPattern records the offset of each I/O its pattern draws, for the
// fill that follows it.
type verifyPattern struct{ ioPattern }

func (p verifyPattern) next(w *worker) (int, int64, int) {
	if b := w.verify.backlog; b != nil {
		b.due(w) // backlog.go: the blocks due to be read back first
	}
	dir, off, size := p.ioPattern.next(w)
	w.verify.off = off
	return dir, off, size
}

// fill writes the blocks of one write at the offset drawn last: random
// data from a new seed, and in each block fio's header over it and the
// checksum of what follows the header, as fio's populate_verify_io_u
// (fill_pattern_headers: one seed a write, a header every
// verify_interval). It does not allocate.
func (v *verifyState) fill(buf []byte, nowNs int64) {
	seed := v.rng.Uint64() | 1 // never 0, which marks a block not written
	if i := (v.off - v.base) / v.bs; v.backlog != nil && i >= 0 && i < int64(len(v.seeds)) {
		v.backlog.written(i)
	}
	if v.pattern != nil {
		v.fillPattern(buf, v.off)
	} else {
		v.data.Seed(seed, verifyDataStream)
		datagen.Fill(buf, &v.data)
	}
	if v.kind == VerifyPatternOnly {
		v.keep(seed, len(buf))
		return
	}
	le := binary.LittleEndian
	hdr := v.kind.headerSize()
	for at := 0; at+int(v.bs) <= len(buf); at += int(v.bs) {
		b := buf[at : at+int(v.bs)]
		off := v.off + int64(at)
		le.PutUint16(b, verifyMagic)
		le.PutUint16(b[vhOffType:], v.kind.fioType())
		le.PutUint32(b[vhOffLen:], uint32(len(b)))
		le.PutUint64(b[vhOffSeed:], seed)
		le.PutUint64(b[vhOffOffset:], uint64(off))
		le.PutUint32(b[vhOffTimeSec:], uint32(nowNs/1e9))
		le.PutUint32(b[vhOffTimeNsec:], uint32(nowNs%1e9))
		le.PutUint16(b[vhOffThread:], v.thread)
		le.PutUint16(b[vhOffNumberio:], v.issued)
		le.PutUint32(b[vhOffCRC:], crc32.Checksum(b[:vhOffCRC], castagnoli))
		v.kind.putSum(b[verifyHeaderSize:hdr], b[hdr:])
	}
	v.keep(seed, len(buf))
}

// keep records the seed of the blocks of the write at the offset drawn
// last (one, or with write sizes that vary each verify_interval of it).
func (v *verifyState) keep(seed uint64, n int) {
	v.issued++
	for at := int64(0); at < int64(n); at += v.bs {
		if i := (v.off + at - v.base) / v.bs; i >= 0 && i < int64(len(v.seeds)) {
			v.seeds[i] = seed
		}
	}
}

// fillPattern fills buf, the block at off, with verify_pattern as fio's
// paste_format does: the pattern, the offset pasted at its %o places (8
// bytes little endian, cut at the pattern's end), and that first copy
// repeated over the block. It does not allocate.
func (v *verifyState) fillPattern(buf []byte, off int64) {
	n := copy(buf, v.pattern)
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], uint64(off))
	for _, o := range v.offsets {
		if o < n {
			copy(buf[o:n], le[:])
		}
	}
	for n > 0 && n < len(buf) {
		n += copy(buf[n:], buf[:n])
	}
}

// check says what is wrong with block buf read at off, whose last write
// had seed, in fio's words (verify.c verify_header and verify_io_u_*); ""
// when it is right. The offset is checked before the seed, so a block
// written at another offset is named as such (fio checks the seed first
// and calls it a bad rand_seed).
func (v *verifyState) check(buf []byte, off int64, seed uint64) string {
	le := binary.LittleEndian
	at := func(s string, args ...any) string {
		return fmt.Sprintf(s, args...) + fmt.Sprintf(" at offset %d, length %d", off, v.bs)
	}
	hdr := v.kind.headerSize()
	if len(buf) < hdr {
		return at("verify: short read of %d bytes", len(buf))
	}
	if v.kind == VerifyPatternOnly {
		return v.checkPattern(buf, off)
	}
	switch {
	case le.Uint16(buf) != verifyMagic:
		return at("verify: bad magic header %x, wanted %x", le.Uint16(buf), verifyMagic)
	case int64(le.Uint32(buf[vhOffLen:])) != v.bs:
		return at("verify: bad header length %d, wanted %d", le.Uint32(buf[vhOffLen:]), v.bs)
	case int64(le.Uint64(buf[vhOffOffset:])) != off:
		return at("verify: bad header offset %d, wanted %d (a block written at another offset)", le.Uint64(buf[vhOffOffset:]), off)
	case le.Uint64(buf[vhOffSeed:]) != seed:
		return at("verify: bad header rand_seed %d, wanted %d (a stale block, not the last one written here)", le.Uint64(buf[vhOffSeed:]), seed)
	case le.Uint32(buf[vhOffCRC:]) != crc32.Checksum(buf[:vhOffCRC], castagnoli):
		return at("verify: bad header crc %x, calculated %x", le.Uint32(buf[vhOffCRC:]), crc32.Checksum(buf[:vhOffCRC], castagnoli))
	}
	var got [md5.Size]byte
	n := v.kind.sumSize()
	v.kind.putSum(got[:n], buf[hdr:])
	if want := buf[verifyHeaderSize:hdr]; string(want) != string(got[:n]) {
		return fmt.Sprintf("%s: verify failed at offset %d, length %d: expected %s %x, received %x",
			v.kind.name(), off, v.bs, strings.ToUpper(v.kind.name()), want, got[:n])
	}
	return ""
}

// checkPattern is fio's verify_io_u_pattern for verify=pattern: the block
// must be the pattern with its offset pasted in, repeated; the first byte
// that is not is named as fio names it.
func (v *verifyState) checkPattern(buf []byte, off int64) string {
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], uint64(off))
	for i := range buf {
		k := i % len(v.pattern)
		want := v.pattern[k]
		for _, o := range v.offsets {
			if k >= o && k < o+len(le) {
				want = le[k-o]
			}
		}
		if buf[i] != want {
			return fmt.Sprintf("pattern: verify failed at offset %d, length %d: got pattern '%02x', wanted '%02x'. Bad bits %d, at block offset %d",
				off, v.bs, buf[i], want, bits.OnesCount8(buf[i]^want), i)
		}
	}
	return ""
}

// beforeVerifyPass, when set (by a test), runs between a worker's write
// pass and its verify pass.
var beforeVerifyPass func(w *worker)

// maxVerifyLines is how many bad blocks a VerifyError names.
const maxVerifyLines = 5

// VerifyError is a verify pass that found bad blocks: how many of the
// blocks it read back, and fio's line for the first few.
type VerifyError struct {
	File    string
	Bad     int64
	Checked int64
	// Fatal says verify_fatal stopped the pass at the first bad block;
	// Backlog that the block was read back during the write pass
	// (verify_backlog), which ends there.
	Fatal   bool
	Backlog bool
	Lines   []string
}

func (e *VerifyError) Error() string {
	if e.Backlog {
		return fmt.Sprintf("verify %s: a block read back during the write pass (verify_backlog) is bad: %s", e.File, e.Lines[0])
	}
	if e.Fatal {
		return fmt.Sprintf("verify %s: stopped at the first bad block (verify_fatal=1): %s", e.File, e.Lines[0])
	}
	return fmt.Sprintf("verify %s: %d of %d blocks read back are bad: %s", e.File, e.Bad, e.Checked, strings.Join(e.Lines, "; "))
}

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
	if v == nil || w.spec.NoVerifyPass || !w.measuring || w.err != nil || w.ctx.Err() != nil {
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
	buf := osio.AlignedBuffer(v.maxIO)
	e := &VerifyError{File: w.spec.target.Resolved, Fatal: w.spec.VerifyFatal}
	blocks := v.maxIO / int(v.bs)
	for i := 0; i < len(v.seeds); {
		seed := v.seeds[i]
		if seed == 0 {
			i++
			continue
		}
		if e.Checked%256 == 0 && w.ctx.Err() != nil {
			w.stoppedEarly = true
			break
		}
		// One write: the blocks of its seed that follow.
		run := 1
		for run < blocks && i+run < len(v.seeds) && v.seeds[i+run] == seed {
			run++
		}
		if !w.verifyWrite(v, e, buf, i, run) {
			return nil, false
		}
		if e.Bad > 0 && e.Fatal {
			break
		}
		i += run
	}
	return e, true
}

// verifyWrite reads back one write, the run blocks from block i, into buf
// and checks them against their seed; the first bad block goes into e.
// false when the read failed (the worker has failed).
func (w *worker) verifyWrite(v *verifyState, e *VerifyError, buf []byte, i, run int) bool {
	seed := v.seeds[i]
	off := v.base + int64(i)*v.bs
	want := run * int(v.bs)
	tp := w.now()
	n, err := w.h.Pread(buf[:want], off)
	t1 := w.now()
	if err != nil {
		w.fail(fmt.Errorf("verify: read %d bytes at offset %d: %w", want, off, err))
		return false
	}
	w.complete(dirRead, n, want, off, tp, tp, t1)
	e.Checked++
	for at := 0; at < want; at += int(v.bs) {
		bad := v.check(buf[at:min(n, at+int(v.bs))], off+int64(at), seed)
		if bad == "" {
			continue
		}
		e.Bad++
		if len(e.Lines) < maxVerifyLines {
			e.Lines = append(e.Lines, bad)
		}
		break // fio ends the read's check at its first bad block
	}
	return true
}

// setVerifyRuntime gives a job whose workers ran a verify pass fio's
// per-direction runtimes: the write pass's for writes, the verify pass's
// for the reads it counted.
func setVerifyRuntime(job *result.BlockJob, workers []*worker) {
	var writeNs, readNs int64
	for _, w := range workers {
		if w.verify != nil {
			writeNs, readNs = max(writeNs, w.verify.writeNs), max(readNs, w.verify.passNs)
		}
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
