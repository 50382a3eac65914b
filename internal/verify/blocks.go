package verify

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/clydebench/clyde/internal/datagen"
)

// dataStream is the PCG stream a block's contents come from.
const dataStream = 0x7e51f1ed

// Spec is what one writer's region is written with.
type Spec struct {
	Kind Kind
	// Base and Size are the region; Interval is fio's verify_interval,
	// the block that carries a header of its own: the write size, or with
	// write sizes that vary a part of each write. Size/Interval blocks
	// are kept, at most MaxBlocks (the caller refuses more).
	Base, Size, Interval int64
	// MaxIO is the largest write: what a read back covers at most.
	MaxIO int
	// Seeds draws each write's seed; Thread is fio's thread number in the
	// header.
	Seeds  *rand.PCG
	Thread uint16
	// Pattern and PatternOffsets are verify_pattern and its %o places;
	// nil fills blocks with random data from their seed.
	Pattern        []byte
	PatternOffsets []int
	// Backlog and BacklogBatch are verify_backlog and
	// verify_backlog_batch; 0 reads nothing back between writes. With a
	// backlog each block is written once a pass (the random map).
	Backlog      int64
	BacklogBatch int
}

// Blocks is one writer's side of verify=: the seed of every block it
// wrote last (what fio's io_piece log keeps), from which a read back
// knows what each block must hold. A write's blocks share its seed, so a
// run of one seed is one write to read back.
type Blocks struct {
	kind    Kind
	seeds   []uint64 // per block of the region; 0: not written
	base    int64
	bs      int64
	maxIO   int
	rng     *rand.PCG // the blocks' seeds
	data    rand.PCG  // a block's contents, reseeded per write
	thread  uint16
	issued  uint16 // fio's numberio: writes before this one
	pattern []byte
	offsets []int
	backlog *backlog // nil without verify_backlog
}

// New readies a region to be written with checkable blocks.
func New(s Spec) *Blocks {
	b := &Blocks{kind: s.Kind, base: s.Base, bs: s.Interval, maxIO: s.MaxIO, rng: s.Seeds, thread: s.Thread,
		pattern: s.Pattern, offsets: s.PatternOffsets}
	b.seeds = make([]uint64, s.Size/s.Interval)
	if s.Backlog > 0 {
		b.backlog = newBacklog(s.Backlog, s.BacklogBatch, len(b.seeds))
	}
	return b
}

// Fill writes the blocks of one write at off into buf: random data from
// a new seed (or the verify pattern), and in each block fio's header over
// it and the checksum of what follows the header, as fio's
// populate_verify_io_u (fill_pattern_headers: one seed a write, a header
// every verify_interval); nowNs is the header's time. It records the
// write's seed for its blocks and does not allocate.
func (b *Blocks) Fill(buf []byte, off, nowNs int64) {
	seed := b.rng.Uint64() | 1 // never 0, which marks a block not written
	if i := (off - b.base) / b.bs; b.backlog != nil && i >= 0 && i < int64(len(b.seeds)) {
		b.backlog.written(i)
	}
	if b.pattern != nil {
		b.fillPattern(buf, off)
	} else {
		b.data.Seed(seed, dataStream)
		datagen.Fill(buf, &b.data)
	}
	if b.kind == PatternOnly {
		b.keep(seed, off, len(buf))
		return
	}
	for at := 0; at+int(b.bs) <= len(buf); at += int(b.bs) {
		b.putHeader(buf[at:at+int(b.bs)], off+int64(at), seed, nowNs)
	}
	b.keep(seed, off, len(buf))
}

// putHeader writes fio's header and checksum into blk, the block at off.
func (b *Blocks) putHeader(blk []byte, off int64, seed uint64, nowNs int64) {
	le := binary.LittleEndian
	hdr := b.kind.HeaderSize()
	le.PutUint16(blk, magic)
	le.PutUint16(blk[vhOffType:], b.kind.fioType())
	le.PutUint32(blk[vhOffLen:], uint32(len(blk)))
	le.PutUint64(blk[vhOffSeed:], seed)
	le.PutUint64(blk[vhOffOffset:], uint64(off))
	le.PutUint32(blk[vhOffTimeSec:], uint32(nowNs/1e9))
	le.PutUint32(blk[vhOffTimeNsec:], uint32(nowNs%1e9))
	le.PutUint16(blk[vhOffThread:], b.thread)
	le.PutUint16(blk[vhOffNumberio:], b.issued)
	le.PutUint32(blk[vhOffCRC:], fioCRC32C(blk[:vhOffCRC]))
	b.kind.putSum(blk[headerSize:hdr], blk[hdr:])
}

// keep records the seed of the blocks of the write of n bytes at off
// (one, or with write sizes that vary each verify_interval of it).
func (b *Blocks) keep(seed uint64, off int64, n int) {
	b.issued++
	for at := int64(0); at < int64(n); at += b.bs {
		if i := (off + at - b.base) / b.bs; i >= 0 && i < int64(len(b.seeds)) {
			b.seeds[i] = seed
		}
	}
}

// fillPattern fills buf, the block at off, with verify_pattern as fio's
// paste_format does: the pattern, the offset pasted at its %o places (8
// bytes little endian, cut at the pattern's end), and that first copy
// repeated over the block. It does not allocate.
func (b *Blocks) fillPattern(buf []byte, off int64) {
	n := copy(buf, b.pattern)
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], uint64(off))
	for _, o := range b.offsets {
		if o < n {
			copy(buf[o:n], le[:])
		}
	}
	for n > 0 && n < len(buf) {
		n += copy(buf[n:], buf[:n])
	}
}

// Run is one write to read back: Blocks blocks from block Block of the
// region, Len bytes at Off, all written last with Seed.
type Run struct {
	Block, Blocks int
	Off           int64
	Len           int
	Seed          uint64
}

// NextRun is the first write at or after block i that is still to be
// read back, in offset order, at most MaxIO bytes of it; false when none
// is left.
func (b *Blocks) NextRun(i int) (Run, bool) {
	for i < len(b.seeds) && b.seeds[i] == 0 {
		i++
	}
	if i >= len(b.seeds) {
		return Run{}, false
	}
	seed := b.seeds[i]
	n, most := 1, b.maxIO/int(b.bs)
	for n < most && i+n < len(b.seeds) && b.seeds[i+n] == seed {
		n++
	}
	return Run{Block: i, Blocks: n, Off: b.base + int64(i)*b.bs, Len: n * int(b.bs), Seed: seed}, true
}

// Take is block i alone, to read back now (verify_backlog): no later
// read back covers it.
func (b *Blocks) Take(i int64) Run {
	r := Run{Block: int(i), Blocks: 1, Off: b.base + i*b.bs, Len: int(b.bs), Seed: b.seeds[i]}
	b.seeds[i] = 0
	return r
}

// Written is how many blocks were written and are still to be read back.
func (b *Blocks) Written() int {
	n := 0
	for _, s := range b.seeds {
		if s != 0 {
			n++
		}
	}
	return n
}
