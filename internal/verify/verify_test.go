package verify

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

const testBS = 512

// region is 8 blocks of testBS written in order, two blocks a write, so
// each write carries two headers.
func region(t *testing.T, kind Kind) (*Blocks, []byte) {
	return written(t, Spec{Kind: kind, Size: 8 * testBS, Interval: testBS, MaxIO: 2 * testBS})
}

// written is region s written in order in writes of s.MaxIO bytes.
func written(t *testing.T, s Spec) (*Blocks, []byte) {
	t.Helper()
	s.Seeds, s.Thread = rand.NewPCG(7, 1), 1
	b := New(s)
	disk := make([]byte, s.Size)
	for off := 0; off < len(disk); off += s.MaxIO {
		b.Fill(disk[off:off+s.MaxIO], int64(off), 5)
	}
	return b, disk
}

// readBack checks the region's writes as blockbench's verify pass reads
// them: the first bad block of each.
func readBack(b *Blocks, disk []byte) (lines []string, runs int) {
	for i := 0; ; {
		r, ok := b.NextRun(i)
		if !ok {
			return lines, runs
		}
		runs++
		if bad := b.CheckRun(disk[r.Off:r.Off+int64(r.Len)], r); bad != "" {
			lines = append(lines, bad)
		}
		i = r.Block + r.Blocks
	}
}

// TestCheckCatchesDamage: each kind of damage is caught in the block it
// is in, and named with that block's offset as fio names it.
func TestCheckCatchesDamage(t *testing.T) {
	stale := func(disk []byte) {
		old := &Blocks{kind: CRC32C, bs: testBS, rng: rand.NewPCG(99, 1)}
		old.Fill(disk[4*testBS:5*testBS], 4*testBS, 0)
	}
	for _, c := range []struct {
		name   string
		kind   Kind
		damage func(disk []byte)
		want   string
	}{
		{"clean", CRC32C, func([]byte) {}, ""},
		{"clean md5", MD5, func([]byte) {}, ""},
		{"corrupt data byte", CRC32C, func(d []byte) { d[3*testBS+300] ^= 1 }, "crc32c: verify failed at offset 1536, length 512: expected CRC32C "},
		{"corrupt data byte md5", MD5, func(d []byte) { d[4*testBS-1] ^= 0x80 }, "md5: verify failed at offset 1536, length 512: expected MD5 "},
		{"corrupt header byte", CRC32CIntel, func(d []byte) { d[3*testBS+vhOffTimeNsec] ^= 1 }, "verify: bad header crc"},
		{"header of the second block of a write", CRC32C, func(d []byte) { d[3*testBS+vhOffLen] ^= 1 }, "verify: bad header length 513, wanted 512 at offset 1536"},
		{"block written at another offset", CRC32C, func(d []byte) { copy(d[2*testBS:3*testBS], d[5*testBS:]) }, "verify: bad header offset 2560, wanted 1024 (a block written at another offset) at offset 1024"},
		{"stale block", CRC32C, stale, "verify: bad header rand_seed"},
		{"zeroed block", MD5, func(d []byte) { clear(d[7*testBS:]) }, "verify: bad magic header 0, wanted acca at offset 3584"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, disk := region(t, c.kind)
			c.damage(disk)
			lines, runs := readBack(b, disk)
			if runs != 4 {
				t.Errorf("%d reads back, want 4 (one a write)", runs)
			}
			if c.want == "" && len(lines) != 0 || c.want != "" && (len(lines) != 1 || !strings.Contains(lines[0], c.want)) {
				t.Errorf("lines %q, want one with %q", lines, c.want)
			}
		})
	}
}

// TestCheckShortRead: a read back that returns less than the block is
// bad, however the bytes it has look.
func TestCheckShortRead(t *testing.T) {
	b, disk := region(t, MD5)
	r, _ := b.NextRun(0)
	if bad := b.CheckRun(disk[:testBS+20], r); !strings.Contains(bad, "verify: short read of 20 bytes at offset 512") {
		t.Errorf("got %q, want the second block's short read", bad)
	}
}

// TestPattern: verify_pattern with the offset pasted at %o, repeated over
// each block (a write of one block: blockbench runs verify_pattern with one
// size); under a checksum the header comes first, with verify=pattern
// every byte is checked.
func TestPattern(t *testing.T) {
	pattern, offsets := []byte("ab\x00\x00\x00\x00\x00\x00\x00\x00"), []int{2}
	s := Spec{Kind: PatternOnly, Size: 8 * testBS, Interval: testBS, MaxIO: testBS, Pattern: pattern, PatternOffsets: offsets}
	b, disk := written(t, s)
	if want := []byte("ab\x00\x06\x00\x00\x00\x00\x00\x00ab\x00\x06"); !bytes.HasPrefix(disk[3*testBS:], want) {
		t.Errorf("block 3 starts %x, want %x (the offset 1536 at byte 2 of every repeat)", disk[3*testBS:3*testBS+14], want)
	}
	disk[5*testBS+100] ^= 0x11
	lines, _ := readBack(b, disk)
	if len(lines) != 1 || !strings.Contains(lines[0], "pattern: verify failed at offset 2560, length 512: got pattern '70', wanted '61'. Bad bits 2, at block offset 100") {
		t.Errorf("lines %q, want the bad byte named as fio names it", lines)
	}
	s.Kind = MD5
	_, disk = written(t, s)
	want := make([]byte, testBS)
	(&Blocks{pattern: pattern, offsets: offsets}).fillPattern(want, testBS)
	if hdr := MD5.HeaderSize(); disk[testBS] != 0xca || !bytes.Equal(disk[testBS+hdr:2*testBS], want[hdr:]) {
		t.Errorf("md5 block %x: want the header, then the pattern", disk[testBS:testBS+hdr+20])
	}
}

