package admit

import "encoding/binary"

// mbrEntry is one used slot of an MBR (DOS) partition table, in logical
// sectors of the disk.
type mbrEntry struct {
	Type        byte
	Start, Size uint64
}

// extended is true for the types that hold a chain of extended boot
// records with the logical partitions: DOS's CHS and LBA extended
// partitions and Linux's own.
func (e mbrEntry) extended() bool { return e.Type == 0x05 || e.Type == 0x0f || e.Type == 0x85 }

// parseMBR reads the four primary slots of the DOS partition table in a
// disk's first sector: nil when the sector carries no 0x55AA signature.
// Empty slots (type 0 or no sectors) are left out.
func parseMBR(sector []byte) []mbrEntry {
	if len(sector) < 512 || sector[510] != 0x55 || sector[511] != 0xAA {
		return nil
	}
	var entries []mbrEntry
	for k := 0; k < 4; k++ {
		e := sector[446+16*k : 446+16*(k+1)]
		ent := mbrEntry{Type: e[4], Start: uint64(binary.LittleEndian.Uint32(e[8:])), Size: uint64(binary.LittleEndian.Uint32(e[12:]))}
		if ent.Type != 0 && ent.Size != 0 {
			entries = append(entries, ent)
		}
	}
	return entries
}
