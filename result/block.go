package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/clydebench/clyde/internal/latency"
)

// Block is the whole result of clyde block. It has every key of fio 3.33's
// JSON (see blockfio.go), so jq paths and tools written for fio
// (.jobs[0].read.iops, .jobs[0].read.clat_ns.percentile["99.000000"],
// fio_jsonplus_clat2csv, fio-plot) work unchanged; clyde's own additions
// (provenance, target, config, series, trend, histograms) sit beside them.
type Block struct {
	// FioVersion is fio's "fio version" slot: clyde and the fio release
	// whose JSON shape this is (FioCompatible).
	FioVersion    string     `json:"fio version"`
	SchemaVersion int        `json:"schema_version"`
	Kind          string     `json:"kind"` // "block"
	Provenance    Provenance `json:"provenance"`
	// Timestamp and TimestampMs are fio's names for the start time.
	Timestamp   int64 `json:"timestamp"`
	TimestampMs int64 `json:"timestamp_ms"`
	// Time is the start time as fio prints it (C's ctime, local time).
	Time string `json:"time"`
	// GlobalOptions is fio's "global options": a job file's [global]
	// sections as written (and a fio command line's options before its
	// first --name); absent when there are none, as in fio.
	GlobalOptions Options     `json:"global options,omitempty"`
	Target        BlockTarget `json:"target"`
	Jobs          []BlockJob  `json:"jobs"`
	// DiskUtil is the target's disk from /sys/block/*/stat before and after
	// the run, as fio's disk_util; empty where there is none (tmpfs).
	DiskUtil []BlockDiskUtil `json:"disk_util,omitempty"`
	// Groups sums the jobs that ran at the same time (fio's "Run status
	// group"), for groups of more than one job.
	Groups  []BlockGroup  `json:"groups,omitempty"`
	Profile *BlockProfile `json:"profile,omitempty"`
	// Orion is a clyde orion run's matrices (result/orion.go); Sustained
	// how long jobs held up, with steady state (result/steady.go).
	Orion     *Orion           `json:"orion,omitempty"`
	Sustained []BlockSustained `json:"sustained,omitempty"`
	// Iometer is an Iometer-style run's tests (result/iometer.go), CDM a
	// CrystalDiskMark-style run's (result/cdm.go).
	Iometer *BlockIometer `json:"iometer,omitempty"`
	CDM     *BlockCDM     `json:"cdm,omitempty"`
	// Space is the filesystem under test when the measurements began.
	Space *BlockSpace `json:"space,omitempty"`
	// Job is a run across many ranks (clyde block under a launcher): Jobs
	// then hold every rank's figures summed.
	Job *RankJob `json:"job,omitempty"`
	// Interrupted is true when a signal stopped the run; Jobs holds what ran.
	Interrupted bool     `json:"interrupted,omitempty"`
	Error       string   `json:"error,omitempty"`
	Notes       []string `json:"notes,omitempty"`
	// Check is what --check-regression found (result/check.go).
	Check *RegressionCheck `json:"regression_check,omitempty"`
	// CacheNote, one of Notes, says that the uncached (direct) jobs' figures
	// are a page cache's: what served them (tmpfs, a loop device over a
	// file the host caches), and whether --allow-cached asked for it. The
	// HTML page repeats it; "" when nothing was cached that way.
	CacheNote string `json:"cache_note,omitempty"`
}

// BlockTarget is what the jobs ran against, after symlinks were resolved.
type BlockTarget struct {
	Path         string `json:"path"`
	ResolvedPath string `json:"resolved_path"`
	// Kind is "file" or "block_device".
	Kind string `json:"kind"`
	// Created is true when clyde created (and filled, then removed) the file.
	Created   bool  `json:"created"`
	SizeBytes int64 `json:"size_bytes"`
	// FillNs is how long filling a created file took; 0 when none was created.
	FillNs int64 `json:"fill_ns,omitempty"`
}

