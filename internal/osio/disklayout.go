package osio

import (
	"encoding/binary"
	"fmt"
)

// DiskLayout is a Windows disk's partition table as
// IOCTL_DISK_GET_DRIVE_LAYOUT_EX reports it.
type DiskLayout struct {
	// Style is "mbr", "gpt" or "raw" (no partition table).
	Style      string
	Partitions []DiskPartition
}

// DiskPartition is one entry of the table. An MBR table always has entries
// in fours; unused ones have Type 0.
type DiskPartition struct {
	Number         uint32
	Offset, Length int64
	// Type is the MBR partition type byte (as "0x07") or the GPT type GUID;
	// "" for an unused MBR entry or a zero GPT GUID.
	Type string
}

// InUse says whether the entry describes a partition.
func (p DiskPartition) InUse() bool { return p.Type != "" && p.Length > 0 }

// The layout of DRIVE_LAYOUT_INFORMATION_EX on 64-bit Windows (winioctl.h):
// PartitionStyle, PartitionCount, a 40-byte union (the GPT header is the
// larger), then PARTITION_INFORMATION_EX entries of 144 bytes: style (and
// padding), StartingOffset, PartitionLength, PartitionNumber,
// RewritePartition and IsServicePartition (and padding), then the MBR or
// GPT part at 32 (MBR: the type byte first; GPT: the type GUID).
const (
	layoutHeaderBytes  = 48
	layoutEntryBytes   = 144
	partitionStyleMBR  = 0
	partitionStyleGPT  = 1
	partitionStyleRAW  = 2
	layoutEntryTypeOff = 32
)

// ParseDriveLayout decodes IOCTL_DISK_GET_DRIVE_LAYOUT_EX's output (n bytes
// of it).
func ParseDriveLayout(b []byte) (DiskLayout, error) {
	if len(b) < layoutHeaderBytes {
		return DiskLayout{}, fmt.Errorf("drive layout of %d bytes is shorter than its %d-byte header", len(b), layoutHeaderBytes)
	}
	le := binary.LittleEndian
	style, count := le.Uint32(b[0:]), le.Uint32(b[4:])
	var l DiskLayout
	switch style {
	case partitionStyleMBR:
		l.Style = "mbr"
	case partitionStyleGPT:
		l.Style = "gpt"
	case partitionStyleRAW:
		l.Style = "raw"
	default:
		return DiskLayout{}, fmt.Errorf("unknown partition style %d", style)
	}
	if uint64(count) > uint64(len(b)-layoutHeaderBytes)/layoutEntryBytes {
		return DiskLayout{}, fmt.Errorf("drive layout says %d partitions but holds %d bytes", count, len(b))
	}
	for i := range int(count) {
		e := b[layoutHeaderBytes+i*layoutEntryBytes:][:layoutEntryBytes]
		p := DiskPartition{Offset: int64(le.Uint64(e[8:])), Length: int64(le.Uint64(e[16:])), Number: le.Uint32(e[24:])}
		t := e[layoutEntryTypeOff:]
		switch le.Uint32(e[0:]) {
		case partitionStyleMBR:
			if t[0] != 0 {
				p.Type = fmt.Sprintf("0x%02x", t[0])
			}
		case partitionStyleGPT:
			if g := guidString(t[:16]); g != "00000000-0000-0000-0000-000000000000" {
				p.Type = g
			}
		}
		l.Partitions = append(l.Partitions, p)
	}
	return l, nil
}

// guidString spells a GUID as Windows does (its first three fields are
// little-endian).
func guidString(g []byte) string {
	le := binary.LittleEndian
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x", le.Uint32(g[0:]), le.Uint16(g[4:]), le.Uint16(g[6:]), g[8:10], g[10:16])
}
