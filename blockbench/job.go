// Package blockbench is clyde's raw block engine: fio-style jobs (rw mode,
// block size, queue depth, workers) against a regular file or a block device.
// It knows no preset by name: the presets that print tables shaped like
// CrystalDiskMark (package cdm), Iometer (iometer), ORION (orion) and the
// block-size sweep and sustained run (blockpreset) plan their own groups of
// workloads and run them through RunPlan.
//
// A Job is a documented options struct; Validate holds every cross-flag rule
// and Run executes the job. Writing to a block device or to an existing file
// is refused unless it is provably unused and the caller set DestroyData
// (see safety_linux.go); a file clyde creates carries a marker while it
// exists, so that one left by a killed run can be removed with Cleanup.
package blockbench

import (
	"io"
	"slices"
	"time"

	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// RW is fio's rw mode.
type RW string

// The rw modes. ReadWrite is fio's "rw" (alias "readwrite").
const (
	Read      RW = "read"
	Write     RW = "write"
	RandRead  RW = "randread"
	RandWrite RW = "randwrite"
	ReadWrite RW = "rw"
	RandRW    RW = "randrw"
	// Trim and RandTrim discard each block of a block device's region
	// (BLKDISCARD), in sequence or at random: fio's trim and randtrim
	// (trim.go).
	Trim     RW = "trim"
	RandTrim RW = "randtrim"
	// TrimWrite discards each block of a block device's region and then
	// writes it, in sequence: fio's trimwrite (trim.go).
	TrimWrite RW = "trimwrite"
	// RandTrimWrite is TrimWrite with the blocks drawn at random: fio
	// 3.32's randtrimwrite (trim.go).
	RandTrimWrite RW = "randtrimwrite"
)

// RWModes are the rw modes ParseRW accepts (with fio's alias "readwrite"),
// in fio's order; the shell completions list them.
var RWModes = []RW{Read, Write, RandRead, RandWrite, ReadWrite, RandRW}

// ParseRW accepts fio's names, including the alias "readwrite".
func ParseRW(s string) (RW, error) {
	switch {
	case slices.Contains(RWModes, RW(s)):
		return RW(s), nil
	case s == "readwrite":
		return ReadWrite, nil
	case s == string(Trim) || s == string(RandTrim) || s == string(TrimWrite) || s == string(RandTrimWrite):
		return RW(s), nil
	}
	return "", result.Usagef("--rw", "unknown mode %q; accepted: read, write, randread, randwrite, rw (readwrite), randrw", s)
}

// Random reports whether offsets are drawn at random.
func (m RW) Random() bool {
	return m == RandRead || m == RandWrite || m == RandRW || m == RandTrim || m == RandTrimWrite
}

// Mixed reports whether each I/O picks its direction by --rwmixread.
func (m RW) Mixed() bool { return m == ReadWrite || m == RandRW }

// Writes reports whether the mode may write (or trim: a trim destroys data
// as a write does).
func (m RW) Writes() bool { return m != Read && m != RandRead }

// Reads says whether the mode reads.
func (m RW) Reads() bool { return m != Write && m != RandWrite && !m.Discards() }

// Trims says whether the mode discards blocks instead of reading or
// writing them.
func (m RW) Trims() bool { return m == Trim || m == RandTrim }

// Discards says whether the mode discards blocks: the trim modes and
// the trimwrite ones, which also write each block they discarded.
func (m RW) Discards() bool { return m.Trims() || m.TrimsThenWrites() }

// TrimsThenWrites says whether the mode discards each block it draws and
// then writes it: trimwrite and randtrimwrite.
func (m RW) TrimsThenWrites() bool { return m == TrimWrite || m == RandTrimWrite }

// Engine is how I/O is issued.
type Engine string

// The engines. EngineAuto, the default, picks a queueing engine (io_uring
// on Linux, windowsaio on Windows; libaio on a Linux without io_uring)
// where the platform has one and the queue depth is above 1, psync
// otherwise, so that --iodepth 32 and a preset's "Q32" mean 32 I/Os in
// flight; the result names the engine that ran.
const (
	EnginePsync      Engine = "psync"
	EngineIOUring    Engine = "io_uring"
	EngineLibaio     Engine = "libaio"
	EngineWindowsAIO Engine = "windowsaio"
	EngineAuto       Engine = "auto"
	// EngineNull is fio's null: no file, every I/O completes at once
	// (internal/ioengine/null.go); a workload on it has no target (Diskless).
	EngineNull Engine = "null"
	// EngineMmap is fio's mmap: memcpy to and from the file mapped in
	// memory (internal/ioengine/mmap_unix.go).
	EngineMmap Engine = "mmap"
	// EnginePosixAIO is fio's posixaio: glibc's POSIX AIO model, helper
	// threads and one request at a time per descriptor, rebuilt in Go
	// (internal/ioengine/posixaio.go).
	EnginePosixAIO Engine = "posixaio"
)

// Engines are the engine names ParseEngine accepts; the shell completions
// list them.
var Engines = []Engine{EnginePsync, EngineIOUring, EngineLibaio, EngineWindowsAIO, EngineAuto, EngineNull, EngineMmap, EnginePosixAIO}

// ParseEngine accepts psync, io_uring, libaio, windowsaio, auto, null, mmap
// and posixaio.
func ParseEngine(s string) (Engine, error) {
	if slices.Contains(Engines, Engine(s)) {
		return Engine(s), nil
	}
	return "", result.Usagef("--ioengine", "unknown engine %q; accepted: psync, io_uring, libaio, windowsaio, auto, null, mmap, posixaio", s)
}

// Defaults. Size and runtime follow CrystalDiskMark (1 GiB, 5 s); the rest
// follow fio.
const (
	DefaultSize      = int64(1 << 30)
	DefaultBS        = int64(4096)
	DefaultRWMixRead = 50
	DefaultIODepth   = 1
	DefaultNumJobs   = 1
	DefaultRuntime   = 5 * time.Second
	DefaultEngine    = EngineAuto
	DefaultSeed      = uint64(0x5eed)
	// DirectAlign is the alignment --direct demands of bs and offset: the
	// smallest logical block size a device has. Buffers are aligned to
	// BufferAlign, which satisfies every device.
	DirectAlign = int64(512)
	BufferAlign = 4096
	// MaxIODepth is IORING_MAX_ENTRIES, the most entries io_uring_setup
	// accepts; a deeper queue fails there. fio's io_uring engine fails the
	// same way, and its sync engines ignore iodepth; clyde refuses it for
	// every engine, so that what a result records is what could have run.
	MaxIODepth = 32768
	// MinRuntime is the shortest --runtime that can do I/O. A job's workers
	// start off one closed channel, and waking a thread takes tens of
	// microseconds, up to a millisecond on a loaded machine; a shorter
	// runtime ends before the first I/O is issued.
	MinRuntime = time.Millisecond
	// MaxRuntime is the longest --runtime (and ramp time) a job takes: the
	// 10000 hours Iometer allows. Longer is a typo, and past 292 years a
	// time.Duration overflows.
	MaxRuntime = 10_000 * time.Hour
)

// Job is one clyde block invocation. Field names follow fio's options.
type Job struct {
	// Name prefixes job names in the output; "" uses the rw mode.
	Name string
	// Filename is a regular file or a block device. An absent file is created
	// (with a marker beside it), filled, and removed afterwards; an existing
	// one is kept.
	Filename string
	// Size is the region each job works on, from Offset. 0 means the rest of an
	// existing file or device; for a file clyde creates, DefaultSize unless
	// SizeGiven, when it is refused.
	Size int64
	// SizeGiven says Size was given explicitly (--size), so a 0 for a file
	// that does not exist yet is refused rather than taken as DefaultSize.
	SizeGiven bool
	// Offset is where the region starts, in bytes.
	Offset int64
	RW     RW
	// RWMixRead is the percentage of reads in a mixed mode; each I/O picks its
	// direction independently with this probability, as Iometer and DiskSpd do.
	RWMixRead int
	// BlockSizes runs one job per size, in order.
	BlockSizes []int64
	// IODepth is I/Os in flight per worker; psync always has one.
	IODepth int
	// NumJobs is workers per job; their figures are summed into one job.
	NumJobs  int
	IOEngine Engine
	// Direct opens with O_DIRECT and uses aligned buffers.
	Direct bool
	// Runtime is the measured time of each job; RampTime runs before it and is
	// not counted. With TimeBased false a job also ends after Size bytes per worker.
	Runtime   time.Duration
	RampTime  time.Duration
	TimeBased bool
	Buffer    Buffer
	// Fsync issues an fsync after every Fsync writes of a worker; 0 never.
	Fsync int
	// EndFsync issues an fsync when a worker that wrote is done (fio's
	// end_fsync); Invalidate drops the file's cached pages before each job
	// (fio's invalidate).
	EndFsync    bool
	Invalidate  bool
	FadviseHint bool
	Seed        uint64
	// Fdatasync, FsyncOnClose, Verify, VerifyFatal and NoVerifyPass are
	// fio's fdatasync, fsync_on_close, verify, verify_fatal and do_verify=0
	// for the job's workloads (see Workload); a preset takes none of them.
	Fdatasync    int
	FsyncOnClose bool
	Verify       VerifyKind
	VerifyFatal  bool
	NoVerifyPass bool
	// SubmitBatch, LowWater, ReapMin, ReapPoll and
	// IODepthBatchCompleteMax batch the single job's io_uring or libaio
	// loop (see Workload).
	SubmitBatch             int
	LowWater                int
	ReapMin                 int
	ReapPoll                bool
	IODepthBatchCompleteMax int
	// Report is fio's percentile options, and Log what every job the Job
	// runs records of its I/O (fiojob.LogSpec: fio's logs); WriteLog
	// writes the files (see Plan.WriteLog).
	Report   ReportOptions
	Log      RecordSpec
	WriteLog func(name string, write func(io.Writer) error) error `json:"-"`
	// Shape is Plan.Shape: what fills a peer's fields of the result
	// (fiojob.Shape: fio's), for every preset too.
	Shape Shaper `json:"-"`
	// Ranks is Plan.Ranks: this process as one rank of a job of many.
	Ranks *Ranks
	// DestroyData allows writing to a block device or an existing file that
	// is not in use. It never allows writing to one in use: a mounted,
	// swapped or opened device, a file that is a loop device's image or open
	// for writing by another process.
	DestroyData bool
	// AllowSparse reads an existing file with holes or never-written
	// extents as it is (Plan.AllowSparse).
	AllowSparse bool
	// AllowCached measures a target whose uncached I/O a page cache
	// serves anyway as it is, noted (Plan.AllowCached).
	AllowCached bool
	// Warn, when set, gets one line for each thing the user must hear about
	// even when the report goes to a file: a depth capped to what the engine
	// keeps, a created file that was replaced during the run and so left in
	// place. The same goes into the notes.
	Warn io.Writer
	// CommandLine is recorded in the provenance; nil records os.Args.
	CommandLine []string
	// Steady adds the sustained-load analysis and steady-state detection
	// (and with UntilSteady ends each job at steady state); blockpreset's
	// sustained preset sets it when it is nil.
	Steady *SteadyState
	// Notes go into the result as they are (an engine substituted for one
	// clyde does not have).
	Notes []string
	// Progress, when set, gets a live line per job or preset row (see
	// Plan.Progress): for a terminal.
	Progress io.Writer
	// Distribution and Zones are fio's random_distribution and
	// zonemode=strided for the job's workloads (distribution.go); the presets
	// take neither.
	Distribution Distribution
	Zones        StridedZones
}

// NewJob returns a Job with every default filled in.
func NewJob(filename string) Job {
	return Job{
		Filename:   filename,
		RW:         Read,
		RWMixRead:  DefaultRWMixRead,
		BlockSizes: []int64{DefaultBS},
		IODepth:    DefaultIODepth,
		NumJobs:    DefaultNumJobs,
		IOEngine:   DefaultEngine,
		Runtime:    DefaultRuntime,
		TimeBased:  true,
		Buffer:     Buffer{Kind: BufferRandom},
		Seed:       DefaultSeed,
	}
}

// Validate checks every rule that needs no look at the target: the first
// broken one comes back as a usage error naming the flag and the accepted form.
func (j *Job) Validate() error {
	if len(j.BlockSizes) == 0 {
		return result.Usagef("--bs", "missing; give a size such as 4k or a list such as 4k,64k,1m")
	}
	for _, bs := range j.BlockSizes {
		w := j.Workload(j.RW, bs)
		if err := w.validate(); err != nil {
			return err
		}
		if err := checkFootprint(bs, j.IODepth, j.NumJobs, j.IOEngine); err != nil {
			return err
		}
	}
	return nil
}

// ValidateFields checks the rules of the job's fields, as Validate does,
// for a planner that makes workloads of its own from them (a preset): no
// block size is needed (DefaultBS stands in) and no footprint is checked,
// since RunPlan checks the planned workloads' own.
func (j *Job) ValidateFields() error {
	sizes := j.BlockSizes
	if len(sizes) == 0 {
		sizes = []int64{DefaultBS}
	}
	for _, bs := range sizes {
		w := j.Workload(j.RW, bs)
		if err := w.validate(); err != nil {
			return err
		}
	}
	return nil
}

// Workload is the job's workload for one rw mode and block size, named
// after the job (or the rw mode), and after the block size too when the
// job has several.
func (j *Job) Workload(rw RW, bs int64) Workload {
	name := j.Name
	if name == "" {
		name = string(rw)
	}
	if len(j.BlockSizes) > 1 {
		name += "-" + units.Label(bs)
	}
	return Workload{
		Name: name, Filename: j.Filename, RW: rw, RWMixRead: j.RWMixRead, BS: bs, Size: j.Size, Offset: j.Offset,
		IODepth: j.IODepth, NumJobs: j.NumJobs, IOEngine: j.IOEngine, Direct: j.Direct, Runtime: j.Runtime,
		RampTime: j.RampTime, TimeBased: j.TimeBased, Buffer: j.Buffer, Fsync: j.Fsync, Seed: j.Seed,
		EndFsync: j.EndFsync, Invalidate: j.Invalidate, FadviseHint: j.FadviseHint, Report: j.Report, Log: j.Log,
		Distribution: j.Distribution, Zones: j.Zones, Fdatasync: j.Fdatasync, FsyncOnClose: j.FsyncOnClose,
		Verify: j.Verify, VerifyFatal: j.VerifyFatal, NoVerifyPass: j.NoVerifyPass,
		SubmitBatch: j.SubmitBatch, LowWater: j.LowWater, ReapMin: j.ReapMin, ReapPoll: j.ReapPoll,
		IODepthBatchCompleteMax: j.IODepthBatchCompleteMax,
	}
}
