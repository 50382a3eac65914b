package units

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		units []Unit
		want  int64
		err   error
	}{
		{"bare", "4096", Bytes, 4096, nil},
		{"k", "4k", Bytes, 4096, nil},
		{"KiB any case", "4KiB", Bytes, 4096, nil},
		{"g", "1g", Bytes, 1 << 30, nil},
		{"empty", "", Bytes, 0, ErrEmpty},
		{"sign", "-4k", Bytes, 0, ErrNotNumber},
		{"space", " 4k", Bytes, 0, ErrNotNumber},
		{"junk", "4kx", Bytes, 0, ErrUnknownUnit},
		{"no units allowed", "4k", nil, 0, ErrUnknownUnit},
		{"digits overflow", "99999999999999999999", Bytes, 0, ErrTooLarge},
		{"unit overflow", "9000000p", Bytes, 0, ErrTooLarge},
		{"bonnie letters", "2G", Powers("KMG", 1), 2 << 30, nil},
		{"bonnie MiB letters", "3g", Powers("MG", 0), 3 << 10, nil},
		{"dot", "1.5g", Bytes, 0, ErrUnknownUnit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in, tc.units)
			if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("Parse(%q) = %d, %v; want %d, %v", tc.in, got, err, tc.want, tc.err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"4k", "1GiB", "", "-1", "99999999999999999999k", "7p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s, Bytes)
		if err == nil && n < 0 {
			t.Fatalf("Parse(%q) = %d, negative", s, n)
		}
		if err != nil && n != 0 {
			t.Fatalf("Parse(%q) = %d with error %v", s, n, err)
		}
	})
}
