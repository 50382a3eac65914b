package sysinfo

import (
	"encoding/binary"
	"testing"
)

func TestStorageDescriptorStrings(t *testing.T) {
	desc := func(vendor, product, serial string) []byte {
		b := make([]byte, 40)
		le := binary.LittleEndian
		put := func(field int, s string) {
			if s == "" {
				return
			}
			le.PutUint32(b[field:], uint32(len(b)))
			b = append(b, append([]byte(s), 0)...)
		}
		put(12, vendor)
		put(16, product)
		put(24, serial)
		return b
	}
	cases := []struct {
		name, model, serial string
		b                   []byte
	}{
		{"vendor and product", "ATA Samsung SSD 840", "S1234", desc("ATA     ", "Samsung SSD 840 ", "  S1234")},
		{"product only (NVMe)", "WDC PC SN730", "", desc("", "WDC PC SN730", "")},
		{"cut short", "", "", make([]byte, 10)},
		{"offset past the end", "", "", func() []byte { b := make([]byte, 40); b[12] = 200; return b }()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, s := storageDescriptorStrings(tc.b)
			if m != tc.model || s != tc.serial {
				t.Fatalf("got %q, %q; want %q, %q", m, s, tc.model, tc.serial)
			}
		})
	}
}
