package iometer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/input"
	"github.com/clydebench/clyde/result"
)

// Options are what the command line adds to a file: the target every
// worker runs on in place of the file's (Windows) targets, and how.
type Options struct {
	Filename string
	// Size is the region of a worker whose disk maximum size is 0 (the
	// whole disk): 0 takes the rest of an existing target, or
	// blockbench.DefaultSize of a file clyde creates; SizeGiven refuses
	// the latter, as clyde block --size 0 does.
	Size      int64
	SizeGiven bool
	IOEngine  blockbench.Engine
	// Direct opens with O_DIRECT, as Iometer's Linux Dynamo does, and
	// refuses a target where that would still measure the page cache.
	Direct      bool
	DestroyData bool
	// AllowSparse reads an existing file with holes or never-written
	// extents as it is (Plan.AllowSparse).
	AllowSparse bool
	// AllowCached measures a target whose uncached I/O a page cache
	// serves anyway as it is, noted (Plan.AllowCached).
	AllowCached bool
	// Seed seeds the workers without a fixed seed, one stream each.
	Seed uint64
	// Runtime and RampTime replace the file's when above 0 / not nil.
	Runtime     time.Duration
	RampTime    *time.Duration
	Warn        io.Writer
	Progress    io.Writer
	CommandLine []string
}

// Load reads an .icf file by path through internal/input: a regular file
// of at most MaxFileBytes (a FIFO or a device is refused without blocking),
// given up at the first ^C (ctx).
func Load(ctx context.Context, path string) (*Config, error) {
	data, err := input.ReadFile(ctx, path, MaxFileBytes)
	if err != nil {
		if input.IsRefused(err) {
			return nil, result.Usagef("FILE.icf", "%v; give an Iometer configuration file (.icf)", err)
		}
		return nil, result.Usagef("FILE.icf", "%v", err)
	}
	return Parse(bytes.NewReader(data), path)
}

// Plan is the file as blockbench runs it: one group per test.
func (c *Config) Plan(o Options) (blockbench.Plan, error) {
	s, err := c.Setup(o)
	if err != nil {
		return blockbench.Plan{}, err
	}
	return s.Plan()
}

// Setup turns the file into the setup Run runs. The
// workers that run are the disk workers with a disk target (all of them
// when no worker has one: the file was saved without target assignments),
// each on o.Filename in place of its own targets.
func (c *Config) Setup(o Options) (Setup, error) {
	s := Setup{Source: c.Source, Description: c.Description, Profile: "iometer", Filename: o.Filename,
		Runtime: c.RunTime, RampTime: c.RampUp, IOEngine: o.IOEngine, Direct: o.Direct, RequireUncached: o.Direct, DestroyData: o.DestroyData, AllowSparse: o.AllowSparse, AllowCached: o.AllowCached,
		SizeGiven: o.SizeGiven, Warn: o.Warn, Progress: o.Progress, CommandLine: o.CommandLine}
	at := func(n int) string { return fmt.Sprintf("%s:%d", c.Source, n) }
	if o.Runtime > 0 {
		s.Runtime = o.Runtime
	} else if c.RunTime == 0 {
		return s, result.Usagef("--runtime", "%s has a Run Time of 0 (Iometer: run until stopped); give --runtime", c.Source)
	}
	if o.RampTime != nil {
		s.RampTime = *o.RampTime
	}
	for _, sp := range c.Specs {
		s.Specs = append(s.Specs, sp.AccessSpec)
		if sp.OldFormat {
			s.Notes = append(s.Notes, fmt.Sprintf("access specification %q (line %d) is in the format of Iometer before 1998.05.21: as Iometer does, it ran on every worker, its I/Os aligned at %d bytes", sp.Name, sp.Line, oldFormatAlign))
		}
	}
	if len(s.Specs) == 0 {
		return s, result.Usagef(c.Source, "no access specifications (no 'ACCESS SPECIFICATIONS section, or an empty one)")
	}
	workers, idle, err := c.runningWorkers()
	if err != nil {
		return s, err
	}
	s.Ignored = append(append(s.Ignored, c.Ignored...), idle...)
	for k, w := range workers {
		iw := SetupWorker{Name: w.Name, OutstandingIOs: w.OutstandingIOs, Offset: w.StartSector * SectorSize,
			Size: w.MaxSectors * SectorSize, Seed: o.Seed + uint64(k), Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}}
		if w.MaxSectors == 0 {
			iw.Size = o.Size
		}
		if w.FixedSeed {
			iw.Seed = w.Seed
		}
		switch w.DataPattern {
		case 0:
			iw.Buffer = blockbench.Buffer{Kind: blockbench.BufferZero}
			s.Notes = append(s.Notes, fmt.Sprintf("worker %q: Iometer's data pattern 0 (repeating bytes, one byte value per write) ran as all-zero writes", w.Name))
		case 1:
			s.Notes = append(s.Notes, fmt.Sprintf("worker %q: Iometer's data pattern 1 (pseudo random) ran as clyde's random buffer, which does not compress", w.Name))
		case -1:
			if c.ManagerList {
				s.Notes = append(s.Notes, fmt.Sprintf("worker %q has no data pattern (a file from before Iometer 1.1.0); it wrote random data", w.Name))
			}
		}
		for i, name := range w.Specs {
			k := c.specIndex(name)
			if k < 0 {
				line := w.Line
				if i < len(w.SpecLines) {
					line = w.SpecLines[i]
				}
				return s, result.Usagef(at(line), "worker %q is assigned access specification %q, which the file does not define", w.Name, name)
			}
			iw.Specs = append(iw.Specs, k)
		}
		if len(w.Targets) > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("worker %q: its target %s ran on %s", w.Name, strings.Join(quoted(w.Targets), ", "), o.Filename))
			if len(w.Targets) > 1 {
				s.Notes = append(s.Notes, fmt.Sprintf("worker %q had %d targets; Iometer keeps %d outstanding I/Os on each, clyde %d on the one target",
					w.Name, len(w.Targets), w.OutstandingIOs, w.OutstandingIOs))
			}
		}
		s.Workers = append(s.Workers, iw)
	}
	if err := c.cycling(&s); err != nil {
		return s, err
	}
	return s, nil
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func (c *Config) specIndex(name string) int {
	for i, sp := range c.Specs {
		if strings.EqualFold(sp.Name, name) {
			return i
		}
	}
	return -1
}

