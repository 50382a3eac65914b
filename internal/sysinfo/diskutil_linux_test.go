//go:build linux

package sysinfo

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDiff32: a counter the kernel prints as 32 bits may wrap once between
// the snapshots; one that is wider (or went backwards past 32 bits) is
// taken as it is, as fio's safe_32bit_diff.
func TestDiff32(t *testing.T) {
	cases := []struct {
		name              string
		now, before, want uint64
	}{
		{"no wrap", 150, 100, 50},
		{"unchanged", 7, 7, 0},
		{"wrapped once", 10, 1<<32 - 6, 16},
		{"64-bit counter", 1<<33 + 5, 1 << 33, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := diff32(tc.now, tc.before); got != tc.want {
				t.Errorf("diff32(%d, %d) = %d, want %d", tc.now, tc.before, got, tc.want)
			}
		})
	}
}

// TestReadDiskStat: the first 11 fields of a stat file are read in order;
// a short or garbled file is no figures at all.
func TestReadDiskStat(t *testing.T) {
	cases := []struct {
		name, text string
		ok         bool
	}{
		{"kernel 5.x line", "  1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", true},
		{"exactly 11 fields", "1 2 3 4 5 6 7 8 9 10 11", true},
		{"too short", "1 2 3 4 5 6 7 8 9 10", false},
		{"not a number", "1 2 3 x 5 6 7 8 9 10 11", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "stat")
			if err := os.WriteFile(p, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			v, ok := readDiskStat(p)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if ok && (v[0] != 1 || v[3] != 4 || v[9] != 10 || v[10] != 11) {
				t.Errorf("fields %v, want 1..11", v)
			}
		})
	}
	if _, ok := readDiskStat(filepath.Join(t.TempDir(), "missing")); ok {
		t.Error("a missing stat file read as figures")
	}
}
