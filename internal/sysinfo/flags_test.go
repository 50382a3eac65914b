package sysinfo

import "testing"

func TestSpellFlags(t *testing.T) {
	names := []flagName{{0x2, "sync"}, {0x4, "noatime"}}
	for _, tc := range []struct {
		flags uint64
		want  string
	}{
		{0, "rw"},
		{0x1, "ro"},
		{0x4, "rw,noatime"},
		{0x1 | 0x2 | 0x4 | 0x8, "ro,sync,noatime"},
	} {
		if got := spellFlags(tc.flags, 0x1, names); got != tc.want {
			t.Errorf("spellFlags(%#x) = %q, want %q", tc.flags, got, tc.want)
		}
	}
}
