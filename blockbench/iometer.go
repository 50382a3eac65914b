package blockbench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// IometerSetup is an Iometer test setup as clyde runs it: a list of access
// specifications, disk workers that each run their assigned specifications
// in order, one test per specification (times the steps of the cycling), on
// one target. Package iometer reads it from an .icf file; the iometer-mix
// preset builds one. Each test is one group: every active worker runs at
// the same time, each on its own descriptor with its own outstanding I/Os.
type IometerSetup struct {
	// Source names where the setup came from in the result: the .icf
	// file, or the preset.
	Source      string
	Description string
	// Profile is the name the result's profile table carries.
	Profile  string
	Filename string
	Specs    []AccessSpec
	Workers  []IometerWorker
	// Runtime is each test's measured time, after RampTime.
	Runtime  time.Duration
	RampTime time.Duration
	Cycle    IometerCycle
	IOEngine Engine
	// Direct opens with O_DIRECT, as Iometer's Linux Dynamo does;
	// RequireUncached refuses a target where that would still measure the
	// page cache (Plan.RequireUncached).
	Direct          bool
	RequireUncached bool
	DestroyData     bool
	// AllowSparse reads an existing file with holes or never-written
	// extents as it is (Plan.AllowSparse).
	AllowSparse bool
	// AllowCached measures a target whose uncached I/O a page cache
	// serves anyway as it is, noted (Plan.AllowCached).
	AllowCached bool
	// SizeGiven is Plan.SizeGiven: a worker's Size 0 means the rest of an
	// existing target and is refused for a new file.
	SizeGiven bool
	// Warn, Progress, CommandLine and Shape are Plan's.
	Warn        io.Writer
	Progress    io.Writer
	CommandLine []string
	Shape       Shaper `json:"-"`
	// Ignored lists what the source held that clyde does not use, for the
	// result; Notes go into the result as they are.
	Ignored []string
	Notes   []string
	// OnePass ends each test also after one pass over the region per
	// worker, as fio's time_based=0 (the iometer-mix preset's
	// --time_based=false); a zero Runtime then means no time limit.
	// Iometer itself always runs for its run time.
	OnePass bool
}

// IometerWorker is one Iometer disk worker.
type IometerWorker struct {
	Name string
	// OutstandingIOs is Iometer's "# of Outstanding I/Os" (iodepth).
	OutstandingIOs int
	// Specs are the worker's assigned access specifications, indexes into
	// IometerSetup.Specs, in the order they run.
	Specs []int
	// Offset and Size are the worker's region: Iometer's starting sector
	// and maximum disk size, in bytes; Size 0 is the rest of the target.
	Offset, Size int64
	// Seed is the worker's random seed (Iometer's fixed seed value, or one
	// clyde picks per worker).
	Seed   uint64
	Buffer Buffer
}

// IometerCycle is Iometer's cycling: each specification runs once per step
// of the outstanding I/Os or of the number of workers. The zero value
// runs each once, as Iometer's NORMAL test type.
type IometerCycle struct {
	// Queue steps every worker's outstanding I/Os from Start to End.
	Queue bool
	// Workers steps the number of active workers from Start up to all of
	// them (Iometer's End is the worker count).
	Workers     bool
	Start, End  int
	Step        int
	Exponential bool
}

// steps lists the values the cycle takes; limit is where a worker cycle
// ends.
func (c IometerCycle) steps(limit int) []int {
	end := c.End
	if c.Workers {
		end = limit
	}
	var out []int
	for v := c.Start; v <= end; {
		out = append(out, v)
		if c.Exponential && c.Step > 1 {
			v *= c.Step // Iometer's start * step^n
		} else {
			v += c.Step // linear, and exponential by 1 (Iometer adds it)
		}
	}
	return out
}

func (c IometerCycle) String() string {
	if !c.Queue && !c.Workers {
		return ""
	}
	kind, end := "outstanding I/Os", fmt.Sprint(c.End)
	if c.Workers {
		kind, end = "workers", "all"
	}
	how := fmt.Sprintf("+%d", c.Step)
	if c.Exponential && c.Step > 1 {
		how = fmt.Sprintf("x%d", c.Step)
	}
	return fmt.Sprintf("%s %d..%s, %s", kind, c.Start, end, how)
}

// MaxIometerTests bounds the tests of one setup, so a cycle with a step
// that barely moves cannot plan millions of groups.
const MaxIometerTests = 10_000

