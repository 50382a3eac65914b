package blockbench

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/preflight"
	"github.com/clydebench/clyde/result"
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
	// BS is every I/O's size, at multiples of it; with Sizes, the
	// largest size an I/O may have (BlockSizes.Apply sets both).
	BS int64
	// Sizes, when set, draws each I/O's size per direction as fio's
	// bs=R,W,T, bsrange, bssplit, blockalign, bs_unaligned and
	// bs_is_seq_rand do (blocksize.go, sizedraw.go).
	Sizes *BlockSizes
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
	// EngineOptions are the engine's own options (fio's per-engine
	// options, such as cpuio's cpuload), by name, as the job set them;
	// the engine reads and checks them.
	EngineOptions map[string]string
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
	// EndFsync issues an fsync when a worker that wrote is done, inside its
	// runtime (fio's end_fsync).
	EndFsync bool
	Seed     uint64
	// Fdatasync issues an fdatasync after every Fdatasync writes of a
	// worker (fio's fdatasync); FsyncOnClose fsyncs at the end of the
	// runtime and again when the worker closes the target (fio's
	// fsync_on_close). See syncopts.go for how fio counts each.
	Fdatasync    int
	FsyncOnClose bool
	// Verify writes every block with a header and a checksum (fio's
	// verify=crc32c, crc32c-intel or md5) and, unless NoVerifyPass (fio's
	// do_verify=0), reads every written block back after the write pass
	// and checks it; VerifyFatal stops at the first bad block (verify.go).
	Verify       VerifyKind
	VerifyFatal  bool
	NoVerifyPass bool
	// VerifyPattern is fio's verify_pattern: each written block holds it
	// repeated (after the header, for a checksum) instead of random data,
	// with the block's offset, 8 bytes little endian, at each of
	// VerifyPatternOffsets (fio's %o) of every repeat; Verify
	// VerifyPatternOnly checks the bytes themselves (fio's
	// verify=pattern). VerifyBacklog reads back and checks the blocks
	// written so far after every VerifyBacklog of them, VerifyBacklogBatch
	// (0: VerifyBacklog) at a time, during the write pass (fio's
	// verify_backlog, verify_backlog_batch; verify.go). VerifyInterval
	// is fio's verify_interval: a header every that many bytes of a
	// write (0: fio's default, the write size; verifyInterval says what
	// fio makes of it).
	VerifyPattern        []byte
	VerifyPatternOffsets []int
	VerifyBacklog        int64
	VerifyBacklogBatch   int
	VerifyInterval       int64
	// Volume, when set, replaces Filename with several existing targets
	// laid out as one (volume.go).
	Volume *Volume
	// Files, when set, replaces Filename with fio's several files of one
	// job, each a region of its own, every I/O on the file the service
	// picks (files.go).
	Files *FileSet
	// Access, when set, is the workload's own access pattern: it draws
	// every I/O instead of fio's rw mode (pattern.go; package iometer's
	// access specifications). RW, BS and RWMixRead must describe it
	// (Pattern.Check).
	Access Pattern
	// Invalidate drops the target file's cached pages before the workload's
	// group starts (fio's invalidate, on by default in job files), so
	// buffered reads come from the device.
	Invalidate bool
	// FadviseHint tells the kernel each worker's access pattern
	// (posix_fadvise RANDOM or SEQUENTIAL; fio's fadvise_hint, on by default
	// in job files): random buffered reads then get no readahead, as fio's.
	FadviseHint bool
	// NewGroup starts a new reporting group at this workload (fio's
	// new_group): it still runs at the same time as the rest of its Group,
	// but is summed and numbered apart from the workloads before it.
	NewGroup bool
	Report   ReportOptions
	// Log, when set, records each worker's I/O beyond the result
	// (record.go; fiojob.LogSpec: fio's logs), writing through
	// Plan.WriteLog.
	Log RecordSpec
	// Desc is fio's description=, echoed as the job's desc.
	Desc string
	// GroupReporting sums this workload into the entry of the workloads
	// before it in its reporting group (fio's group_reporting): one entry
	// for the whole reporting group instead of one per workload.
	GroupReporting bool
	// RandomMap makes random offsets visit every block of the region once
	// per pass (fio's default norandommap=0), from a full-period generator
	// over the blocks; false draws each offset on its own, with
	// replacement (fio's norandommap=1).
	RandomMap bool
	// Distribution is fio's random_distribution (zero: uniform) and
	// Zones its zonemode=strided (zero: none); see distribution.go.
	Distribution Distribution
	Zones        StridedZones
	// Loops is how many passes over the region a non-time-based
	// workload makes (fio's loops); 0 is 1. Invalidate drops the cache
	// before every pass.
	Loops int
	// SeqGap is the bytes a sequential mode skips after each I/O before
	// the next one (a hole), or, negative, steps back (backwards I/O); 0
	// is contiguous. SeqRepeat, for a random mode, is how many I/Os in a
	// row one random draw serves: the first at the drawn offset, the rest
	// each following the last in sequence or, with SeqRepeatSame, at the
	// same offset; 0 and 1 draw every I/O. See sequencer.go.
	SeqGap        int64
	SeqRepeat     int
	SeqRepeatSame bool
	// ThinkTime pauses a worker after every ThinkTimeBlocks I/Os (0 is 1)
	// complete (fio's thinktime, thinktime_blocks); Rate and RateIOPS cap
	// each worker's reads [0] and writes [1] in bytes and I/Os per second
	// (fio's rate, rate_iops: the worker waits until its count is due).
	// With a queueing engine the pause holds back the next submissions.
	ThinkTime       time.Duration
	ThinkTimeBlocks int
	Rate            [2]int64
	RateIOPS        [2]int64
	// IODepthBatchCompleteMax is fio's iodepth_batch_complete_max: the
	// most completions one reap of io_uring (named as fio's engine) or
	// libaio takes; 0 (or less than ReapMin) is fio's default, the reap's
	// minimum: 1, or ReapMin.
	IODepthBatchCompleteMax int
	// SubmitBatch, LowWater, ReapMin and ReapPoll run the loop of io_uring
	// (named as fio's engine) and libaio in batches, as fio's
	// iodepth_batch_submit, iodepth_low and iodepth_batch_complete_min do
	// (loop.go). SubmitBatch I/Os are queued before one submit call
	// takes them (0 is 1, more than IODepth is IODepth). Once the queue is
	// full, reaps go on until at most LowWater I/Os are left before it is
	// refilled (0 is IODepth: refill after every reap). A reap waits for
	// ReapMin completions (0 is 1); ReapPoll (fio's
	// iodepth_batch_complete_min=0, ReapMin 0) never sleeps in a reap but
	// asks the kernel again until one is there, and with
	// IODepthBatchCompleteMax 0 too it reaps after every submission, as
	// fio's io_in_polling does.
	SubmitBatch int
	LowWater    int
	ReapMin     int
	ReapPoll    bool
	// CloneIndex numbers this workload's workers from it rather than 0,
	// so that the workloads fio's numjobs clones become draw offsets of
	// their own.
	CloneIndex int
	// Region holds fio's ways of placing the region by the target's size
	// and the clone (size=N%, offset=N%, offset_increment) and of doing
	// more or less I/O than one pass over it (io_size); region.go.
	Region RegionSpec
	// StartDelay starts the workload's workers this long after the start
	// of the plan's first group (fio's startdelay, counted from fio's
	// genesis): a workload of a later group that starts after that time
	// starts with its group. Its ramp and runtime count from its start.
	StartDelay time.Duration
	// RateMin and RateIOPSMin fail a worker whose reads [0] or writes [1]
	// fall below a rate, in bytes and I/Os per second (fio's rate_min,
	// rate_iops_min), measured over each RateCycle (fio's rate_cycle; 0
	// is fio's 1000 ms) after a settling time of 2 s (minrate.go).
	RateMin     [2]int64
	RateIOPSMin [2]int64
	RateCycle   time.Duration
	// CreateOnOpen creates a file the run makes empty, at the size its
	// writes give it, rather than laid out and filled before the run
	// (fio's create_on_open): its workloads may only write.
	CreateOnOpen bool
	// Flow holds the workload's I/O count to a share of the workloads
	// with its flow id (fio's flow, flow_id, flow_sleep); WaitFor starts
	// it once every workload of its group named so has finished (fio's
	// wait_for); Exit is what one of its workers stops when it ends
	// (fio's exitall and exit_what). See jobflow.go.
	Flow    Flow
	WaitFor string
	Exit    ExitWhat
	// NumberIOs ends each worker after NumberIOs I/Os a pass (times
	// Loops) if its region has not ended it sooner (fio's number_ios);
	// 0: no limit. A time-based workload is refused with it.
	NumberIOs int64
	// Affinity pins each worker's thread to CPUs (fio's cpus_allowed,
	// cpumask, cpus_allowed_policy; affinity.go).
	Affinity CPUAffinity
	// Options are fio options the result should echo beside the resolved
	// ones (the engine's, such as auto's reap policy); the resolved ones
	// win. A job written in fio's language has JobOptions instead.
	Options map[string]string
	// JobOptions, when set, is the job's options exactly as fio echoes
	// them (fiojob: a job file's section or a fio command line's job, as
	// written); the shape hook writes them instead of the resolved ones.
	JobOptions result.Options
}