// BlockJob is one job: one block size, all its numjobs workers summed (fio's
// group_reporting). Runtime is the longest worker's, as fio's.
type BlockJob struct {
	JobName string `json:"jobname"`
	// Desc is fio's description= of the job, as fio's desc.
	Desc string `json:"desc,omitempty"`
	// GroupID is fio's reporting group: a new one after each stonewall or
	// new_group.
	GroupID int `json:"groupid"`
	Error   int `json:"error"`
	// Eta is always 0 (the job is over); Elapsed is the seconds from the
	// start of the run to its end, as fio's.
	Eta     int64 `json:"eta"`
	Elapsed int64 `json:"elapsed"`
	// Options is fio's "job options": a job written in fio's language (a
	// job file's section, a fio command line's job) echoes its own options
	// as fio does, as written; any other job (clyde's own command line, a
	// preset) the options it ran with, in fio's syntax ("4k", "1"). Absent
	// when there are none, as in fio.
	Options Options `json:"job options,omitempty"`
	// Config is the same job in typed form.
	Config BlockJobConfig `json:"config"`
	Read   BlockDir       `json:"read"`
	Write  BlockDir       `json:"write"`
	// Trim is rw=trim and randtrim (BLKDISCARD); Sync is the fsync=
	// and fdatasync= calls as fio's "sync": total_ios counts the fsyncs,
	// lat_ns both (end_fsync is in neither, as in fio).
	Trim BlockDir     `json:"trim"`
	Sync BlockSyncDir `json:"sync"`
	// Mixed is fio's "mixed" object (unified_rw_reporting=mixed or both):
	// every direction summed as one, its latencies merged, its sample
	// statistics fio's sums of the directions'; nil otherwise. MixedOnly
	// is unified_rw_reporting=mixed: the JSON then has "mixed" in place
	// of read, write, trim and sync, as fio writes it (fio's own tests
	// check that no direction is there); both writes it after sync.
	Mixed     *BlockDir `json:"mixed,omitempty"`
	MixedOnly bool      `json:"-"`
	// JobRuntime is the measured wall time in ms (excluding ramp), as fio's.
	JobRuntime int64 `json:"job_runtime"`
	// ElapsedNs is the same at full resolution.
	ElapsedNs int64 `json:"elapsed_ns"`
	// UsrCPU and SysCPU are the job's user and system time in percent of
	// one CPU over its runtime, as fio's: on Linux its workers' own threads
	// (RUSAGE_THREAD) from the end of the ramp, several workers summed as
	// fio's group_reporting sums clones (their CPU over the sum of their
	// runtimes). CPUScope says whose time it is: CPUScopeThreads, or
	// CPUScopeProcess where the platform has no per-thread figure and the
	// job carries the whole process's over its group's window.
	UsrCPU   float64 `json:"usr_cpu"`
	SysCPU   float64 `json:"sys_cpu"`
	CPUKnown bool    `json:"cpu_known"`
	CPUScope string  `json:"cpu_scope,omitempty"`
	// ProcessCPU is the whole process over the group's measured window,
	// every thread (the Go runtime's, io_uring's io-wq workers) included;
	// the same for every job of a group. nil where the platform reports no
	// process CPU time.
	ProcessCPU *BlockProcessCPU `json:"process_cpu,omitempty"`
	BlockJobFio
	// Series is one entry per second of the measured time.
	Series []BlockSample `json:"series"`
	Trend  BlockTrend    `json:"trend"`
	// Syncs counts fsync calls issued for --fsync.
	Syncs       int64 `json:"syncs"`
	Interrupted bool  `json:"interrupted,omitempty"`
	// Warmup marks a pass that ran only to prepare the drive (CDM's
	// uncounted first pass): reports and comparisons leave it out.
	Warmup bool `json:"warmup,omitempty"`
	// Notes say what of the job's output is not whole (a log cut short).
	Notes []string `json:"notes,omitempty"`
	// AccessLines counts what an Iometer access specification issued per
	// line (see result/iometer.go); empty for fio's rw modes.
	AccessLines []BlockAccessLine `json:"access_lines,omitempty"`
	// Files counts what each file of a job of several files (fio's
	// nrfiles, filename=a:b) was issued, in the job's order of them;
	// empty for a job of one file.
	Files []BlockFile `json:"files,omitempty"`
}

