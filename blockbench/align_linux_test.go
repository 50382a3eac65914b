//go:build linux

package blockbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// TestDirectAlignmentOnA4KDevice checks that --direct holds bs and offset
// to the device's own alignment on Linux (statx STATX_DIOALIGN, or the
// logical block size), not to 512 bytes: on a loop device with 4096-byte
// sectors a 512-byte block or offset is refused as a usage error before
// anything is written, and 4096 runs.
func TestDirectAlignmentOnA4KDevice(t *testing.T) {
	dev, img := clydetest.LoopDevice(t, 8<<20, "--sector-size", "4096")
	cases := []struct {
		name   string
		bs     int64
		offset int64
		flag   string // "" runs
	}{
		{"512-byte blocks", 512, 0, "--bs"},
		{"a 512-byte offset", 4096, 512, "--offset"},
		{"4 KiB blocks at a 4 KiB offset", 4096, 4096, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := countJob(dev, RandWrite, 1<<20, tc.bs)
			j.Direct, j.Offset, j.DestroyData = true, tc.offset, true
			_, err := Run(context.Background(), j)
			var ue *result.UsageError
			switch {
			case tc.flag == "" && err != nil:
				t.Fatalf("aligned direct I/O refused: %v", err)
			case tc.flag != "" && (!errors.As(err, &ue) || ue.Flag != tc.flag || !strings.Contains(err.Error(), "4096")):
				t.Fatalf("err = %v, want a usage error for %s naming the 4096-byte sector", err, tc.flag)
			case tc.flag != "":
				// Nothing was written: the image is still all zeros.
				b, err := os.ReadFile(img)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(b, make([]byte, len(b))) {
					t.Error("the refused job wrote to the device")
				}
			}
		})
	}
}
