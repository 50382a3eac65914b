// Package cpuclock measures a phase: monotonic wall time plus the CPU time the
// whole process used over the same interval.
//
// The CPU figure is one process-wide reading at each end of the phase, never a
// sum of per-thread process-wide readings, so a threaded phase is not counted
// once per thread (bonnie++'s seek %CP bug). ThreadCPU reads one thread's
// own, where the platform has it, for figures that are a worker's (fio's
// per-job usr_cpu).
package cpuclock

import "time"

// Usage is CPU time consumed by the process (or by one thread), with its
// context switches (voluntary and involuntary) and major and minor page
// faults where the platform counts them (0 elsewhere).
type Usage struct {
	User time.Duration
	Sys  time.Duration
	Ctx  int64
	Majf int64
	Minf int64
}

// Total is user plus system time.
func (u Usage) Total() time.Duration { return u.User + u.Sys }

// Sub returns u minus v.
func (u Usage) Sub(v Usage) Usage {
	return Usage{User: u.User - v.User, Sys: u.Sys - v.Sys, Ctx: u.Ctx - v.Ctx, Majf: u.Majf - v.Majf, Minf: u.Minf - v.Minf}
}

// Stopwatch is a started measurement.
type Stopwatch struct {
	start time.Time // carries Go's monotonic reading
	cpu   Usage
	cpuOK bool
}

// Start begins measuring now.
func Start() Stopwatch {
	cpu, err := ProcessCPU()
	return Stopwatch{start: time.Now(), cpu: cpu, cpuOK: err == nil}
}

// StartAt begins a measurement whose wall clock started at t (for phases whose
// workers all start off one channel close taken at t).
func StartAt(t time.Time) Stopwatch {
	s := Start()
	s.start = t
	return s
}

// Began is when the measurement started.
func (s Stopwatch) Began() time.Time { return s.start }

// Sample is a finished measurement.
type Sample struct {
	Elapsed time.Duration
	CPU     Usage
	// CPUKnown is false where the platform cannot report process CPU time.
	CPUKnown bool
}

// CPUPercent is CPU time over elapsed time in percent, as bonnie++'s %CP. It can
// exceed 100 when more than one core is busy.
func (s Sample) CPUPercent() float64 {
	if s.Elapsed <= 0 || !s.CPUKnown {
		return 0
	}
	return float64(s.CPU.Total()) / float64(s.Elapsed) * 100
}

// Stop ends the measurement at now.
func (s Stopwatch) Stop() Sample { return s.StopAt(time.Now()) }

// StopAt ends the measurement with a wall end of t.
func (s Stopwatch) StopAt(t time.Time) Sample {
	cpu, err := ProcessCPU()
	out := Sample{Elapsed: t.Sub(s.start)}
	if err == nil && s.cpuOK {
		out.CPU = cpu.Sub(s.cpu)
		out.CPUKnown = true
	}
	return out
}
