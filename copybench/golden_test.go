package copybench

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/copy")

const goldenDir = "../testdata/copy"

// fakeClock advances 10 to 64 us per reading in a fixed cycle, fakeCPU 11
// us of user and 23 us of system time per reading, so a run's figures depend
// only on the calls it makes.
func fakeClock() (func() int64, func() (cpuclock.Usage, error)) {
	var now, calls, cpu int64
	return func() int64 { calls++; now += 10_000 + calls%7*9_000; return now },
		func() (cpuclock.Usage, error) {
			cpu++
			return cpuclock.Usage{User: time.Duration(cpu * 11_000), Sys: time.Duration(cpu * 23_000)}, nil
		}
}

// TestGoldenResult runs the engine on a fixed clock with seeded data and
// compares its JSON with testdata/copy/run.json, which the reporters'
// golden tests render. What the machine decides (provenance, page-cache
// residency, memory) is set to fixed values first.
func TestGoldenResult(t *testing.T) {
	dir := t.TempDir()
	o := smallOptions(dir)
	o.Sets = []Set{{64 << 10, 2}, {4 << 10, 3}}
	o.Seed = 42
	o.clock, o.cpu = fakeClock()
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	res.Provenance = result.Provenance{Tool: "clyde", Version: "0.1.0-test", CommandLine: []string{"clyde", "copy", "-d", "/mnt/ssd", "--set", "64k:2,4k:3", "--dirs", "2", "--bs", "16k", "--seed", "42"},
		Hostname: "bench", OS: "linux", Arch: "amd64", Kernel: "Linux 6.1.0", CPUs: 2,
		Filesystem: result.Filesystem{Path: "/mnt/ssd", Type: "ext4", MountPoint: "/mnt/ssd", Source: "/dev/sdb", DeviceModel: "Samsung SSD 870"},
		StartTime:  time.Date(2026, 11, 29, 19, 37, 0, 0, time.UTC)}
	res.Config.Dir = "/mnt/ssd"
	res.MaxRSSBytes = 0
	for i := range res.Results {
		c := &res.Results[i].SourceCache
		c.ResidentBytes, c.Cold, c.Error = 0, true, ""
	}
	var got bytes.Buffer
	if err := result.EncodeJSON(&got, res); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(goldenDir, "run.json")
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the result differs from %s (rerun with -update if intended):\n%s", path, got.String())
	}
}