// BlockFile is the I/Os and bytes issued to one file of a job.
type BlockFile struct {
	Path       string `json:"path"`
	ReadIOs    int64  `json:"read_ios"`
	ReadBytes  int64  `json:"read_bytes"`
	WriteIOs   int64  `json:"write_ios"`
	WriteBytes int64  `json:"write_bytes"`
}

// What a job's CPU figures cover (BlockJob.CPUScope).
const (
	// CPUScopeThreads is the job's own workers' threads.
	CPUScopeThreads = "threads"
	// CPUScopeProcess is the whole process: every job of the group has the
	// same figures.
	CPUScopeProcess = "process"
)

// BlockProcessCPU is the whole process's user and system time over a
// group's measured window, in percent of one CPU (above 100 when more than
// one CPU was busy).
type BlockProcessCPU struct {
	UsrCPU float64 `json:"usr_cpu"`
	SysCPU float64 `json:"sys_cpu"`
}

// BlockJobConfig is a job as it ran, every default resolved.
type BlockJobConfig struct {
	RW          string `json:"rw"`
	RWMixRead   int    `json:"rwmixread"`
	BSBytes     int64  `json:"bs_bytes"`
	SizeBytes   int64  `json:"size_bytes"`
	OffsetBytes int64  `json:"offset_bytes"`
	// IODepth is the depth that ran; IODepthRequested the one asked for,
	// when the engine could not keep it (psync keeps one I/O in flight).
	IODepth          int    `json:"iodepth"`
	IODepthRequested int    `json:"iodepth_requested,omitempty"`
	NumJobs          int    `json:"numjobs"`
	IOEngine         string `json:"ioengine"`
	Direct           bool   `json:"direct"`
	RuntimeNs        int64  `json:"runtime_ns"`
	RampTimeNs       int64  `json:"ramp_time_ns"`
	TimeBased        bool   `json:"time_based"`
	Buffer           string `json:"buffer"`
	Fsync            int    `json:"fsync"`
	Seed             uint64 `json:"seed"`
	// EndFsync, Invalidate and FadviseHint are fio's end_fsync,
	// invalidate and fadvise_hint.
	EndFsync    bool `json:"end_fsync,omitempty"`
	Invalidate  bool `json:"invalidate,omitempty"`
	FadviseHint bool `json:"fadvise_hint,omitempty"`
	// BlockSizes, when set, are the sizes each direction's I/Os were
	// drawn from (fio's bs=R,W,T, bsrange, bssplit, blockalign): the job's
	// I/Os were not all BSBytes, its largest.
	BlockSizes *BlockSizes `json:"block_sizes,omitempty"`
}

// BlockSizes are a job's I/O sizes per direction as they ran.
type BlockSizes struct {
	Read  BlockSizeDir `json:"read"`
	Write BlockSizeDir `json:"write"`
	Trim  BlockSizeDir `json:"trim"`
	// Unaligned and SeqRand are fio's bs_unaligned and bs_is_seq_rand.
	Unaligned bool `json:"bs_unaligned,omitempty"`
	SeqRand   bool `json:"bs_is_seq_rand,omitempty"`
}

// BlockSizeDir is one direction's sizes: from MinBytes to MaxBytes, drawn
// from Split when it has entries (fio's bssplit, with the shares fio
// resolved, in the order a draw tries them), a random I/O starting at a
// multiple of AlignBytes.
type BlockSizeDir struct {
	MinBytes   int64            `json:"min_bytes"`
	MaxBytes   int64            `json:"max_bytes"`
	AlignBytes int64            `json:"align_bytes"`
	Split      []BlockSizeShare `json:"split,omitempty"`
}

// BlockSizeShare is one size of a split and its share in percent.
type BlockSizeShare struct {
	BSBytes int64 `json:"bs_bytes"`
	Pct     int64 `json:"pct"`
}

// BlockGroup is the jobs of one group summed, as fio's group_reporting
// sums them: I/Os and bytes added, the runtime the longest job's, IOPS and
// bandwidth over that runtime.
type BlockGroup struct {
	GroupID int      `json:"groupid"`
	Jobs    []int    `json:"jobs"` // indexes into Block.Jobs
	Read    BlockDir `json:"read"`
	Write   BlockDir `json:"write"`
}

