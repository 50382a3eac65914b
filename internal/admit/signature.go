package admit

import (
	"bytes"
	"encoding/binary"
)

// signatureSpan is how much of each end of a device is read to find what
// it holds.
const signatureSpan = 1 << 20

// findSignatures names what the first and last megabytes of a device show:
// filesystems, partition tables, RAID and LVM members, swap. head is the
// first signatureSpan bytes (or fewer), tail the last, ending at devSize.
// It looks at fixed offsets only, as blkid's probes do.
func findSignatures(head, tail []byte) []string {
	var found []string
	at := func(b []byte, off int, magic string) bool {
		return off >= 0 && off+len(magic) <= len(b) && string(b[off:off+len(magic)]) == magic
	}
	le16 := func(b []byte, off int) uint16 {
		if off+2 > len(b) {
			return 0
		}
		return binary.LittleEndian.Uint16(b[off:])
	}
	le32 := func(b []byte, off int) uint32 {
		if off+4 > len(b) {
			return 0
		}
		return binary.LittleEndian.Uint32(b[off:])
	}
	switch {
	case le16(head, 1024+56) == 0xEF53:
		found = append(found, extName(head)+" filesystem")
	case at(head, 0, "XFSB"):
		found = append(found, "xfs filesystem")
	case at(head, 0x10040, "_BHRfS_M"):
		found = append(found, "btrfs filesystem")
	case at(head, 3, "NTFS    "):
		found = append(found, "ntfs filesystem")
	case at(head, 82, "FAT32   "), at(head, 54, "FAT12   "), at(head, 54, "FAT16   "):
		found = append(found, "vfat filesystem")
	case at(head, 0, "hsqs"):
		found = append(found, "squashfs filesystem")
	case at(head, 32769, "CD001"):
		found = append(found, "iso9660 filesystem")
	case at(head, 0, "LUKS\xba\xbe"):
		found = append(found, "LUKS encrypted volume")
	case at(head, 4096-10, "SWAPSPACE2"), at(head, 4096-10, "SWAP-SPACE"):
		found = append(found, "swap area")
	}
	if at(head, 512, "EFI PART") || at(head, 4096, "EFI PART") {
		found = append(found, "GPT partition table")
	} else if le16(head, 510) == 0xAA55 && hasMBRPartition(head) {
		found = append(found, "MBR partition table")
	}
	for sector := 0; sector < 4; sector++ {
		if at(head, sector*512, "LABELONE") && at(head, sector*512+24, "LVM2 001") {
			found = append(found, "LVM2 physical volume")
			break
		}
	}
	const mdMagic = 0xa92b4efc
	if le32(head, 0) == mdMagic || le32(head, 4096) == mdMagic {
		found = append(found, "Linux RAID (md) member")
	} else {
		// md 0.90 and 1.0 keep the superblock near the end, 4 KiB aligned.
		for off := len(tail) - 4096; off >= 0 && off >= len(tail)-128<<10; off -= 4096 {
			if le32(tail, off) == mdMagic || binary.BigEndian.Uint32(tail[off:]) == mdMagic {
				found = append(found, "Linux RAID (md) member")
				break
			}
		}
	}
	if at(tail, len(tail)-512+0, "EFI PART") && len(found) == 0 {
		found = append(found, "backup GPT partition table")
	}
	return found
}

// extName tells ext2, ext3 and ext4 apart by their feature flags.
func extName(head []byte) string {
	const sb = 1024
	compat := binary.LittleEndian.Uint32(head[sb+0x5C:])
	incompat := binary.LittleEndian.Uint32(head[sb+0x60:])
	const extentsOr64bit = 0x40 | 0x80 | 0x200
	switch {
	case incompat&extentsOr64bit != 0:
		return "ext4"
	case compat&0x4 != 0: // has_journal
		return "ext3"
	}
	return "ext2"
}

// hasMBRPartition is true when an MBR lists a partition with a type, so a
// bare boot sector of a filesystem is not taken for a partition table.
func hasMBRPartition(head []byte) bool {
	for i := 0; i < 4; i++ {
		e := 446 + 16*i
		if head[e+4] != 0 && !bytes.Equal(head[e:e+16], make([]byte, 16)) {
			return true
		}
	}
	return false
}
