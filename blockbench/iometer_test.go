package blockbench

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// syntheticPlanJobs runs p's groups on synthetic workers over seconds
// seconds of an exact clock: each I/O drawn by the workload's pattern (so
// access specifications keep their mix and line counts), rate and latency
// from perIO(workload), latencies lognormal from a seeded stream.
func syntheticPlanJobs(p Plan, seconds int, perIO func(w *workload) (iops int64, meanNs float64)) []result.BlockJob {
	var jobs []result.BlockJob
	for gi, g := range p.Groups {
		for _, w := range g {
			wl := resolvedForTest(w, max(w.Size, 1<<30))
			wl.groupID = gi
			iops, meanNs := perIO(wl)
			rng := rand.New(rand.NewPCG(uint64(gi), 11))
			merged := make([]*latency.Recorder, nRecs)
			for k := range merged {
				merged[k] = latency.New()
			}
			var workers []*worker
			for i := range wl.NumJobs {
				wk := newWorker(wl, i)
				for sec := range seconds {
					for range iops {
						dir, off, size := wk.pattern.next(wk)
						lat := max(10, int64(meanNs*(0.5+rng.ExpFloat64()*0.5)))
						wk.complete(dir, size, size, off, 0, lat/10, lat)
						if wl.engine.queues() {
							wk.markDepth(wl.depth) // as a full queue counts it
							wk.markReap(1)
						}
					}
					wk.marks = append(wk.marks, mark{atNs: int64(sec+1) * int64(time.Second), ios: wk.ios, bytes: wk.bytes})
				}
				wk.endNs = int64(seconds) * int64(time.Second)
				wk.thread = syntheticThread(seconds, i)
				workers = append(workers, wk)
				for k, r := range wk.recs {
					if r != nil {
						merged[k].Merge(r)
					}
				}
			}
			jobs = append(jobs, summarize(wl, workers, merged, fixedCPU))
		}
	}
	return jobs
}

// goldenIometer runs an Iometer setup on synthetic workers: IOPS fall with
// the write share and grow with the outstanding I/Os.
func goldenIometer(s IometerSetup) result.Block {
	p, tests, err := s.plan()
	if err != nil {
		panic(err)
	}
	b := fixtureBlock()
	b.Jobs = syntheticPlanJobs(p, 2, func(w *workload) (int64, float64) {
		load := float64(w.depth)
		perIO := 20_000 + float64(100-w.RWMixRead)*200 + float64(w.BS)/4
		return int64(load * 1e9 / perIO / 10), perIO * min(load, 4)
	})
	b.Iometer, b.Profile = s.finish(tests, &b)
	return b
}

// icfLikeSetup is what package iometer makes of a two-worker file with a
// multi-line specification and outstanding I/Os cycled exponentially.
func icfLikeSetup() IometerSetup {
	return IometerSetup{Source: "two-workers.icf", Profile: "iometer", Description: "two workers, cycled", Filename: "/dev/shm/clyde.tmp",
		Runtime: 2 * time.Second, RampTime: time.Second, IOEngine: EngineIOUring, Direct: true,
		Specs: []AccessSpec{
			{Name: "File Server", Lines: []AccessLine{{Size: 512, Weight: 10, ReadPct: 80, RandomPct: 100},
				{Size: 4096, Weight: 60, ReadPct: 80, RandomPct: 100}, {Size: 65536, Weight: 30, ReadPct: 80, RandomPct: 0}}},
			{Name: "4K write", Lines: []AccessLine{{Size: 4096, Weight: 100, ReadPct: 0, RandomPct: 100}}},
		},
		Workers: []IometerWorker{
			{Name: "Worker 1", OutstandingIOs: 1, Specs: []int{0, 1}, Size: 1 << 30, Seed: 1, Buffer: Buffer{Kind: BufferRandom}},
			{Name: "Worker 2", OutstandingIOs: 1, Specs: []int{0, 1}, Size: 1 << 30, Seed: 2, Buffer: Buffer{Kind: BufferRandom}},
		},
		Cycle:   IometerCycle{Queue: true, Start: 1, End: 4, Step: 2, Exponential: true},
		Ignored: []string{"line 12: 'RESULTS DISPLAY section (clyde prints its own table)"},
	}
}

