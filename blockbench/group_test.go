package blockbench

import (
	"testing"
)

// TestReportEntries: fio's stat.c rule: group_reporting joins the entry of
// the workload before it in the same reporting group.
func TestReportEntries(t *testing.T) {
	wl := func(group int, gr bool) *workload {
		return &workload{Workload: Workload{GroupReporting: gr}, groupID: group}
	}
	cases := []struct {
		name string
		ws   []*workload
		want []int
	}{
		{"no group_reporting: one entry each", []*workload{wl(0, false), wl(0, false), wl(0, false)}, []int{0, 1, 2}},
		{"group_reporting: one entry per group", []*workload{wl(0, true), wl(0, true), wl(1, true), wl(1, true)}, []int{0, 0, 1, 1}},
		{"mixed", []*workload{wl(0, false), wl(0, true), wl(1, false)}, []int{0, 0, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, n := reportEntries(c.ws)
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("entries %v, want %v", got, c.want)
				}
			}
			if n != c.want[len(c.want)-1]+1 {
				t.Errorf("%d entries, want %d", n, c.want[len(c.want)-1]+1)
			}
		})
	}
}
