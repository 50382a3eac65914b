package blockbench

import (
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/result"
)

// setJobCPU sums a job's workers as fio's group_reporting sums clones:
// CPU times over the sum of runtimes, switches and faults added; a worker
// without its thread's figure sends the job back to the process's, and
// says so.
func TestSetJobCPU(t *testing.T) {
	ms := time.Millisecond
	measured := func(th threadCPU) *worker {
		w := &worker{}
		w.marks, w.thread = []mark{{}}, th
		return w
	}
	a := measured(threadCPU{used: cpuclock.Usage{User: 100 * ms, Sys: 300 * ms, Ctx: 7, Majf: 1, Minf: 10}, ns: int64(time.Second), ok: true})
	b := measured(threadCPU{used: cpuclock.Usage{User: 300 * ms, Sys: 100 * ms, Ctx: 5, Majf: 2, Minf: 20}, ns: int64(3 * time.Second), ok: true})
	noThread := measured(threadCPU{})
	inRamp := &worker{} // never measured: no marks, no thread figure
	proc := cpuclock.Sample{Elapsed: 2 * time.Second, CPU: cpuclock.Usage{User: 1000 * ms, Sys: 3000 * ms, Ctx: 99, Majf: 3, Minf: 40}, CPUKnown: true}
	cases := []struct {
		name     string
		workers  []*worker
		proc     cpuclock.Sample
		known    bool
		scope    string
		usr, sys float64
		ctx      int64
		majf     int64
		minf     int64
	}{
		{"one thread", []*worker{a}, proc, true, result.CPUScopeThreads, 10, 30, 7, 1, 10},
		{"two threads: times over summed runtimes", []*worker{a, b}, proc, true, result.CPUScopeThreads, 10, 10, 12, 3, 30},
		{"a worker still in its ramp is left out", []*worker{a, inRamp}, proc, true, result.CPUScopeThreads, 10, 30, 7, 1, 10},
		{"no thread figure: the process's", []*worker{a, noThread}, proc, true, result.CPUScopeProcess, 50, 150, 99, 3, 40},
		{"neither", []*worker{noThread}, cpuclock.Sample{}, false, "", 0, 0, 0, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var j result.BlockJob
			setJobCPU(&j, tc.workers, tc.proc)
			if j.CPUKnown != tc.known || j.CPUScope != tc.scope {
				t.Fatalf("known %v scope %q, want %v %q", j.CPUKnown, j.CPUScope, tc.known, tc.scope)
			}
			if j.UsrCPU != tc.usr || j.SysCPU != tc.sys || j.Ctx != tc.ctx || j.Majf != tc.majf || j.Minf != tc.minf {
				t.Fatalf("usr %v sys %v ctx %d majf %d minf %d, want %v %v %d %d %d",
					j.UsrCPU, j.SysCPU, j.Ctx, j.Majf, j.Minf, tc.usr, tc.sys, tc.ctx, tc.majf, tc.minf)
			}
			switch p := j.ProcessCPU; {
			case !tc.proc.CPUKnown && p != nil:
				t.Fatalf("process CPU %+v from an unknown sample", *p)
			case tc.proc.CPUKnown && (p == nil || p.UsrCPU != 50 || p.SysCPU != 150):
				t.Fatalf("process CPU %+v, want usr 50%% and sys 150%% of one CPU", p)
			}
		})
	}
}
