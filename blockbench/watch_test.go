package blockbench

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

// judgeOnce is an Analysis for the hook's test: it refuses a workload
// named "refused", ends each group (when ends is set) once one second of
// its series is complete, and keeps what it was shown.
type judgeOnce struct {
	ends     bool
	slots    int
	analysed bool
	stopped  map[int]bool
}

func (a *judgeOnce) Check(g []Workload) error {
	for _, w := range g {
		if w.Name == "refused" {
			return result.Usagef("--judge", "job %s refused", w.Name)
		}
	}
	return nil
}

func (a *judgeOnce) Judge() GroupJudge {
	if !a.ends {
		return nil
	}
	return a
}

func (a *judgeOnce) Done(iops, _ []float64) bool {
	a.slots = len(iops)
	return len(iops) >= 1
}

func (a *judgeOnce) Analyse(_ *result.Block, stopped map[int]bool) {
	a.analysed, a.stopped = true, stopped
}

// A plan's Analysis refuses groups before anything is created, its judge
// ends a group long before its runtime, and Analyse hears which groups the
// judge ended; an analysis without a judge lets the group run its course.
func TestAnalysisHooks(t *testing.T) {
	dir := t.TempDir()
	w := Workload{Name: "r", Filename: filepath.Join(dir, "f"), RW: RandRead, BS: 4 << 10, Size: 1 << 20, IODepth: 1, NumJobs: 1,
		IOEngine: EnginePsync, Runtime: 30 * time.Second, TimeBased: true, Buffer: Buffer{Kind: BufferRandom}, Seed: 1}
	refused := w
	refused.Name = "refused"
	a := &judgeOnce{ends: true}
	if res, err := RunPlan(context.Background(), Plan{Groups: []Group{{refused}}, Analysis: a}); res != nil || !isUsageFor(err, "--judge") {
		t.Fatalf("refused group: err %v, want the analysis' usage error and no result", err)
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, "*")); len(entries) != 0 || a.analysed {
		t.Fatalf("a refused plan left %v, analysed %v", entries, a.analysed)
	}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, Analysis: a})
	if err != nil {
		t.Fatal(err)
	}
	if !a.analysed || !a.stopped[0] || a.slots < 1 {
		t.Errorf("analysed %v, stopped %v after %d slots: want group 0 ended by the judge", a.analysed, a.stopped, a.slots)
	}
	if n := len(res.Jobs[0].Series); n < 1 || n >= 30 || res.Interrupted || res.Jobs[0].Interrupted {
		t.Errorf("%d seconds in the series, interrupted %v: want the group ended early, not interrupted", n, res.Interrupted)
	}
	quiet := &judgeOnce{}
	w.Runtime = 2 * time.Second
	if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, Analysis: quiet}); err != nil {
		t.Fatal(err)
	}
	if !quiet.analysed || len(quiet.stopped) != 0 || quiet.slots != 0 {
		t.Errorf("no judge: analysed %v, stopped %v, %d slots judged; want analysed, nothing stopped", quiet.analysed, quiet.stopped, quiet.slots)
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
