package cdm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// row is one test in one mode with one test data, as planned: its groups
// are the warm-up, then the passes.
type row struct {
	test   test
	mode   string // read, write, mix
	data   Data
	warmup int // group index
	passes []int
}

// Planned is a CrystalDiskMark run as blockbench runs it, and what its
// table is made from.
type Planned struct {
	// Plan is what blockbench.RunPlan runs: every test read, then
	// written, then mixed, each with every test data, each an uncounted
	// warm-up group then one group per pass.
	Plan blockbench.Plan
	job  blockbench.Job
	opts Options
	rows []row
}

// target is where the test files go: a private directory in the
// directory the job's Filename names (or that holds the new file it
// names), or an existing file or device, in place. It only looks: the
// files are resolved, admitted and created by blockbench.
func target(j *blockbench.Job, data Data) (files map[Data]string, private bool, err error) {
	fi, err := os.Stat(j.Filename)
	switch {
	case err == nil && fi.IsDir():
		files = map[Data]string{Random: filepath.Join(j.Filename, FileName), Zero: filepath.Join(j.Filename, FileName)}
		if data == Both {
			files[Random] = filepath.Join(j.Filename, "clyde-cdm-random.tmp")
			files[Zero] = filepath.Join(j.Filename, "clyde-cdm-0fill.tmp")
		}
		return files, true, nil
	case errors.Is(err, fs.ErrNotExist):
		files = map[Data]string{Random: j.Filename, Zero: j.Filename}
		if data == Both {
			files[Zero] = j.Filename + "-0fill"
		}
		return files, true, nil
	case err != nil:
		return nil, false, result.Usagef("--filename", "cannot look at %s: %v", j.Filename, err)
	case data == Both:
		return nil, false, result.Usagef("--test-data", "both needs two test files clyde creates and fills, one with each data; %s exists: give a directory or a new path", j.Filename)
	}
	return map[Data]string{Random: j.Filename, Zero: j.Filename}, false, nil
}

// Plan is the CrystalDiskMark run as groups: every test read, then
// written, then mixed (as DiskBench.cpp runs them), each with every test
// data, each an uncounted warm-up pass then the passes, with the interval
// before every test but the first.
func Plan(j blockbench.Job, o Options) (*Planned, error) {
	pl := &Planned{job: j, opts: o}
	pl.Plan = blockbench.Plan{DestroyData: j.DestroyData, AllowSparse: j.AllowSparse, AllowCached: j.AllowCached, SizeGiven: j.SizeGiven, Warn: j.Warn, CommandLine: j.CommandLine, Progress: j.Progress, Shape: j.Shape,
		RequireUncached: !o.Buffered, Fill: o.Fill}
	if err := o.validate(&j); err != nil {
		return nil, err
	}
	files, private, err := target(&j, o.Data)
	if err != nil {
		return nil, err
	}
	pl.Plan.PrivateDir = private
	if err := o.checkQueues(&j); err != nil {
		return nil, err
	}
	for _, mode := range o.modes() {
		for _, t := range presets[o.Preset].tests {
			for _, data := range o.datas() {
				pl.addRow(t, mode, data, files[data])
			}
		}
	}
	pl.Plan.Notes = pl.notes(private)
	return pl, nil
}

// checkQueues refuses an engine that keeps one I/O at a time when a test
// needs more in flight.
func (o *Options) checkQueues(j *blockbench.Job) error {
	for _, t := range presets[o.Preset].tests {
		if t.queues <= 1 {
			continue
		}
		if e, queues, err := blockbench.ResolveEngine(j.IOEngine, t.queues); err == nil && !queues {
			return result.Usagef("--ioengine", "the cdm test %s needs %d I/Os in flight per thread, and %s keeps one at a time; "+
				"use --ioengine auto or one of: %s", t.label(), t.queues, e, orNone(blockbench.QueueingEngines()))
		}
	}
	return nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// modes are the directions the tests run in, in order: read, write, and
// with Mix the mix.
func (o *Options) modes() []string {
	modes := []string{"read", "write"}
	if o.Mix {
		modes = append(modes, "mix")
	}
	return modes
}

// datas are the test data each test runs with, in order.
func (o *Options) datas() []Data {
	if o.Data == Both {
		return []Data{Random, Zero}
	}
	return []Data{o.Data}
}

// addRow plans one row on file: its warm-up group, then a group per pass,
// the interval before the warm-up of every row but the first.
func (pl *Planned) addRow(t test, mode string, data Data, file string) {
	j, o, p := &pl.job, &pl.opts, &pl.Plan
	r := row{test: t, mode: mode, data: data}
	w := blockbench.Workload{Filename: file, BS: t.bs, Size: j.Size, Offset: j.Offset, IODepth: t.queues, NumJobs: t.threads,
		IOEngine: j.IOEngine, Direct: !o.Buffered, Runtime: j.Runtime, TimeBased: j.TimeBased, Seed: j.Seed,
		RWMixRead: o.MixRead, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}, RW: rw(t.random, mode)}
	if data == Zero {
		w.Buffer = blockbench.Buffer{Kind: blockbench.BufferZero}
	}
	name, label := t.label()+" "+mode, t.label()+" "+mode
	if o.Data == Both {
		name += map[Data]string{Random: " random", Zero: " 0fill"}[data]
		label += map[Data]string{Random: " (random)", Zero: " (0Fill)"}[data]
	}
	idle := o.Interval
	if len(p.Groups) == 0 {
		idle = 0
	}
	for k := 0; k <= o.Passes; k++ {
		pass := w
		pass.Name = fmt.Sprintf("%s pass %d", name, k)
		if k == 0 {
			pass.Name = name + " (warm-up)"
			r.warmup = len(p.Groups)
		} else {
			r.passes = append(r.passes, len(p.Groups))
			idle = 0
		}
		p.Groups = append(p.Groups, blockbench.Group{pass})
		p.Idle = append(p.Idle, idle)
		p.Labels = append(p.Labels, blockbench.GroupLabel{Row: label, Pass: k, Passes: o.Passes})
	}
	pl.rows = append(pl.rows, r)
}

// notes are what the run did that CrystalDiskMark would not.
func (pl *Planned) notes(private bool) []string {
	var notes []string
	if pl.opts.Buffered {
		notes = append(notes, "--buffered: every test ran through the page cache (CrystalDiskMark never does), so the figures are of memory as much as of the drive")
	}
	if !private && pl.opts.Data != Random {
		notes = append(notes, fmt.Sprintf("%s already existed: the writes used all-0x00 buffers, and the reads read what it held", pl.job.Filename))
	}
	return notes
}

func rw(random bool, mode string) blockbench.RW {
	switch {
	case mode == "mix" && random:
		return blockbench.RandRW
	case mode == "mix":
		return blockbench.ReadWrite
	case mode == "write" && random:
		return blockbench.RandWrite
	case mode == "write":
		return blockbench.Write
	case random:
		return blockbench.RandRead
	}
	return blockbench.Read
}
