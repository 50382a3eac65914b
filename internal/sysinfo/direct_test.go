package sysinfo

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestDirectIsBuffered(t *testing.T) {
	for _, tc := range []struct {
		name, fsType, options, want string
	}{
		{"tmpfs", "tmpfs", "rw,nosuid,nodev", "tmpfs"},
		{"ext4 journalled data", "ext4", "rw,relatime,data=journal", "data=journal"},
		{"ext4 ordered", "ext4", "rw,relatime", ""},
		{"ext4 writeback", "ext4", "rw,data=writeback", ""},
		{"option as a substring", "ext4", "rw,xdata=journal", ""},
		{"xfs", "xfs", "rw,data=journal", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DirectIsBuffered(result.Filesystem{Type: tc.fsType, MountOptions: tc.options, MountPoint: "/mnt"})
			if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want one naming %q", got, tc.want)
			}
		})
	}
}
