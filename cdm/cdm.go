// Package cdm is CrystalDiskMark as a clyde block preset: its test sets,
// test data and passes planned as groups of blockbench workloads (Plan),
// run through blockbench.RunPlan, and its table kept from the passes
// (Planned.Finish). clyde block --profile cdm runs it.
package cdm

import (
	"fmt"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/preset"
	"github.com/clydebench/clyde/result"
)

// Name is the preset's name: clyde block --profile cdm, and the name of
// its result's profile table.
const Name = "cdm"

// Preset names a CrystalDiskMark test set.
type Preset string

// The test sets: CrystalDiskMark 8/9's Default and NVMe SSD settings, its
// Peak, Real World and Demo profiles (Peak in both settings), and the
// defaults of versions 5, 6 and 7.
const (
	Default  Preset = "default"
	NVMe     Preset = "nvme"
	Peak     Preset = "peak"
	PeakNVMe Preset = "peak-nvme"
	Real     Preset = "real"
	Demo     Preset = "demo"
	CDM7     Preset = "cdm7"
	CDM6     Preset = "cdm6"
	CDM5     Preset = "cdm5"
)

// test is one of CrystalDiskMark's tests: SEQ or RND, block size, queues
// (outstanding I/Os per thread) and threads.
type test struct {
	random  bool
	bs      int64
	queues  int
	threads int
}

func (t test) label() string {
	kind := "SEQ"
	if t.random {
		kind = "RND"
	}
	return fmt.Sprintf("%s%s Q%dT%d", kind, sizeLabel(t.bs), t.queues, t.threads)
}

// sizeLabel is CrystalDiskMark's short size: 1M, 128K, 4K.
func sizeLabel(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%dM", n>>20)
	}
	return fmt.Sprintf("%dK", n>>10)
}

var (
	seq1mQ8  = test{false, 1 << 20, 8, 1}
	seq1mQ1  = test{false, 1 << 20, 1, 1}
	seq128k  = test{false, 128 << 10, 32, 1}
	rnd4kQ32 = test{true, 4 << 10, 32, 1}
	rnd4kT16 = test{true, 4 << 10, 32, 16}
	rnd4kQ8  = test{true, 4 << 10, 8, 8}
	rnd4kQ1  = test{true, 4 << 10, 1, 1}
)

// presets are the test sets, from CrystalDiskMark's source (block.md
// 4.1): DiskMarkDlg.cpp's settings presets and the profiles' bench indices.
var presets = map[Preset]struct {
	profile string // the "Profile:" line
	tests   []test
}{
	Default:  {"Default", []test{seq1mQ8, seq1mQ1, rnd4kQ32, rnd4kQ1}},
	NVMe:     {"Default", []test{seq1mQ8, seq128k, rnd4kT16, rnd4kQ1}},
	Peak:     {"Peak", []test{seq1mQ8, rnd4kQ32}},
	PeakNVMe: {"Peak", []test{seq1mQ8, rnd4kT16}},
	Real:     {"Real", []test{seq1mQ1, rnd4kQ1}},
	Demo:     {"Demo", []test{seq1mQ8}},
	CDM7:     {"Default", []test{seq1mQ8, seq1mQ1, rnd4kT16, rnd4kQ1}},
	CDM6:     {"Default", []test{seq128k, rnd4kQ8, rnd4kQ32, rnd4kQ1}},
	CDM5:     {"Default", []test{seq128k, rnd4kQ32, seq1mQ1, rnd4kQ1}},
}

// Presets lists the preset names in the order help shows them.
var Presets = []Preset{Default, NVMe, Peak, PeakNVMe, Real, Demo, CDM7, CDM6, CDM5}

// ParsePreset accepts the preset names.
func ParsePreset(s string) (Preset, error) {
	if _, ok := presets[Preset(s)]; ok {
		return Preset(s), nil
	}
	return "", result.Usagef("--cdm-preset", "unknown test set %q; accepted: %v", s, Presets)
}

// Data is the test data: CrystalDiskMark's Random or All 0x00 (0Fill),
// or both, each test with one then the other.
type Data string

// The kinds of test data.
const (
	Random Data = "random"
	Zero   Data = "zero"
	Both   Data = "both"
)

// ParseData accepts random, zero (0fill) and both.
func ParseData(s string) (Data, error) {
	switch s {
	case "random", "zero", "both":
		return Data(s), nil
	case "0fill", "0x00":
		return Zero, nil
	}
	return "", result.Usagef("--test-data", "unknown test data %q; accepted: random, zero (0fill), both", s)
}

// Aggregate is how the passes of a test make its figure.
type Aggregate string

// Best is CrystalDiskMark's: the highest throughput and the lowest latency
// of the passes. Average is KDiskMark's Default profile's.
const (
	Best    Aggregate = "best"
	Average Aggregate = "average"
)

// ParseAggregate accepts best and average.
func ParseAggregate(s string) (Aggregate, error) {
	switch Aggregate(s) {
	case Best, Average:
		return Aggregate(s), nil
	}
	return "", result.Usagef("--passes-kept", "unknown %q; accepted: best (CrystalDiskMark), average (KDiskMark)", s)
}

// Options are the settings of a CrystalDiskMark run beyond the job's (the
// job's Size is the test size, Runtime the measure time).
type Options struct {
	Preset Preset
	Data   Data
	// Passes is the measured passes of each test, after one uncounted
	// warm-up.
	Passes int
	// Mix adds CrystalDiskMark's Mix rows, each test with MixRead percent
	// reads (10..90).
	Mix     bool
	MixRead int
	// Aggregate keeps the best pass or the average of them.
	Aggregate Aggregate
	// Interval is the idle time before each test (CrystalDiskMark's
	// Interval Time).
	Interval time.Duration
	// Buffered runs through the page cache; CrystalDiskMark never does, so
	// every output says so.
	Buffered bool
	// Fill fills the filesystem to a level of use before the test.
	Fill blockbench.FillLevel
}

// The defaults, as CrystalDiskMark 8 (passes 5: CrystalDiskMark 9.0 made
// it 3) and KDiskMark.
const (
	DefaultPasses   = 5
	DefaultMixRead  = 70
	DefaultInterval = 5 * time.Second
	// MaxPasses is CrystalDiskMark's largest test count.
	MaxPasses = 9
	// FileName is the test file's name when the job's Filename is a
	// directory.
	FileName = "clyde-cdm.tmp"
)

// DefaultOptions are CrystalDiskMark's Default test set with its defaults.
func DefaultOptions() Options {
	return Options{Preset: Default, Data: Random, Passes: DefaultPasses, MixRead: DefaultMixRead, Aggregate: Best,
		Interval: DefaultInterval}
}

// Validate checks o and the job it runs with, before anything is touched:
// the rules every preset's job meets (internal/preset), CrystalDiskMark's
// own, and the job's fields.
func (o *Options) Validate(j *blockbench.Job) error {
	return preset.Validate(j, Name, func() error { return o.validate(j) })
}

func (o *Options) validate(j *blockbench.Job) error {
	if _, ok := presets[o.Preset]; !ok {
		return result.Usagef("--cdm-preset", "unknown test set %q; accepted: %v", o.Preset, Presets)
	}
	if _, err := ParseData(string(o.Data)); err != nil {
		return err
	}
	if _, err := ParseAggregate(string(o.Aggregate)); err != nil {
		return err
	}
	switch {
	case o.Passes < 1 || o.Passes > MaxPasses:
		return result.Usagef("--passes", "%d is outside 1..%d, CrystalDiskMark's test counts", o.Passes, MaxPasses)
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
