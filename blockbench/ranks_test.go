package blockbench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// phasesLog is a GroupPhases that records what the run asked of it.
type phasesLog struct {
	dir     string
	before  []int
	after   []int
	jobs    [][]result.BlockJob
	files   [][]string // the directory's names at each common start
	done    []int64    // the group's I/Os when it started
	failAt  int        // Before fails at this group, -1 never
	failErr error
}

func (p *phasesLog) Before(_ context.Context, g int, done func() int64) error {
	p.before = append(p.before, g)
	p.done = append(p.done, done())
	ents, _ := os.ReadDir(p.dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	p.files = append(p.files, names)
	if g == p.failAt {
		return p.failErr
	}
	return nil
}

func (p *phasesLog) After(_ context.Context, g int, jobs []result.BlockJob) error {
	p.after = append(p.after, g)
	p.jobs = append(p.jobs, jobs)
	return nil
}

func rankWorkload(path string, rw RW, seed uint64) Workload {
	return Workload{Name: string(rw), Filename: path, RW: rw, BS: 4 << 10, Size: 1 << 20, IODepth: 1, NumJobs: 1,
		IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: seed}
}

// A rank runs its own file, every group held at the common start and
// handed over at its end.
func TestRanksPlan(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	ph := &phasesLog{dir: dir, failAt: -1}
	write, read := rankWorkload(path, Write, 1), rankWorkload(path, RandRead, 2)
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{write}, {read}}, Ranks: &Ranks{Rank: 2, Size: 3, HostRanks: 3, Phases: ph}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ph.before) != 2 || ph.before[0] != 0 || ph.before[1] != 1 || len(ph.after) != 2 || ph.after[1] != 1 {
		t.Fatalf("before %v, after %v; want each group once, in order", ph.before, ph.after)
	}
	for g, names := range ph.files {
		if !containsName(names, "data.rank2") || containsName(names, "data") {
			t.Errorf("group %d started with %v: want the rank's own file data.rank2", g, names)
		}
		if ph.done[g] != 0 {
			t.Errorf("group %d had done %d I/Os at its common start", g, ph.done[g])
		}
	}
	if n := ph.jobs[0][0].Write.TotalIOs; n != 256 || res.Jobs[0].Write.TotalIOs != n {
		t.Errorf("group 1 handed over %d writes, result %d; want 256", n, res.Jobs[0].Write.TotalIOs)
	}
	if !strings.HasSuffix(res.Target.Path, "data.rank2") {
		t.Errorf("target %q", res.Target.Path)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
}

