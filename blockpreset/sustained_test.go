package blockpreset

import (
	"testing"
)

// The sustained preset is one long mixed job with SNIA's rule, its
// workload named after its block size; a job's own steady-state settings
// stand.
func TestPlanSustained(t *testing.T) {
	j := SustainedJob("/dev/shm/clyde.tmp")
	p := PlanSustained(j)
	if len(p.Groups) != 1 || len(p.Groups[0]) != 1 || p.Analysis == nil || *p.Analysis.(*SteadyState) != (SteadyState{}) {
		t.Fatalf("plan %+v, want one workload with SNIA's rule alone", p)
	}
	w := p.Groups[0][0]
	if w.Name != "randrw-4k" || w.RW != SustainedRW || w.RWMixRead != SustainedRWMixRead || w.BS != SustainedBS ||
		w.IODepth != SustainedIODepth || w.Runtime != SustainedRuntime || !w.Direct || !w.TimeBased {
		t.Errorf("workload %+v, want the preset's", w)
	}
	own := &SteadyState{Criterion: "iops:20%", Dur: 60e9}
	j.Analysis, j.BlockSizes = own, []int64{4 << 10, 8 << 10}
	p = PlanSustained(j)
	if p.Analysis != own || len(p.Groups) != 2 || p.Groups[0][0].Name != "randrw-4k" || p.Groups[1][0].Name != "randrw-8k" {
		t.Errorf("plan with own steady state and two sizes: steady %+v, groups %+v", p.Analysis, p.Groups)
	}
}
