package fiojob

import (
	"strings"
	"testing"
)

// TestParseSize: fio's answers beside each (fio 3.33, str_to_decimal and
// __get_mult_bytes; size=1MiB with bs=4k wrote 999,424 bytes in fio, the
// whole blocks of 1,000,000).
func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		kb   KBBase
		want int64
		ok   bool
	}{
		{"4096", KBBase1024, 4096, true},
		{"010", KBBase1024, 10, true}, // fio: decimal, not octal
		{"070", KBBase1024, 70, true},
		{"0x100000", KBBase1024, 1 << 20, true},
		{"0X10", KBBase1024, 16, true},
		{"4k", KBBase1024, 4096, true},
		{"4K", KBBase1024, 4096, true},
		{"4kb", KBBase1024, 4096, true},
		{"1m", KBBase1024, 1 << 20, true},
		{"1MB", KBBase1024, 1 << 20, true},
		{"1MiB", KBBase1024, 1000000, true}, // fio's compatibility mode
		{"512KiB", KBBase1024, 512000, true},
		{"1g", KBBase1024, 1 << 30, true},
		{"1GiB", KBBase1024, 1000000000, true},
		{"2t", KBBase1024, 2 << 40, true},
		{"1p", KBBase1024, 1 << 50, true},
		{"1MiB", KBBase1000, 1 << 20, true}, // kb_base=1000: the standards' way
		{"1MB", KBBase1000, 1000000, true},
		{"4k", KBBase1000, 4000, true},
		{" 8k ", KBBase1024, 8192, true},
		{"", KBBase1024, 0, false},
		{"lots", KBBase1024, 0, false},
		{"1.5g", KBBase1024, 0, false}, // fio: 1 byte; clyde refuses
		{"50%", KBBase1024, 0, false},
		{"(1+1)", KBBase1024, 0, false},
		{"4x", KBBase1024, 0, false},
		{"4kk", KBBase1024, 0, false},
		{"0x10k", KBBase1024, 0, false},
		{"-4k", KBBase1024, 0, false},
		{"16e", KBBase1024, 0, false},
		{"9999999p", KBBase1024, 0, false},
		{"99999999999999999999", KBBase1024, 0, false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseSize(c.in, c.kb)
			if (err == nil) != c.ok || got != c.want {
				t.Errorf("ParseSize(%q, %d) = %d, %v; want %d, ok %v", c.in, c.kb, got, err, c.want, c.ok)
			}
		})
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4k", "010", "0x100000", "1MiB", "1MB", "512KiB", "1.5g", "50%", "(1+1)", "8 k", "1pib", "0x"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, kb1024 bool) {
		kb := KBBase1000
		if kb1024 {
			kb = KBBase1024
		}
		n, err := ParseSize(s, kb)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, n)
		}
		// Units are case-insensitive, and read under either kb_base.
		if m, err := ParseSize(strings.ToUpper(s), kb); err != nil || m != n {
			t.Fatalf("ParseSize(%q) = %d, of its upper case %d, %v", s, n, m, err)
		}
		if _, err := ParseSize(s, KBBase1024+KBBase1000-kb); err != nil {
			t.Fatalf("%q reads under one kb_base and not the other: %v", s, err)
		}
	})
}