// A failed common start (a lost rank) starts no worker and leaves nothing.
func TestRanksBeforeFails(t *testing.T) {
	dir := t.TempDir()
	lost := errors.New("rank 1 lost")
	ph := &phasesLog{dir: dir, failAt: 0, failErr: lost}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{rankWorkload(filepath.Join(dir, "data"), Write, 1)}}, Ranks: &Ranks{Rank: 0, Size: 2, HostRanks: 2, Phases: ph}})
	if !errors.Is(err, lost) {
		t.Fatalf("err %v, want the lost rank", err)
	}
	if res != nil && len(res.Jobs) != 0 {
		t.Errorf("%d jobs ran", len(res.Jobs))
	}
	if len(ph.after) != 0 {
		t.Errorf("after called for %v", ph.after)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

func TestRankTargetName(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	for _, tc := range []struct {
		r    *Ranks
		want string
	}{
		{nil, file},
		{&Ranks{Rank: 0, Size: 1, HostRanks: 1}, file},
		{&Ranks{Rank: 3, Size: 4, HostRanks: 4}, file + ".rank3"},
		{&Ranks{Rank: 0, Size: 4, HostRanks: 1}, file + ".rank0"},
	} {
		got, err := tc.r.targetName(file)
		if err != nil || got != tc.want {
			t.Errorf("%+v: %q, %v; want %q", tc.r, got, err, tc.want)
		}
	}
	dev := anyBlockDevice(t)
	if got, err := (&Ranks{Rank: 1, Size: 2, HostRanks: 1}).targetName(dev); err != nil || got != dev {
		t.Errorf("one rank on the host: %q, %v; want the device as named", got, err)
	}
	_, err := (&Ranks{Rank: 1, Size: 2, HostRanks: 2}).targetName(dev)
	if !result.IsUsage(err) || !strings.Contains(err.Error(), "each host's device takes one rank") {
		t.Errorf("two ranks on one host's device: %v", err)
	}
}

// anyBlockDevice is a block device node of this machine (only its type
// is looked at).
func anyBlockDevice(t *testing.T) string {
	t.Helper()
	ents, _ := os.ReadDir("/dev")
	for _, e := range ents {
		if e.Type()&os.ModeDevice != 0 && e.Type()&os.ModeCharDevice == 0 {
			return filepath.Join("/dev", e.Name())
		}
	}
	clydetest.Skip(t, "no block device node in /dev")
	return ""
}

func TestRanksRefuse(t *testing.T) {
	w := rankWorkload(filepath.Join(t.TempDir(), "f"), Read, 1)
	r := &Ranks{Rank: 0, Size: 2, HostRanks: 2}
	for name, p := range map[string]Plan{
		"an analysis": {Groups: []Group{{w}}, Analysis: &judgeOnce{}, Ranks: r},
		"private dir": {Groups: []Group{{w}}, PrivateDir: true, Ranks: r},
		"fill":        {Groups: []Group{{w}}, Fill: FillLevel{Pct: 50}, Ranks: r},
	} {
		if _, err := RunPlan(context.Background(), p); !result.IsUsage(err) {
			t.Errorf("%s across ranks: %v, want a usage error", name, err)
		}
	}
}

// Two ranks' real jobs add up as fio's client adds its servers: counts
// summed, the slowest runtime, the histograms merged.
func TestMergeRanks(t *testing.T) {
	var ranks [][]result.BlockJob
	for r := range 2 {
		w := rankWorkload(filepath.Join(t.TempDir(), "f"), RandRead, uint64(r+1))
		w.Name = "rr"
		if r == 0 {
			w.Size = 4 << 20 // the slower rank, first: four times the I/Os
		}
		res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, Shape: fioShape})
		if err != nil {
			t.Fatal(err)
		}
		ranks = append(ranks, res.Jobs)
	}
	merged, err := MergeRanks(ranks, fioShape)
	if err != nil {
		t.Fatal(err)
	}
	a, b, m := ranks[0][0].Read, ranks[1][0].Read, merged[0].Read
	if m.TotalIOs != 1280 || m.TotalIOs != a.TotalIOs+b.TotalIOs || m.IOBytes != a.IOBytes+b.IOBytes {
		t.Errorf("merged %d I/Os %d bytes from %d+%d, %d+%d", m.TotalIOs, m.IOBytes, a.TotalIOs, b.TotalIOs, a.IOBytes, b.IOBytes)
	}
	if m.RuntimeNs != max(a.RuntimeNs, b.RuntimeNs) || m.IOPS != float64(m.TotalIOs)*1e9/float64(m.RuntimeNs) {
		t.Errorf("runtime %d (ranks %d, %d), IOPS %g", m.RuntimeNs, a.RuntimeNs, b.RuntimeNs, m.IOPS)
	}
	if merged[0].ElapsedNs != max(ranks[0][0].ElapsedNs, ranks[1][0].ElapsedNs) {
		t.Errorf("elapsed %d", merged[0].ElapsedNs)
	}
	// The percentiles are the merged histogram's, not an average.
	all := latency.New()
	for _, l := range []result.LatNs{a.Clat, b.Clat} {
		r, err := l.Recorder()
		if err != nil {
			t.Fatal(err)
		}
		all.Merge(r)
	}
	want := result.LatNsFrom(all, latency.FioPercentiles)
	if m.Clat.N != 1280 || m.Clat.Min != min(a.Clat.Min, b.Clat.Min) || m.Clat.Max != max(a.Clat.Max, b.Clat.Max) || len(m.Clat.Percentile) != len(want.Percentile) {
		t.Fatalf("clat N %d min %d max %d, %d percentiles", m.Clat.N, m.Clat.Min, m.Clat.Max, len(m.Clat.Percentile))
	}
	for i, p := range want.Percentile {
		if m.Clat.Percentile[i] != p {
			t.Errorf("p%g: %d, want the merged histogram's %d", p.P, m.Clat.Percentile[i].Value, p.Value)
		}
	}
	var series int64
	for _, s := range merged[0].Series {
		series += s.ReadIOs
	}
	if series != 1280 {
		t.Errorf("the merged series holds %d reads, want 1280", series)
	}
	if v, ok := merged[0].IODepthLevel.At("1"); !ok || v != 100 {
		t.Errorf("iodepth_level %v", merged[0].IODepthLevel)
	}
	// The ranks must have run the same jobs.
	other := append([]result.BlockJob(nil), ranks[1]...)
	other[0].JobName = "else"
	if _, err := MergeRanks([][]result.BlockJob{ranks[0], other}, fioShape); err == nil || !strings.Contains(err.Error(), `rank 1's job 0 is "else"`) {
		t.Errorf("different jobs: %v", err)
	}
	if _, err := MergeRanks([][]result.BlockJob{ranks[0], nil}, fioShape); err == nil || !strings.Contains(err.Error(), "rank 1 ran 0 jobs") {
		t.Errorf("missing jobs: %v", err)
	}
}
