package blockbench

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// Workload is one fio job as it runs: a region of one target, the rw mode
// and block size of its I/O, how many of them each worker keeps in flight,
// how many workers, for how long and with what data. Field names follow
// fio's options.
type Workload struct {
	// Name is the job's name in the result.
	Name string
	// Filename is the file or block device; the workloads of one plan may
	// name different targets.
	Filename string
	RW       RW
	// RWMixRead is the percentage of reads in a mixed mode; each I/O picks
	// its direction independently with this probability, as Iometer and
	// DiskSpd do.
	RWMixRead int
	BS        int64
	// Size is the region, from Offset; 0 is the rest of an existing
	// target, or DefaultSize of a file clyde creates.
	Size   int64
	Offset int64
	// IODepth is I/Os in flight per worker. An engine that keeps one at a
	// time (psync) runs at depth 1, and the result records that (see
	// result.BlockJobConfig.IODepthRequested).
	IODepth int
	// NumJobs is workers; their figures are summed into one job (fio's
	// group_reporting for the job's clones).
	NumJobs  int
	IOEngine Engine
	// Direct opens with O_DIRECT (F_NOCACHE on macOS) and uses aligned
	// buffers.
	Direct bool
	// Runtime is the measured time; RampTime runs before it and is not
	// counted. With TimeBased false a worker also stops after one pass over
	// the region.
	Runtime   time.Duration
	RampTime  time.Duration
	TimeBased bool
	Buffer    Buffer
	// Fsync issues an fsync after every Fsync writes of a worker; 0 never.
	Fsync int
	Seed  uint64
	// Access, when set, draws every I/O from an Iometer access
	// specification instead of fio's rw mode; AccessSpec.Apply sets it
	// with the RW, BS and RWMixRead that describe it.
	Access *AccessSpec
}

// Group is workloads that run at the same time against their targets:
// started together, measured over the same window, each reported on its own
// and summed (fio's jobs between two stonewalls).
type Group []Workload

// Plan is what RunPlan runs: groups one after another.
type Plan struct {
	Groups []Group
	// DestroyData allows writing to a block device or an existing file that
	// is not in use; it never allows writing to one in use.
	DestroyData bool
	// SizeGiven says a workload's Size 0 was asked for (--size 0): it then
	// means the rest of an existing target and is refused for a new file,
	// rather than taken as DefaultSize.
	SizeGiven bool
	// Warn, when set, gets one line for each thing the user must hear about
	// even when the report goes to a file (a depth capped to what the engine
	// keeps, a created file replaced during the run). The same goes into the
	// result's notes.
	Warn io.Writer
	// CommandLine is recorded in the provenance; nil records os.Args.
	CommandLine []string
	// Notes go into the result as they are (what a preset ran differently).
	Notes []string
	// Progress, when set, gets a live line per row while the plan runs:
	// the row, its pass, elapsed and total time, the current IOPS and
	// MB/s, and the time left for the whole plan. It rewrites the line in
	// place, so it is for a terminal; nil prints nothing.
	Progress io.Writer
	// Labels name the groups for Progress, one per group: consecutive
	// groups of one Row share its line. nil makes every group a row named
	// after its first workload.
	Labels []GroupLabel
	// Idle is a time to wait before each group, one per group
	// (CrystalDiskMark's interval between tests); nil waits for none.
	Idle []time.Duration
	// PrivateDir makes every file the plan creates in one private run
	// directory (internal/rundir) in the directory its Filename names, as
	// CrystalDiskMark makes its test file in a directory of its own: the
	// Filename's own name is then only the file's name in there, never an
	// existing file. The directory goes at the end with all in it.
	PrivateDir bool
	// Fill fills the filesystem under test to a level of use before the
	// groups run, with incompressible data in the private run directory
	// (made for it if PrivateDir is not set), and removes it after;
	// refused when the space is not there. Result.Space records it.
	Fill FillLevel
	// RequireUncached refuses targets on which uncached I/O would still
	// measure the page cache (tmpfs, ramfs, FUSE) or cannot be opened
	// uncached, and platforms without uncached I/O.
	RequireUncached bool
}

// GroupLabel names one group of a plan on the progress line.
type GroupLabel struct {
	Row string
	// Pass counts from 1 of Passes; Pass 0 of Passes > 0 is a warm-up.
	// Passes 0 shows no pass.
	Pass, Passes int
}

// workload is a Workload as it runs: its target found, its region, engine
// and depth resolved.
type workload struct {
	Workload
	target  *target
	engine  engine
	depth   int // what runs: IODepth, or 1 for an engine without a queue
	groupID int
	// live, when set, is the progress line the workload's workers
	// publish their counters to.
	live *live
}

func (w *workload) String() string {
	return fmt.Sprintf("%s bs=%d iodepth=%d numjobs=%d ioengine=%s", w.RW, w.BS, w.depth, w.NumJobs, w.engine.name())
}

// options echoes the workload as fio's "job options" does: strings, with
// iodepth the depth that ran.
func (w *workload) options() map[string]string {
	m := map[string]string{
		"name": w.Name, "rw": string(w.RW), "bs": strconv.FormatInt(w.BS, 10),
		"size": strconv.FormatInt(w.Size, 10), "offset": strconv.FormatInt(w.Offset, 10),
		"iodepth": strconv.Itoa(w.depth), "numjobs": strconv.Itoa(w.NumJobs), "ioengine": string(w.engine.name()),
		"direct": boolFlag(w.Direct), "runtime": w.Runtime.String(), "ramp_time": w.RampTime.String(),
		"time_based": boolFlag(w.TimeBased), "buffer": w.Buffer.String(), "randseed": strconv.FormatUint(w.Seed, 10),
	}
	if w.RW.Mixed() {
		m["rwmixread"] = strconv.Itoa(w.RWMixRead)
	}
	if w.Fsync > 0 {
		m["fsync"] = strconv.Itoa(w.Fsync)
	}
	if w.Access != nil {
		m["access_spec"] = w.Access.Name
	}
	return m
}

func boolFlag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
