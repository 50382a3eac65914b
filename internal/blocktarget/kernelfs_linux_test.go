//go:build linux

package blocktarget

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// TestKernelFileIsNoTarget is item 12 of issue 31: /proc/kmsg (a regular
// file of size 0 whose read blocks and takes the kernel's log) and a sysfs
// attribute are refused as targets by internal/safepath's kernel-filesystem
// rule, the one every input and output follows.
func TestKernelFileIsNoTarget(t *testing.T) {
	for _, p := range []string{"/proc/kmsg", "/sys/kernel/notes"} {
		if _, err := os.Stat(p); err != nil {
			t.Logf("%s: %v; skipped", p, err)
			continue
		}
		_, err := Resolve(p, io.Discard)
		if !result.IsUsage(err) || !strings.Contains(err.Error(), "kernel interface") {
			t.Errorf("%s: err = %v; want a usage error naming the kernel interface", p, err)
		}
	}
}
