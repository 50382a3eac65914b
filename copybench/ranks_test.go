package copybench

import (
	"context"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// copyPhases records what a rank's run asks of the coordinator.
type copyPhases struct {
	before []int
	done   []int64
	figs   []result.CopyFigure
}

func (p *copyPhases) Before(_ context.Context, step int, done func() int64) error {
	p.before = append(p.before, step)
	p.done = append(p.done, done())
	return nil
}

func (p *copyPhases) After(_ context.Context, step int, fig result.CopyFigure) error {
	p.figs = append(p.figs, fig)
	return nil
}

// Every set's timed copy starts at the common start and hands its figure
// over; two ranks share -d without refusing each other (rank 0's caller
// holds the lock).
func TestRanksSteps(t *testing.T) {
	dir := t.TempDir()
	var ps [2]*copyPhases
	var res [2]*result.Copy
	errs := make(chan error, 2)
	for r := range 2 {
		ps[r] = &copyPhases{}
		o := smallOptions(dir)
		o.Phases, o.Sharers = ps[r], 2
		go func() {
			var err error
			res[r], err = Run(context.Background(), o)
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for r, p := range ps {
		if len(p.before) != len(res[r].Results) || len(p.figs) != len(res[r].Results) || p.before[len(p.before)-1] != len(p.before)-1 {
			t.Fatalf("rank %d: before %v, %d figures for %d results", r, p.before, len(p.figs), len(res[r].Results))
		}
		for i, f := range p.figs {
			if p.done[i] != 0 || f.Files != res[r].Results[i].Files || !f.Verified {
				t.Errorf("rank %d step %d: %d done at the start, handed %d files (verified %v), result %d", r, i, p.done[i], f.Files, f.Verified, res[r].Results[i].Files)
			}
		}
	}
	a, b := res[0].Results[0], res[1].Results[0]
	if b.ElapsedNs > a.ElapsedNs {
		a, b = b, a // the slower rank first: its time is the job's
	}
	merged, err := MergeRanks([]result.CopyFigure{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if merged.Files != a.Files+b.Files || merged.Bytes != a.Bytes+b.Bytes || merged.ElapsedNs != max(a.ElapsedNs, b.ElapsedNs) ||
		merged.Latency.Count != a.Latency.Count+b.Latency.Count || !merged.Verified || merged.Latency.MaxNs != max(a.Latency.MaxNs, b.Latency.MaxNs) {
		t.Errorf("merged %d files %d bytes in %d ns, %d latencies max %d, verified %v; from %+v and %+v", merged.Files, merged.Bytes, merged.ElapsedNs, merged.Latency.Count, merged.Latency.MaxNs, merged.Verified, a, b)
	}
	if want := float64(merged.Bytes) / 1e6 / (float64(merged.ElapsedNs) / 1e9); merged.MBPerSec != want {
		t.Errorf("MB/s %g, want the sum over the slowest rank's time %g", merged.MBPerSec, want)
	}
	b.Verified = false
	if m, _ := MergeRanks([]result.CopyFigure{a, b}); m.Verified {
		t.Error("verified with a rank's copies unverified")
	}
	b.Set = "other"
	if _, err := MergeRanks([]result.CopyFigure{a, b}); err == nil || !strings.Contains(err.Error(), "rank 1 copied other") {
		t.Errorf("different sets: %v", err)
	}
}
