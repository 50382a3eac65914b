package iometer

import (
	"fmt"
	"io"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// Setup is an Iometer test setup as clyde runs it: a list of access
// specifications, disk workers that each run their assigned specifications
// in order, one test per specification (times the steps of the cycling), on
// one target. Config.Setup reads it from an .icf file; MixSetup is the
// iometer-mix preset's. Each test is one group of blockbench's plan: every
// active worker runs at the same time, each on its own descriptor with its
// own outstanding I/Os.
type Setup struct {
	// Source names where the setup came from in the result: the .icf
	// file, or the preset.
	Source      string
	Description string
	// Profile is the name the result's profile table carries.
	Profile  string
	Filename string
	Specs    []AccessSpec
	Workers  []SetupWorker
	// Runtime is each test's measured time, after RampTime.
	Runtime  time.Duration
	RampTime time.Duration
	Cycle    SetupCycle
	IOEngine blockbench.Engine
	// Direct opens with O_DIRECT, as Iometer's Linux Dynamo does;
	// RequireUncached refuses a target where that would still measure the
	// page cache (blockbench.Plan.RequireUncached).
	Direct          bool
	RequireUncached bool
	DestroyData     bool
	// AllowSparse reads an existing file with holes or never-written
	// extents as it is (blockbench.Plan.AllowSparse).
	AllowSparse bool
	// AllowCached measures a target whose uncached I/O a page cache
	// serves anyway as it is, noted (blockbench.Plan.AllowCached).
	AllowCached bool
	// SizeGiven is blockbench.Plan.SizeGiven: a worker's Size 0 means the
	// rest of an existing target and is refused for a new file.
	SizeGiven bool
	// Warn, Progress, CommandLine and Shape are blockbench.Plan's.
	Warn        io.Writer
	Progress    io.Writer
	CommandLine []string
	Shape       blockbench.Shaper `json:"-"`
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

// SetupWorker is one Iometer disk worker.
type SetupWorker struct {
	Name string
	// OutstandingIOs is Iometer's "# of Outstanding I/Os" (iodepth).
	OutstandingIOs int
	// Specs are the worker's assigned access specifications, indexes into
	// Setup.Specs, in the order they run.
	Specs []int
	// Offset and Size are the worker's region: Iometer's starting sector
	// and maximum disk size, in bytes; Size 0 is the rest of the target.
	Offset, Size int64
	// Seed is the worker's random seed (Iometer's fixed seed value, or one
	// clyde picks per worker).
	Seed   uint64
	Buffer blockbench.Buffer
}

// SetupCycle is Iometer's cycling: each specification runs once per step
// of the outstanding I/Os or of the number of workers. The zero value
// runs each once, as Iometer's NORMAL test type.
type SetupCycle struct {
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
func (c SetupCycle) steps(limit int) []int {
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

func (c SetupCycle) String() string {
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

// MaxTests bounds the tests of one setup, so a cycle with a step that
// barely moves cannot plan millions of groups.
const MaxTests = 10_000

// validate holds the setup's rules; every refusal is a usage error.
func (s *Setup) validate() error {
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
		if err := s.validateWorker(w); err != nil {
			return err
		}
	}
	return s.Cycle.validate()
}

func (s *Setup) validateWorker(w SetupWorker) error {
	if w.OutstandingIOs < 1 || w.OutstandingIOs > blockbench.MaxIODepth {
		return result.Usagef("--iodepth", "worker %q: %d outstanding I/Os is outside 1..%d", w.Name, w.OutstandingIOs, blockbench.MaxIODepth)
	}
	for _, k := range w.Specs {
		if k < 0 || k >= len(s.Specs) {
			return usagef("access specifications", "worker %q is assigned access specification %d of %d", w.Name, k+1, len(s.Specs))
		}
	}
	return nil
}

func (c SetupCycle) validate() error {
	if !c.Queue && !c.Workers {
		return nil
	}
	switch {
	case c.Queue && c.Workers:
		return usagef("Test Setup cycling", "cycle outstanding I/Os or workers, not both")
	case c.Start < 1:
		return usagef("Test Setup cycling", "cycling starts at %d; give 1 or more", c.Start)
	case c.Queue && (c.End < c.Start || c.End > blockbench.MaxIODepth):
		return usagef("Test Setup cycling", "outstanding I/Os cycle from %d to %d; the end must be %d..%d", c.Start, c.End, c.Start, blockbench.MaxIODepth)
	case c.Step < 1:
		return usagef("Test Setup cycling", "a cycling step of %d never moves; give 1 or more", c.Step)
	}
	return nil
}

// usagef is a refusal of an Iometer setup: it names the part of the setup
// (an .icf's access specifications, its Test Setup's cycling), not a flag,
// since clyde iometer takes those from the file and has no such flags.
func usagef(part, format string, args ...any) error {
	return &result.UsageError{Msg: part + ": " + fmt.Sprintf(format, args...)}
}
