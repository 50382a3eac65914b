//go:build linux

package copybench

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/copyreport"
)

// TestSourcesColdThroughTheLoop: sources on an ext4 mounted from a loop
// device without direct I/O are cold only once the host's cache of the
// image is dropped too, which the figure records; over an image on tmpfs
// they cannot be, and the figure and the text say so, naming the loop
// device and tmpfs.
func TestSourcesColdThroughTheLoop(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "clyde-test")
	if err != nil {
		clydetest.Skipf(t, "/dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	for _, tc := range []struct {
		name string
		dir  func(t *testing.T) string
		cold bool
	}{
		{"image on disk", func(t *testing.T) string { return clydetest.DiskDir(t) }, true},
		{"image on tmpfs", func(*testing.T) string { return shm }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev, _ := clydetest.LoopDeviceIn(t, tc.dir(t), 32<<20)
			o := smallOptions(clydetest.MountExt4(t, dev))
			o.Sets, o.Method = []Set{{1 << 20, 4}}, ReadWrite
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			f := res.Results[0]
			if f.SourcesCold() != tc.cold || len(f.SourceCache.Stack) != 1 || f.SourceCache.Stack[0].Loop != dev || f.SourceCache.Stack[0].Evicted != tc.cold {
				t.Fatalf("sources cold %v, cache %+v; want cold %v through %s", f.SourcesCold(), f.SourceCache, tc.cold, dev)
			}
			var b bytes.Buffer
			if err := copyreport.Text(&b, res); err != nil {
				t.Fatal(err)
			}
			warm := strings.Contains(b.String(), "* sources still in the page cache when copied: 1Mx4 "+dev+" reads its backing file")
			if warm == tc.cold || !tc.cold && !strings.Contains(b.String(), "tmpfs") {
				t.Errorf("text:\n%s\nwant the sources marked warm through %s: %v", b.String(), dev, !tc.cold)
			}
		})
	}
}