// ReportOptions are fio's options for what a job's latency objects hold.
type ReportOptions struct {
	// PercentileList is fio's percentile_list; nil is fio's default
	// (latency.FioPercentiles).
	PercentileList []float64
	// NoClatPercentiles, LatPercentiles and SlatPercentiles are fio's
	// clat_percentiles=0, lat_percentiles=1 and slat_percentiles=1: which
	// of clat_ns (by default), lat_ns and slat_ns carry percentiles.
	NoClatPercentiles bool
	LatPercentiles    bool
	SlatPercentiles   bool
	// Unified is fio's unified_rw_reporting: every direction summed into
	// one more, "mixed" (result.BlockJob.Mixed), that stands in place of
	// read, write and trim (UnifiedMixed) or follows them (UnifiedBoth).
	Unified Unified
}

// Unified is fio's unified_rw_reporting mode.
type Unified int

// fio's three unified_rw_reporting modes (UNIFIED_SPLIT, UNIFIED_MIXED,
// UNIFIED_BOTH).
const (
	UnifiedNone Unified = iota
	UnifiedMixed
	UnifiedBoth
)

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
	// AllowSparse reads an existing file whose holes or never-written
	// extents would be answered from memory, not the device; the result's
	// notes say how much of it was so. Without it such a file is refused.
	AllowSparse bool
	// Warn, when set, gets one line for each thing the user must hear about
	// even when the report goes to a file (a depth capped to what the engine
	// keeps, a created file replaced during the run). The same goes into the
	// result's notes.
	Warn io.Writer
	// CommandLine is recorded in the provenance; nil records os.Args.
	CommandLine []string
	// Notes go into the result as they are (what a preset ran differently).
	Notes []string
	// Analysis, when set, refuses the groups it cannot follow, can end each
	// group early from its live per-second series, and adds what it finds
	// to the result (watch.go; blockpreset.SteadyState: the sustained-load
	// analysis and steady state).
	Analysis Analysis
	// AfterGroup, when set, is called after each group with its jobs, as
	// they go into the result (a progress line, ORION's trace).
	AfterGroup func(group int, jobs []result.BlockJob) `json:"-"`
	// Ranks, when set, makes this process one rank of a job of many: its
	// files are its own (RankFileName) and every group starts and ends
	// with every rank's (Ranks.Phases).
	Ranks *Ranks
	// GlobalOptions is a job file's [global] sections as written, echoed
	// as fio's "global options".
	GlobalOptions result.Options
	// WriteLog writes one file a workload's Log asked for, after its
	// group ran: name is the file's name (fiojob.LogNames lists fio's
	// logs), write fills it. It must be set when any Log writes.
	WriteLog func(name string, write func(io.Writer) error) error `json:"-"`
	// Progress, when set, gets a live line per row while the plan runs:
	// the row, its pass, elapsed and total time, the current IOPS and
	// MB/s, and the time left for the whole plan. It rewrites the line in
	// place, so it is for a terminal; nil prints nothing.
	Progress io.Writer
	// ProgressEvery is how often the progress line is redrawn (fio's
	// --eta-interval); 0 is every 500 ms. ProgressNewline, when set, ends
	// the line and starts another that often instead of rewriting it
	// (fio's --eta-newline).
	ProgressEvery, ProgressNewline time.Duration
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
	// Shape, when set, fills a peer's fields of every job and reporting
	// group (shape.go; fiojob.Shape: fio's); nil leaves them empty.
	Shape Shaper `json:"-"`
	// RequireUncached refuses targets on which uncached I/O would still
	// measure the page cache (tmpfs, ramfs, FUSE, a loop device over a file
	// the host caches) or cannot be opened uncached, and platforms without
	// uncached I/O.
	RequireUncached bool
	// AllowCached measures a target whose uncached I/O a page cache serves
	// as it is (--allow-cached), instead of RequireUncached refusing it;
	// the result's CacheNote says so either way.
	AllowCached bool
}

