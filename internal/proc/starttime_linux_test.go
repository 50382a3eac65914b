//go:build linux

package proc

import (
	"os"
	"testing"
)

func TestParseStartTicks(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want uint64
		ok   bool
	}{
		{"plain", "1234 (clyde) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 5 0 987654 1000 50 18446744073709551615", 987654, true},
		{"name with spaces and parentheses", "77 (a) b (c)) R 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4242 0 0", 4242, true},
		{"cut short", "1234 (clyde) S 1 1234", 0, false},
		{"no parentheses", "1234 clyde S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20", 0, false},
		{"not a number", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 abc 0", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseStartTicks([]byte(tc.in))
			if got != tc.want || ok != tc.ok {
				t.Errorf("got %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	if own := StartTicks(os.Getpid()); own == 0 {
		t.Error("no start time for this process")
	}
}

func FuzzParseStartTicks(f *testing.F) {
	f.Add([]byte("1234 (clyde) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 5 0 987654 1000"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, ok := parseStartTicks(b); ok != (n != 0) {
			t.Errorf("got %d, %v", n, ok)
		}
	})
}
