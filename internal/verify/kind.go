// Package verify is fio's verify= as a pure mechanism: the header and
// checksum written into each block (crc32c, md5) or verify=pattern's
// pattern with its offsets pasted in, the seed of every block written
// last, the check of a block read back, and verify_backlog's queue of
// blocks to read back between writes. It does no I/O and knows nothing
// of statistics, depth, deadlines or a workload: blockbench's worker
// draws the offsets, reads the blocks back, counts them and says when.
package verify

import (
	"crypto/md5"
	"encoding/binary"
	"hash/crc32"
)

// Kind is fio's verify=: the checksum every written block carries.
type Kind string

// The checksums clyde writes and checks. crc32c-intel is fio's name for the
// same CRC computed with SSE4.2; hash/crc32 uses the instruction where the
// CPU has it either way.
const (
	None        Kind = ""
	CRC32C      Kind = "crc32c"
	CRC32CIntel Kind = "crc32c-intel"
	MD5         Kind = "md5"
	// PatternOnly is fio's verify=pattern (VERIFY_PATTERN_NO_HDR): no
	// header, every block is the verify pattern, checked byte for byte.
	PatternOnly Kind = "pattern"
	// Meta is fio's verify=meta (VERIFY_HDR_ONLY): the header alone,
	// checked on read (offset, length, seed, numberio's write, its crc),
	// and verify_pattern after it when one is given.
	Meta Kind = "meta"
)

// Kinds are the verify= values clyde builds.
var Kinds = []Kind{CRC32C, CRC32CIntel, MD5, Meta, PatternOnly}

// The block header, laid out as fio 3.33's struct verify_header (verify.h)
// on a little-endian machine: magic, verify_type, len, rand_seed, offset,
// time_sec, time_nsec, thread, numberio, then crc32c of those 36 bytes; the
// checksum of the rest of the block follows it (fio's vhdr_crc32 or
// vhdr_md5; nothing for meta). fio 3.33 writes the same bytes, so either
// tool's blocks pass the other's verify (fiojob's TestVerifyAcrossTools).
const (
	magic         = 0xacca
	headerSize    = 40 // sizeof(struct verify_header)
	vhOffType     = 2
	vhOffLen      = 4
	vhOffSeed     = 8
	vhOffOffset   = 16
	vhOffTimeSec  = 24
	vhOffTimeNsec = 28
	vhOffThread   = 32
	vhOffNumberio = 34
	vhOffCRC      = 36
)

// MaxBlocks bounds the seeds a region keeps, one 8-byte word per block
// (fio keeps an io_piece of about 100 bytes per written block): 1 GiB of
// them, a 512 GiB region at bs=4k.
const MaxBlocks = 1 << 27

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fioCRC32C is fio's fio_crc32c (crc/crc32c.c): CRC-32C started at ~0 and
// returned without the final inversion, the complement of the standard
// checksum (hash/crc32's). fio's header crc and verify=crc32c's checksum
// are both this; with the standard one neither tool reads the other's
// blocks.
func fioCRC32C(data []byte) uint32 { return ^crc32.Checksum(data, castagnoli) }

// fioType is fio's enum value for the kind (VERIFY_HDR_ONLY = 1,
// VERIFY_MD5 = 2, VERIFY_CRC32C = 5, VERIFY_CRC32C_INTEL = 6).
func (k Kind) fioType() uint16 {
	switch k {
	case Meta:
		return 1
	case MD5:
		return 2
	case CRC32CIntel:
		return 6
	}
	return 5
}

// sumSize is the checksum's bytes after the header.
func (k Kind) sumSize() int {
	switch k {
	case MD5:
		return md5.Size
	case Meta:
		return 0
	}
	return 4
}

// HeaderSize is fio's hdr_size: the header and the checksum, which the
// checksum does not cover; none for verify=pattern. A block must hold it.
func (k Kind) HeaderSize() int {
	if k == PatternOnly {
		return 0
	}
	return headerSize + k.sumSize()
}

// name is how fio's messages name the checksum.
func (k Kind) name() string {
	if k == MD5 || k == Meta {
		return string(k)
	}
	return "crc32c"
}

// putSum writes the checksum of data into dst.
func (k Kind) putSum(dst, data []byte) {
	switch k {
	case Meta:
		return
	case MD5:
		sum := md5.Sum(data)
		copy(dst, sum[:])
		return
	}
	binary.LittleEndian.PutUint32(dst, fioCRC32C(data))
}