// Ranks places this process in a job of many (clyde block under mpiexec,
// srun or an Indexed Job, each rank one process, on one host or many): the
// launcher's rank and size, how many of the job's ranks share this host,
// and the hooks that hold every group to a common start.
type Ranks struct {
	Rank, Size int
	// HostRanks is how many of the job's ranks run on this host (this one
	// counted): a block device is each host's own, so it takes one rank
	// per host.
	HostRanks int
	// Phases, when set, is called around every group.
	Phases GroupPhases
}

// GroupPhases is what a many-rank job does around each group of a plan
// (the coordinator in cmd/clyde): a common start once every rank has
// prepared, and every rank's jobs gathered when the group is over.
type GroupPhases interface {
	// Before returns when every rank has prepared group g (its files open,
	// its buffers filled): the common start. done reads this rank's I/Os
	// so far in the group, for the job's "first done" figure.
	Before(ctx context.Context, g int, done func() int64) error
	// After hands this rank's jobs of group g to the coordinator and
	// returns when every rank is done with it.
	After(ctx context.Context, g int, jobs []result.BlockJob) error
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
	// watch follows the group for the plan's judge (--until-steady); nil
	// otherwise.
	watch *groupWatch
	// vol are a Volume's targets (target is the first) and vmap its layout
	// for this workload's block size; nil without a Volume. A file set's
	// files are vol too, fileRegs their regions and fileBudget the bytes
	// of a pass (files.go); nil for a set that runs as one target.
	vol        []*target
	vmap       *volumeMap
	fileRegs   []fileRegion
	fileBudget int64
	// firstWorker is fio's job number of the workload's first worker
	// (from 1, through the whole plan), which its log files carry;
	// writeLog is the plan's WriteLog.
	firstWorker int
	writeLog    func(name string, write func(io.Writer) error) error
	// shape is the plan's Shape.
	shape Shaper
	// startAt is when the workload's StartDelay ends (zero: none).
	startAt time.Time
	// shareBase is the size of a file the run creates as the workloads
	// before this one lay it out: what its shares are of (sizeNew).
	shareBase int64
	// flow is the workload's flow's counters (nil: no flow); waitees are
	// closed when the workloads its WaitFor names have finished
	// (jobflow.go).
	flow    *flowShare
	waitees []chan struct{}
	// neverStarts says exit_what=all ended the plan before the
	// workload's group: its workers stop before they begin.
	neverStarts bool
}

