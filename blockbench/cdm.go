package blockbench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/clydebench/clyde/result"
)

// CDMPreset names a CrystalDiskMark test set.
type CDMPreset string

// The test sets: CrystalDiskMark 8/9's Default and NVMe SSD settings, its
// Peak, Real World and Demo profiles (Peak in both settings), and the
// defaults of versions 5, 6 and 7.
const (
	CDMDefault  CDMPreset = "default"
	CDMNVMe     CDMPreset = "nvme"
	CDMPeak     CDMPreset = "peak"
	CDMPeakNVMe CDMPreset = "peak-nvme"
	CDMReal     CDMPreset = "real"
	CDMDemo     CDMPreset = "demo"
	CDM7        CDMPreset = "cdm7"
	CDM6        CDMPreset = "cdm6"
	CDM5        CDMPreset = "cdm5"
)

// cdmTest is one of CrystalDiskMark's tests: SEQ or RND, block size, queues
// (outstanding I/Os per thread) and threads.
type cdmTest struct {
	random  bool
	bs      int64
	queues  int
	threads int
}

func (t cdmTest) label() string {
	kind := "SEQ"
	if t.random {
		kind = "RND"
	}
	return fmt.Sprintf("%s%s Q%dT%d", kind, cdmSize(t.bs), t.queues, t.threads)
}

// cdmSize is CrystalDiskMark's short size: 1M, 128K, 4K.
func cdmSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%dM", n>>20)
	}
	return fmt.Sprintf("%dK", n>>10)
}

var (
	seq1mQ8  = cdmTest{false, 1 << 20, 8, 1}
	seq1mQ1  = cdmTest{false, 1 << 20, 1, 1}
	seq128k  = cdmTest{false, 128 << 10, 32, 1}
	rnd4kQ32 = cdmTest{true, 4 << 10, 32, 1}
	rnd4kT16 = cdmTest{true, 4 << 10, 32, 16}
	rnd4kQ8  = cdmTest{true, 4 << 10, 8, 8}
	rnd4kQ1  = cdmTest{true, 4 << 10, 1, 1}
)

// cdmPresets are the test sets, from CrystalDiskMark's source (block.md
// 4.1): DiskMarkDlg.cpp's settings presets and the profiles' bench indices.
var cdmPresets = map[CDMPreset]struct {
	profile string // the "Profile:" line
	tests   []cdmTest
}{
	CDMDefault:  {"Default", []cdmTest{seq1mQ8, seq1mQ1, rnd4kQ32, rnd4kQ1}},
	CDMNVMe:     {"Default", []cdmTest{seq1mQ8, seq128k, rnd4kT16, rnd4kQ1}},
	CDMPeak:     {"Peak", []cdmTest{seq1mQ8, rnd4kQ32}},
	CDMPeakNVMe: {"Peak", []cdmTest{seq1mQ8, rnd4kT16}},
	CDMReal:     {"Real", []cdmTest{seq1mQ1, rnd4kQ1}},
	CDMDemo:     {"Demo", []cdmTest{seq1mQ8}},
	CDM7:        {"Default", []cdmTest{seq1mQ8, seq1mQ1, rnd4kT16, rnd4kQ1}},
	CDM6:        {"Default", []cdmTest{seq128k, rnd4kQ8, rnd4kQ32, rnd4kQ1}},
	CDM5:        {"Default", []cdmTest{seq128k, rnd4kQ32, seq1mQ1, rnd4kQ1}},
}

// CDMPresets lists the preset names in the order help shows them.
var CDMPresets = []CDMPreset{CDMDefault, CDMNVMe, CDMPeak, CDMPeakNVMe, CDMReal, CDMDemo, CDM7, CDM6, CDM5}

// ParseCDMPreset accepts the preset names.
func ParseCDMPreset(s string) (CDMPreset, error) {
	if _, ok := cdmPresets[CDMPreset(s)]; ok {
		return CDMPreset(s), nil
	}
	return "", result.Usagef("--cdm-preset", "unknown test set %q; accepted: %v", s, CDMPresets)
}

// CDMData is the test data: CrystalDiskMark's Random or All 0x00 (0Fill),
// or both, each test with one then the other.
type CDMData string

// The kinds of test data.
const (
	CDMRandom CDMData = "random"
	CDMZero   CDMData = "zero"
	CDMBoth   CDMData = "both"
)