// validate holds the setup's rules; every refusal is a usage error.
func (s *IometerSetup) validate() error {
	switch {
	case len(s.Specs) == 0:
		return usagef("access specifications", "no access specifications to run")
	case len(s.Workers) == 0:
		return usagef("access specifications", "no disk workers: Iometer runs access specifications on workers")
	case s.Runtime < 0 || (s.Runtime == 0 && !s.OnePass):
		return result.Usagef("--runtime", "a run time of %v would run until stopped (Iometer's 0); give a run time, such as --runtime 60", s.Runtime)
	case s.RampTime < 0:
		return result.Usagef("--ramp_time", "%v is negative", s.RampTime)
	}
	for i := range s.Specs {
		if err := s.Specs[i].validate(s.Direct); err != nil {
			return err
		}
	}
	for _, w := range s.Workers {
		if w.OutstandingIOs < 1 || w.OutstandingIOs > MaxIODepth {
			return result.Usagef("--iodepth", "worker %q: %d outstanding I/Os is outside 1..%d", w.Name, w.OutstandingIOs, MaxIODepth)
		}
		for _, k := range w.Specs {
			if k < 0 || k >= len(s.Specs) {
				return usagef("access specifications", "worker %q is assigned access specification %d of %d", w.Name, k+1, len(s.Specs))
			}
		}
	}
	c := s.Cycle
	if c.Queue || c.Workers {
		switch {
		case c.Queue && c.Workers:
			return usagef("Test Setup cycling", "cycle outstanding I/Os or workers, not both")
		case c.Start < 1:
			return usagef("Test Setup cycling", "cycling starts at %d; give 1 or more", c.Start)
		case c.Queue && (c.End < c.Start || c.End > MaxIODepth):
			return usagef("Test Setup cycling", "outstanding I/Os cycle from %d to %d; the end must be %d..%d", c.Start, c.End, c.Start, MaxIODepth)
		case c.Step < 1:
			return usagef("Test Setup cycling", "a cycling step of %d never moves; give 1 or more", c.Step)
		}
	}
	return nil
}

// iometerTest is one test of a setup as planned: the spec slot, the step
// of the cycle and the workers that run.
type iometerTest struct {
	slot    int
	depth   int // 0: each worker's own
	workers []int
}

// tests lists the setup's tests in Iometer's order: each specification in
// turn, through every step of the cycle.
func (s *IometerSetup) tests() ([]iometerTest, error) {
	slots := 0
	for _, w := range s.Workers {
		slots = max(slots, len(w.Specs))
	}
	var out []iometerTest
	for slot := range slots {
		var active []int
		for i, w := range s.Workers {
			if slot < len(w.Specs) {
				active = append(active, i)
			}
		}
		switch {
		case s.Cycle.Queue:
			for _, d := range s.Cycle.steps(0) {
				out = append(out, iometerTest{slot: slot, depth: d, workers: active})
			}
		case s.Cycle.Workers:
			for _, n := range s.Cycle.steps(len(active)) {
				out = append(out, iometerTest{slot: slot, workers: active[:n]})
			}
		default:
			out = append(out, iometerTest{slot: slot, workers: active})
		}
		if len(out) > MaxIometerTests {
			return nil, usagef("Test Setup cycling", "the setup makes more than %d tests; give a larger cycling step", MaxIometerTests)
		}
	}
	if len(out) == 0 {
		return nil, usagef("access specifications", "no worker is assigned an access specification")
	}
	return out, nil
}

// specNames is the test's specification as Iometer's results name it: the
// one every worker runs, or each worker's joined.
func (s *IometerSetup) specName(t iometerTest) string {
	var names []string
	for _, i := range t.workers {
		n := s.Specs[s.Workers[i].Specs[t.slot]].Name
		if len(names) == 0 || names[len(names)-1] != n {
			names = append(names, n)
		}
	}
	return strings.Join(names, " + ")
}

func (s *IometerSetup) depthOf(t iometerTest, worker int) int {
	if t.depth > 0 {
		return t.depth
	}
	return s.Workers[worker].OutstandingIOs
}

// Plan turns the setup into what RunPlan runs: one group per test, one
// workload per active worker.
func (s *IometerSetup) Plan() (Plan, error) {
	p, _, err := s.plan()
	return p, err
}

