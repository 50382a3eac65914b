package verify

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
)

// CheckRun checks got, what a read of run r returned (r.Len bytes, or
// fewer when it was short), block by block; it says what is wrong with
// the first bad block, in fio's words, and "" when all are right (fio
// ends a read's check at its first bad block).
func (b *Blocks) CheckRun(got []byte, r Run) string {
	for at := 0; at < r.Len; at += int(b.bs) {
		if bad := b.Check(got[at:min(len(got), at+int(b.bs))], r.Off+int64(at), r.Seed); bad != "" {
			return bad
		}
	}
	return ""
}

// CheckRead says what is wrong with got, what a read of a job that only
// reads returned at off, as fio's verify_io_u checks a read-only
// workload's reads: each verify_interval of it (the whole read when it is
// shorter) against the seed in its own header (verify.c takes
// hdr->rand_seed when !td_rw), so the magic, length, offset, header crc and
// checksum (or verify=pattern's bytes) are what is checked, not which write
// was the last; "" when all are right. The first bad block is named.
func (b *Blocks) CheckRead(got []byte, off int64) string {
	inc := int(b.bs)
	if inc > len(got) {
		inc = len(got)
	}
	for at := 0; at < len(got); at += inc {
		blk := got[at:min(len(got), at+inc)]
		var seed uint64
		if len(blk) >= vhOffOffset {
			seed = binary.LittleEndian.Uint64(blk[vhOffSeed:])
		}
		if bad := b.Check(blk, off+int64(at), seed); bad != "" {
			return bad
		}
	}
	return ""
}

// Check says what is wrong with block buf read at off, whose last write
// had seed, in fio's words (verify.c verify_header and verify_io_u_*); ""
// when it is right. The offset is checked before the seed, so a block
// written at another offset is named as such (fio checks the seed first
// and calls it a bad rand_seed).
func (b *Blocks) Check(buf []byte, off int64, seed uint64) string {
	le := binary.LittleEndian
	at := func(s string, args ...any) string {
		return fmt.Sprintf(s, args...) + fmt.Sprintf(" at offset %d, length %d", off, b.bs)
	}
	hdr := b.kind.HeaderSize()
	if len(buf) < hdr {
		return at("verify: short read of %d bytes", len(buf))
	}
	if b.kind == PatternOnly {
		return b.checkPattern(buf, off)
	}
	switch {
	case le.Uint16(buf) != magic:
		return at("verify: bad magic header %x, wanted %x", le.Uint16(buf), magic)
	case int64(le.Uint32(buf[vhOffLen:])) != b.bs:
		return at("verify: bad header length %d, wanted %d", le.Uint32(buf[vhOffLen:]), b.bs)
	case int64(le.Uint64(buf[vhOffOffset:])) != off:
		return at("verify: bad header offset %d, wanted %d (a block written at another offset)", le.Uint64(buf[vhOffOffset:]), off)
	case le.Uint64(buf[vhOffSeed:]) != seed:
		return at("verify: bad header rand_seed %d, wanted %d (a stale block, not the last one written here)", le.Uint64(buf[vhOffSeed:]), seed)
	case le.Uint32(buf[vhOffCRC:]) != fioCRC32C(buf[:vhOffCRC]):
		return at("verify: bad header crc %x, calculated %x", le.Uint32(buf[vhOffCRC:]), fioCRC32C(buf[:vhOffCRC]))
	}
	if b.kind == Meta {
		if b.pattern != nil {
			// fio's VERIFY_HDR_ONLY checks what is left for the
			// pattern (verify_io_u_pattern after the header).
			return b.checkPatternFrom(buf, off, headerSize)
		}
		return ""
	}
	var got [md5.Size]byte
	n := b.kind.sumSize()
	b.kind.putSum(got[:n], buf[hdr:])
	if want := buf[headerSize:hdr]; string(want) != string(got[:n]) {
		return fmt.Sprintf("%s: verify failed at offset %d, length %d: expected %s %x, received %x",
			b.kind.name(), off, b.bs, strings.ToUpper(b.kind.name()), want, got[:n])
	}
	return ""
}

// checkPattern is fio's verify_io_u_pattern for verify=pattern: the block
// must be the pattern with its offset pasted in, repeated; the first byte
// that is not is named as fio names it.
func (b *Blocks) checkPattern(buf []byte, off int64) string {
	return b.checkPatternFrom(buf, off, 0)
}

// checkPatternFrom is checkPattern from byte from of the block on (the
// bytes after verify=meta's header).
func (b *Blocks) checkPatternFrom(buf []byte, off int64, from int) string {
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], uint64(off))
	for i := from; i < len(buf); i++ {
		k := i % len(b.pattern)
		want := b.pattern[k]
		for _, o := range b.offsets {
			if k >= o && k < o+len(le) {
				want = le[k-o]
			}
		}
		if buf[i] != want {
			return fmt.Sprintf("pattern: verify failed at offset %d, length %d: got pattern '%02x', wanted '%02x'. Bad bits %d, at block offset %d",
				off, b.bs, buf[i], want, bits.OnesCount8(buf[i]^want), i)
		}
	}
	return ""
}

// MaxLines is how many bad blocks an Error names.
const MaxLines = 5

// Error is a read back that found bad blocks: how many of the blocks it
// read back, and fio's line for the first few.
type Error struct {
	File    string
	Bad     int64
	Checked int64
	// Fatal says verify_fatal stopped the pass at the first bad block;
	// Backlog that the block was read back during the write pass
	// (verify_backlog), which ends there; Read that a read of a job that
	// only reads found it, which ends the job there.
	Fatal   bool
	Backlog bool
	Read    bool
	Lines   []string
}

// Add counts a bad block, naming it among the first MaxLines.
func (e *Error) Add(line string) {
	e.Bad++
	if len(e.Lines) < MaxLines {
		e.Lines = append(e.Lines, line)
	}
}

func (e *Error) Error() string {
	if e.Backlog {
		return fmt.Sprintf("verify %s: a block read back during the write pass (verify_backlog) is bad: %s", e.File, e.Lines[0])
	}
	if e.Read {
		return fmt.Sprintf("verify %s: a block read is bad (a job that only reads checks every block it reads): %s", e.File, e.Lines[0])
	}
	if e.Fatal {
		return fmt.Sprintf("verify %s: stopped at the first bad block (verify_fatal=1): %s", e.File, e.Lines[0])
	}
	return fmt.Sprintf("verify %s: %d of %d blocks read back are bad: %s", e.File, e.Bad, e.Checked, strings.Join(e.Lines, "; "))
}