// TestRuns: the read back goes in offset order, one write a read, at most
// MaxIO bytes, over the blocks written and not taken.
func TestRuns(t *testing.T) {
	b := New(Spec{Kind: CRC32C, Base: 1 << 20, Size: 16 * testBS, Interval: testBS, MaxIO: 4 * testBS, Seeds: rand.NewPCG(1, 2)})
	buf := make([]byte, 4*testBS)
	b.Fill(buf, 1<<20+2*testBS, 0)            // blocks 2-5
	b.Fill(buf[:2*testBS], 1<<20+8*testBS, 0) // blocks 8-9
	b.Fill(buf[:testBS], 1<<20+15*testBS, 0)  // block 15
	b.Fill(buf[:testBS], 1<<20+30*testBS, 0)  // past the region: not kept
	if taken := b.Take(3); taken.Off != 1<<20+3*testBS || taken.Len != testBS || taken.Seed == 0 {
		t.Errorf("take block 3: %+v", taken)
	}
	var got [][2]int
	for i := 0; ; {
		r, ok := b.NextRun(i)
		if !ok {
			break
		}
		got = append(got, [2]int{r.Block, r.Blocks})
		if r.Off != 1<<20+int64(r.Block)*testBS || r.Len != r.Blocks*testBS {
			t.Errorf("run %+v: offset or length not its blocks'", r)
		}
		i = r.Block + r.Blocks
	}
	if want := [][2]int{{2, 1}, {4, 2}, {8, 2}, {15, 1}}; !slices.Equal(got, want) || b.Written() != 6 {
		t.Errorf("runs %v, %d blocks written; want %v, 6", got, b.Written(), want)
	}
}

// FuzzVerifyCheck: the check reads any bytes without panicking, and passes
// a block only when its header names the offset and seed expected there.
func FuzzVerifyCheck(f *testing.F) {
	// verify=pattern's blocks are 0xab and the offset, repeated.
	pattern, offsets := []byte{0xab, 0, 0, 0, 0, 0, 0, 0, 0}, []int{1}
	for _, kind := range Kinds {
		v := &Blocks{kind: kind, bs: 512, rng: rand.NewPCG(1, 1), pattern: pattern, offsets: offsets}
		b := make([]byte, 512)
		v.Fill(b, 1024, 5)
		f.Add(string(kind), b)
	}
	f.Add("crc32c", []byte{0xca, 0xac})
	f.Fuzz(func(t *testing.T, kind string, b []byte) {
		if !slices.Contains(Kinds, Kind(kind)) {
			return
		}
		v := &Blocks{kind: Kind(kind), bs: int64(len(b)), pattern: pattern, offsets: offsets}
		if v.kind == PatternOnly {
			want := make([]byte, len(b))
			v.fillPattern(want, 1024)
			if v.Check(b, 1024, 0) == "" && !bytes.Equal(b, want) {
				t.Errorf("a block that is not the pattern for offset 1024 passed: %x", b)
			}
			return
		}
		seed := uint64(0)
		if len(b) >= headerSize {
			seed = binary.LittleEndian.Uint64(b[vhOffSeed:])
		}
		if v.Check(b, 1024, seed) == "" && (len(b) < v.kind.HeaderSize() || binary.LittleEndian.Uint64(b[vhOffOffset:]) != 1024) {
			t.Errorf("a block without the header for offset 1024 passed: %x", b)
		}
	})
}

// TestMeta: verify=meta writes fio's header alone (type 1, no checksum
// after it): a data byte is not checked without a pattern, the header is;
// with verify_pattern the bytes after the header are checked against it.
// CheckRead, as a job that only reads checks, finds the same.
func TestMeta(t *testing.T) {
	b, disk := region(t, Meta)
	if typ := binary.LittleEndian.Uint16(disk[testBS+2:]); typ != 1 {
		t.Errorf("verify_type %d, want fio's VERIFY_HDR_ONLY, 1", typ)
	}
	disk[3*testBS+100] ^= 1
	if lines, _ := readBack(b, disk); len(lines) != 0 {
		t.Errorf("a data byte without a pattern: %q, want nothing to check", lines)
	}
	disk[3*testBS+20] ^= 1 // the header's offset
	if lines, _ := readBack(b, disk); len(lines) != 1 || !strings.Contains(lines[0], "bad header offset") {
		t.Errorf("a header byte: %q, want the offset named", lines)
	}
	b, disk = written(t, Spec{Kind: Meta, Size: 8 * testBS, Interval: testBS, MaxIO: 2 * testBS, Pattern: []byte{0xaa, 0x55, 0x5a, 0xa5}})
	disk[5*testBS+headerSize+7] ^= 2
	lines, _ := readBack(b, disk)
	if len(lines) != 1 || !strings.Contains(lines[0], "pattern: verify failed at offset 2560") {
		t.Errorf("a data byte with a pattern: %q, want the block at 2560 named", lines)
	}
	if bad := b.CheckRead(disk[4*testBS:6*testBS], 4*testBS); !strings.Contains(bad, "at offset 2560") {
		t.Errorf("CheckRead: %q, want the block at 2560 named", bad)
	}
	if bad := b.CheckRead(disk[:2*testBS], 0); bad != "" {
		t.Errorf("CheckRead of good blocks: %q", bad)
	}
}
