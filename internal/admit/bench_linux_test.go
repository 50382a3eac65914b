//go:build linux

package admit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

// BenchmarkWrite times one admission (Write with --destroy-data): the
// whole-system scan, every mount namespace's table, every process's
// descriptors, maps and io_uring files, the graph, once before the first
// byte is written. Its cost grows with the processes and mounts on the
// machine, not with the run: run it with many of each to see the figure
// the README states.
func BenchmarkWrite(b *testing.B) {
	if os.Geteuid() != 0 {
		clydetest.Skip(b, "needs root")
	}
	dev, _ := clydetest.LoopDevice(b, 8<<20)
	file := filepath.Join(b.TempDir(), "user.img")
	if err := os.WriteFile(file, make([]byte, 1<<20), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, target := range []struct{ name, path string }{{"device", dev}, {"file", file}} {
		b.Run(target.name, func(b *testing.B) {
			f, err := osio.OpenFile(target.path, osio.ReadOnly)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			e, err := f.Stat()
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				guard, err := Write(target.path, target.path, f, e, true)
				if err != nil {
					b.Fatal(err)
				}
				guard.Close()
			}
		})
	}
}
