package sysinfo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// The superblock fields that name a filesystem for good: its UUID (or, for
// NTFS, its volume serial number), as blkid reports them. A run's
// filesystem is then known again after it is mounted somewhere else.
const (
	ext4SuperOffset  = 1024
	ext4MagicOffset  = 0x38  // s_magic, 0xEF53 little-endian
	ext4UUIDOffset   = 0x68  // s_uuid
	ext4MkfsOffset   = 0x108 // s_mkfs_time, seconds since 1970, low 32 bits
	ext4MkfsHiOffset = 0x276 // s_mkfs_time_hi, the 8 bits above them
	xfsUUIDOffset    = 32    // sb_uuid, after sb_magicnum "XFSB"
	btrfsSuperOffset = 64 << 10
	btrfsFSIDOffset  = 0x20 // fsid, after the checksum
	btrfsMagicOffset = 0x40 // "_BHRfS_M"
	ntfsOEMOffset    = 3    // "NTFS    "
	ntfsSerialOffset = 0x48 // the volume serial number, 8 bytes little-endian
	// volumeIDBytes is how much of a device the readers look at.
	volumeIDBytes = btrfsSuperOffset + 4096
)

// superblockID is what a filesystem's superblock says about which
// filesystem it is: its UUID, and when it was made where it keeps that.
type superblockID struct {
	UUID    string
	Created time.Time
}

// readSuperblockID reads the UUID of the filesystem of type fstype
// (mountinfo's) from the start of its device r, and for ext2/3/4 its
// creation time (s_mkfs_time, zero when mke2fs did not set it); empty when
// the type has no reader here or the superblock is not that filesystem's. XFS, btrfs and NTFS keep no
// creation time in their superblock (btrfs's generation counts commits, so
// names no filesystem for good); their clones are told apart by device.
func readSuperblockID(fstype string, r io.ReaderAt) superblockID {
	read := func(off int64, n int) []byte {
		b := make([]byte, n)
		if _, err := r.ReadAt(b, off); err != nil {
			return nil
		}
		return b
	}
	switch fstype {
	case "ext2", "ext3", "ext4":
		sb := read(ext4SuperOffset, 1024)
		if sb == nil || binary.LittleEndian.Uint16(sb[ext4MagicOffset:]) != 0xEF53 {
			return superblockID{}
		}
		id := superblockID{UUID: formatUUID(sb[ext4UUIDOffset : ext4UUIDOffset+16])}
		if mkfs := int64(binary.LittleEndian.Uint32(sb[ext4MkfsOffset:])) | int64(sb[ext4MkfsHiOffset])<<32; mkfs != 0 {
			id.Created = time.Unix(mkfs, 0).UTC()
		}
		return id
	case "xfs":
		sb := read(0, 512)
		if sb == nil || !bytes.Equal(sb[:4], []byte("XFSB")) {
			return superblockID{}
		}
		return superblockID{UUID: formatUUID(sb[xfsUUIDOffset : xfsUUIDOffset+16])}
	case "btrfs":
		sb := read(btrfsSuperOffset, 4096)
		if sb == nil || !bytes.Equal(sb[btrfsMagicOffset:btrfsMagicOffset+8], []byte("_BHRfS_M")) {
			return superblockID{}
		}
		return superblockID{UUID: formatUUID(sb[btrfsFSIDOffset : btrfsFSIDOffset+16])}
	case "ntfs", "ntfs3", "fuseblk":
		bs := read(0, 512)
		if bs == nil || !bytes.Equal(bs[ntfsOEMOffset:ntfsOEMOffset+8], []byte("NTFS    ")) {
			return superblockID{}
		}
		// blkid's form: the 64-bit serial in hexadecimal, upper case.
		return superblockID{UUID: fmt.Sprintf("%016X", binary.LittleEndian.Uint64(bs[ntfsSerialOffset:]))}
	}
	return superblockID{}
}

// formatUUID is the 8-4-4-4-12 form; all zeros (no UUID set) is "".
func formatUUID(b []byte) string {
	if bytes.Equal(b, make([]byte, 16)) {
		return ""
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
