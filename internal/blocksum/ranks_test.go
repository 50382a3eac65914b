package blocksum

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// latOf is a lat_ns object of n latencies from lowNs up by stepNs, at
// fio's percentiles.
func latOf(n, lowNs, stepNs int64) result.LatNs {
	r := latency.New()
	for i := range n {
		r.Record(time.Duration(lowNs + i*stepNs))
	}
	return result.LatNsFrom(r, latency.FioPercentiles)
}

// rankJob is one rank's job: reads I/Os over elapsed, latencies from lowNs.
func rankJob(reads, elapsedNs, lowNs int64, usr float64, notes ...string) result.BlockJob {
	j := result.BlockJob{JobName: "rr", ElapsedNs: elapsedNs, JobRuntime: elapsedNs / 1e6, UsrCPU: usr, Syncs: 2, Notes: notes}
	j.Ctx = 3
	j.Read = dirOf(reads, elapsedNs)
	j.Read.Clat, j.Read.Lat = latOf(reads, lowNs, 10), latOf(reads, lowNs+50, 10)
	j.Sync = result.BlockSyncDir{TotalIOs: 2, Lat: latOf(2, lowNs*10, 1)}
	j.Series = []result.BlockSample{{StartMs: 0, DurationNs: 1e9, ReadIOs: reads / 2, IOPS: float64(reads / 2)}}
	return j
}

// mergeLog is a Shaper that records the parts Merge was given.
type mergeLog struct{ parts int }

func (*mergeLog) Group(*result.BlockGroup, []*result.BlockJob) {}

func (l *mergeLog) Merge(m *result.BlockJob, parts []result.BlockJob) error {
	l.parts += len(parts)
	m.IODepthLevel = result.Dist{{Key: "1", Value: 100}}
	return nil
}

// TestMergeRanks: two ranks' jobs add up as fio's client adds its
// servers: counts summed, the slowest rank's runtime, the histograms
// merged into true percentiles, the CPU weighted by runtime.
func TestMergeRanks(t *testing.T) {
	slow, fast := rankJob(4000, 4e9, 1000, 10, "a"), rankJob(1000, 1e9, 90000, 50, "a", "b")
	for _, j := range []*result.BlockJob{&slow, &fast} {
		mixed := j.Read // fio's unified_rw_reporting: every direction as one
		j.Mixed = &mixed
	}
	var shape mergeLog
	merged, err := MergeRanks([][]result.BlockJob{{slow}, {fast}}, &shape)
	if err != nil {
		t.Fatal(err)
	}
	m := merged[0]
	if m.Read.TotalIOs != 5000 || m.Read.IOBytes != 5000*4096 || m.Read.RuntimeNs != 4e9 || m.Read.IOPS != 1250 {
		t.Errorf("read %d I/Os %d bytes over %d ns, %g IOPS; want 5000 over the slow rank's 4 s", m.Read.TotalIOs, m.Read.IOBytes, m.Read.RuntimeNs, m.Read.IOPS)
	}
	if m.ElapsedNs != 4e9 || m.JobRuntime != 4000 || m.Syncs != 4 || m.Sync.TotalIOs != 4 || m.Sync.Lat.N != 4 || m.Ctx != 6 {
		t.Errorf("elapsed %d runtime %d syncs %d/%d/%d ctx %d", m.ElapsedNs, m.JobRuntime, m.Syncs, m.Sync.TotalIOs, m.Sync.Lat.N, m.Ctx)
	}
	if m.UsrCPU != (10*4+50*1)/5.0 {
		t.Errorf("usr CPU %g, want the runtime-weighted 18", m.UsrCPU)
	}
	if !slices.Equal(m.Notes, []string{"a", "b"}) || len(m.Series) != 1 || m.Series[0].ReadIOs != 2500 || m.Trend.Samples != 1 {
		t.Errorf("notes %v series %+v trend %+v", m.Notes, m.Series, m.Trend)
	}
	if shape.parts != 2 || m.IODepthLevel == nil {
		t.Errorf("the shape merged %d parts, iodepth_level %v", shape.parts, m.IODepthLevel)
	}
	// The percentiles are the merged histogram's, not rank 0's.
	all := latency.New()
	for _, l := range []result.LatNs{slow.Read.Clat, fast.Read.Clat} {
		r, err := l.Recorder()
		if err != nil {
			t.Fatal(err)
		}
		all.Merge(r)
	}
	want := result.LatNsFrom(all, latency.FioPercentiles)
	if m.Read.Clat.N != 5000 || m.Read.Clat.Min != 1000 || m.Read.Clat.Max != fast.Read.Clat.Max || !slices.Equal(m.Read.Clat.Percentile, want.Percentile) {
		t.Errorf("clat N %d min %d max %d percentiles %v, want the merged histogram's %v", m.Read.Clat.N, m.Read.Clat.Min, m.Read.Clat.Max, m.Read.Clat.Percentile, want.Percentile)
	}
	if m.Mixed == nil || m.Mixed.TotalIOs != 5000 || m.Mixed.RuntimeNs != 4e9 || m.Mixed.Clat.N != 5000 {
		t.Errorf("mixed %+v, want the sum of the ranks' mixed", m.Mixed)
	}
	if m.Read.Lat.N != 5000 || m.Write.TotalIOs != 0 || m.Write.Clat.N != 0 {
		t.Errorf("lat N %d, write %+v", m.Read.Lat.N, m.Write)
	}
}

// TestMergeRanksRefuses ranks that ran other jobs.
func TestMergeRanksRefuses(t *testing.T) {
	a := []result.BlockJob{rankJob(10, 1e9, 100, 0)}
	other := []result.BlockJob{rankJob(10, 1e9, 100, 0)}
	other[0].JobName = "else"
	for _, tc := range []struct {
		name  string
		ranks [][]result.BlockJob
		want  string
	}{
		{"another job", [][]result.BlockJob{a, other}, `rank 1's job 0 is "else"`},
		{"missing jobs", [][]result.BlockJob{a, nil}, "rank 1 ran 0 jobs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := MergeRanks(tc.ranks, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
	if m, err := MergeRanks(nil, nil); m != nil || err != nil {
		t.Errorf("no ranks: %v, %v", m, err)
	}
}

// TestMergeRankGroups: the result's jobs are the sums, and its reporting
// groups are summed again from them.
func TestMergeRankGroups(t *testing.T) {
	job := func(name string, group int, reads int64) result.BlockJob {
		j := rankJob(reads, 1e9, 100, 0)
		j.JobName, j.GroupID = name, group
		return j
	}
	groups := [][][]result.BlockJob{
		{{job("a", 0, 10)}, {job("a", 0, 20)}},
		{{job("b", 1, 100), job("c", 1, 200)}, {job("b", 1, 1), job("c", 1, 2)}},
	}
	res := &result.Block{Jobs: make([]result.BlockJob, 3)}
	if err := MergeRankGroups(res, groups, nil); err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 3 || res.Jobs[0].Read.TotalIOs != 30 || res.Jobs[2].Read.TotalIOs != 202 {
		t.Errorf("jobs %+v", res.Jobs)
	}
	if len(res.Groups) != 1 || !slices.Equal(res.Groups[0].Jobs, []int{1, 2}) || res.Groups[0].Read.TotalIOs != 303 {
		t.Errorf("groups %+v", res.Groups)
	}
	short := &result.Block{Jobs: make([]result.BlockJob, 2)}
	if err := MergeRankGroups(short, groups, nil); err == nil || !strings.Contains(err.Error(), "holds 2 jobs, the ranks' groups 3") {
		t.Errorf("a result of other jobs: %v", err)
	}
}
