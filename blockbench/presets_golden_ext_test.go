package blockbench_test

import (
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/blockpreset"
	"github.com/clydebench/clyde/cdm"
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

// goldenCDM runs a CrystalDiskMark plan on synthetic workers: throughput
// grows with block size, queues and threads until it saturates, and zeros
// go a tenth faster than random data, also when saturated.
func goldenCDM(j blockbench.Job, o cdm.Options) result.Block {
	pl, err := cdm.Plan(j, o)
	if err != nil {
		panic(err)
	}
	b := blockbench.FixtureBlock()
	b.Jobs = blockbench.SyntheticPlanJobs(pl.Plan, 2, func(w blockbench.Workload, depth int) (int64, float64) {
		load := float64(depth * w.NumJobs)
		perIO := 20_000 + float64(w.BS)/2
		if w.Buffer.Kind == blockbench.BufferZero {
			perIO *= 0.9
		}
		iops := min(load*1e9/perIO, 3e9/float64(w.BS)) / float64(w.NumJobs) / 20
		if w.Buffer.Kind == blockbench.BufferZero {
			iops *= 1.1
		}
		return int64(iops), perIO * min(load, 4)
	})
	finishCDM(&b, pl)
	b.Space = &result.BlockSpace{Path: "/mnt/ssd", MountPoint: "/mnt/ssd", TotalBytes: 350 << 30, UsedBytes: 42 << 30, AvailBytes: 308 << 30}
	b.Provenance.Kernel = "Linux 6.18.0"
	return b
}

// finishCDM fills b's tables from its jobs as an elevated run's.
func finishCDM(b *result.Block, pl *cdm.Planned) {
	pl.Finish(b)
	b.CDM.Admin = true
}

// cdmJob is CrystalDiskMark's default run of a 1 GiB test on path, with
// passes passes.
func cdmJob(path string, passes int) (blockbench.Job, cdm.Options) {
	j := blockbench.NewJob(path)
	j.IOEngine, j.Size = blockbench.EngineIOUring, 1<<30
	o := cdm.DefaultOptions()
	o.Passes = passes
	return j, o
}

func TestCDMGoldens(t *testing.T) {
	def, defOpts := cdmJob("/mnt/ssd/clyde-cdm.tmp", 2)
	bothOpts := defOpts
	bothOpts.Data, bothOpts.Mix, bothOpts.Aggregate, bothOpts.Preset, bothOpts.Passes = cdm.Both, true, cdm.Average, cdm.PeakNVMe, 1
	buffered, bufOpts := cdmJob("/mnt/ssd/clyde-cdm.tmp", 3)
	bufOpts.Preset, bufOpts.Buffered, buffered.Size = cdm.Real, true, 256<<20
	cases := map[string]struct {
		j blockbench.Job
		o cdm.Options
	}{"profile-cdm.json": {def, defOpts}, "cdm-both-mix.json": {def, bothOpts}, "cdm-real-buffered.json": {buffered, bufOpts}}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := goldenCDM(tc.j, tc.o)
			blockbench.CheckGolden(t, name, b)
			for _, r := range b.CDM.Rows {
				if len(r.Jobs) != tc.o.Passes || r.BWBytes <= 0 || r.LatencyUs <= 0 || r.IOPS*float64(r.BSBytes) != r.BWBytes {
					t.Errorf("row %s %s %s: %+v", r.Test, r.Mode, r.Data, r)
				}
			}
		})
	}
}

// TestCDMPartialRun is a run stopped after five of the Default preset's
// jobs (the first row's warm-up and two passes, the second's warm-up and
// one pass) and one stopped before any: only rows a pass of which ran are
// kept, with their jobs, and the error goes with them (the golden files
// feed blockreport's text for partial runs).
func TestCDMPartialRun(t *testing.T) {
	j, o := cdmJob("/mnt/ssd/clyde-cdm.tmp", 2)
	for _, tc := range []struct {
		name   string
		jobs   int
		err    string
		intr   bool
		tests  []string
		passes []int
	}{
		{"cdm-partial.json", 5, "job SEQ1M Q1T1 pass 2: read /mnt/ssd/clyde-cdm.tmp: input/output error", false, []string{"SEQ1M Q8T1", "SEQ1M Q1T1"}, []int{2, 1}},
		{"cdm-interrupted-early.json", 0, "before group 1 of 24: interrupt", true, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := goldenCDM(j, o)
			b.Jobs = b.Jobs[:tc.jobs]
			pl, err := cdm.Plan(j, o)
			if err != nil {
				t.Fatal(err)
			}
			finishCDM(&b, pl)
			b.Error, b.Interrupted = tc.err, tc.intr
			blockbench.CheckGolden(t, tc.name, b)
			if len(b.CDM.Rows) != len(tc.tests) || len(b.Profile.Rows) != len(tc.tests) {
				t.Fatalf("%d CDM rows and %d profile rows, want %d: %+v", len(b.CDM.Rows), len(b.Profile.Rows), len(tc.tests), b.CDM.Rows)
			}
			for i, r := range b.CDM.Rows {
				if r.Test != tc.tests[i] || len(r.Jobs) != tc.passes[i] || r.BWBytes <= 0 {
					t.Errorf("row %d: %s with jobs %v at %.0f B/s, want %s with %d passes", i, r.Test, r.Jobs, r.BWBytes, tc.tests[i], tc.passes[i])
				}
			}
		})
	}
}

// TestProfileGoldens runs the bs-sweep preset's plan on synthetic workers
// (cdm and iometer-mix: above; orion: package orion's own).
func TestProfileGoldens(t *testing.T) {
	j := blockbench.NewJob("/dev/shm/clyde.tmp")
	j.IOEngine, j.Size = blockbench.EngineIOUring, 1<<30
	s, err := blockpreset.PlanSweep(j)
	if err != nil {
		t.Fatal(err)
	}
	b := blockbench.FixtureBlock()
	b.Jobs = blockbench.GoldenPlanJobs(s.Plan)
	b.Profile = s.Table(b.Jobs)
	blockbench.CheckGolden(t, "profile-"+blockpreset.SweepName+".json", b)
	for _, r := range b.Profile.Rows {
		if len(r.Jobs) == 0 || r.IOPS <= 0 {
			t.Errorf("row %q has no figures: %+v", r.Label, r)
		}
	}
}
