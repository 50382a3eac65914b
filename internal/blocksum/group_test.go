package blocksum

import (
	"slices"
	"testing"

	"github.com/clydebench/clyde/result"
)

// dirOf is a direction of ios 4 KiB I/Os over ns.
func dirOf(ios, ns int64) result.BlockDir {
	var d result.BlockDir
	Dir(&d, ios, ios*4096, 0, ns)
	return d
}

// TestGroup: a reporting group's I/Os and bytes summed over its longest
// runtime, whichever direction it was.
func TestGroup(t *testing.T) {
	jobs := []result.BlockJob{
		{Read: dirOf(1000, 1e9), Write: dirOf(500, 1e9)},
		{Read: dirOf(3000, 2e9)},
		{Write: dirOf(100, 3e9)}, // the longest: a write
	}
	jobs[1].Read.ShortIOs = 7
	g := Group(4, jobs, 10)
	if g.GroupID != 4 || !slices.Equal(g.Jobs, []int{10, 11, 12}) {
		t.Errorf("group %d jobs %v", g.GroupID, g.Jobs)
	}
	if g.Read.TotalIOs != 4000 || g.Read.IOBytes != 4000*4096 || g.Read.ShortIOs != 7 || g.Write.TotalIOs != 600 {
		t.Errorf("sums: read %+v write %+v", g.Read, g.Write)
	}
	if g.Read.RuntimeNs != 3e9 || g.Write.RuntimeNs != 3e9 || g.Read.IOPS != 4000.0/3 || g.Write.IOPS != 200 {
		t.Errorf("rates over the longest runtime: read %d ns %g IOPS, write %d ns %g IOPS", g.Read.RuntimeNs, g.Read.IOPS, g.Write.RuntimeNs, g.Write.IOPS)
	}
	if e := Group(0, []result.BlockJob{{}}, 0); e.Read.RuntimeNs != 0 || e.Read.IOPS != 0 {
		t.Errorf("a group without I/O has rates: %+v", e.Read)
	}
}

// groupLog is a Shaper that records the groups it was given.
type groupLog struct {
	groups  []result.BlockGroup
	members [][]string
}

func (l *groupLog) Group(g *result.BlockGroup, jobs []*result.BlockJob) {
	var names []string
	for _, j := range jobs {
		names = append(names, j.JobName)
	}
	l.groups, l.members = append(l.groups, *g), append(l.members, names)
	g.Read.IOKBytes = -1 // what the shape fills shows in the result
}

func (l *groupLog) Merge(*result.BlockJob, []result.BlockJob) error { return nil }

// TestReportGroups: consecutive jobs of one group id make a reporting
// group; a group of one job gets no entry, but the shape sees it.
func TestReportGroups(t *testing.T) {
	jobs := []result.BlockJob{
		{JobName: "a", GroupID: 0, Read: dirOf(10, 1e9)},
		{JobName: "b", GroupID: 1, Read: dirOf(20, 1e9)},
		{JobName: "c", GroupID: 1, Read: dirOf(30, 2e9)},
		{JobName: "d", GroupID: 2, Read: dirOf(40, 1e9)},
	}
	var log groupLog
	gs := ReportGroups(jobs, 5, &log)
	if len(gs) != 1 || gs[0].GroupID != 1 || !slices.Equal(gs[0].Jobs, []int{6, 7}) || gs[0].Read.TotalIOs != 50 || gs[0].Read.RuntimeNs != 2e9 {
		t.Fatalf("groups %+v, want group 1 of jobs 6 and 7", gs)
	}
	if gs[0].Read.IOKBytes != -1 {
		t.Error("the shape's group fields are not the result's")
	}
	want := [][]string{{"a"}, {"b", "c"}, {"d"}}
	if len(log.members) != len(want) {
		t.Fatalf("the shape saw %v, want %v", log.members, want)
	}
	for i := range want {
		if !slices.Equal(log.members[i], want[i]) {
			t.Errorf("the shape saw %v, want %v", log.members, want)
		}
	}
	if gs := ReportGroups(jobs, 0, nil); len(gs) != 1 || gs[0].Read.IOKBytes != 200 {
		t.Errorf("without a shape: %+v", gs)
	}
}
