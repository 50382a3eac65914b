//go:build linux

package sysinfo

import (
	"os"
	"path/filepath"
	"testing"
)

// ext4NoJournal reads the journal thread of the ext4 on a device from a
// fake /sys: "<none>" is no journal, a thread id a journal, no file (an
// older kernel) or no device is not knowing.
func TestExt4NoJournal(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	const vda = "devices/pci0000:00/0000:00:04.0/virtio2/block/vda"
	write(vda+"/size", "1\n")
	link("../../"+vda, "dev/block/254:0")
	write("fs/ext4/vda/journal_task", "<none>\n")
	const sda1 = "devices/pci0000:00/ata1/block/sda/sda1"
	write(sda1+"/partition", "1\n")
	link("../../"+sda1, "dev/block/8:1")
	write("fs/ext4/sda1/journal_task", "412\n")
	const loop0 = "devices/virtual/block/loop0"
	write(loop0+"/size", "1\n")
	link("../../"+loop0, "dev/block/7:0")

	for _, tc := range []struct {
		name         string
		major, minor uint32
		want         bool
	}{
		{"no journal", 254, 0, true},
		{"a journal on a partition", 8, 1, false},
		{"no journal_task file", 7, 0, false},
		{"no such device", 9, 9, false},
	} {
		if got := ext4NoJournal(root, tc.major, tc.minor); got != tc.want {
			t.Errorf("%s: ext4NoJournal(%d:%d) = %v, want %v", tc.name, tc.major, tc.minor, got, tc.want)
		}
	}
}
