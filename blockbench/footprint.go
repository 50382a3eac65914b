package blockbench

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/limits"
)

// buffersPerWorker is how many bs-sized I/O buffers one worker allocates:
// psync a read and a write buffer, io_uring and libaio one per slot. auto is not
// resolved yet here and counts as the larger.
func buffersPerWorker(engine Engine, depth int) uint64 {
	switch engine {
	case EnginePsync:
		return 2
	case EngineIOUring, EngineLibaio, EngineWindowsAIO:
		return uint64(depth)
	}
	return uint64(max(2, depth))
}

// histogramsPerWorker is how many latency histograms one worker keeps
// (newWorker): a total latency per direction and sync's, and for a queueing
// engine completion and submission latencies per direction too.
func histogramsPerWorker(engine Engine) uint64 {
	if engine == EnginePsync {
		return 3
	}
	return 7
}

// bufferFootprint is the I/O buffer memory of one job: every buffer of every
// worker with its alignment slack, plus the buffer that fills a created
// file. It saturates at MaxUint64.
func bufferFootprint(bs int64, depth, numJobs int, engine Engine) uint64 {
	hi1, buffers := bits.Mul64(buffersPerWorker(engine, depth), uint64(numJobs))
	hi2, bytes := bits.Mul64(uint64(bs)+BufferAlign, buffers)
	sum, carry := bits.Add64(bytes, fillChunk, 0)
	if hi1 != 0 || hi2 != 0 || carry != 0 {
		return math.MaxUint64
	}
	return sum
}

// runFootprint is bufferFootprint and the workers' latency histograms
// (about 0.8 MiB a worker for psync): uncounted, --numjobs 600 under a
// 300 MiB cgroup was OOM-killed. It saturates at MaxUint64.
func runFootprint(bs int64, depth, numJobs int, engine Engine) uint64 {
	hi, hist := bits.Mul64(histogramsPerWorker(engine)*uint64(latency.Bytes()), uint64(numJobs))
	sum, carry := bits.Add64(bufferFootprint(bs, depth, numJobs, engine), hist, 0)
	if hi != 0 || carry != 0 {
		return math.MaxUint64
	}
	return sum
}

// footprintNeed is what one workload takes at its peak (internal/limits):
// its buffers and histograms, a thread and a file per worker, and a few
// files for its target.
func footprintNeed(bs int64, depth, numJobs int, engine Engine) limits.Need {
	return limits.Need{Memory: runFootprint(bs, depth, numJobs, engine), Threads: numJobs, Files: numJobs + 4,
		Flag: "--numjobs",
		What: fmt.Sprintf("the I/O buffers and latency histograms (bs %s x %d buffers and %d histograms of %s per worker x %d workers, plus the %s fill buffer)",
			humanize.IBytes(uint64(bs)), buffersPerWorker(engine, depth), histogramsPerWorker(engine), humanize.IBytes(uint64(latency.Bytes())),
			numJobs, humanize.IBytes(fillChunk))}
}

// checkFootprint refuses a job whose memory, threads or files go over one of
// the process's limits (internal/limits): memory over half of what this
// process may use, address space over RLIMIT_AS, a thread per worker over
// pids.max or RLIMIT_NPROC, a file per worker over RLIMIT_NOFILE. Each would
// crash the run with a Go stack dump, or get it OOM-killed, after the test
// file was made; refused here, nothing is.
func checkFootprint(bs int64, depth, numJobs int, engine Engine) error {
	l, err := limits.Read()
	if err != nil {
		return nil
	}
	need := footprintNeed(bs, depth, numJobs, engine)
	// Name the flag that goes over first: one buffer, one worker's
	// queue, or the workers together.
	if l.Memory > 0 && runFootprint(bs, depth, 1, engine) > l.Memory/2 {
		need.Flag = "--bs"
		if buffersPerWorker(engine, depth) > 2 && runFootprint(bs, 1, 1, EngineIOUring) <= l.Memory/2 {
			need.Flag = "--iodepth"
		}
	}
	return l.Check(need)
}

// checkGroupFootprint refuses a group whose workloads fit one by one but
// not together (limits.Together): a group's workloads run at the same
// time, so their buffers, threads and files add up. Each workload is
// checked first, so that one which does not fit on its own is named with
// its flag.
func checkGroupFootprint(ws []*workload) error {
	g := limits.Together{Flag: "numjobs", What: "their I/O buffers and latency histograms"}
	targets := map[*target]bool{}
	workers, files := 0, 0
	for _, w := range ws {
		if err := checkFootprint(w.BS, w.depth, w.NumJobs, w.engine.name()); err != nil {
			return err
		}
		g.Add(w.Name, footprintNeed(w.BS, w.depth, w.NumJobs, w.engine.name()))
		for _, t := range w.targets() {
			targets[t] = true
		}
		workers += w.NumJobs
		files += w.NumJobs * len(w.targets())
	}
	return g.Check(workers, files+4*len(targets)) // a file per worker and target, a few per target
}