func (s *IometerSetup) plan() (Plan, []iometerTest, error) {
	p := Plan{DestroyData: s.DestroyData, AllowSparse: s.AllowSparse, SizeGiven: s.SizeGiven, Warn: s.Warn, Progress: s.Progress, CommandLine: s.CommandLine, Shape: s.Shape,
		Notes: append([]string(nil), s.Notes...), RequireUncached: s.RequireUncached, AllowCached: s.AllowCached}
	if err := s.validate(); err != nil {
		return p, nil, err
	}
	tests, err := s.tests()
	if err != nil {
		return p, nil, err
	}
	for _, t := range tests {
		var g Group
		label := s.specName(t)
		if s.Cycle.Queue {
			label += fmt.Sprintf(" (%d outstanding I/Os)", t.depth)
		} else if s.Cycle.Workers {
			label += fmt.Sprintf(" (%d workers)", len(t.workers))
		}
		for _, i := range t.workers {
			wk := s.Workers[i]
			spec := &s.Specs[wk.Specs[t.slot]]
			w := Workload{Name: wk.Name + ": " + spec.Name, Filename: s.Filename, Offset: wk.Offset, Size: wk.Size,
				IODepth: s.depthOf(t, i), NumJobs: 1, IOEngine: s.IOEngine, Direct: s.Direct, Runtime: s.Runtime,
				RampTime: s.RampTime, TimeBased: !s.OnePass, Buffer: wk.Buffer, Seed: wk.Seed}
			spec.Apply(&w)
			g = append(g, w)
		}
		p.Groups = append(p.Groups, g)
		p.Labels = append(p.Labels, GroupLabel{Row: label})
	}
	return p, tests, nil
}

// RunIometer runs an Iometer setup and fills the result's Iometer tests
// and profile table. Like RunPlan it returns nil and a usage error when
// the setup is refused before anything is touched.
func RunIometer(ctx context.Context, s IometerSetup) (*result.Block, error) {
	p, tests, err := s.plan()
	if err != nil {
		return nil, err
	}
	res, err := RunPlan(ctx, p)
	if res != nil {
		res.Iometer, res.Profile = s.finish(tests, res)
	}
	return res, err
}

// finish sums each test's jobs as Iometer's "ALL" line does.
func (s *IometerSetup) finish(tests []iometerTest, res *result.Block) (*result.BlockIometer, *result.BlockProfile) {
	out := &result.BlockIometer{Source: s.Source, Description: s.Description, RunTimeNs: int64(s.Runtime), RampTimeNs: int64(s.RampTime),
		Cycling: s.Cycle.String(), Ignored: s.Ignored,
		CPUScope: "clyde's own process (user + system time of every thread, io_uring's kernel workers included) over all CPUs; " +
			"Iometer's counts every process on the machine"}
	prof := &result.BlockProfile{Name: s.Profile}
	next := 0
	cpus := max(1, res.Provenance.CPUs)
	for _, t := range tests {
		if next+len(t.workers) > len(res.Jobs) {
			break // the run stopped before this test
		}
		first := s.Workers[t.workers[0]]
		it := result.BlockIometerTest{AccessSpec: s.specName(t), Workers: len(t.workers), OutstandingIOs: s.depthOf(t, t.workers[0]),
			StartingSector: first.Offset / SectorSize, MaximumSize: first.Size / SectorSize}
		all, reads, writes := latency.New(), latency.New(), latency.New()
		var runtimeNs int64
		for k := range t.workers {
			j := &res.Jobs[next+k]
			it.Jobs = append(it.Jobs, next+k)
			it.ReadIOs += j.Read.TotalIOs
			it.WriteIOs += j.Write.TotalIOs
			it.BytesRead += j.Read.IOBytes
			it.BytesWritten += j.Write.IOBytes
			it.Errors += j.Read.ShortIOs + j.Write.ShortIOs
			runtimeNs = max(runtimeNs, j.ElapsedNs)
			for _, d := range []struct {
				l   result.LatNs
				rec *latency.Recorder
			}{{j.Read.Lat, reads}, {j.Write.Lat, writes}} {
				if r, err := d.l.Recorder(); err == nil {
					d.rec.Merge(r)
					all.Merge(r)
				}
			}
			if p := j.ProcessCPU; k == 0 && p != nil {
				// Every job of a group carries the process's CPU over the
				// group's window; Iometer's figure is the machine's, not a
				// worker's, so the jobs' own (per-thread) figures are not it.
				it.CPUKnown, it.CPUPct = true, (p.UsrCPU+p.SysCPU)/float64(cpus)
				it.CPUUserPct, it.CPUPrivilegedPct = p.UsrCPU/float64(cpus), p.SysCPU/float64(cpus)
			}
		}
		next += len(t.workers)
		if runtimeNs > 0 {
			secs := float64(runtimeNs) / 1e9
			it.ReadIOPS, it.WriteIOPS = float64(it.ReadIOs)/secs, float64(it.WriteIOs)/secs
			it.IOPS = it.ReadIOPS + it.WriteIOPS
			rb, wb := float64(it.BytesRead)/secs, float64(it.BytesWritten)/secs
			it.ReadMBpsDecimal, it.WriteMBpsDecimal, it.MBpsDecimal = rb/1e6, wb/1e6, (rb+wb)/1e6
			it.ReadMBpsBinary, it.WriteMBpsBinary, it.MBpsBinary = rb/(1<<20), wb/(1<<20), (rb+wb)/(1<<20)
		}
		it.AvgResponseMs, it.MaxResponseMs = meanMaxMs(all)
		it.AvgReadResponseMs, it.MaxReadResponseMs = meanMaxMs(reads)
		it.AvgWriteResponseMs, it.MaxWriteResponseMs = meanMaxMs(writes)
		// The bins start at 0: the edges between them are the rest.
		edges := make([]int64, 0, len(result.IometerLatencyBins))
		for _, b := range result.IometerLatencyBins[1:] {
			edges = append(edges, b.FromNs)
		}
		it.LatencyBins = all.CountsBelow(edges)
		out.Tests = append(out.Tests, it)

		spec := &s.Specs[first.Specs[t.slot]]
		row := result.BlockProfileRow{Label: it.AccessSpec, RW: string(spec.rw()), RWMixRead: spec.readShare(), BSBytes: spec.maxSize(),
			IODepth: it.OutstandingIOs, NumJobs: it.Workers, Jobs: it.Jobs, IOPS: it.IOPS,
			BWBytes: it.BytesRead + it.BytesWritten, ReadIOPS: it.ReadIOPS, WriteIOPS: it.WriteIOPS,
			MeanLatNs: it.AvgResponseMs * 1e6, ReadMeanNs: it.AvgReadResponseMs * 1e6, ReadMaxNs: int64(it.MaxReadResponseMs * 1e6),
			WriteMeanNs: it.AvgWriteResponseMs * 1e6, WriteMaxNs: int64(it.MaxWriteResponseMs * 1e6), P99LatNs: all.PercentileNs(99)}
		if runtimeNs > 0 {
			row.BWBytes = int64(float64(row.BWBytes) * 1e9 / float64(runtimeNs))
		}
		prof.Rows = append(prof.Rows, row)
	}
	return out, prof
}

