package blockbench

import (
	"fmt"
	"strings"

	"github.com/clydebench/clyde/result"
)

// profileRow is one line of a preset's table.
type profileRow struct {
	label   string
	rw      RW
	mix     int
	bs      int64
	depth   int
	numJobs int
	load    int
}

// profileTable is a preset being run: its rows. (cdm.go and iometer.go
// plan and fill CrystalDiskMark's and Iometer's presets.)
type profileTable struct {
	name Profile
	rows []profileRow
}

// Profile loads, exported so that documentation and tests can show them.
var (
	// OrionSmallLoads and OrionLargeLoads are the outstanding-I/O points of
	// the orion preset (ORION's "simple" run: small, then large, in isolation).
	OrionSmallLoads = []int{1, 2, 4, 8, 16, 32}
	OrionLargeLoads = []int{1, 2, 4, 8}
	// SweepSizes are bs-sweep's block sizes, 1 KiB to 1 MiB.
	SweepSizes = []int64{1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20}
)

// plan turns a job into the workloads it runs, one group each (a plain job
// per block size, or one pass of one preset row), the step each group is,
// and a table for presets.
func (j *Job) plan() (Plan, []step, *profileTable, error) {
	p := Plan{DestroyData: j.DestroyData, SizeGiven: j.SizeGiven, Warn: j.Warn, CommandLine: j.CommandLine, Progress: j.Progress}
	var steps []step
	add := func(w Workload, st step) {
		p.Groups = append(p.Groups, Group{w})
		steps = append(steps, st)
	}
	if j.Profile == ProfileNone {
		for _, bs := range j.BlockSizes {
			add(workloadFrom(j, j.RW, bs), step{row: -1})
		}
		return p, steps, nil, nil
	}
	t := &profileTable{name: j.Profile, rows: profileRows(j)}
	if j.Profile == ProfileOrion && len(t.rows) > 0 && t.rows[0].numJobs > 1 {
		p.Notes = append(p.Notes, "the engine keeps one I/O in flight, so each ORION load of N outstanding I/Os ran as N workers of one I/O each")
	}
	for r, row := range t.rows {
		w := workloadFrom(j, row.rw, row.bs)
		w.Name = fmt.Sprintf("%s %s", row.label, w.RW)
		w.RWMixRead, w.IODepth, w.NumJobs = row.mix, row.depth, row.numJobs
		if row.depth > 1 {
			if e, err := pickEngine(w.IOEngine, row.depth); err == nil && !e.queues() {
				return p, nil, nil, result.Usagef("--ioengine", "the %s row %q needs %d I/Os in flight, and %s keeps one at a time; "+
					"use --ioengine auto or one of: %s", j.Profile, row.label, row.depth, e.name(), strings.Join(queueingEngines(), ", "))
			}
		}
		add(w, step{row: r})
	}
	return p, steps, t, nil
}

// profileRows lists a preset's rows in the order the original prints them.
func profileRows(j *Job) []profileRow {
	var rows []profileRow
	switch j.Profile {
	case ProfileOrion:
		// ORION keeps its outstanding I/Os with asynchronous I/O; where
		// clyde's engine cannot, a load of N runs as N workers of one I/O
		// each, as ORION's own non-async mode does (the result says so).
		e, ok := engineByName(j.IOEngine)
		if !ok {
			e, _ = pickEngine(EngineAuto, 2)
		}
		byThreads := !e.queues()
		point := func(label string, bs int64, load int) profileRow {
			r := profileRow{label: label, rw: RandRead, bs: bs, depth: load, numJobs: 1, load: load}
			if byThreads {
				r.depth, r.numJobs = 1, load
			}
			return r
		}
		for _, l := range OrionSmallLoads {
			rows = append(rows, point(fmt.Sprintf("Small=%d Large=0", l), 8<<10, l))
		}
		for _, l := range OrionLargeLoads {
			rows = append(rows, point(fmt.Sprintf("Small=0 Large=%d", l), 1<<20, l))
		}
	case ProfileBSSweep:
		for _, bs := range SweepSizes {
			rows = append(rows, profileRow{label: sizeLabel(bs), rw: j.RW, mix: j.RWMixRead, bs: bs, depth: j.IODepth, numJobs: j.NumJobs})
		}
	}
	return rows
}

// finish fills the table from the jobs that ran; each row has one pass.
func (t *profileTable) finish(steps []step, jobs []result.BlockJob) *result.BlockProfile {
	// Each step is one group of one job, so jobs and steps line up.
	out := &result.BlockProfile{Name: string(t.name)}
	for r, row := range t.rows {
		pr := result.BlockProfileRow{Label: row.label, RW: string(row.rw), RWMixRead: row.mix, BSBytes: row.bs,
			IODepth: row.depth, NumJobs: row.numJobs, Load: row.load}
		best := -1
		for i := range jobs {
			if i >= len(steps) || steps[i].row != r {
				continue
			}
			pr.Jobs = append(pr.Jobs, i)
			if best < 0 || totalIOPS(&jobs[i]) > totalIOPS(&jobs[best]) {
				best = i
			}
		}
		if best >= 0 {
			fillRow(&pr, &jobs[best])
			for _, i := range pr.Jobs {
				if m := meanLat(&jobs[i]); m > 0 && m < pr.MeanLatNs {
					pr.MeanLatNs = m
				}
			}
		}
		out.Rows = append(out.Rows, pr)
	}
	return out
}

func totalIOPS(j *result.BlockJob) float64 { return j.Read.IOPS + j.Write.IOPS }

// meanLat is the mean latency over both directions.
func meanLat(j *result.BlockJob) float64 {
	n := j.Read.Lat.N + j.Write.Lat.N
	if n == 0 {
		return 0
	}
	return (j.Read.Lat.Mean*float64(j.Read.Lat.N) + j.Write.Lat.Mean*float64(j.Write.Lat.N)) / float64(n)
}

func fillRow(pr *result.BlockProfileRow, j *result.BlockJob) {
	pr.IOPS = totalIOPS(j)
	pr.BWBytes = j.Read.BWBytes + j.Write.BWBytes
	pr.ReadIOPS, pr.WriteIOPS = j.Read.IOPS, j.Write.IOPS
	pr.MeanLatNs = meanLat(j)
	pr.ReadMeanNs, pr.ReadMaxNs = j.Read.Lat.Mean, j.Read.Lat.Max
	pr.WriteMeanNs, pr.WriteMaxNs = j.Write.Lat.Mean, j.Write.Lat.Max
	pr.P99LatNs = max(p99(j.Read.Lat.Percentile), p99(j.Write.Lat.Percentile))
}

func p99(ps result.Percentiles) int64 {
	v, _ := ps.At(99)
	return v
}
