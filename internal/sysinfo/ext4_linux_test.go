//go:build linux

package sysinfo

import "testing"

// ext4NoJournal reads the journal thread of the ext4 on a device from a
// fake /sys: "<none>" is no journal, a thread id a journal, no file (an
// older kernel) or no device is not knowing.
func TestExt4NoJournal(t *testing.T) {
	tree := fakeSysfs(t)
	tree.write("fs/ext4/vda/journal_task", "<none>\n")
	tree.write("fs/ext4/sda1/journal_task", "412\n")
	for _, tc := range []struct {
		name         string
		major, minor uint32
		want         bool
	}{
		{"no journal", 254, 0, true},
		{"a journal on a partition", 8, 1, false},
		{"no journal_task file", 7, 3, false},
		{"no such device", 9, 9, false},
	} {
		if got := ext4NoJournal(tree.root, tc.major, tc.minor); got != tc.want {
			t.Errorf("%s: ext4NoJournal(%d:%d) = %v, want %v", tc.name, tc.major, tc.minor, got, tc.want)
		}
	}
}