func meanMaxMs(r *latency.Recorder) (mean, maxMs float64) {
	s := r.Summary()
	return s.MeanNs / 1e6, float64(s.MaxNs) / 1e6
}

// IometerReadPcts are the % Read of the iometer-mix preset's access
// specifications: 4 KiB, 100% random, one each.
func IometerReadPcts() []int { return []int{100, 99, 90, 50, 10, 0} }

// iometerMixSetup is the iometer-mix preset: one access specification per
// read share, run on NumJobs workers of IODepth outstanding I/Os each.
func iometerMixSetup(j *Job) IometerSetup {
	s := IometerSetup{Source: "iometer-mix", Profile: string(ProfileIometerMix), Filename: j.Filename,
		Description: "4 KiB random at each read share", Runtime: j.Runtime, RampTime: j.RampTime, IOEngine: j.IOEngine,
		Direct: j.Direct, DestroyData: j.DestroyData, AllowSparse: j.AllowSparse, AllowCached: j.AllowCached, SizeGiven: j.SizeGiven, Warn: j.Warn, Progress: j.Progress,
		CommandLine: j.CommandLine, OnePass: !j.TimeBased, Shape: j.Shape}
	var all []int
	for i, pct := range IometerReadPcts() {
		s.Specs = append(s.Specs, AccessSpec{Name: fmt.Sprintf("4K; %d%% Read; 100%% random", pct),
			Lines: []AccessLine{{Size: 4096, Weight: 100, ReadPct: pct, RandomPct: 100}}})
		all = append(all, i)
	}
	for k := range j.NumJobs {
		s.Workers = append(s.Workers, IometerWorker{Name: fmt.Sprintf("Worker %d", k+1), OutstandingIOs: j.IODepth, Specs: all,
			Offset: j.Offset, Size: j.Size, Seed: j.Seed + uint64(k), Buffer: j.Buffer})
	}
	return s
}

// usagef is a refusal of an Iometer setup: it names the part of the setup
// (an .icf's access specifications, its Test Setup's cycling), not a flag,
// since clyde iometer takes those from the file and has no such flags.
func usagef(part, format string, args ...any) error {
	return &result.UsageError{Msg: part + ": " + fmt.Sprintf(format, args...)}
}