// ParseCDMData accepts random, zero (0fill) and both.
func ParseCDMData(s string) (CDMData, error) {
	switch s {
	case "random", "zero", "both":
		return CDMData(s), nil
	case "0fill", "0x00":
		return CDMZero, nil
	}
	return "", result.Usagef("--test-data", "unknown test data %q; accepted: random, zero (0fill), both", s)
}

// CDMAggregate is how the passes of a test make its figure.
type CDMAggregate string

// Best is CrystalDiskMark's: the highest throughput and the lowest latency
// of the passes. Average is KDiskMark's Default profile's.
const (
	CDMBest    CDMAggregate = "best"
	CDMAverage CDMAggregate = "average"
)

// ParseCDMAggregate accepts best and average.
func ParseCDMAggregate(s string) (CDMAggregate, error) {
	switch CDMAggregate(s) {
	case CDMBest, CDMAverage:
		return CDMAggregate(s), nil
	}
	return "", result.Usagef("--passes-kept", "unknown %q; accepted: best (CrystalDiskMark), average (KDiskMark)", s)
}

// CDMOptions are the settings of a CrystalDiskMark run beyond the Job's
// (Size is the test size, Passes the passes, Runtime the measure time).
type CDMOptions struct {
	Preset CDMPreset
	Data   CDMData
	// Mix adds CrystalDiskMark's Mix rows, each test with MixRead percent
	// reads (10..90).
	Mix     bool
	MixRead int
	// Aggregate keeps the best pass or the average of them.
	Aggregate CDMAggregate
	// Interval is the idle time before each test (CrystalDiskMark's
	// Interval Time).
	Interval time.Duration
	// Buffered runs through the page cache; CrystalDiskMark never does, so
	// every output says so.
	Buffered bool
	// Fill fills the filesystem to a level of use before the test.
	Fill FillLevel
}

// CDM defaults, as CrystalDiskMark 8 (passes 5: CrystalDiskMark 9.0 made it
// 3) and KDiskMark.
const (
	DefaultCDMPasses   = 5
	DefaultCDMMixRead  = 70
	DefaultCDMInterval = 5 * time.Second
	// MaxCDMPasses is CrystalDiskMark's largest test count.
	MaxCDMPasses = 9
	// CDMFileName is the test file's name when --filename is a directory.
	CDMFileName = "clyde-cdm.tmp"
)

func (o *CDMOptions) validate(j *Job) error {
	if _, ok := cdmPresets[o.Preset]; !ok {
		return result.Usagef("--cdm-preset", "unknown test set %q; accepted: %v", o.Preset, CDMPresets)
	}
	if _, err := ParseCDMData(string(o.Data)); err != nil {
		return err
	}
	if _, err := ParseCDMAggregate(string(o.Aggregate)); err != nil {
		return err
	}
	switch {
	case j.Passes < 1 || j.Passes > MaxCDMPasses:
		return result.Usagef("--passes", "%d is outside 1..%d, CrystalDiskMark's test counts", j.Passes, MaxCDMPasses)
	case o.Mix && (o.MixRead < 10 || o.MixRead > 90):
		return result.Usagef("--mix-read", "%d%% is outside CrystalDiskMark's Mix ratios, 10..90", o.MixRead)
	case o.Interval < 0:
		return result.Usagef("--interval", "%v is negative", o.Interval)
	case j.RampTime != 0:
		return result.Usagef("--ramp_time", "cdm runs an uncounted warm-up pass of each test instead; drop --ramp_time")
	case j.Runtime <= 0 && j.TimeBased:
		return result.Usagef("--runtime", "cdm's measure time must be above 0 (CrystalDiskMark: 5 s)")
	}
	return nil
}

// cdmRow is one test in one mode with one test data, as planned: its
// groups are the warm-up, then the passes.
type cdmRow struct {
	test   cdmTest
	mode   string // read, write, mix
	data   CDMData
	warmup int // group index
	passes []int
}

