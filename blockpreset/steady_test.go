package blockpreset

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// seriesOf is a per-second series with the given IOPS, 4 KiB each.
func seriesOf(iops func(sec int) float64, n int) []result.BlockSample {
	out := make([]result.BlockSample, n)
	for i := range out {
		v := iops(i)
		out[i] = result.BlockSample{StartMs: int64(i) * 1000, DurationNs: int64(time.Second), ReadIOs: int64(v),
			ReadBytes: int64(v) * 4096, IOPS: v, BWBytes: int64(v) * 4096}
	}
	return out
}

// A job that falls from 40k to 10k IOPS in its third minute and stays
// there, and a second job beside it at a flat 1000: each is analysed, and
// so is their group.
func TestAnalyseSustained(t *testing.T) {
	cliff := func(s int) float64 {
		switch {
		case s < 120:
			return 40000
		case s < 180:
			return 40000 - 30000*float64(s-120)/60
		}
		return 10000 + float64(s%7)*10 // a little noise
	}
	flat := func(int) float64 { return 1000 }
	res := &result.Block{
		Jobs: []result.BlockJob{
			{JobName: "a", Series: seriesOf(cliff, 20*60)},
			{JobName: "b", Series: seriesOf(flat, 20*60)},
		},
		Groups: []result.BlockGroup{{GroupID: 0, Jobs: []int{0, 1}}},
	}
	// ss_ramp past the plateau: a window on it would be met (a 2-minute
	// plateau is as flat as the settled rate), as fio would stop there.
	ss := &SteadyState{Criterion: "iops_slope:0.01%", Dur: 120 * time.Second, Ramp: 150 * time.Second}
	ss.Analyse(res, map[int]bool{0: true})
	if len(res.Sustained) != 3 {
		t.Fatalf("%d entries, want 2 jobs and their group", len(res.Sustained))
	}
	a, grp := res.Sustained[0], res.Sustained[2]
	if a.FirstMinuteIOPS != 40000 || a.FirstMinuteS != 60 {
		t.Errorf("first minute %.0f over %d s, want 40000 over 60", a.FirstMinuteIOPS, a.FirstMinuteS)
	}
	if !a.SNIA.Attained || a.SNIA.WindowStartRound != 3 || len(a.SNIA.RoundsIOPS) != 20 {
		t.Errorf("SNIA %+v: want attained from round 3 (the first whole minute after the fall)", a.SNIA)
	}
	// fio's criterion was named, so it decides the settled window.
	if a.Fio == nil || !a.Fio.Attained || a.SettledBy != "fio" || a.SettleStartS < 170 || a.SettleS != 120 {
		t.Errorf("settled %+v fio %+v: want fio's window of 120 s after the fall", a, a.Fio)
	}
	if math.Abs(a.SettledIOPS-10030) > 30 || math.Abs(a.DropPct-75) > 0.2 {
		t.Errorf("settled %.0f, drop %.2f%%; want ~10030 and ~75%%", a.SettledIOPS, a.DropPct)
	}
	if a.WorstMinuteIOPS > 10100 || a.WorstMinuteStartS < 180 {
		t.Errorf("worst minute %.0f at %d s", a.WorstMinuteIOPS, a.WorstMinuteStartS)
	}
	if grp.Job != -1 || grp.Group != 0 || grp.Name != "a + b" || grp.FirstMinuteIOPS != 41000 || !grp.StoppedAtSteady {
		t.Errorf("group entry %+v: want the two jobs summed", grp)
	}
}

