package blockbench

import (
	"math"
	"math/bits"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// usableRAM is the memory this process may use (physical RAM, or a cgroup
// limit below it); a variable so tests can set it.
var usableRAM = func() (uint64, error) {
	r, err := sysinfo.RAM()
	return r.Effective, err
}

// buffersPerWorker is how many bs-sized I/O buffers one worker allocates:
// psync a read and a write buffer, io_uring one per slot. auto is not
// resolved yet here and counts as the larger.
func buffersPerWorker(engine Engine, depth int) uint64 {
	switch engine {
	case EnginePsync:
		return 2
	case EngineIOUring, EngineWindowsAIO:
		return uint64(depth)
	}
	return uint64(max(2, depth))
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

// checkFootprint refuses a job whose buffers would take more than half the
// memory this process may use: allocating them would crash with an
// out-of-memory stack dump, or push out the page cache the run measures.
// Where the memory is unknown nothing is refused.
func checkFootprint(bs int64, depth, numJobs int, engine Engine) error {
	ram, err := usableRAM()
	if err != nil || ram == 0 {
		return nil
	}
	limit := ram / 2
	need := bufferFootprint(bs, depth, numJobs, engine)
	if need <= limit {
		return nil
	}
	// Name the flag that goes over first: one buffer, one worker's
	// queue, or the workers together.
	flag := "--numjobs"
	if bufferFootprint(bs, depth, 1, engine) > limit {
		flag = "--bs"
		if buffersPerWorker(engine, depth) > 2 && bufferFootprint(bs, 1, 1, EngineIOUring) <= limit {
			flag = "--iodepth"
		}
	}
	return result.Usagef(flag, "the I/O buffers would take %s (bs %s x %d buffers per worker x %d workers, plus the %s fill buffer), "+
		"more than half of the %s of memory this process may use; give a smaller --bs, --iodepth or --numjobs",
		humanize.IBytes(need), humanize.IBytes(uint64(bs)), buffersPerWorker(engine, depth), numJobs,
		humanize.IBytes(fillChunk), humanize.IBytes(ram))
}
