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

// TestCheckTrimEntries: group_reporting may not join a trim job and one
// that does not trim in one entry (their counts share a slot); entries
// apart, or alike in trimming, are taken.
func TestCheckTrimEntries(t *testing.T) {
	wl := func(group int, gr bool, rw RW) *workload {
		return &workload{Workload: Workload{Name: string(rw), GroupReporting: gr, RW: rw}, groupID: group}
	}
	cases := []struct {
		name string
		ws   []*workload
		ok   bool
	}{
		{"write and trim in one entry", []*workload{wl(0, true, RandWrite), wl(0, true, RandTrim)}, false},
		{"trim and trimwrite in one entry", []*workload{wl(0, true, Trim), wl(0, true, TrimWrite)}, false},
		{"trims in one entry", []*workload{wl(0, true, RandTrim), wl(0, true, Trim)}, true},
		{"write and trim, no group_reporting", []*workload{wl(0, false, RandWrite), wl(0, false, RandTrim)}, true},
		{"write and trim in two groups", []*workload{wl(0, true, RandWrite), wl(1, true, RandTrim)}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := checkTrimEntries([][]*workload{c.ws}); (err == nil) != c.ok {
				t.Errorf("checkTrimEntries: %v; want accepted %v", err, c.ok)
			}
		})
	}
}
