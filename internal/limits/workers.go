package limits

import (
	"fmt"

	"github.com/dustin/go-humanize"
)

// Workers is what a run of I/O workers takes at its peak: each worker's
// I/O buffers (each with its alignment slack) and latency histograms (about
// 0.8 MiB a worker: uncounted, --numjobs 600 under a 300 MiB cgroup was
// OOM-killed), a thread and a file each, and the buffer that fills a
// created file. The engine decides how many buffers and histograms a
// worker keeps; the sums and the refusal are here.
type Workers struct {
	// Count is how many workers run (--numjobs).
	Count int
	// BufferSize is one I/O buffer (--bs); Align the slack allocated with
	// each.
	BufferSize, Align uint64
	// Buffers and Histograms are what one worker allocates, HistogramSize
	// the bytes of one histogram.
	Buffers, Histograms, HistogramSize uint64
	// FillBuffer is the one buffer that fills a created file.
	FillBuffer uint64
	// TargetFiles is the descriptors the run holds besides one per worker.
	TargetFiles int
}

// BufferMemory is the I/O buffer memory: every buffer of every worker with
// its alignment slack, plus the fill buffer. It saturates at MaxUint64.
func (w Workers) BufferMemory() uint64 {
	return sat(mul(w.BufferSize+w.Align, mul(w.Buffers, uint64(w.Count))), w.FillBuffer)
}

// Memory is BufferMemory and the workers' latency histograms. It
// saturates at MaxUint64.
func (w Workers) Memory() uint64 {
	return sat(w.BufferMemory(), mul(w.Histograms*w.HistogramSize, uint64(w.Count)))
}

// Need is the workers' need, named --numjobs, with what the memory is for
// spelled out.
func (w Workers) Need() Need {
	return Need{Memory: w.Memory(), Threads: w.Count, Files: w.Count + w.TargetFiles, Flag: "--numjobs",
		What: fmt.Sprintf("the I/O buffers and latency histograms (bs %s x %d buffers and %d histograms of %s per worker x %d workers, plus the %s fill buffer)",
			humanize.IBytes(w.BufferSize), w.Buffers, w.Histograms, humanize.IBytes(w.HistogramSize),
			w.Count, humanize.IBytes(w.FillBuffer))}
}

// Check refuses the workers when their memory, threads or files go over
// one of the process's limits (Limits.Check): memory over half of what this
// process may use, address space over RLIMIT_AS, a thread per worker over
// pids.max or RLIMIT_NPROC, a file per worker over RLIMIT_NOFILE. Each
// would crash the run with a Go stack dump, or get it OOM-killed, after
// the test file was made; refused here, nothing is. The refusal names the
// flag that goes over first: one worker's buffer (--bs), its queue
// (--iodepth), or the workers together (--numjobs).
func (w Workers) Check() error {
	l, err := Read()
	if err != nil {
		return nil
	}
	need := w.Need()
	one := w
	one.Count = 1
	if l.Memory > 0 && one.Memory() > l.Memory/2 {
		need.Flag = "--bs"
		shallow := one
		shallow.Buffers = 1
		if w.Buffers > 2 && shallow.Memory() <= l.Memory/2 {
			need.Flag = "--iodepth"
		}
	}
	return l.Check(need)
}
