package blockbench

import (
	"math"
	"testing"
	"time"

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
	analyseSustained(&SteadyState{Criterion: "iops_slope:0.01%", Dur: 120 * time.Second, Ramp: 150 * time.Second}, res, map[int]bool{0: true})
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

// The watch's live series is the one mergeSeries gives afterwards, so the
// result shows what the run stopped on.
func TestLiveSeriesMatchesMergeSeries(t *testing.T) {
	wl := resolvedForTest(Workload{Name: "m", RW: RandRW, RWMixRead: 50, BS: 4096, IODepth: 1, NumJobs: 3,
		IOEngine: EnginePsync, Runtime: 5 * time.Second, TimeBased: true}, 1<<20)
	workers, _ := syntheticWorkers(wl, 5, func(sec int) int64 { return int64(100 + 10*sec) }, 1000, 3)
	iops, bw := liveSeries(workers)
	merged := mergeSeries(workers, 0)
	if len(iops) != len(merged) {
		t.Fatalf("%d live slots, %d merged", len(iops), len(merged))
	}
	for i := range merged {
		if iops[i] != merged[i].IOPS || int64(math.Round(bw[i])) != merged[i].BWBytes {
			t.Errorf("slot %d: live %.1f IOPS %.0f B/s, merged %.1f %d", i, iops[i], bw[i], merged[i].IOPS, merged[i].BWBytes)
		}
	}
}

// TestSeriesClosingSliceJoinsTheLastSecond: the few microseconds of I/O
// after a run's last whole second are added to that second, not reported
// as a sample of their own (31 I/Os in 11 us read as 2.8M IOPS on a 170k
// IOPS test); every I/O is still counted once.
func TestSeriesClosingSliceJoinsTheLastSecond(t *testing.T) {
	sec := int64(time.Second)
	w := &worker{}
	var ios int64
	for i := 0; i <= marksPerSample; i++ { // one whole second, 170k IOPS
		w.marks = append(w.marks, mark{atNs: int64(i) * markEvery, ios: [2]int64{ios, 0}, bytes: [2]int64{ios * 4096, 0}})
		ios += 170000 / int64(marksPerSample)
	}
	last := w.marks[len(w.marks)-1]
	w.marks = append(w.marks, mark{atNs: sec + 10980, ios: [2]int64{last.ios[0] + 31, 0}, bytes: [2]int64{(last.ios[0] + 31) * 4096, 0}})
	series := mergeSeries([]*worker{w}, 0)
	if len(series) != 1 {
		t.Fatalf("%d samples, want the closing slice merged into one: %+v", len(series), series)
	}
	s := series[0]
	if s.ReadIOs != last.ios[0]+31 || s.DurationNs != sec+10980 {
		t.Errorf("merged sample %+v: want %d I/Os over %d ns", s, last.ios[0]+31, sec+10980)
	}
	if s.IOPS > 200000 {
		t.Errorf("IOPS %.0f: the closing slice still spikes the series", s.IOPS)
	}
	// A closing slice of half a second or more is a sample of its own.
	w.marks[len(w.marks)-1].atNs = sec + sec/2
	if n := len(mergeSeries([]*worker{w}, 0)); n != 2 {
		t.Errorf("a half-second closing slice: %d samples, want 2", n)
	}
}
