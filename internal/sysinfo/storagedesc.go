package sysinfo

import (
	"encoding/binary"
	"strings"
)

// storageDescriptorStrings reads the vendor, product and serial out of a
// Windows STORAGE_DEVICE_DESCRIPTOR: Version, Size, DeviceType,
// DeviceTypeModifier, RemovableMedia, CommandQueueing, then the offsets of
// the vendor, product, revision and serial strings (0 when absent), each
// NUL-terminated ASCII within the descriptor. Pure, so every platform's
// tests check it.
func storageDescriptorStrings(b []byte) (model, serial string) {
	if len(b) < 28 {
		return "", ""
	}
	at := func(off uint32) string {
		if off == 0 || int(off) >= len(b) {
			return ""
		}
		s := b[off:]
		if i := strings.IndexByte(string(s), 0); i >= 0 {
			s = s[:i]
		}
		return strings.TrimSpace(string(s))
	}
	le := binary.LittleEndian
	vendor, product := at(le.Uint32(b[12:])), at(le.Uint32(b[16:]))
	model = strings.TrimSpace(vendor + " " + product)
	return model, at(le.Uint32(b[24:]))
}