func TestIometerGoldens(t *testing.T) {
	j := NewJob("/dev/shm/clyde.tmp")
	j.Profile, j.IOEngine, j.Size = ProfileIometerMix, EngineIOUring, 1<<30
	cases := map[string]IometerSetup{"profile-iometer-mix.json": iometerMixSetup(&j), "iometer-icf.json": icfLikeSetup()}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			b := goldenIometer(s)
			checkGolden(t, name, b)
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

func TestIometerTestOrder(t *testing.T) {
	s := icfLikeSetup()
	p, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, g := range p.Groups {
		got = append(got, p.Labels[i].Row)
		if len(g) != 2 || g[0].IODepth != g[1].IODepth || g[0].Seed == g[1].Seed {
			t.Errorf("test %d: %d workloads, depths %d/%d, seeds %d/%d", i, len(g), g[0].IODepth, g[1].IODepth, g[0].Seed, g[1].Seed)
		}
	}
	want := []string{"File Server (1 outstanding I/Os)", "File Server (2 outstanding I/Os)", "File Server (4 outstanding I/Os)",
		"4K write (1 outstanding I/Os)", "4K write (2 outstanding I/Os)", "4K write (4 outstanding I/Os)"}
	if !slices.Equal(got, want) {
		t.Errorf("tests %q\nwant  %q", got, want)
	}
	s.Cycle = IometerCycle{Workers: true, Start: 1, Step: 1}
	p, err = s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Groups) != 4 || len(p.Groups[0]) != 1 || len(p.Groups[1]) != 2 {
		t.Errorf("worker cycling: %d tests, want 4 (1 then 2 workers per spec)", len(p.Groups))
	}
}

func TestIometerRefusals(t *testing.T) {
	cases := []struct {
		name string
		edit func(s *IometerSetup)
		want string
	}{
		{"run time 0", func(s *IometerSetup) { s.Runtime = 0 }, "until stopped"},
		{"no workers", func(s *IometerSetup) { s.Workers = nil }, "no disk workers"},
		{"unknown spec", func(s *IometerSetup) { s.Workers[0].Specs = []int{5} }, "assigned access specification 6 of 2"},
		{"step that never moves", func(s *IometerSetup) { s.Cycle.Step = 0 }, "never moves"},
		{"end before start", func(s *IometerSetup) { s.Cycle.End = 0 }, "the end must be"},
		{"zero outstanding", func(s *IometerSetup) { s.Workers[1].OutstandingIOs = 0 }, "0 outstanding I/Os"},
		{"direct needs sectors", func(s *IometerSetup) { s.Specs[0].Lines[0].Size = 1000 }, "line 1: transfer size 1000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := icfLikeSetup()
			s.Workers = slices.Clone(s.Workers)
			s.Specs = []AccessSpec{{Name: "a", Lines: slices.Clone(s.Specs[0].Lines)}, s.Specs[1]}
			tc.edit(&s)
			s.Filename = filepath.Join(t.TempDir(), "f")
			_, err := RunIometer(context.Background(), s)
			if !result.IsUsage(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a usage error saying %q", err, tc.want)
			}
		})
	}
}

// A real two-worker run: each test's workers run at once, and the test sums
// them.
func TestIometerRuns(t *testing.T) {
	s := icfLikeSetup()
	s.Filename = filepath.Join(t.TempDir(), "f")
	s.Direct, s.IOEngine = false, EngineAuto
	// A pass over the region per worker, not a time window: a loaded
	// machine must not leave a test empty.
	s.Runtime, s.RampTime, s.OnePass = 0, 0, true
	for i := range s.Workers {
		s.Workers[i].Size = 2 << 20
	}
	s.Cycle = IometerCycle{}
	res, err := RunIometer(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Iometer.Tests) != 2 || len(res.Jobs) != 4 {
		t.Fatalf("%d tests from %d jobs, want 2 from 4", len(res.Iometer.Tests), len(res.Jobs))
	}
	for _, it := range res.Iometer.Tests {
		var ios int64
		for _, k := range it.Jobs {
			ios += res.Jobs[k].Read.TotalIOs + res.Jobs[k].Write.TotalIOs
		}
		if it.Workers != 2 || ios == 0 || it.ReadIOs+it.WriteIOs != ios {
			t.Errorf("test %q: %d workers, %d I/Os summed of %d", it.AccessSpec, it.Workers, it.ReadIOs+it.WriteIOs, ios)
		}
	}
	if w := res.Iometer.Tests[1]; w.ReadIOs != 0 || w.WriteIOs == 0 {
		t.Errorf("the 4K write test read %d and wrote %d", w.ReadIOs, w.WriteIOs)
	}
}
