package admit

import (
	"strings"
	"testing"
)

func TestFindSignatures(t *testing.T) {
	mk := func(edit func(b []byte)) []byte {
		b := make([]byte, signatureSpan)
		edit(b)
		return b
	}
	cases := []struct {
		name string
		head []byte
		want string
	}{
		{"empty", mk(func([]byte) {}), ""},
		{"xfs", mk(func(b []byte) { copy(b, "XFSB") }), "xfs filesystem"},
		{"btrfs", mk(func(b []byte) { copy(b[0x10040:], "_BHRfS_M") }), "btrfs filesystem"},
		{"gpt", mk(func(b []byte) { copy(b[512:], "EFI PART") }), "GPT partition table"},
		{"lvm", mk(func(b []byte) { copy(b[512:], "LABELONE"); copy(b[512+24:], "LVM2 001") }), "LVM2 physical volume"},
		{"md 1.2", mk(func(b []byte) { b[4096], b[4097], b[4098], b[4099] = 0xfc, 0x4e, 0x2b, 0xa9 }), "Linux RAID (md) member"},
		{"mbr", mk(func(b []byte) { b[510], b[511] = 0x55, 0xAA; b[446+4] = 0x83 }), "MBR partition table"},
		{"swap", mk(func(b []byte) { copy(b[4086:], "SWAPSPACE2") }), "swap area"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(findSignatures(tc.head, make([]byte, signatureSpan)), ", ")
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