// BlockDir is one direction of one job. Field names are fio's; runtime is in
// ms and bw in KiB/s as fio's, bw_bytes is the exact figure in B/s.
type BlockDir struct {
	IOBytes  int64 `json:"io_bytes"`
	IOKBytes int64 `json:"io_kbytes"`
	BWBytes  int64 `json:"bw_bytes"`
	BW       int64 `json:"bw"`
	// IOPS and BWBytes are over RuntimeNs (fio's use the whole-ms runtime).
	IOPS      float64 `json:"iops"`
	Runtime   int64   `json:"runtime"`
	RuntimeNs int64   `json:"runtime_ns"`
	TotalIOs  int64   `json:"total_ios"`
	ShortIOs  int64   `json:"short_ios"`
	DropIOs   int64   `json:"drop_ios"`
	// Slat, Clat and Lat are fio's submission, completion and total
	// latency. An engine without a submission stage (psync) has no slat,
	// and its clat is its lat, as in fio.
	Slat LatNs `json:"slat_ns"`
	Clat LatNs `json:"clat_ns"`
	Lat  LatNs `json:"lat_ns"`
	// Sample statistics over fio's 500 ms windows (bwavgtime, iopsavgtime),
	// bw_* in KiB/s. A job's numjobs workers are summed as fio's
	// group_reporting sums its clones (minimums, maximums, means and
	// sample counts added). BWAgg is the job's bw_mean in percent of its
	// reporting group's bandwidth.
	BWMin       int64   `json:"bw_min"`
	BWMax       int64   `json:"bw_max"`
	BWAgg       float64 `json:"bw_agg"`
	BWMean      float64 `json:"bw_mean"`
	BWDev       float64 `json:"bw_dev"`
	BWSamples   int     `json:"bw_samples"`
	IOPSMin     int64   `json:"iops_min"`
	IOPSMax     int64   `json:"iops_max"`
	IOPSMean    float64 `json:"iops_mean"`
	IOPSStddev  float64 `json:"iops_stddev"`
	IOPSSamples int     `json:"iops_samples"`
}

// LatNs is a latency distribution in nanoseconds, as fio's lat_ns object.
// Percentile is there as fio puts it: under clat_ns (clat_percentiles, on by
// default), under lat_ns and slat_ns only with lat_percentiles and
// slat_percentiles, and never for an empty distribution. Bins is json+'s
// bucket counts (WithBins).
type LatNs struct {
	Min        int64       `json:"min"`
	Max        int64       `json:"max"`
	Mean       float64     `json:"mean"`
	Stddev     float64     `json:"stddev"`
	N          int64       `json:"N"`
	Percentile Percentiles `json:"percentile,omitempty"`
	Bins       FioBins     `json:"bins,omitempty"`
	// HDR is the whole histogram (clyde's addition to fio's object; see
	// latency.Summary.HDR), so jobs of many hosts merge into true
	// percentiles.
	HDR string `json:"hdr,omitempty"`
}

// Percentile is one point of a latency distribution.
type Percentile struct {
	P     float64
	Value int64
}

// Percentiles encodes as fio's object, {"50.000000": 1128, ...}, in
// ascending order of the percentile (encoding/json would sort the keys as text).
type Percentiles []Percentile

// MarshalJSON writes the percentiles as fio's "%f"-keyed object.
func (ps Percentiles) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", strconv.FormatFloat(p.P, 'f', 6, 64), p.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads fio's "%f"-keyed object back, so saved results and fio's
// own output both decode.
func (ps *Percentiles) UnmarshalJSON(data []byte) error {
	var m map[string]int64
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	out := make(Percentiles, 0, len(m))
	for k, v := range m {
		p, err := strconv.ParseFloat(k, 64)
		if err != nil {
			return fmt.Errorf("percentile key %q: %w", k, err)
		}
		out = append(out, Percentile{P: p, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].P < out[j].P })
	*ps = out
	return nil
}