// cdmTarget is where the test files go: a private directory in the
// directory --filename names (or that holds the new file it names), or an
// existing file or device, in place.
func cdmTarget(j *Job, data CDMData) (files map[CDMData]string, private bool, err error) {
	fi, err := os.Stat(j.Filename)
	switch {
	case err == nil && fi.IsDir():
		files = map[CDMData]string{CDMRandom: filepath.Join(j.Filename, CDMFileName), CDMZero: filepath.Join(j.Filename, CDMFileName)}
		if data == CDMBoth {
			files[CDMRandom] = filepath.Join(j.Filename, "clyde-cdm-random.tmp")
			files[CDMZero] = filepath.Join(j.Filename, "clyde-cdm-0fill.tmp")
		}
		return files, true, nil
	case errors.Is(err, fs.ErrNotExist):
		files = map[CDMData]string{CDMRandom: j.Filename, CDMZero: j.Filename}
		if data == CDMBoth {
			files[CDMZero] = j.Filename + "-0fill"
		}
		return files, true, nil
	case err != nil:
		return nil, false, result.Usagef("--filename", "cannot look at %s: %v", j.Filename, err)
	case data == CDMBoth:
		return nil, false, result.Usagef("--test-data", "both needs two test files clyde creates and fills, one with each data; %s exists: give a directory or a new path", j.Filename)
	}
	return map[CDMData]string{CDMRandom: j.Filename, CDMZero: j.Filename}, false, nil
}

// cdmPlan is the CrystalDiskMark run as groups: every test read, then
// written, then mixed (as DiskBench.cpp runs them), each with every test
// data, each an uncounted warm-up pass then the passes, with the interval
// before every test but the first.
func cdmPlan(j *Job) (Plan, []cdmRow, error) {
	o := j.CDM
	p := Plan{DestroyData: j.DestroyData, AllowSparse: j.AllowSparse, AllowCached: j.AllowCached, SizeGiven: j.SizeGiven, Warn: j.Warn, CommandLine: j.CommandLine, Progress: j.Progress, Shape: j.Shape,
		RequireUncached: !o.Buffered, Fill: o.Fill}
	if err := o.validate(j); err != nil {
		return p, nil, err
	}
	files, private, err := cdmTarget(j, o.Data)
	if err != nil {
		return p, nil, err
	}
	p.PrivateDir = private
	datas := []CDMData{o.Data}
	if o.Data == CDMBoth {
		datas = []CDMData{CDMRandom, CDMZero}
	}
	modes := []string{"read", "write"}
	if o.Mix {
		modes = append(modes, "mix")
	}
	preset := cdmPresets[o.Preset]
	for _, t := range preset.tests {
		if t.queues > 1 {
			if e, err := pickEngine(j.IOEngine, t.queues); err == nil && !e.queues() {
				return p, nil, result.Usagef("--ioengine", "the cdm test %s needs %d I/Os in flight per thread, and %s keeps one at a time; "+
					"use --ioengine auto or one of: %s", t.label(), t.queues, e.name(), orNone(queueingEngines()))
			}
		}
	}
	var rows []cdmRow
	for _, mode := range modes {
		for _, t := range preset.tests {
			for _, data := range datas {
				row := cdmRow{test: t, mode: mode, data: data}
				w := Workload{Filename: files[data], BS: t.bs, Size: j.Size, Offset: j.Offset, IODepth: t.queues, NumJobs: t.threads,
					IOEngine: j.IOEngine, Direct: !o.Buffered, Runtime: j.Runtime, TimeBased: j.TimeBased, Seed: j.Seed,
					RWMixRead: o.MixRead, Buffer: Buffer{Kind: BufferRandom}}
				if data == CDMZero {
					w.Buffer = Buffer{Kind: BufferZero}
				}
				w.RW = cdmRW(t.random, mode)
				name := t.label() + " " + mode
				if o.Data == CDMBoth {
					name += map[CDMData]string{CDMRandom: " random", CDMZero: " 0fill"}[data]
				}
				rowLabel := fmt.Sprintf("%s %s", t.label(), mode)
				if o.Data == CDMBoth {
					rowLabel += map[CDMData]string{CDMRandom: " (random)", CDMZero: " (0Fill)"}[data]
				}
				idle := o.Interval
				if len(p.Groups) == 0 {
					idle = 0
				}
				for k := 0; k <= j.Passes; k++ {
					pass := w
					pass.Name = fmt.Sprintf("%s pass %d", name, k)
					if k == 0 {
						pass.Name = name + " (warm-up)"
						row.warmup = len(p.Groups)
					} else {
						row.passes = append(row.passes, len(p.Groups))
						idle = 0
					}
					p.Groups = append(p.Groups, Group{pass})
					p.Idle = append(p.Idle, idle)
					p.Labels = append(p.Labels, GroupLabel{Row: rowLabel, Pass: k, Passes: j.Passes})
				}
				rows = append(rows, row)
			}
		}
	}
	if o.Buffered {
		p.Notes = append(p.Notes, "--buffered: every test ran through the page cache (CrystalDiskMark never does), so the figures are of memory as much as of the drive")
	}
	if !private && o.Data != CDMRandom {
		p.Notes = append(p.Notes, fmt.Sprintf("%s already existed: the writes used all-0x00 buffers, and the reads read what it held", j.Filename))
	}
	return p, rows, nil
}

