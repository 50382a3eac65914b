package blockbench

import (
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

// workerFootprint is a workload's workers as internal/limits counts them:
// this engine's buffers and histograms per worker, a file per worker and a
// few for its target.
func workerFootprint(bs int64, depth, numJobs int, engine Engine) limits.Workers {
	return limits.Workers{Count: numJobs, BufferSize: uint64(bs), Align: BufferAlign,
		Buffers: buffersPerWorker(engine, depth), Histograms: histogramsPerWorker(engine), HistogramSize: uint64(latency.Bytes()),
		FillBuffer: fillChunk, TargetFiles: 4}
}

// checkFootprint refuses a job whose memory, threads or files go over one of
// the process's limits (limits.Workers.Check), before the test file is made.
func checkFootprint(bs int64, depth, numJobs int, engine Engine) error {
	return workerFootprint(bs, depth, numJobs, engine).Check()
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
		g.Add(w.Name, workerFootprint(w.BS, w.depth, w.NumJobs, w.engine.name()).Need())
		for _, t := range w.targets() {
			targets[t] = true
		}
		workers += w.NumJobs
		files += w.NumJobs * len(w.targets())
	}
	return g.Check(workers, files+4*len(targets)) // a file per worker and target, a few per target
}
