package blockbench

import (
	"runtime"

	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/result"
)

// threadCPU is what a worker's own OS thread used over its measured time:
// from the end of its ramp to the end of its work (its end_fsync included),
// as fio's clear_rusage_stat at the end of the ramp and update_rusage_stat
// when the job's thread is done read it. ok is false where the platform has
// no per-thread figure (cpuclock.ThreadCPU), or before the ramp ended.
type threadCPU struct {
	from   cpuclock.Usage
	fromNs int64
	used   cpuclock.Usage
	ns     int64 // the wall time used covers
	tid    int   // the thread both readings must come from
	ok     bool
}

// lockThread holds the worker's goroutine on its OS thread for its work,
// so the thread's CPU time is the worker's alone; the returned function
// lets it go. The lock nests: an engine that locked the thread when it
// prepared (io_uring) keeps its own lock.
func lockThread() (unlock func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// startThreadCPU reads the thread's CPU as the measured time begins: on
// the worker's own thread, when its ramp ends or, without a ramp, when its
// work starts.
func (w *worker) startThreadCPU() {
	u, err := cpuclock.ThreadCPU()
	w.thread = threadCPU{from: u, fromNs: w.startNs, tid: cpuclock.ThreadID(), ok: err == nil}
}

// stopThreadCPU reads it again when the worker's work is done. A reading
// from another thread than the first is not the worker's: the job falls
// back to the process's figure rather than report two threads' difference.
func (w *worker) stopThreadCPU() {
	if !w.thread.ok {
		return
	}
	u, err := cpuclock.ThreadCPU()
	if err != nil || cpuclock.ThreadID() != w.thread.tid {
		w.thread.ok = false
		return
	}
	w.thread.used, w.thread.ns = u.Sub(w.thread.from), w.now()-w.thread.fromNs
}

// setJobCPU fills a job's CPU figures as fio's do: usr_cpu and sys_cpu in
// percent of one CPU, ctx (voluntary and involuntary context switches), majf
// and minf, from each worker's own thread (RUSAGE_THREAD). A job of several
// workers sums them as fio's group_reporting sums its clones: their CPU
// times over the sum of their runtimes (fio's usr_time and total_run_time),
// so two busy clones read 100%, not 200%. Where a worker has no thread
// figure, the job gets the whole process's over the group's window (cpu)
// and says so in CPUScope. ProcessCPU is the whole process's either way.
//
// A thread's figure holds what the kernel does on it: the system calls of
// psync, io_uring's submissions and the completions it reaps inline. Work
// io_uring hands to its io-wq workers (a read that would block) runs on
// threads of their own and is only in ProcessCPU.
func setJobCPU(job *result.BlockJob, workers []*worker, cpu cpuclock.Sample) {
	if cpu.CPUKnown && cpu.Elapsed > 0 {
		job.ProcessCPU = &result.BlockProcessCPU{
			UsrCPU: float64(cpu.CPU.User) / float64(cpu.Elapsed) * 100,
			SysCPU: float64(cpu.CPU.Sys) / float64(cpu.Elapsed) * 100,
		}
	}
	var used cpuclock.Usage
	var ns int64
	threads := true
	for _, w := range workers {
		if len(w.marks) == 0 {
			continue // never left the ramp
		}
		if !w.thread.ok {
			threads = false
			break
		}
		u := w.thread.used
		used = cpuclock.Usage{User: used.User + u.User, Sys: used.Sys + u.Sys, Ctx: used.Ctx + u.Ctx,
			Majf: used.Majf + u.Majf, Minf: used.Minf + u.Minf}
		ns += w.thread.ns
	}
	switch {
	case threads && ns > 0:
		job.CPUKnown, job.CPUScope = true, result.CPUScopeThreads
		job.UsrCPU = float64(used.User) / float64(ns) * 100
		job.SysCPU = float64(used.Sys) / float64(ns) * 100
		job.Ctx, job.Majf, job.Minf = used.Ctx, used.Majf, used.Minf
	case job.ProcessCPU != nil:
		job.CPUKnown, job.CPUScope = true, result.CPUScopeProcess
		job.UsrCPU, job.SysCPU = job.ProcessCPU.UsrCPU, job.ProcessCPU.SysCPU
		job.Ctx, job.Majf, job.Minf = cpu.CPU.Ctx, cpu.CPU.Majf, cpu.CPU.Minf
	}
}
