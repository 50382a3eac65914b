package osio

import "fmt"

// DefaultSectorAlign is the alignment uncached I/O is held to when the
// sector size cannot be read: 4096 bytes covers 512-byte, 512e and 4Kn
// devices alike.
const DefaultSectorAlign = 4096

// maxSectorAlign bounds the sector sizes taken at face value; a device that
// reports more (or a value that is not a power of two) is treated as unknown.
const maxSectorAlign = 64 << 10

// SectorInfo is what the device under a file or volume says about its
// sectors, for uncached I/O (FILE_FLAG_NO_BUFFERING on Windows). Windows
// refuses an uncached read or write whose size, offset or buffer address is
// not a multiple of the logical sector size (ERROR_INVALID_PARAMETER); the
// physical sector size is what a 512e device writes in, so I/O aligned to it
// avoids read-modify-write.
type SectorInfo struct {
	Logical, Physical uint32
	// Source says where the figures came from (FileFsSectorSizeInformation,
	// IOCTL_STORAGE_QUERY_PROPERTY, GetDiskFreeSpace); "" when unknown.
	Source string
}

// Known says whether the logical sector size was read.
func (s SectorInfo) Known() bool { return validSector(s.Logical) }

// Required is the alignment every uncached I/O size and offset must keep:
// the logical sector size, or DefaultSectorAlign when it is unknown.
func (s SectorInfo) Required() int64 {
	if !s.Known() {
		return DefaultSectorAlign
	}
	return int64(s.Logical)
}

// BufferAlign is the alignment buffers need: the larger of the two sector
// sizes and the memory page (BufferAlign, what AlignedBuffer gives).
func (s SectorInfo) BufferAlign() int {
	a := BufferAlign
	for _, v := range []uint32{s.Logical, s.Physical} {
		if validSector(v) && int(v) > a {
			a = int(v)
		}
	}
	return a
}

// String describes the sizes for results and messages.
func (s SectorInfo) String() string {
	if !s.Known() {
		return fmt.Sprintf("unknown (assumed %d bytes)", DefaultSectorAlign)
	}
	if validSector(s.Physical) && s.Physical != s.Logical {
		return fmt.Sprintf("%d bytes logical, %d physical (%s)", s.Logical, s.Physical, s.Source)
	}
	return fmt.Sprintf("%d bytes (%s)", s.Logical, s.Source)
}

func validSector(v uint32) bool { return v >= 512 && v <= maxSectorAlign && v&(v-1) == 0 }

// CheckDirectAlign says why uncached I/O of size bytes at offset off (both
// multiples of what they must be) cannot run on s, or nil when it can: the
// size and offset must be multiples of the logical sector, and buffers from
// AlignedBuffer must satisfy the sectors.
func (s SectorInfo) CheckDirectAlign(size, off int64) error {
	req := s.Required()
	switch {
	case size%req != 0:
		return fmt.Errorf("%d is not a multiple of the sector size, %s", size, s)
	case off%req != 0:
		return fmt.Errorf("offset %d is not a multiple of the sector size, %s", off, s)
	case s.BufferAlign() > BufferAlign:
		return fmt.Errorf("the sector size, %s, is larger than the %d-byte buffer alignment clyde keeps", s, BufferAlign)
	}
	return nil
}