// runningWorkers are the workers Iometer would run: disk workers with a
// disk target. Without a manager list, Iometer starts Default Disk Workers
// to Spawn workers with the specifications assigned ALL or DISK by default.
func (c *Config) runningWorkers() (run []Worker, idle []string, err error) {
	if !c.ManagerList {
		n := c.DiskWorkersToSpawn
		switch n {
		case -1:
			n = runtime.NumCPU()
		case 0:
			n = 1
		}
		var specs []string
		for _, sp := range c.Specs {
			if sp.Assignment == "ALL" || sp.Assignment == "DISK" {
				specs = append(specs, sp.Name)
			}
		}
		if len(specs) == 0 {
			return nil, nil, result.Usagef(c.Source, "no MANAGER LIST and no access specification assigned ALL or DISK by default: nothing to run")
		}
		for k := range n {
			run = append(run, Worker{Name: fmt.Sprintf("Worker %d", k+1), Disk: true, OutstandingIOs: 1, DataPattern: -1, Specs: specs})
		}
		return run, nil, nil
	}
	anyTarget := false
	for _, w := range c.Workers {
		anyTarget = anyTarget || len(w.Targets) > 0
	}
	for _, w := range c.Workers {
		switch {
		case anyTarget && len(w.Targets) == 0:
			idle = append(idle, fmt.Sprintf("line %d: worker %q, which has no disk target (Iometer leaves it idle)", w.Line, w.Name))
		case len(w.Specs) == 0:
			idle = append(idle, fmt.Sprintf("line %d: worker %q, which is assigned no access specification", w.Line, w.Name))
		default:
			run = append(run, w)
		}
	}
	if len(run) == 0 {
		return nil, idle, result.Usagef(c.Source, "no disk worker with an assigned access specification: nothing to run")
	}
	return run, idle, nil
}

// cycling sets the setup's cycling from the Test Type. Cycling targets
// means nothing on one target: such a test type runs as NORMAL, with a
// note.
func (c *Config) cycling(s *Setup) error {
	check := func(cy Cycle, queue bool) error {
		at := fmt.Sprintf("%s:%d", c.Source, cy.Line)
		switch {
		case cy.Line == 0:
			return result.Usagef(at, "Test Type %s needs its cycling line ('Queue Depth Cycling or 'Worker Cycling), which the file lacks", c.TestType)
		case cy.Start < 1:
			return result.Usagef(at, "cycling starts at %d; give 1 or more", cy.Start)
		case cy.Step < 1:
			return result.Usagef(at, "a cycling step of %d never moves; give 1 or more", cy.Step)
		case queue && (cy.End < cy.Start || cy.End > blockbench.MaxIODepth):
			return result.Usagef(at, "outstanding I/Os cycle from %d to %d; the end must be %d..%d", cy.Start, cy.End, cy.Start, blockbench.MaxIODepth)
		}
		return nil
	}
	switch c.TestType {
	case "", "NORMAL":
	case "CYCLE_OUTSTANDING_IOS", "CYCLE_OUTSTANDING_IOS_AND_TARGETS":
		q := c.QueueCycle
		if err := check(q, true); err != nil {
			return err
		}
		s.Cycle = SetupCycle{Queue: true, Start: q.Start, End: q.End, Step: q.Step, Exponential: q.Exponential}
	case "CYCLE_WORKERS", "CYCLE_WORKERS_AND_TARGETS":
		wc := c.WorkerCycle
		if err := check(wc, false); err != nil {
			return err
		}
		if wc.Start > len(s.Workers) {
			return result.Usagef(fmt.Sprintf("%s:%d", c.Source, wc.Line), "worker cycling starts at %d workers; the file runs %d", wc.Start, len(s.Workers))
		}
		s.Cycle = SetupCycle{Workers: true, Start: wc.Start, Step: wc.Step, Exponential: wc.Exponential}
	default:
		s.Ignored = append(s.Ignored, fmt.Sprintf("line %d: Test Type %s (clyde runs on one target, so it ran as NORMAL)", c.TestTypeLine, c.TestType))
		return nil
	}
	if strings.HasSuffix(c.TestType, "_AND_TARGETS") {
		s.Ignored = append(s.Ignored, fmt.Sprintf("line %d: the target cycling of Test Type %s (clyde runs on one target)", c.TestTypeLine, c.TestType))
	}
	return nil
}
