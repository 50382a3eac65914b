package blockbench_test

import (
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/iometer"
	"github.com/clydebench/clyde/result"
)

// The presets' golden files are their plans run on blockbench's synthetic
// workers (its accounting, on a modelled drive and an exact clock), which
// only this package's tests reach (export_test.go); the presets' own
// packages test their plans and tables apart from it.

// goldenIometer runs an Iometer setup on synthetic workers: IOPS fall with
// the write share and grow with the outstanding I/Os.
func goldenIometer(s iometer.Setup) result.Block {
	p, err := s.Plan()
	if err != nil {
		panic(err)
	}
	b := blockbench.FixtureBlock()
	b.Jobs = blockbench.SyntheticPlanJobs(p, 2, func(w blockbench.Workload, depth int) (int64, float64) {
		load := float64(depth)
		perIO := 20_000 + float64(100-w.RWMixRead)*200 + float64(w.BS)/4
		return int64(load * 1e9 / perIO / 10), perIO * min(load, 4)
	})
	if err := s.Finish(&b); err != nil {
		panic(err)
	}
	return b
}

// icfLikeSetup is what package iometer makes of a two-worker file with a
// multi-line specification and outstanding I/Os cycled exponentially.
func icfLikeSetup() iometer.Setup {
	return iometer.Setup{Source: "two-workers.icf", Profile: "iometer", Description: "two workers, cycled", Filename: "/dev/shm/clyde.tmp",
		Runtime: 2 * time.Second, RampTime: time.Second, IOEngine: blockbench.EngineIOUring, Direct: true,
		Specs: []iometer.AccessSpec{
			{Name: "File Server", Lines: []iometer.AccessLine{{Size: 512, Weight: 10, ReadPct: 80, RandomPct: 100},
				{Size: 4096, Weight: 60, ReadPct: 80, RandomPct: 100}, {Size: 65536, Weight: 30, ReadPct: 80, RandomPct: 0}}},
			{Name: "4K write", Lines: []iometer.AccessLine{{Size: 4096, Weight: 100, ReadPct: 0, RandomPct: 100}}},
		},
		Workers: []iometer.SetupWorker{
			{Name: "Worker 1", OutstandingIOs: 1, Specs: []int{0, 1}, Size: 1 << 30, Seed: 1, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}},
			{Name: "Worker 2", OutstandingIOs: 1, Specs: []int{0, 1}, Size: 1 << 30, Seed: 2, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}},
		},
		Cycle:   iometer.SetupCycle{Queue: true, Start: 1, End: 4, Step: 2, Exponential: true},
		Ignored: []string{"line 12: 'RESULTS DISPLAY section (clyde prints its own table)"},
	}
}

func TestIometerGoldens(t *testing.T) {
	j := blockbench.NewJob("/dev/shm/clyde.tmp")
	j.IOEngine, j.Size = blockbench.EngineIOUring, 1<<30
	cases := map[string]iometer.Setup{"profile-iometer-mix.json": iometer.MixSetup(&j), "iometer-icf.json": icfLikeSetup()}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			b := goldenIometer(s)
			blockbench.CheckGolden(t, name, b)
			if len(b.Iometer.Tests) == 0 || len(b.Iometer.Tests) != len(b.Profile.Rows) {
				t.Fatalf("%d tests, %d profile rows", len(b.Iometer.Tests), len(b.Profile.Rows))
			}
			for _, it := range b.Iometer.Tests {
				var binned int64
				for _, n := range it.LatencyBins {
					binned += n
				}
				if binned != it.ReadIOs+it.WriteIOs || it.IOPS <= 0 || it.MaxResponseMs < it.AvgResponseMs {
					t.Errorf("test %q: %d I/Os binned of %d, iops %.1f, avg %.3f max %.3f ms", it.AccessSpec, binned,
						it.ReadIOs+it.WriteIOs, it.IOPS, it.AvgResponseMs, it.MaxResponseMs)
				}
				if d := it.MBpsDecimal / it.MBpsBinary; d < 1.048 || d > 1.049 {
					t.Errorf("MBps decimal/binary %.4f, want 2^20/10^6", d)
				}
			}
		})
	}
}