// At returns the value at percentile p and whether it was recorded.
func (ps Percentiles) At(p float64) (int64, bool) {
	for _, x := range ps {
		if x.P == p {
			return x.Value, true
		}
	}
	return 0, false
}

// BlockSample is one second of a job: I/Os and bytes per direction. The last
// sample may be shorter than a second; DurationNs says how long it was.
type BlockSample struct {
	StartMs    int64   `json:"start_ms"`
	DurationNs int64   `json:"duration_ns"`
	ReadIOs    int64   `json:"read_ios"`
	ReadBytes  int64   `json:"read_bytes"`
	WriteIOs   int64   `json:"write_ios"`
	WriteBytes int64   `json:"write_bytes"`
	IOPS       float64 `json:"iops"`
	BWBytes    int64   `json:"bw_bytes"`
}

// BlockTrend compares the last 10% of a job's samples with the first 10%, to
// show a drive that slows down during a run (an SLC cache running out).
type BlockTrend struct {
	// Known is false when the run had fewer than two whole samples.
	Known     bool    `json:"known"`
	Samples   int     `json:"samples"`
	FirstIOPS float64 `json:"first_iops"`
	LastIOPS  float64 `json:"last_iops"`
	// DropPct is how far the last 10% fell below the first 10%, in percent
	// of the first; negative when it rose.
	DropPct float64 `json:"drop_pct"`
}

// BlockProfile is a preset's table: one row per measurement in the order
// the original tool prints them.
type BlockProfile struct {
	Name   string            `json:"name"`
	Passes int               `json:"passes,omitempty"`
	Rows   []BlockProfileRow `json:"rows"`
}

// BlockProfileRow is one line of a profile table. Jobs indexes Block.Jobs
// for every pass that fed the row; the figures are the kept ones (CDM keeps
// the best pass).
type BlockProfileRow struct {
	Label     string `json:"label"`
	RW        string `json:"rw"`
	RWMixRead int    `json:"rwmixread"`
	BSBytes   int64  `json:"bs_bytes"`
	IODepth   int    `json:"iodepth"`
	NumJobs   int    `json:"numjobs"`
	// Load is the outstanding I/O of the point (ORION's "Small=" / "Large=").
	Load        int     `json:"load,omitempty"`
	Jobs        []int   `json:"jobs"`
	IOPS        float64 `json:"iops"`
	BWBytes     int64   `json:"bw_bytes"`
	ReadIOPS    float64 `json:"read_iops"`
	WriteIOPS   float64 `json:"write_iops"`
	MeanLatNs   float64 `json:"mean_lat_ns"`
	ReadMeanNs  float64 `json:"read_mean_lat_ns"`
	ReadMaxNs   int64   `json:"read_max_lat_ns"`
	WriteMeanNs float64 `json:"write_mean_lat_ns"`
	WriteMaxNs  int64   `json:"write_max_lat_ns"`
	P99LatNs    int64   `json:"p99_lat_ns"`
}

// Recorder rebuilds the recorder l was made from, to merge it with others
// (see latency.FromSummary).
func (l LatNs) Recorder() (*latency.Recorder, error) {
	return latency.FromSummary(latency.Summary{Count: l.N, MinNs: l.Min, MaxNs: l.Max, MeanNs: l.Mean, StddevNs: l.Stddev, HDR: l.HDR})
}

// LatNsFrom condenses a merged recorder into fio's lat_ns object at the
// percentiles ps (none when ps is empty or nothing was recorded), each by
// fio's rule (latency.FioPercentilesNs).
func LatNsFrom(r *latency.Recorder, ps []float64) LatNs {
	s := r.Summary()
	out := LatNs{Min: s.MinNs, Max: s.MaxNs, Mean: s.MeanNs, Stddev: s.StddevNs, N: s.Count, HDR: s.HDR}
	if len(ps) == 0 || s.Count == 0 {
		return out
	}
	vals := r.FioPercentilesNs(ps, make([]int64, 0, len(ps)))
	out.Percentile = make(Percentiles, len(ps))
	for i, p := range ps {
		out.Percentile[i] = Percentile{P: p, Value: vals[i]}
	}
	return out
}