func cdmRW(random bool, mode string) RW {
	switch {
	case mode == "mix" && random:
		return RandRW
	case mode == "mix":
		return ReadWrite
	case mode == "write" && random:
		return RandWrite
	case mode == "write":
		return Write
	case random:
		return RandRead
	}
	return Read
}

// runCDM runs the CrystalDiskMark preset and fills its table.
func runCDM(ctx context.Context, j Job) (*result.Block, error) {
	p, rows, err := cdmPlan(&j)
	if err != nil {
		return nil, err
	}
	res, err := RunPlan(ctx, p)
	if res != nil {
		res.CDM, res.Profile = cdmFinish(&j, rows, res.Jobs)
		res.CDM.Admin = elevated()
		if err != nil && res.Error == "" {
			// A run stopped before its first group (prepare failed,
			// interrupted) has no job to carry the error.
			res.Error = err.Error()
		}
	}
	return res, err
}

// cdmFinish keeps each row's figures from its passes: CrystalDiskMark's
// best (the highest MB/s, and the lowest latency of a pass that moved
// data), or their average. Jobs line up with groups, one each. A row no
// pass of which ran is left out: zeros would read as a measurement.
func cdmFinish(j *Job, rows []cdmRow, jobs []result.BlockJob) (*result.BlockCDM, *result.BlockProfile) {
	o := j.CDM
	out := &result.BlockCDM{Preset: string(o.Preset), Profile: cdmPresets[o.Preset].profile, TestSizeBytes: j.Size, Passes: j.Passes,
		MeasureNs: int64(j.Runtime), IntervalNs: int64(o.Interval), Aggregate: string(o.Aggregate), TestData: string(o.Data),
		Direct: !o.Buffered}
	if o.Mix {
		out.MixReadPct = o.MixRead
	}
	if out.TestSizeBytes == 0 && len(jobs) > 0 {
		out.TestSizeBytes = jobs[0].Config.SizeBytes
	}
	prof := &result.BlockProfile{Name: string(ProfileCDM), Passes: j.Passes}
	for _, r := range rows {
		cr := result.BlockCDMRow{Test: r.test.label(), Random: r.test.random, BSBytes: r.test.bs, Queues: r.test.queues,
			Threads: r.test.threads, Mode: r.mode, Data: string(r.data), WarmupJob: -1}
		if r.warmup < len(jobs) {
			cr.WarmupJob = r.warmup
			jobs[r.warmup].Warmup = true // compare, the page and Prometheus leave it out
		}
		var sumBW, sumLat float64
		n := 0
		bestLat := -1.0
		for _, g := range r.passes {
			if g >= len(jobs) {
				break
			}
			cr.Jobs = append(cr.Jobs, g)
			job := &jobs[g]
			bw := float64(job.Read.BWBytes + job.Write.BWBytes)
			lat := meanLat(job) / 1e3
			sumBW, sumLat, n = sumBW+bw, sumLat+lat, n+1
			if bw > cr.BWBytes {
				cr.BWBytes = bw
			}
			if bw > 0 && (bestLat < 0 || lat < bestLat) {
				bestLat = lat
			}
		}
		switch {
		case n == 0:
			continue
		case o.Aggregate == CDMAverage:
			cr.BWBytes, cr.LatencyUs = sumBW/float64(n), sumLat/float64(n)
		default:
			cr.LatencyUs = max(0, bestLat)
		}
		cr.IOPS = cr.BWBytes / float64(r.test.bs)
		out.Rows = append(out.Rows, cr)

		label := cr.Test + " " + cr.Mode
		if o.Data == CDMBoth {
			label += " " + cr.Data
		}
		pr := result.BlockProfileRow{Label: label, RW: string(cdmRW(r.test.random, r.mode)), BSBytes: r.test.bs,
			IODepth: r.test.queues, NumJobs: r.test.threads, Jobs: cr.Jobs, IOPS: cr.IOPS, BWBytes: int64(cr.BWBytes),
			MeanLatNs: cr.LatencyUs * 1e3}
		if r.mode == "mix" {
			pr.RWMixRead = o.MixRead
		}
		prof.Rows = append(prof.Rows, pr)
	}
	return out, prof
}
