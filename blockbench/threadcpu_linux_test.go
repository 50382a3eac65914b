//go:build linux

package blockbench

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

// Two jobs run at the same time on one file: one at 4 I/Os a second, one
// as fast as it can. Each job's CPU is its own thread's, as fio's are, so
// the busy job used more CPU than the one that sleeps between its I/Os, and
// the figures differ; a process-wide figure gave both the same.
func TestJobCPUIsEachJobsOwn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	base := Workload{Filename: path, RW: RandRead, BS: 4 << 10, Size: 1 << 20, IODepth: 1, NumJobs: 1,
		IOEngine: EnginePsync, Runtime: time.Second, TimeBased: true, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}
	slow, fast := base, base
	slow.Name, fast.Name = "slow", "fast"
	slow.RateIOPS = [2]int64{4, 0}
	// The fast job's measured time starts when its ramp ends, on its own
	// thread, as the group's does; the slow one's when its work starts.
	fast.RampTime = 200 * time.Millisecond
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{slow, fast}}, DestroyData: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 2 {
		t.Fatalf("%d jobs, want 2", len(res.Jobs))
	}
	s, f := res.Jobs[0], res.Jobs[1]
	for _, j := range []result.BlockJob{s, f} {
		t.Logf("%s: %d I/Os usr=%.3f%% sys=%.3f%% ctx=%d majf=%d minf=%d scope=%s process=%+v", j.JobName, j.Read.TotalIOs,
			j.UsrCPU, j.SysCPU, j.Ctx, j.Majf, j.Minf, j.CPUScope, j.ProcessCPU)
		if !j.CPUKnown || j.CPUScope != result.CPUScopeThreads || j.ProcessCPU == nil {
			t.Fatalf("%s: cpu_known %v, scope %q, process %v: want its threads' figures beside the process's",
				j.JobName, j.CPUKnown, j.CPUScope, j.ProcessCPU)
		}
	}
	if s.Read.TotalIOs >= f.Read.TotalIOs {
		t.Fatalf("the rate-limited job did %d I/Os, the unlimited one %d", s.Read.TotalIOs, f.Read.TotalIOs)
	}
	if s.UsrCPU == f.UsrCPU && s.SysCPU == f.SysCPU && s.Ctx == f.Ctx && s.Minf == f.Minf {
		t.Fatalf("both jobs have usr %.3f%%, sys %.3f%%, ctx %d, minf %d: one figure for the group, not each job's",
			s.UsrCPU, s.SysCPU, s.Ctx, s.Minf)
	}
	// The unlimited job's thread issued I/O all the time; the other slept
	// and used a sliver of it (each thread over its own window of the same
	// second: two readings of the whole process would be alike).
	if 2*(s.UsrCPU+s.SysCPU) >= f.UsrCPU+f.SysCPU {
		t.Errorf("the sleeping job used %.3f%% CPU, the busy one %.3f%%: want under half", s.UsrCPU+s.SysCPU, f.UsrCPU+f.SysCPU)
	}
	// A thread that sleeps between its I/Os switches at least once per
	// sleep. (How often the busy one is switched out depends on what else
	// runs: the other threads of a busy machine, Go's preemption of a
	// goroutine after 10 ms. On an idle machine with few goroutines it can
	// be fewer times than the sleeper's five sleeps, so the two are not
	// compared.)
	if s.Ctx < s.Read.TotalIOs-1 || f.Ctx < 0 {
		t.Errorf("context switches: %d for the sleeping job of %d I/Os, %d for the busy one", s.Ctx, s.Read.TotalIOs, f.Ctx)
	}
	// One job's thread is part of the process (over the same window: the
	// group's starts when the fast job's ramp ends).
	if p := f.ProcessCPU; f.UsrCPU+f.SysCPU > 1.05*(p.UsrCPU+p.SysCPU)+1 {
		t.Errorf("the busy job's thread used %.3f%% CPU, more than the whole process's %.3f%%", f.UsrCPU+f.SysCPU, p.UsrCPU+p.SysCPU)
	}
}

// A reading taken on another thread than the first is not the worker's:
// the worker reports no thread figure (its job falls back to the process's)
// rather than the difference of two threads' counters.
func TestThreadCPUFromAnotherThreadIsRefused(t *testing.T) {
	w := &worker{base: time.Now()}
	started := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		w.startThreadCPU()
		close(started)
	}()
	<-started
	if !w.thread.ok {
		t.Fatal("no thread figure at the start on Linux")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w.stopThreadCPU()
	if w.thread.ok {
		t.Fatalf("a reading from another thread was taken as the worker's: %+v", w.thread)
	}
}
