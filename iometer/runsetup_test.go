package iometer

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// icfLikeSetup is what package iometer makes of a two-worker file with a
// multi-line specification and outstanding I/Os cycled exponentially.
func icfLikeSetup() Setup {
	return Setup{Source: "two-workers.icf", Profile: "iometer", Description: "two workers, cycled", Filename: "/dev/shm/clyde.tmp",
		Runtime: 2 * time.Second, RampTime: time.Second, IOEngine: blockbench.EngineIOUring, Direct: true,
		Specs: []AccessSpec{
			{Name: "File Server", Lines: []AccessLine{{Size: 512, Weight: 10, ReadPct: 80, RandomPct: 100},
				{Size: 4096, Weight: 60, ReadPct: 80, RandomPct: 100}, {Size: 65536, Weight: 30, ReadPct: 80, RandomPct: 0}}},
			{Name: "4K write", Lines: []AccessLine{{Size: 4096, Weight: 100, ReadPct: 0, RandomPct: 100}}},
		},
		Workers: []SetupWorker{
			{Name: "Worker 1", OutstandingIOs: 1, Specs: []int{0, 1}, Size: 1 << 30, Seed: 1, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}},
			{Name: "Worker 2", OutstandingIOs: 1, Specs: []int{0, 1}, Size: 1 << 30, Seed: 2, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}},
		},
		Cycle:   SetupCycle{Queue: true, Start: 1, End: 4, Step: 2, Exponential: true},
		Ignored: []string{"line 12: 'RESULTS DISPLAY section (clyde prints its own table)"},
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
	s.Cycle = SetupCycle{Workers: true, Start: 1, Step: 1}
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
		edit func(s *Setup)
		want string
	}{
		{"run time 0", func(s *Setup) { s.Runtime = 0 }, "until stopped"},
		{"no workers", func(s *Setup) { s.Workers = nil }, "no disk workers"},
		{"unknown spec", func(s *Setup) { s.Workers[0].Specs = []int{5} }, "assigned access specification 6 of 2"},
		{"step that never moves", func(s *Setup) { s.Cycle.Step = 0 }, "never moves"},
		{"end before start", func(s *Setup) { s.Cycle.End = 0 }, "the end must be"},
		{"zero outstanding", func(s *Setup) { s.Workers[1].OutstandingIOs = 0 }, "0 outstanding I/Os"},
		{"direct needs sectors", func(s *Setup) { s.Specs[0].Lines[0].Size = 1000 }, "line 1: transfer size 1000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := icfLikeSetup()
			s.Workers = slices.Clone(s.Workers)
			s.Specs = []AccessSpec{{Name: "a", Lines: slices.Clone(s.Specs[0].Lines)}, s.Specs[1]}
			tc.edit(&s)
			s.Filename = filepath.Join(t.TempDir(), "f")
			_, err := Run(context.Background(), s)
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
	s.Direct, s.IOEngine = false, blockbench.EngineAuto
	// A pass over the region per worker, not a time window: a loaded
	// machine must not leave a test empty.
	s.Runtime, s.RampTime, s.OnePass = 0, 0, true
	for i := range s.Workers {
		s.Workers[i].Size = 2 << 20
	}
	s.Cycle = SetupCycle{}
	res, err := Run(context.Background(), s)
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

// The iometer-mix preset, run for real on a small file with one pass per
// test, fills every row of its table.
func TestMixProducesTable(t *testing.T) {
	j := blockbench.NewJob(filepath.Join(t.TempDir(), "f"))
	j.IOEngine, j.Size = blockbench.EngineAuto, 4<<20
	// A fixed amount of I/O per row, not a time window: a loaded machine
	// must not leave a row empty.
	j.TimeBased, j.Runtime = false, 0
	res, err := RunMix(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if res.Profile == nil || res.Profile.Name != MixName || len(res.Profile.Rows) != len(MixReadPcts()) {
		t.Fatalf("profile %+v, want %d rows", res.Profile, len(MixReadPcts()))
	}
	for _, r := range res.Profile.Rows {
		if r.IOPS <= 0 || r.BWBytes <= 0 || r.MeanLatNs <= 0 || len(r.Jobs) == 0 {
			t.Errorf("row %q is empty: %+v", r.Label, r)
		}
	}
}