// The judge of a running group stops at the first second whose window
// meets the rule: SNIA's on the latest five rounds, fio's after its ramp
// and on the metric it names. It is fed the series as it grows, as the
// watch feeds it.
func TestSteadyJudge(t *testing.T) {
	flat := func(n int, v float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	cases := []struct {
		name    string
		ss      SteadyState
		iops    []float64
		bw      []float64
		stopsAt int // slots seen when it stops; -1: never
	}{
		{"SNIA on the latest rounds", SteadyState{Round: time.Second, UntilSteady: true},
			[]float64{100, 300, 50, 400, 10, 1000, 1000, 1000, 1000, 1000, 1000}, nil, 10},
		{"SNIA never settles", SteadyState{Round: time.Second, UntilSteady: true},
			[]float64{100, 300, 50, 400, 10, 1000, 5, 1000, 5, 1000}, nil, -1},
		{"fio waits out its ramp", SteadyState{Criterion: "iops:10%", Dur: 2 * time.Second, Ramp: 3 * time.Second, UntilSteady: true},
			[]float64{500, 500, 1, 1000, 500, 500, 500}, nil, 6},
		{"fio judges the bandwidth it names", SteadyState{Criterion: "bw:10%", Dur: 2 * time.Second, UntilSteady: true},
			flat(6, 100), []float64{1, 1000, 1, 1000, 1, 1000}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bw := tc.bw
			if bw == nil {
				bw = tc.iops
			}
			j := tc.ss.Judge()
			got := -1
			for n := 0; n <= len(tc.iops); n++ {
				if j.Done(tc.iops[:n], bw[:n]) {
					got = n
					break
				}
			}
			if got != tc.stopsAt {
				t.Errorf("stopped after %d slots, want %d", got, tc.stopsAt)
			}
		})
	}
	if j := (&SteadyState{}).Judge(); j != nil {
		t.Errorf("judge %v without UntilSteady, want none", j)
	}
}

// --until-steady ends the group once fio's criterion holds: a loose one on a
// file in the page cache is met after its first window of two seconds, long
// before the cap.
func TestUntilSteadyStopsTheGroup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	w := blockbench.Workload{Name: "r", Filename: path, RW: blockbench.RandRead, BS: 4 << 10, Size: 1 << 20, IODepth: 1, NumJobs: 1,
		IOEngine: blockbench.EnginePsync, Runtime: 30 * time.Second, TimeBased: true, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}, Seed: 1}
	ss := &SteadyState{Criterion: "iops:95%", Dur: 2 * time.Second, UntilSteady: true}
	res, err := blockbench.RunPlan(context.Background(), blockbench.Plan{Groups: []blockbench.Group{{w}}, Analysis: ss})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sustained) != 1 {
		t.Fatalf("%d sustained entries, want 1", len(res.Sustained))
	}
	s := res.Sustained[0]
	if !s.StoppedAtSteady || s.Fio == nil || !s.Fio.Attained || s.SettledBy != "fio" {
		t.Errorf("sustained %+v: want stopped at steady state by fio's criterion", s)
	}
	if res.Interrupted || res.Jobs[0].Interrupted {
		t.Error("a stop at steady state is not an interruption")
	}
}

func TestSteadyStateRefusals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	w := blockbench.Workload{Name: "r", Filename: path, RW: blockbench.RandRead, BS: 4 << 10, Size: 1 << 20, IODepth: 1, NumJobs: 1,
		IOEngine: blockbench.EnginePsync, Runtime: 5 * time.Second, TimeBased: true, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}}
	cases := []struct {
		name string
		ss   SteadyState
		edit func(*blockbench.Workload)
		flag string
	}{
		{"criterion without window", SteadyState{Criterion: "iops:10%"}, nil, "--ss_dur"},
		{"window without criterion", SteadyState{Dur: 10 * time.Second}, nil, "--ss_dur"},
		{"bad criterion", SteadyState{Criterion: "lat:10", Dur: 10 * time.Second}, nil, "--steadystate"},
		{"part of a second", SteadyState{Criterion: "iops:10%", Dur: 1500 * time.Millisecond}, nil, "--ss_dur"},
		{"until steady without a cap", SteadyState{UntilSteady: true}, func(w *blockbench.Workload) { w.Runtime = 0 }, "--until-steady"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wl := w
			if tc.edit != nil {
				tc.edit(&wl)
			}
			ss := tc.ss
			res, err := blockbench.RunPlan(context.Background(), blockbench.Plan{Groups: []blockbench.Group{{wl}}, Analysis: &ss})
			if res != nil || !isUsageFor(err, tc.flag) {
				t.Fatalf("err %v, want a usage error naming %s and no result", err, tc.flag)
			}
		})
	}
	if entries, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(entries) != 0 {
		t.Errorf("a refused plan left %v", entries)
	}
}

func isUsageFor(err error, flag string) bool {
	var ue *result.UsageError
	return errors.As(err, &ue) && ue.Flag == flag
}
