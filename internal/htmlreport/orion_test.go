package htmlreport

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/result"
)

// basicSet is ORION's simple level for one disk: a row of small loads and a
// column of large ones, and one mixed point.
func basicSet() result.OrionSet {
	return result.OrionSet{SizeSmallKiB: 8, SmallLoads: []int{0, 1, 2, 3}, LargeLoads: []int{0, 1, 2},
		Points: []result.OrionPoint{
			{Small: 1, SmallIOPS: 100}, {Small: 2, SmallIOPS: 180}, {Small: 3, SmallIOPS: 240},
			{Large: 1, LargeMBPS: 50}, {Large: 2, LargeMBPS: 90},
			{Small: 2, Large: 1, SmallIOPS: 120, LargeMBPS: 40},
		}}
}

func TestOrionGrid(t *testing.T) {
	s := basicSet()
	g, ok := gridOf(&s, orionMetrics[0])
	if !ok {
		t.Fatal("no small IOPS grid")
	}
	if c, r := g.Dims(); c != 4 || r != 3 {
		t.Fatalf("dims %dx%d, want 4 small loads by 3 large", c, r)
	}
	want := map[[2]int]float64{{1, 0}: 100, {2, 0}: 180, {3, 0}: 240, {2, 1}: 120}
	for r := range 3 {
		for c := range 4 {
			v, has := want[[2]int{c, r}]
			if got := g.Z(c, r); has != !math.IsNaN(got) || has && got != v {
				t.Errorf("cell small=%d large=%d: %v, want %v (set %v)", s.SmallLoads[c], s.LargeLoads[r], got, v, has)
			}
		}
	}
	// Large=0 and Small=0 have no MB/s and no IOPS: those cells stay blank.
	g, _ = gridOf(&s, orionMetrics[1])
	if !math.IsNaN(g.Z(1, 0)) || g.Z(0, 2) != 90 || g.Z(2, 1) != 40 {
		t.Errorf("MBPS grid %v", g.z)
	}
	if lo, hi := g.span(); lo != 40 || hi != 90 {
		t.Errorf("span %v..%v, want 40..90", lo, hi)
	}
	empty := result.OrionSet{SmallLoads: []int{0}, LargeLoads: []int{1}, Points: []result.OrionPoint{{Large: 1, LargeMBPS: 5}}}
	if _, ok := gridOf(&empty, orionMetrics[0]); ok {
		t.Error("a set without small I/O has no IOPS map")
	}
}

func TestSustainedView(t *testing.T) {
	b := &result.Block{Jobs: []result.BlockJob{{JobName: "a"}, {JobName: "b"}}, Groups: []result.BlockGroup{{Jobs: []int{0, 1}}}}
	for i := range 300 {
		b.Jobs[0].Series = append(b.Jobs[0].Series, result.BlockSample{IOPS: 1000, DurationNs: 1e9})
		b.Jobs[1].Series = append(b.Jobs[1].Series, result.BlockSample{IOPS: 10 + float64(i%2), DurationNs: 1e9})
	}
	s := result.BlockSustained{Name: "a + b", Job: -1, Group: 0, Samples: 300, Settled: true, SettledBy: "snia",
		SettleStartS: 60, SettleS: 120, SettledIOPS: 1010.5, WorstMinuteStartS: 200, WorstMinuteIOPS: 1010, FirstMinuteS: 60}
	v, ok := viewOf(b, &s)
	if !ok {
		t.Fatal("no view")
	}
	if len(v.series) != 300 || v.series[1].Y != 1011 {
		t.Errorf("series %d points, second %v: want the group's jobs summed", len(v.series), v.series[1])
	}
	if v.settled[0] != (struct{ X, Y float64 }{60, 1010.5}) || v.settled[1].X != 180 {
		t.Errorf("settled level %v, want 1010.5 from 60 s to 180 s", v.settled)
	}
	if len(v.edges) != 2 || v.edges[0][0].X != 60 || v.edges[1][0].X != 180 || v.edges[0][1].Y != 1011 {
		t.Errorf("window edges %v", v.edges)
	}
	if v.worst[0].X != 200 || v.worst[1].X != 260 || v.label != "SNIA PTS" {
		t.Errorf("worst %v label %q", v.worst, v.label)
	}
}

// A page with an ORION run and a sustained run has the heat maps and the
// sustained chart, and a one-point matrix draws too.
func TestOrionAndSustainedCharts(t *testing.T) {
	set := basicSet()
	one := result.OrionSet{SizeSmallKiB: 4, SmallLoads: []int{4}, LargeLoads: []int{2},
		Points: []result.OrionPoint{{Small: 4, Large: 2, SmallIOPS: 7, LargeMBPS: 7}}}
	orion := &result.Block{Kind: "block", Orion: &result.Orion{Sets: []result.OrionSet{set, one}}}
	sus := &result.Block{Kind: "block", Jobs: []result.BlockJob{{JobName: "randrw-4k"}}}
	for i := range 120 {
		sus.Jobs[0].Series = append(sus.Jobs[0].Series, result.BlockSample{StartMs: int64(i) * 1000, IOPS: 500, DurationNs: 1e9})
	}
	sus.Sustained = []result.BlockSustained{{Name: "randrw-4k", Samples: 120, SettledIOPS: 500, SettleStartS: 96, SettleS: 24, FirstMinuteS: 60}}
	var b bytes.Buffer
	err := Write(&b, []*compare.Run{{Block: orion, Label: "orion", Source: "clyde"}, {Block: sus, Label: "sustained", Source: "clyde"}})
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"ORION 8 KiB small: small I/O IOPS", "ORION 8 KiB small: large I/O MBPS", "ORION 4 KiB small: small I/O IOPS",
		"randrw-4k: sustained load", "settled (not settled: last fifth)", "worst minute"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