func (w *workload) String() string {
	return fmt.Sprintf("%s bs=%d iodepth=%d numjobs=%d ioengine=%s", w.RW, w.BS, w.depth, w.NumJobs, w.engine.name())
}

// percentiles are the points the workload's latency objects report.
func (w *workload) percentiles() []float64 {
	if len(w.Report.PercentileList) == 0 {
		return latency.FioPercentiles
	}
	ps := slices.Clone(w.Report.PercentileList)
	slices.Sort(ps)
	return slices.Compact(ps)
}

// latencyObjects fills slat_ns, clat_ns and lat_ns of one direction, each
// with percentiles where fio's options put them.
func (w *workload) latencyObjects(out *result.BlockDir, recs []*latency.Recorder, d int) {
	ps := w.percentiles()
	pick := func(on bool) []float64 {
		if on {
			return ps
		}
		return nil
	}
	out.Lat = result.LatNsFrom(recs[recLat+d], pick(w.Report.LatPercentiles))
	out.Clat = result.LatNsFrom(recs[recClat+d], pick(!w.Report.NoClatPercentiles))
	if recs[recSlat+d].Count() > 0 {
		out.Slat = result.LatNsFrom(recs[recSlat+d], pick(w.Report.SlatPercentiles))
	}
}

// validate holds the rules of one workload that need no look at the target.
func (w *Workload) validate() error {
	for _, check := range []func() error{
		w.validateTarget, w.validateFiles /* files.go */, w.validateRegion, w.validateTiming, w.validatePercentiles, w.validateLog,
		w.validateDistribution, w.validateSequencer, w.validateSizes /* blocksize.go */, w.validateFadvise, w.validateAccess,
		w.validateVerify, w.validateStart, // minrate.go
		w.validateFlow, w.validateAffinity, // jobflow.go, affinity.go
		func() error { return w.Region.validate(w) }, // region.go
		w.validateBatch, // loop.go
		func() error { return w.Buffer.validate() },
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateTarget asks for a file, a device or a volume, unless the engine
// needs none, and for names of rw and ioengine clyde knows.
func (w *Workload) validateTarget() error {
	switch {
	case w.Diskless():
		if err := w.validateDiskless(); err != nil {
			return err
		}
	case w.Files != nil:
		// validateFiles
	case w.Volume != nil:
		if err := w.Volume.validate(w); err != nil {
			return err
		}
	case strings.TrimSpace(w.Filename) == "":
		return result.Usagef("--filename", "missing; give a file path or a block device")
	}
	if _, err := ParseRW(string(w.RW)); err != nil {
		return err
	}
	if EngineRegistered(w.IOEngine) {
		return nil // fio's engines a job file names (falloc, ftruncate) too
	}
	_, err := ParseEngine(string(w.IOEngine))
	return err
}

// validateRegion holds the mix, the region and the block size to what an
// I/O can be: inside the largest file offset, in one buffer, aligned for
// --direct.
func (w *Workload) validateRegion() error {
	switch {
	case w.RWMixRead < 0 || w.RWMixRead > 100:
		return result.Usagef("--rwmixread", "%d is outside 0..100; give a percentage of reads", w.RWMixRead)
	case w.Size < 0:
		return result.Usagef("--size", "%d is negative; give a size such as 64m or 1g", w.Size)
	case w.Offset < 0:
		return result.Usagef("--offset", "%d is negative; give a byte offset such as 0 or 1m", w.Offset)
	case w.Size > math.MaxInt64-w.Offset:
		return result.Usagef("--size", "offset %d + size %d is past the largest file offset (%d)", w.Offset, w.Size, int64(math.MaxInt64))
	case w.BS <= 0:
		return result.Usagef("--bs", "%d is not a block size; give one above 0 such as 4k, or a list such as 4k,1m", w.BS)
	case w.Size > 0 && w.BS > w.Size && w.Sizes == nil:
		return result.Usagef("--bs", "%d is larger than --size %d; give a block size no larger than the region", w.BS, w.Size)
	case w.BS > math.MaxInt-BufferAlign:
		return result.Usagef("--bs", "%d is larger than one buffer can be on this platform", w.BS)
	case w.Direct && w.BS%DirectAlign != 0:
		return result.Usagef("--bs", "%d is not a multiple of %d, which --direct needs", w.BS, DirectAlign)
	case w.Direct && w.Offset%DirectAlign != 0:
		return result.Usagef("--offset", "%d is not a multiple of %d, which --direct needs", w.Offset, DirectAlign)
	}
	return nil
}

// validateTiming holds the queue, the workers and every time, rate, loop
// and sync count to what a run can be.
func (w *Workload) validateTiming() error {
	switch {
	case w.IODepth < 1:
		return result.Usagef("--iodepth", "%d is below 1; give I/Os in flight per job, 1 or more", w.IODepth)
	case w.IODepth > MaxIODepth:
		return result.Usagef("--iodepth", "%d is above %d, the deepest queue io_uring allows (IORING_MAX_ENTRIES)", w.IODepth, MaxIODepth)
	case w.NumJobs < 1:
		return result.Usagef("--numjobs", "%d is below 1; give workers per job, 1 or more", w.NumJobs)
	case w.Runtime < 0:
		return result.Usagef("--runtime", "%v is negative; give a duration such as 5s (0: no limit)", w.Runtime)
	case w.Runtime > 0 && w.Runtime < MinRuntime:
		return result.Usagef("--runtime", "%v is shorter than %v, too short for a worker to start and issue an I/O; give 1ms or more (0: no limit)",
			w.Runtime, MinRuntime)
	case w.Runtime > MaxRuntime:
		return result.Usagef("--runtime", "%v is longer than the %v a run may last; give a shorter --runtime", w.Runtime, MaxRuntime)
	case w.RampTime < 0:
		return result.Usagef("--ramp_time", "%v is negative; give a duration such as 2s or 0", w.RampTime)
	case w.ThinkTime < 0 || w.ThinkTimeBlocks < 0:
		return result.Usagef("--thinktime", "workload %s: a negative pause", w.Name)
	case w.Rate[0] < 0 || w.Rate[1] < 0 || w.RateIOPS[0] < 0 || w.RateIOPS[1] < 0:
		return result.Usagef("--rate", "workload %s: a negative rate", w.Name)
	case w.Loops < 0:
		return result.Usagef("--loops", "%d is negative; give the passes over the region, 1 or more", w.Loops)
	case w.CloneIndex < 0:
		return result.Usagef("--numjobs", "workload %s: clone index %d is negative", w.Name, w.CloneIndex)
	case w.RampTime > MaxRuntime:
		return result.Usagef("--ramp_time", "%v is longer than the %v a run may last", w.RampTime, MaxRuntime)
	case w.Fsync < 0:
		return result.Usagef("--fsync", "%d is negative; give N to fsync after every N writes, 0 never", w.Fsync)
	}
	return nil
}

// validatePercentiles holds percentile_list to fio's: each point in
// 0..100 once, at most maxPercentiles of them.
func (w *Workload) validatePercentiles() error {
	for i, p := range w.Report.PercentileList {
		if !(p >= 0 && p <= 100) { // written so that NaN fails too
			return result.Usagef("--percentile_list", "%g is outside 0..100", p)
		}
		if slices.Contains(w.Report.PercentileList[:i], p) {
			return result.Usagef("--percentile_list", "%g is listed twice; each percentile is one row of the report", p)
		}
	}
	if len(w.Report.PercentileList) > maxPercentiles {
		return result.Usagef("--percentile_list", "%d points; fio takes at most %d", len(w.Report.PercentileList), maxPercentiles)
	}
	return nil
}

func (w *Workload) validateLog() error {
	if w.Log == nil {
		return nil
	}
	return w.Log.Validate()
}

func (w *Workload) validateFadvise() error {
	if w.FadviseHint && !osio.CanAdviseAccess {
		return result.Usagef("--fadvise_hint", "needs posix_fadvise, which this platform lacks; give fadvise_hint=0")
	}
	return nil
}

// validateAccess holds a workload's own access pattern (an Iometer access
// specification) to its rules and to the workload's rw and bs.
func (w *Workload) validateAccess() error {
	if w.Access == nil {
		return nil
	}
	return w.Access.Check(w)
}

// maxPercentiles is fio's FIO_IO_U_LIST_MAX_LEN: the most points
// percentile_list takes.
const maxPercentiles = 20

// FillLevel is a level of use to fill the filesystem under test to before a
// run (preflight.Fill): a percentage of its size, or a size in use. The
// zero value fills nothing.
type FillLevel = preflight.Fill

// ParseFill reads --fill: "50%" of the filesystem, or a size in use such
// as "200g".
func ParseFill(s string) (FillLevel, error) { return preflight.ParseFill(s) }
